import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';

/**
 * The daily rollups the statistics reports read (issue 26, DESIGN.md §10).
 * Each rollup is the sum of a function of the rows of a base table as they
 * stand; triggers keep it, in the transaction of the write that changes a
 * row (whoever makes it: a route, the engine, the seed, a second server, a
 * hand-written UPDATE), by subtracting the old row's share and adding the new
 * one's. A replayed device event never reaches a table (the ledger refuses
 * it), and a late one counts on its own capture day. The report queries and
 * the plain GROUP BYs the tests and the bench compare them with are in
 * server/modules/reports/.
 *
 * The declarations below are frozen with this migration: a rollup changed
 * later is a new migration.
 *
 * Parks: a crossing's park is its gate's 入口归属 (equipment.entrances_type:
 * 1 化工区, 2 港区, 3 both) when it crossed; an application's is its
 * visit_area (3 both). Where a report counts distinct vehicles, a crossing
 * is filed under each park it counts for and under 3 (anywhere), so that
 * "distinct" holds within each filter value.
 */

/** How a statement names the row: NEW or OLD in a trigger, the table's alias in a back-fill. */
type Row = string;

export interface SumSource {
  /** The base table whose rows are summed. */
  table: string;
  /** The columns whose change moves a row's share (UPDATE OF …). */
  watch: readonly string[];
  /** Whether the row counts at all. */
  when: (r: Row) => string;
  /** The rollup's key columns, as SQL over the row. */
  keys: (r: Row) => readonly string[];
  /** The rollup's counters, as SQL over the row (0/1 expressions mostly). */
  counts: (r: Row) => readonly string[];
}

export interface SumRollup {
  name: string;
  keys: ReadonlyArray<readonly [string, string]>;
  counters: readonly string[];
  sources: readonly SumSource[];
}

/** The kind of an approval instance (process types, domain/appointments.ts ProcessType): person 1, vehicle 2–5, strict vehicle registration 6. */
const instanceKind = (r: string) => `(CASE WHEN ${r}.process_type = 1 THEN 'person' WHEN ${r}.process_type BETWEEN 2 AND 5 THEN 'car' WHEN ${r}.process_type = 6 THEN 'registration' END)`;
const flag = (cond: string) => `(CASE WHEN ${cond} THEN 1 ELSE 0 END)`;
const day = (column: string) => `substr(${column}, 1, 10)`;
/** The gate's park when the crossing is stored (0 for a device with none). */
const gateArea = (r: string) => `coalesce((SELECT e.entrances_type FROM equipment e WHERE e.id = ${r}.device_id), 0)`;

