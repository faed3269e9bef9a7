import type { Kysely } from 'kysely';

/**
 * 工作日历 (docs/work-calendar.md): the days that differ from the week, one
 * row per marked date ('YYYY-MM-DD', the key, so a year's marks are one range
 * of it). kind 1 节假日 (a weekday off), 2 调休上班 (a weekend worked); an
 * unmarked date works Monday to Friday.
 */
export function workCalendar() {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('work_calendar_day')
        .addColumn('day', 'varchar(10)', (c) => c.primaryKey())
        .addColumn('kind', 'integer', (c) => c.notNull())
        .addColumn('name', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('update_user_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('update_time', 'varchar(19)', (c) => c.notNull())
        .execute();
    },
  };
}
