import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

/**
 * Tables of the offline gate allow-list (docs/offline-gates.md).
 *
 * - allowlist_change: the change log whose largest id is the list's version.
 *   Triggers on every table the gate's decision reads add a row in the
 *   writing transaction, naming the plate ('car') or ID number ('person')
 *   whose entry may have changed, or '*' when every entry may have (a vehicle
 *   model, a route, a department's binding). So an approval, a revocation, a
 *   new list entry, its edit or removal all bump the version, on whichever
 *   server and by whichever code path wrote them; the passing of time (a
 *   visit entering the 24 h horizon, an entry ending) is logged by the list's
 *   clock (server/modules/devices/allowlist.ts). Its ids are visible in
 *   order on both databases (ALLOWLIST_LOCK_CLASS), so `id > since` is exact.
 * - allowlist_clock: one row, the park time and horizon the change log has
 *   caught up to.
 * - equipment.allowlist_version / allowlist_time: what the gate's heartbeat
 *   last reported of its list (its version, and when it was built).
 */

/** A table whose rows feed the gate's decision: who the row is about, when it counts, and the columns that matter. */
interface Watched {
  table: string;
  kind: 'car' | 'person' | '*';
  /** The plate or ID number column; absent for '*'. */
  subject?: string;
  /** When the row counts at a gate, over `$` (OLD or NEW); absent: always. */
  live?: string;
  /** Columns whose change may change a decision. */
  columns: string[];
}

const watched: Watched[] = [
  {
    table: 'car_application',
    kind: 'car',
    subject: 'license_plate',
    live: '$.state = 2',
    columns: ['state', 'license_plate', 'visitor_begin_time', 'visitor_end_time', 'is_deleted', 'vehicle_type_id', 'interviewee_depart_id', 'application_number', 'visit_area'],
  },
  {
    table: 'person_application',
    kind: 'person',
    subject: 'visitor_idcard',
    live: '$.state = 2',
    columns: ['state', 'visitor_idcard', 'visit_begin_time', 'visit_end_time', 'is_deleted', 'application_number'],
  },
  { table: 'car_black_white_list', kind: 'car', subject: 'license_plate', live: '$.status = 2', columns: ['status', 'license_plate', 'type', 'start_time', 'end_time', 'in_reason', 'deleted'] },
  { table: 'person_black_white_list', kind: 'person', subject: 'idcard', live: '$.status = 2', columns: ['status', 'idcard', 'type', 'start_time', 'end_time', 'in_reason', 'deleted'] },
  { table: 'vehicle_mark', kind: 'car', subject: 'license_plate', live: '$.alarm_id = 1', columns: ['status', 'license_plate', 'alarm_id', 'remark', 'deleted'] },
  { table: 'transport_list', kind: 'car', subject: 'license_plate', live: '$.state = 2', columns: ['state', 'license_plate', 'shipment_date', 'deleted'] },
  { table: 'vehicle_registration', kind: 'car', subject: 'license_plate', live: '$.state = 2', columns: ['state', 'license_plate', 'begin_time', 'end_time', 'deleted'] },
  { table: 'vehicle_type', kind: '*', columns: ['name', 'need_record', 'deleted'] },
  { table: 'driving_route', kind: '*', columns: ['publish', 'location_id', 'deleted'] },
  { table: 'driving_route_depart', kind: '*', columns: ['depart_id', 'route_id'] },
  { table: 'location', kind: '*', columns: ['equipment_id'] },
  // The hazardous-goods caps (safety settings, one row): a capped park's hazardous visits are refused offline.
  { table: 'sys_setting', kind: '*', live: "$.key = 'safety_settings'", columns: ['value'] },
];

/**
 * PostgreSQL hands out a serial id at insert, not at commit, so a reader could
 * see id 101 while 100 is still uncommitted and never send it. The log's rows
 * are therefore written at commit (deferred constraint triggers) under this
 * advisory lock, taken only by a transaction that logs a change and held until
 * its commit ends (a draft saved takes none): ids become visible in order, and
 * the largest one a reader sees is a version that holds every smaller id.
 * SQLite has one writer at a time.
 */
export const ALLOWLIST_LOCK_CLASS = 37;

/** Epoch ms by the database's clock: the same clock for every server of one database. */
export const changeClock = (dialect: Dialect) => (dialect === 'postgres' ? `(extract(epoch from clock_timestamp()) * 1000)::bigint` : `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`);