export const sumRollups: SumRollup[] = [
  {
    // 车辆/人员预约统计: each submission (an approval instance) on the park day it was made, by where it stands now.
    name: 'stat_submission_day',
    keys: [
      ['kind', 'varchar(12)'],
      ['day', 'varchar(10)'],
      ['visit_area', 'integer'],
    ],
    counters: ['added', 'company_pending', 'company_rejected', 'company_passed', 'squad_pending', 'squad_rejected', 'squad_approved'],
    sources: [
      {
        table: 'process_instance',
        watch: ['process_type', 'create_time', 'visit_area', 'state', 'stage', 'company_passed'],
        when: (r) => `${instanceKind(r)} IS NOT NULL`,
        keys: (r) => [instanceKind(r), day(`${r}.create_time`), `coalesce(${r}.visit_area, 0)`],
        counts: (r) => [
          '1',
          flag(`${r}.state = 0 AND ${r}.stage = 1`),
          flag(`${r}.state = 2 AND ${r}.stage = 1`),
          `${r}.company_passed`,
          flag(`${r}.state = 0 AND ${r}.stage = 2`),
          flag(`${r}.state = 2 AND ${r}.stage = 2`),
          flag(`${r}.state = 1`),
        ],
      },
    ],
  },
  {
    // 申请数量统计: each settled submission on the park day of the decision that settled it (passed: approved; failed: rejected).
    name: 'stat_outcome_day',
    keys: [
      ['kind', 'varchar(12)'],
      ['day', 'varchar(10)'],
      ['visit_area', 'integer'],
    ],
    counters: ['passed', 'failed'],
    sources: [
      {
        table: 'process_instance',
        watch: ['process_type', 'update_time', 'visit_area', 'state'],
        when: (r) => `${instanceKind(r)} IS NOT NULL AND ${r}.state IN (1, 2)`,
        keys: (r) => [instanceKind(r), day(`${r}.update_time`), `coalesce(${r}.visit_area, 0)`],
        counts: (r) => [flag(`${r}.state = 1`), flag(`${r}.state = 2`)],
      },
    ],
  },
  {
    // 审批统计: each decision a person made (not the overtime timer's), on its park day, for them and their department then.
    name: 'stat_approval_day',
    keys: [
      ['day', 'varchar(10)'],
      ['depart_id', 'integer'],
      ['user_id', 'integer'],
    ],
    counters: ['decisions'],
    sources: [
      {
        table: 'process_task',
        watch: ['state', 'auto', 'approve_time', 'user_id', 'depart_id'],
        when: (r) => `${r}.state = 1 AND ${r}.auto = 0 AND ${r}.approve_time IS NOT NULL`,
        keys: (r) => [day(`${r}.approve_time`), `${r}.depart_id`, `${r}.user_id`],
        counts: () => ['1'],
      },
    ],
  },
  {
    // 部门人员申请统计 / 部门车辆预约统计: every application submitted at least once and not deleted, by visited department and visitor type.
    name: 'stat_depart_application',
    keys: [
      ['kind', 'varchar(12)'],
      ['depart_id', 'integer'],
      ['visitor_type', 'integer'],
      ['hazardous', 'integer'],
    ],
    counters: ['applications'],
    sources: [
      {
        table: 'car_application',
        watch: ['state', 'is_deleted', 'interviewee_depart_id', 'visitor_type', 'process_type'],
        when: (r) => `${r}.state <> 0 AND ${r}.is_deleted = 0`,
        // Process type 5: the hazardous-goods vehicle process (domain/appointments.ts vehicleProcessType).
        keys: (r) => [`'car'`, `${r}.interviewee_depart_id`, `${r}.visitor_type`, flag(`${r}.process_type = 5`)],
        counts: () => ['1'],
      },
      {
        table: 'person_application',
        watch: ['state', 'is_deleted', 'interviewee_depart_id', 'visitor_type'],
        when: (r) => `${r}.state <> 0 AND ${r}.is_deleted = 0`,
        keys: (r) => [`'person'`, `${r}.interviewee_depart_id`, `${r}.visitor_type`, '0'],
        counts: () => ['1'],
      },
    ],
  },
  {
    // 车辆/人员进出统计, 车型进出报表, 车辆过闸次数统计, the board's and the map's counts: each crossing on its capture day, per gate.
    name: 'stat_crossing_day',
    keys: [
      ['day', 'varchar(10)'],
      ['device_id', 'integer'],
      ['visit_area', 'integer'],
      ['kind', 'varchar(12)'],
      ['direction', 'integer'],
      ['opened', 'integer'],
      ['vehicle_type', 'varchar(30)'],
    ],
    counters: ['crossings'],
    sources: [
      {
        table: 'gate_record_car',
        watch: ['capture_time', 'device_id', 'direction', 'open_result', 'vehicle_type'],
        when: () => '1 = 1',
        keys: (r) => [day(`${r}.capture_time`), `${r}.device_id`, gateArea(r), `'car'`, `${r}.direction`, `${r}.open_result`, `coalesce(${r}.vehicle_type, '')`],
        counts: () => ['1'],
      },
      {
        table: 'gate_record_person',
        watch: ['capture_time', 'device_id', 'direction', 'open_result'],
        when: () => '1 = 1',
        keys: (r) => [day(`${r}.capture_time`), `${r}.device_id`, gateArea(r), `'person'`, `${r}.direction`, `${r}.open_result`, `''`],
        counts: () => ['1'],
      },
    ],
  },
  {
    // 车型新增及去重统计, kept from the two sets below: distinct vehicles that came in per day, and vehicles in for the first time.
    name: 'stat_vehicle_type_day',
    keys: [
      ['day', 'varchar(10)'],
      ['visit_area', 'integer'],
      ['vehicle_type', 'varchar(30)'],
    ],
    counters: ['vehicles', 'new_vehicles'],
    sources: [
      { table: 'stat_vehicle_day', watch: ['day', 'visit_area', 'vehicle_type'], when: () => '1 = 1', keys: (r) => [`${r}.day`, `${r}.visit_area`, `${r}.vehicle_type`], counts: () => ['1', '0'] },
      {
        table: 'stat_vehicle_first',
        watch: ['first_day', 'visit_area', 'vehicle_type'],
        when: () => '1 = 1',
        keys: (r) => [`${r}.first_day`, `${r}.visit_area`, `${r}.vehicle_type`],
        counts: () => ['0', '1'],
      },
    ],
  },
];

