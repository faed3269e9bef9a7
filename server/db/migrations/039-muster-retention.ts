import { sql, type Kysely } from 'kysely';

/**
 * 应急清点名单 under 访客个人信息's retention (docs/retention.md, docs/muster.md):
 *
 * - muster_subject.anonymised_at: when a retention run (or a person's request,
 *   modules/pii.ts) anonymised the row's name, phone and ID number; null until then.
 * - muster_subject_once is unique over the rows not yet anonymised only: masked
 *   ID numbers (first 4 and last 4 kept) may collide inside one muster. Every
 *   lookup by (muster_id, kind, subject) names `anonymised_at is null`, so SQLite
 *   uses it too.
 * - muster_subject by muster, then anonymised_at and id: every row of a muster
 *   (the board, the list, the end's and the page's counts, which the partial index
 *   does not hold), or those not yet anonymised in order (a run's count and batches).
 * - muster by its end: the ended musters past a cut-off, oldest first.
 * - muster_subject by subject, not yet anonymised: a person's own rows by ID number.
 * - muster_event by subject: the mark texts that name a person, rewritten with them.
 */
export function musterRetention() {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('muster_subject').addColumn('anonymised_at', 'varchar(19)').execute();
      await db.schema.dropIndex('muster_subject_once').execute();
      await db.schema.createIndex('muster_subject_once').on('muster_subject').columns(['muster_id', 'kind', 'subject']).unique().where(sql.ref('anonymised_at'), 'is', null).execute();
      await db.schema.createIndex('muster_subject_muster').on('muster_subject').columns(['muster_id', 'anonymised_at', 'id']).execute();
      await db.schema.createIndex('muster_ended').on('muster').columns(['ended_at', 'id']).execute();
      await db.schema.createIndex('muster_subject_subject').on('muster_subject').column('subject').where(sql.ref('anonymised_at'), 'is', null).execute();
      await db.schema.createIndex('muster_event_subject').on('muster_event').column('subject_id').execute();
    },
  };
}
