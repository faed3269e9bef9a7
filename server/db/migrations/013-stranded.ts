import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * Stranded detection (DESIGN.md §8). A presence is one stay of a vehicle or
 * person inside the park: opened by an 'in' crossing, closed by the next
 * 'out'; `deadline` is when the stay becomes stranded (the visit's end, or
 * sooner the model's dwell limit). At most one open stay per subject (a
 * partial unique index). An alarm belongs to one stay (unique presence_id),
 * so two servers' timers raise it once between them.
 *
 * vehicle_type.dwell_limit_minutes: the longest a vehicle of the model may
 * stay in one visit; null means the visit's end.
 */
export function stranded(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('vehicle_type').addColumn('dwell_limit_minutes', 'integer').execute();

      await withId(db.schema.createTable('presence'), 'id', dialect)
        .addColumn('kind', 'varchar(8)', (c) => c.notNull())
        .addColumn('subject', 'varchar(20)', (c) => c.notNull())
        .addColumn('application_id', 'integer')
        .addColumn('visit_area', 'integer')
        .addColumn('deadline', time)
        .addColumn('entry_time', time, (c) => c.notNull())
        .addColumn('entry_device_id', 'integer', (c) => c.notNull())
        .addColumn('exit_time', time)
        .addColumn('exit_device_id', 'integer')
        // Black-listed when it entered: stranded at once (deadline = entry time).
        .addColumn('black', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('alarmed', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('presence_open_subject').on('presence').columns(['kind', 'subject']).unique().where(sql.ref('exit_time'), 'is', null).execute();
      // The timer's scan: open, not yet alarmed, past the deadline.
      await db.schema.createIndex('presence_due').on('presence').columns(['alarmed', 'deadline']).where(sql.ref('exit_time'), 'is', null).execute();

      await withId(db.schema.createTable('stranded_alarm'), 'id', dialect)
        .addColumn('kind', 'varchar(8)', (c) => c.notNull())
        .addColumn('presence_id', 'integer', (c) => c.notNull().unique())
        .addColumn('application_id', 'integer')
        // What the alarm says about the visit, kept as it was when raised (JSON).
        .addColumn('application_info', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('license_plate', 'varchar(16)', (c) => c.notNull().defaultTo(''))
        .addColumn('idcard', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('person_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('visit_area', 'integer')
        // 1 overstayed the visit, 2 overstayed the model's dwell limit, 3 black-listed inside.
        .addColumn('level_type', 'integer', (c) => c.notNull())
        .addColumn('is_black', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('entry_time', time, (c) => c.notNull())
        .addColumn('alarm_time', time, (c) => c.notNull())
        .addColumn('exit_time', time)
        .addColumn('handle_user_id', 'integer')
        .addColumn('handled_remark', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('false_alarm', 'integer')
        .addColumn('handle_time', time)
        .addColumn('phones', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('sms_send', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sms_content', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('sms_error_response', 'varchar(500)')
        .addColumn('create_time', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('stranded_alarm_kind_time').on('stranded_alarm').columns(['kind', 'alarm_time', 'id']).execute();
    },
  };
}
