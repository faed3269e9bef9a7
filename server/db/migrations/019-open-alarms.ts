import { sql, type Kysely } from 'kysely';

/**
 * The lead's home counts and lists the alarms nobody has handled yet
 * (GET /stranded/open): this index holds only those, newest first by kind,
 * so the count costs what is open, not the whole alarm history.
 */
export function openAlarms() {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('stranded_alarm_open').on('stranded_alarm').columns(['kind', 'id']).where(sql.ref('handle_time'), 'is', null).execute();
    },
  };
}