export function offlineGate(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('allowlist_change'), 'id', dialect)
        .addColumn('kind', 'varchar(10)', (c) => c.notNull())
        .addColumn('subject', 'varchar(64)', (c) => c.notNull())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .execute();
      // Pruning, and a delta's look back over transactions that committed late (PostgreSQL).
      await db.schema.createIndex('allowlist_change_at').on('allowlist_change').column('at_ms').execute();
      await db.schema
        .createTable('allowlist_clock')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('now_time', 'varchar(19)', (c) => c.notNull())
        .addColumn('horizon', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.insertInto('allowlist_clock').values({ id: 1, now_time: '', horizon: '' }).execute();
      // The full list reads the approved visits that have not yet ended: by their end, not by their begin, whose range holds every past visit.
      await db.schema.createIndex('car_application_end').on('car_application').columns(['state', 'visitor_end_time']).execute();
      await db.schema.createIndex('person_application_end').on('person_application').columns(['state', 'visit_end_time']).execute();
      await db.schema.alterTable('equipment').addColumn('allowlist_version', 'bigint').execute();
      await db.schema.alterTable('equipment').addColumn('allowlist_time', 'varchar(19)').execute();
      for (const w of watched) for (const statement of triggers(w, dialect)) await sql.raw(statement).execute(db);
    },
  };
}

function triggers(w: Watched, dialect: Dialect): string[] {
  const ms = changeClock(dialect);
  const on = (row: 'OLD' | 'NEW') => (w.live ? w.live.replaceAll('$', row) : 'TRUE');
  const differ = dialect === 'postgres' ? 'IS DISTINCT FROM' : 'IS NOT';
  const changed = w.columns.map((c) => `OLD.${c} ${differ} NEW.${c}`).join(' OR ');
  const log = (row: 'OLD' | 'NEW') => (w.subject ? `'${w.kind}', ${row}.${w.subject}` : `'*', ''`);
  const name = `${w.table}_allowlist`;
  if (dialect === 'postgres') {
    return [
      `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF ${on('NEW')} THEN PERFORM pg_advisory_xact_lock(${ALLOWLIST_LOCK_CLASS}, 0); INSERT INTO allowlist_change (kind, subject, at_ms) VALUES (${log('NEW')}, ${ms}); END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    IF (${on('OLD')} OR ${on('NEW')}) AND (${changed}) THEN PERFORM pg_advisory_xact_lock(${ALLOWLIST_LOCK_CLASS}, 0); INSERT INTO allowlist_change (kind, subject, at_ms) VALUES (${log('NEW')}, ${ms}); END IF;
    ${w.subject ? `IF ${on('OLD')} AND OLD.${w.subject} IS DISTINCT FROM NEW.${w.subject} THEN PERFORM pg_advisory_xact_lock(${ALLOWLIST_LOCK_CLASS}, 0); INSERT INTO allowlist_change (kind, subject, at_ms) VALUES (${log('OLD')}, ${ms}); END IF;` : ''}
  ELSE
    IF ${on('OLD')} THEN PERFORM pg_advisory_xact_lock(${ALLOWLIST_LOCK_CLASS}, 0); INSERT INTO allowlist_change (kind, subject, at_ms) VALUES (${log('OLD')}, ${ms}); END IF;
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql`,
      `CREATE CONSTRAINT TRIGGER ${name} AFTER INSERT OR UPDATE OR DELETE ON ${w.table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${name}()`,
    ];
  }
  const insert = (row: 'OLD' | 'NEW', when: string) => `INSERT INTO allowlist_change (kind, subject, at_ms) SELECT ${log(row)}, ${ms} WHERE ${when};`;
  return [
    `CREATE TRIGGER ${name}_ins AFTER INSERT ON ${w.table} BEGIN ${insert('NEW', on('NEW'))} END`,
    `CREATE TRIGGER ${name}_upd AFTER UPDATE ON ${w.table} BEGIN ${insert('NEW', `(${on('OLD')} OR ${on('NEW')}) AND (${changed})`)} ${
      w.subject ? insert('OLD', `${on('OLD')} AND OLD.${w.subject} IS NOT NEW.${w.subject}`) : ''
    } END`,
    `CREATE TRIGGER ${name}_del AFTER DELETE ON ${w.table} BEGIN ${insert('OLD', on('OLD'))} END`,
  ];
}
