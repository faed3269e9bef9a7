import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';
import { postgresTriggers, sqliteTriggers, sumRollups, upsert, type SumRollup, type SumSource } from './023-report-rollups';
import { hourRollup } from './024-board-figures';

const time = 'varchar(19)';

/**
 * Personal data kept only as long as its class allows (domain/retention.ts,
 * server/modules/retention/).
 *
 * - retention_policy: the days of each class someone set, by whom and when;
 *   a class without a row keeps its default.
 * - retention_run and retention_run_class: the proof of every run, written as
 *   it goes (a run's row when it starts, each class's counts in the
 *   transaction of each batch), so a run cut short still shows what it did.
 * - photos_removed_at / anonymised_at on the appointments and the person
 *   list (zip_removed_at on person imports): when a run took the row's photos
 *   or anonymised its fields; partial indexes over the rows not yet taken keep
 *   each night's search to what is new since the last.
 * - retention_purge_mark: a row of it exists only inside a run's own
 *   transaction (inserted and deleted before COMMIT, so no other transaction
 *   ever sees one); while it does, deleting crossings leaves the reports'
 *   rollups as they are. The reports keep counting a crossing after its row
 *   has gone; any other DELETE still takes its share away.
 */
export function retention(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('retention_policy')
        .addColumn('class_key', 'varchar(30)', (c) => c.primaryKey())
        .addColumn('days', 'integer', (c) => c.notNull())
        .addColumn('updated_by', 'integer')
        // The name when it was set: a later rename does not rewrite who changed the policy.
        .addColumn('updated_by_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('updated_at', time, (c) => c.notNull())
        .execute();

      await withId(db.schema.createTable('retention_run'), 'id', dialect)
        // How it was started: 'nightly' | 'manual'.
        .addColumn('kind', 'varchar(10)', (c) => c.notNull())
        .addColumn('started_at', time, (c) => c.notNull())
        // Null while it runs, and for ever for a run whose server stopped half way.
        .addColumn('finished_at', time)
        // Epoch ms of the end: the metrics' age of the last run whatever the park's zone.
        .addColumn('finished_ms', 'bigint')
        .addColumn('user_id', 'integer')
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('host', 'varchar(100)', (c) => c.notNull())
        .addColumn('pid', 'integer', (c) => c.notNull())
        .addColumn('error', 'varchar(2000)')
        .execute();

      await db.schema
        .createTable('retention_run_class')
        .addColumn('run_id', 'integer', (c) => c.notNull())
        .addColumn('class_key', 'varchar(30)', (c) => c.notNull())
        .addColumn('days', 'integer', (c) => c.notNull())
        .addColumn('cutoff', time, (c) => c.notNull())
        .addColumn('row_count', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('file_count', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('oldest_kept', time)
        .addPrimaryKeyConstraint('retention_run_class_pk', ['run_id', 'class_key'])
        .execute();

      await db.schema
        .createTable('retention_purge_mark')
        .addColumn('run_id', 'integer', (c) => c.notNull())
        .execute();

      for (const table of ['car_application', 'person_application', 'person_black_white_list']) {
        await db.schema.alterTable(table).addColumn('photos_removed_at', time).execute();
        await db.schema.alterTable(table).addColumn('anonymised_at', time).execute();
      }
      await db.schema.alterTable('person_import_task').addColumn('zip_removed_at', time).execute();

      // What each night looks for: rows not yet taken, by the time their period runs from.
      const indexes = [
        'CREATE INDEX car_application_photos_due ON car_application (visitor_end_time) WHERE photos_removed_at IS NULL',
        'CREATE INDEX car_application_fields_due ON car_application (visitor_end_time) WHERE anonymised_at IS NULL',
        'CREATE INDEX person_application_photos_due ON person_application (visit_end_time) WHERE photos_removed_at IS NULL',
        'CREATE INDEX person_application_fields_due ON person_application (visit_end_time) WHERE anonymised_at IS NULL',
        'CREATE INDEX person_list_photos_due ON person_black_white_list (id) WHERE photos_removed_at IS NULL',
        'CREATE INDEX person_list_fields_due ON person_black_white_list (id) WHERE anonymised_at IS NULL',
        // Crossings still holding images: after the first run, only the last gate_images days of them.
        "CREATE INDEX gate_record_car_images ON gate_record_car (capture_time, id) WHERE (plate_image <> '' OR vehicle_image <> '')",
        "CREATE INDEX gate_record_person_images ON gate_record_person (capture_time, id) WHERE snapshot <> ''",
        'CREATE INDEX transport_list_created ON transport_list (create_time, id)',
      ];
      for (const s of indexes) await sql.raw(s).execute(db);

      // The crossing rollups' DELETE share, taken away only when no purge mark is there (see above).
      const guarded = (s: SumSource): SumSource => ({ ...s, when: (r) => `${s.when(r)} AND NOT EXISTS (SELECT 1 FROM retention_purge_mark)` });
      const crossingDay = sumRollups.find((r) => r.name === 'stat_crossing_day')!;
      const rollups: SumRollup[] = [crossingDay, hourRollup];
      for (const rollup of rollups) {
        for (const s of rollup.sources) {
          const name = `${rollup.name}_${s.table}`;
          const del = [upsert(rollup, guarded(s), 'OLD', -1)];
          if (dialect === 'postgres') {
            await sql.raw(`DROP TRIGGER ${name} ON ${s.table}`).execute(db);
            await sql.raw(`DROP FUNCTION ${name}()`).execute(db);
            const add = [upsert(rollup, s, 'NEW', 1)];
            for (const st of postgresTriggers(name, s.table, s.watch, add, [upsert(rollup, s, 'OLD', -1), ...add], del)) await sql.raw(st).execute(db);
          } else {
            await sql.raw(`DROP TRIGGER ${name}_del`).execute(db);
            for (const st of sqliteTriggers(name, s.table, s.watch, [], [], del)) await sql.raw(st).execute(db);
          }
        }
      }
    },
  };
}
