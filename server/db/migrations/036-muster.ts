import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * 应急清点, the emergency headcount (docs/muster.md).
 *
 * - muster: one per headcount. `running` is 1 while it runs and null once it
 *   has ended; its unique index lets only one run at a time, across servers.
 * - muster_subject: who and what was inside when it started (a snapshot of
 *   the open stays, with the name, phone, enterprise and gate to call them
 *   by), and people found at an assembly point who were not on it (`extra`).
 *   A row's mark fields are set once, by the first mark.
 * - muster_event: the timeline the report prints: start, each mark with who,
 *   where and when, and end. `client_id` is the marking phone's own id for a
 *   mark, so a mark sent again from its outbox is stored once.
 */
export function muster(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('muster'), 'id', dialect)
        .addColumn('visit_area', 'integer', (c) => c.notNull())
        .addColumn('drill', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('message', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        // Mobile numbers texted at the start.
        .addColumn('sms_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('running', 'integer')
        .addColumn('started_at', time, (c) => c.notNull())
        .addColumn('started_by', 'integer', (c) => c.notNull())
        .addColumn('started_by_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('ended_at', time)
        .addColumn('ended_by', 'integer')
        .addColumn('ended_by_name', 'varchar(30)')
        .execute();
      await db.schema.createIndex('muster_one_running').on('muster').column('running').unique().execute();
      await db.schema.createIndex('muster_started').on('muster').columns(['started_at', 'id']).execute();

      await withId(db.schema.createTable('muster_subject'), 'id', dialect)
        .addColumn('muster_id', 'integer', (c) => c.notNull())
        // 'person' | 'car'
        .addColumn('kind', 'varchar(10)', (c) => c.notNull())
        // A vehicle's plate or a person's ID number.
        .addColumn('subject', 'varchar(40)', (c) => c.notNull())
        .addColumn('name', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('phone', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('enterprise', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('gate', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('entry_time', time)
        // 'visit' | 'white' | 'none' | 'extra'
        .addColumn('source', 'varchar(10)', (c) => c.notNull())
        .addColumn('application_number', 'varchar(40)', (c) => c.notNull().defaultTo(''))
        .addColumn('marked_at', time)
        .addColumn('marked_by', 'integer')
        .addColumn('marked_by_name', 'varchar(30)')
        .addColumn('mark_place', 'varchar(60)')
        // 'pass' | 'idcard' | 'list' | 'plate'
        .addColumn('mark_method', 'varchar(10)')
        .execute();
      await db.schema.createIndex('muster_subject_once').on('muster_subject').columns(['muster_id', 'kind', 'subject']).unique().execute();

      await withId(db.schema.createTable('muster_event'), 'id', dialect)
        .addColumn('muster_id', 'integer', (c) => c.notNull())
        // 'start' | 'mark' | 'end'
        .addColumn('type', 'varchar(10)', (c) => c.notNull())
        .addColumn('at', time, (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('place', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('subject_id', 'integer')
        .addColumn('client_id', 'varchar(64)')
        .addColumn('text', 'varchar(300)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('muster_event_timeline').on('muster_event').columns(['muster_id', 'id']).execute();
      await db.schema.createIndex('muster_event_client_once').on('muster_event').columns(['muster_id', 'client_id']).unique().where(sql.ref('client_id'), 'is not', null).execute();
    },
  };
}