/** The parks a vehicle entry counts for: anywhere (3), and the gate's own (both for a gate of 3). */
const ENTRY_PARKS: ReadonlyArray<{ area: number; gate: string }> = [
  { area: 3, gate: '1 = 1' },
  { area: 1, gate: 'IN (1, 3)' },
  { area: 2, gate: 'IN (2, 3)' },
];
/** An entry that opened the gate: what the distinct-vehicle sets hold. */
const isEntry = (r: string) => `${r}.direction = 1 AND ${r}.open_result = 1`;
const vehicleType = (r: string) => `coalesce(${r}.vehicle_type, '')`;
const gateIn = (r: string, p: (typeof ENTRY_PARKS)[number]) => (p.area === 3 ? '1 = 1' : `${gateArea(r)} ${p.gate}`);

/** One statement per (sign, row) of a sum rollup: add or subtract the row's share, when it counts. */
export function upsert(rollup: SumRollup, source: SumSource, r: Row, sign: 1 | -1): string {
  const keys = rollup.keys.map(([k]) => k);
  const counts = source.counts(r).map((c) => (sign === 1 ? c : `-(${c})`));
  return `INSERT INTO ${rollup.name} (${[...keys, ...rollup.counters].join(', ')})
    SELECT ${[...source.keys(r), ...counts].join(', ')} WHERE ${source.when(r)}
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${rollup.counters.map((c) => `${c} = ${rollup.name}.${c} + excluded.${c}`).join(', ')}`;
}

/** The plain GROUP BY that fills a sum rollup from the rows already there. */
export function backfill(rollup: SumRollup, source: SumSource): string {
  const keys = rollup.keys.map(([k]) => k);
  const r = 'src';
  return `INSERT INTO ${rollup.name} (${[...keys, ...rollup.counters].join(', ')})
    SELECT ${[...source.keys(r).map((k, i) => `${k} AS ${keys[i]}`), ...source.counts(r).map((c, i) => `SUM(${c}) AS ${rollup.counters[i]}`)].join(', ')}
    FROM ${source.table} ${r} WHERE ${source.when(r)} GROUP BY ${keys.join(', ')}
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${rollup.counters.map((c) => `${c} = ${rollup.name}.${c} + excluded.${c}`).join(', ')}`;
}

/** The two sets of vehicles: (day, park, plate, type) entered, and each (park, plate, type)'s first day in. */
function entrySetStatements(r: Row): string[] {
  return ENTRY_PARKS.flatMap((p) => [
    `INSERT INTO stat_vehicle_day (day, visit_area, license_plate, vehicle_type)
      SELECT ${day(`${r}.capture_time`)}, ${p.area}, ${r}.license_plate, ${vehicleType(r)} WHERE ${isEntry(r)} AND ${gateIn(r, p)}
      ON CONFLICT (day, visit_area, license_plate, vehicle_type) DO NOTHING`,
    `INSERT INTO stat_vehicle_first (visit_area, license_plate, vehicle_type, first_day)
      SELECT ${p.area}, ${r}.license_plate, ${vehicleType(r)}, ${day(`${r}.capture_time`)} WHERE ${isEntry(r)} AND ${gateIn(r, p)}
      ON CONFLICT (visit_area, license_plate, vehicle_type) DO UPDATE SET first_day = excluded.first_day WHERE excluded.first_day < stat_vehicle_first.first_day`,
  ]);
}

