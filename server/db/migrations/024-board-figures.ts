import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { backfill, postgresTriggers, sqliteTriggers, upsert, type SumRollup } from './023-report-rollups';

/**
 * What the dashboard (issue 26 item 4, /board/…) reads besides the daily
 * rollups of migration 023, so that every board call costs what a day holds
 * in rollup rows or what is inside the park now, never a day's crossings:
 *
 * - stat_crossing_hour: crossings per park hour (the entering/leaving chart),
 *   kept by triggers exactly like 023's rollups;
 * - the stays begun in a day by kind (登记: applications that came in), and
 *   open stays by deadline (超时未离场);
 * - approved visits by the time they begin (未入园: begun today, no stay yet),
 *   and stays by application (whether that visit has come in).
 */
const crossingHour = (source: 'gate_record_car' | 'gate_record_person', kind: 'car' | 'person') => ({
  table: source,
  watch: ['capture_time', 'direction', 'open_result'],
  when: () => '1 = 1',
  keys: (r: string) => [`substr(${r}.capture_time, 1, 10)`, `CAST(substr(${r}.capture_time, 12, 2) AS integer)`, `'${kind}'`, `${r}.direction`, `${r}.open_result`],
  counts: () => ['1'],
});

export const hourRollup: SumRollup = {
  name: 'stat_crossing_hour',
  keys: [
    ['day', 'varchar(10)'],
    ['hour', 'integer'],
    ['kind', 'varchar(12)'],
    ['direction', 'integer'],
    ['opened', 'integer'],
  ],
  counters: ['crossings'],
  sources: [crossingHour('gate_record_car', 'car'), crossingHour('gate_record_person', 'person')],
};

/** Empties and refills the hourly rollup from the crossings (the migration's fill; the bench's bulk load with triggers off). */
export async function rebuildHourRollup(db: Kysely<any>): Promise<void> {
  await sql.raw(`DELETE FROM ${hourRollup.name}`).execute(db);
  for (const s of hourRollup.sources) await sql.raw(backfill(hourRollup, s)).execute(db);
}

export function boardFigures(dialect: Dialect) {
  const triggers = dialect === 'postgres' ? postgresTriggers : sqliteTriggers;
  return {
    async up(db: Kysely<any>) {
      let t = db.schema.createTable(hourRollup.name);
      for (const [k, type] of hourRollup.keys) t = t.addColumn(k, sql.raw(type), (c) => c.notNull());
      for (const c of hourRollup.counters) t = t.addColumn(c, 'integer', (col) => col.notNull().defaultTo(0));
      await t.addPrimaryKeyConstraint(`${hourRollup.name}_pk`, hourRollup.keys.map(([k]) => k) as never).execute();
      await rebuildHourRollup(db);
      for (const s of hourRollup.sources) {
        const statements = triggers(
          `${hourRollup.name}_${s.table}`,
          s.table,
          s.watch,
          [upsert(hourRollup, s, 'NEW', 1)],
          [upsert(hourRollup, s, 'OLD', -1), upsert(hourRollup, s, 'NEW', 1)],
          [upsert(hourRollup, s, 'OLD', -1)],
        );
        for (const st of statements) await sql.raw(st).execute(db);
      }

      await db.schema.createIndex('presence_entry_day').on('presence').columns(['kind', 'entry_time', 'application_id']).execute();
      await db.schema.createIndex('presence_application').on('presence').columns(['application_id', 'kind']).execute();
      await db.schema.createIndex('presence_open_deadline').on('presence').columns(['kind', 'deadline']).where(sql.ref('exit_time'), 'is', null).execute();
      await db.schema.createIndex('car_application_begin').on('car_application').columns(['state', 'visitor_begin_time']).execute();
      await db.schema.createIndex('person_application_begin').on('person_application').columns(['state', 'visit_begin_time']).execute();
    },
  };
}
