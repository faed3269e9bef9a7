import { sql, type Kysely } from 'kysely';

/**
 * The lead's home counts and lists the alarms nobody has handled yet
 * (GET /stranded/open): this index holds only those, by kind, so the count
 * costs what is open, not the whole alarm history.
 *
 * An alarm's SMS leaves after the alarm commits (DESIGN.md §11), through
 * `sms_state`: 1 waiting, 2 being sent by the server that claimed it, 0
 * settled (sent or failed, as sms_send and sms_error_response say). Rows
 * from before are settled.
 */
export function openAlarms() {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('stranded_alarm_open').on('stranded_alarm').columns(['kind', 'id']).where(sql.ref('handle_time'), 'is', null).execute();
      await db.schema
        .alterTable('stranded_alarm')
        .addColumn('sms_state', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('stranded_alarm_sms_waiting').on('stranded_alarm').column('id').where(sql.ref('sms_state'), '=', 1).execute();
    },
  };
}