function entrySetBackfill(): string[] {
  return ENTRY_PARKS.flatMap((p) => {
    const where = `${isEntry('g')} AND ${gateIn('g', p)}`;
    return [
      `INSERT INTO stat_vehicle_day (day, visit_area, license_plate, vehicle_type)
        SELECT DISTINCT ${day('g.capture_time')}, ${p.area}, g.license_plate, ${vehicleType('g')} FROM gate_record_car g WHERE ${where}`,
      `INSERT INTO stat_vehicle_first (visit_area, license_plate, vehicle_type, first_day)
        SELECT ${p.area}, g.license_plate, ${vehicleType('g')}, MIN(${day('g.capture_time')}) FROM gate_record_car g WHERE ${where}
        GROUP BY g.license_plate, ${vehicleType('g')}`,
    ];
  });
}

/** SQLite: a trigger per event; an UPDATE fires only when a watched column changed. */
export function sqliteTriggers(name: string, table: string, watch: readonly string[], onInsert: string[], onUpdate: string[], onDelete: string[]): string[] {
  const body = (statements: string[]) => `BEGIN ${statements.map((s) => `${s};`).join(' ')} END`;
  const changed = watch.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(' OR ');
  const out: string[] = [];
  if (onInsert.length) out.push(`CREATE TRIGGER ${name}_ins AFTER INSERT ON ${table} ${body(onInsert)}`);
  if (onUpdate.length) out.push(`CREATE TRIGGER ${name}_upd AFTER UPDATE OF ${watch.join(', ')} ON ${table} WHEN ${changed} ${body(onUpdate)}`);
  if (onDelete.length) out.push(`CREATE TRIGGER ${name}_del AFTER DELETE ON ${table} ${body(onDelete)}`);
  return out;
}

/** PostgreSQL: one row trigger function per (rollup, table), branching on the operation. */
export function postgresTriggers(name: string, table: string, watch: readonly string[], onInsert: string[], onUpdate: string[], onDelete: string[]): string[] {
  const block = (statements: string[]) => statements.map((s) => `${s};`).join('\n');
  const changed = watch.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ');
  const events = [onInsert.length && 'INSERT', onUpdate.length && `UPDATE OF ${watch.join(', ')}`, onDelete.length && 'DELETE'].filter(Boolean).join(' OR ');
  const branches = [
    onInsert.length && `TG_OP = 'INSERT' THEN ${block(onInsert)}`,
    onUpdate.length && `TG_OP = 'UPDATE' THEN IF ${changed} THEN ${block(onUpdate)} END IF;`,
    onDelete.length && `TG_OP = 'DELETE' THEN ${block(onDelete)}`,
  ].filter(Boolean);
  return [
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF ${branches.join('\n      ELSIF ')}
      END IF;
      RETURN NULL;
    END $$`,
    `CREATE TRIGGER ${name} AFTER ${events} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  ];
}

/** Fills this migration's rollups from the base tables, in the order they build on one another. */
async function fillRollups(db: Kysely<any>): Promise<void> {
  for (const s of entrySetBackfill()) await sql.raw(s).execute(db);
  for (const r of sumRollups) for (const s of r.sources) await sql.raw(backfill(r, s)).execute(db);
}

/**
 * Empties and refills this migration's rollups from the base tables: what a
 * bulk load made with the triggers off needs afterwards (the bench's
 * PostgreSQL seed loads millions of rows that way).
 */
export async function rebuildReportRollups(db: Kysely<any>): Promise<void> {
  const sums = sumRollups.map((r) => r.name);
  for (const table of ['stat_vehicle_day', 'stat_vehicle_first', ...sums]) await sql.raw(`DELETE FROM ${table}`).execute(db);
  for (const s of entrySetBackfill()) await sql.raw(s).execute(db);
  // The vehicle sets' own triggers have just counted them into 车型新增及去重's rollup, row by row: emptied again, so
  // that the backfill below counts each once (it used to count them twice).
  for (const table of sums) await sql.raw(`DELETE FROM ${table}`).execute(db);
  for (const r of sumRollups) for (const s of r.sources) await sql.raw(backfill(r, s)).execute(db);
}

export function reportRollups(dialect: Dialect) {
  const triggers = dialect === 'postgres' ? postgresTriggers : sqliteTriggers;
  return {
    async up(db: Kysely<any>) {
      // Where an instance stands, kept by the engine beside current_sort (server/workflow/engine.ts activateNode):
      // its park (the application's visit_area at submit), stage 1 at a 企业 (company_check) node, 2 at the last node
      // (the squad's), 0 elsewhere, and whether it has passed a company_check node.
      await db.schema.alterTable('process_instance').addColumn('visit_area', 'integer').execute();
      await db.schema
        .alterTable('process_instance')
        .addColumn('stage', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('process_instance')
        .addColumn('company_passed', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`UPDATE process_instance SET visit_area = (SELECT a.visit_area FROM person_application a WHERE a.person_application_id = process_instance.ref_id) WHERE process_type = 1`.execute(db);
      await sql`UPDATE process_instance SET visit_area = (SELECT a.visit_area FROM car_application a WHERE a.car_application_id = process_instance.ref_id) WHERE process_type BETWEEN 2 AND 5`.execute(
        db,
      );
      await sql`UPDATE process_instance SET visit_area = (SELECT a.visit_area FROM vehicle_registration a WHERE a.id = process_instance.ref_id) WHERE process_type = 6`.execute(db);
      await sql`UPDATE process_instance SET
          stage = CASE
            WHEN NOT EXISTS (SELECT 1 FROM process_instance_node n WHERE n.process_instance_id = process_instance.process_instance_id AND n.sort > process_instance.current_sort) THEN 2
            WHEN EXISTS (SELECT 1 FROM process_instance_node n WHERE n.process_instance_id = process_instance.process_instance_id AND n.sort = process_instance.current_sort AND n.company_check = 1) THEN 1
            ELSE 0 END,
          company_passed = CASE WHEN EXISTS (SELECT 1 FROM process_instance_node n WHERE n.process_instance_id = process_instance.process_instance_id AND n.company_check = 1
            AND (n.sort < process_instance.current_sort OR process_instance.state = 1)) THEN 1 ELSE 0 END`.execute(db);

      for (const r of sumRollups) {
        let t = db.schema.createTable(r.name);
        for (const [k, type] of r.keys) t = t.addColumn(k, sql.raw(type), (c) => c.notNull());
        for (const c of r.counters) t = t.addColumn(c, 'integer', (col) => col.notNull().defaultTo(0));
        await t.addPrimaryKeyConstraint(`${r.name}_pk`, r.keys.map(([k]) => k) as never).execute();
      }
      await db.schema
        .createTable('stat_vehicle_day')
        .addColumn('day', 'varchar(10)', (c) => c.notNull())
        .addColumn('visit_area', 'integer', (c) => c.notNull())
        .addColumn('license_plate', 'varchar(20)', (c) => c.notNull())
        .addColumn('vehicle_type', 'varchar(30)', (c) => c.notNull())
        .addPrimaryKeyConstraint('stat_vehicle_day_pk', ['day', 'visit_area', 'license_plate', 'vehicle_type'])
        .execute();
      await db.schema
        .createTable('stat_vehicle_first')
        .addColumn('visit_area', 'integer', (c) => c.notNull())
        .addColumn('license_plate', 'varchar(20)', (c) => c.notNull())
        .addColumn('vehicle_type', 'varchar(30)', (c) => c.notNull())
        .addColumn('first_day', 'varchar(10)', (c) => c.notNull())
        .addPrimaryKeyConstraint('stat_vehicle_first_pk', ['visit_area', 'license_plate', 'vehicle_type'])
        .execute();
      // The reports read by day first; the tables' keys start elsewhere where a key needs it.
      await db.schema.createIndex('stat_submission_day_day').on('stat_submission_day').columns(['day']).execute();
      await db.schema.createIndex('stat_outcome_day_day').on('stat_outcome_day').columns(['day']).execute();

      // Fill from what is there (the seeded 90 days, a park's history), then keep from here on.
      await fillRollups(db);

      for (const r of sumRollups) {
        for (const s of r.sources) {
          const name = `${r.name}_${s.table}`;
          const add = [upsert(r, s, 'NEW', 1)];
          const sub = [upsert(r, s, 'OLD', -1)];
          const statements = triggers(name, s.table, s.watch, add, [...sub, ...add], s.table.startsWith('stat_') ? [] : sub);
          for (const st of statements) await sql.raw(st).execute(db);
        }
      }
      for (const st of triggers('stat_vehicle_sets', 'gate_record_car', [], entrySetStatements('NEW'), [], [])) await sql.raw(st).execute(db);
    },
  };
}
