import { sql, type RawBuilder } from 'kysely';
import type { ReportAnswer, ReportKey } from '../../../domain/reports';
import { addDays, eachDay } from '../../../domain/visit-rules';
import type { Db } from '../../core/repository';

/**
 * Each report's figures, read from the rollups of migration 023 (at most a
 * year of days, or of departments, gates and vehicle types, per call), and
 * the same figures by a plain GROUP BY over the base tables, which the
 * property test holds them equal to and the bench measures them against.
 * What each figure counts: docs/decisions.md (issue 26).
 */

export type Filters = Record<string, any>;
type Rows = Array<Record<string, unknown>>;
export type ReportQuery = (db: Db, f: Filters) => Promise<ReportAnswer>;

const run = async (db: Db, q: RawBuilder<unknown>): Promise<Rows> => (await q.execute(db)).rows as Rows;
/** PostgreSQL answers SUM and COUNT as bigint text. */
const n = (v: unknown) => Number(v ?? 0);

/** Every day of the range, in order: a day with nothing counted is a row of zeros. */
export const daysOf = eachDay;

/**
 * A park filter over a column holding 1, 2 or 3 (both; 0 none): 3 takes
 * everything, 1 or 2 takes that park and what counts for both.
 */
const inPark = (column: string, park: number) => (park === 3 ? sql`1 = 1` : sql`${sql.ref(column)} in (${park}, 3)`);
const UNKNOWN_TYPE = '未识别';
const typeLabel = (t: unknown) => (t ? String(t) : UNKNOWN_TYPE);

/** The in/out rows of a range from (day, direction, count) rows. */
function inOutRows(days: string[], rows: Rows) {
  const by = new Map<string, { in_count: number; out_count: number }>();
  for (const r of rows) {
    const d = by.get(String(r.day)) ?? { in_count: 0, out_count: 0 };
    if (n(r.direction) === 1) d.in_count += n(r.total);
    else d.out_count += n(r.total);
    by.set(String(r.day), d);
  }
  return days.map((day) => {
    const d = by.get(day) ?? { in_count: 0, out_count: 0 };
    return { stat_date: day, ...d, total: d.in_count + d.out_count };
  });
}

type StateRow = { day: string; added: number; cp: number; cr: number; ca: number; sp: number; sr: number; sa: number };
function stateRows(days: string[], park: number, rows: Rows) {
  const by = new Map(rows.map((r) => [String(r.day), r]));
  return days.map((day) => {
    const r = by.get(day);
    return {
      stat_date: day,
      area: park,
      added: n(r?.added),
      company_check_pending: n(r?.cp),
      company_check_disagree: n(r?.cr),
      company_check_agree: n(r?.ca),
      check_pending: n(r?.sp),
      check_disagree: n(r?.sr),
      check_agree: n(r?.sa),
    };
  });
}

function outcomeRow(date: string, rows: Rows) {
  const of = (kind: string, key: 'passed' | 'failed') => n(rows.find((r) => r.kind === kind)?.[key]);
  return {
    date,
    person_pass: of('person', 'passed'),
    person_fail: of('person', 'failed'),
    car_pass: of('car', 'passed'),
    car_fail: of('car', 'failed'),
    registration_pass: of('registration', 'passed'),
    registration_fail: of('registration', 'failed'),
  };
}

/** Visitor types (domain/enums.ts personVisitorType, carVisitorType) as the department reports' columns. */
const personTypeColumn: Record<number, string> = { 1: 'proprietor', 2: 'facilitator', 3: 'construction_unit', 4: 'temporary_visitor' };
const carTypeColumn: Record<number, string> = { 4: 'proprietor', 1: 'build', 2: 'maintain', 3: 'temporary' };

function departRows(kind: 'person' | 'car', rows: Rows) {
  const columns = kind === 'person' ? personTypeColumn : carTypeColumn;
  const by = new Map<number, Record<string, string | number> & { total: number }>();
  for (const r of rows) {
    const id = n(r.depart_id);
    const row =
      by.get(id) ??
      (kind === 'person'
        ? { depart_name: String(r.depart_name ?? ''), proprietor: 0, facilitator: 0, construction_unit: 0, temporary_visitor: 0, total: 0 }
        : { depart_name: String(r.depart_name ?? ''), proprietor: 0, build: 0, maintain: 0, temporary: 0, ordinary_car: 0, hazardous_chemicals_car: 0, total: 0 });
    const count = n(r.total);
    const column = columns[n(r.visitor_type)];
    if (column) row[column] = n(row[column]) + count;
    if (kind === 'car') row[n(r.hazardous) === 1 ? 'hazardous_chemicals_car' : 'ordinary_car'] = n(row[n(r.hazardous) === 1 ? 'hazardous_chemicals_car' : 'ordinary_car']) + count;
    row.total += count;
    by.set(id, row);
  }
  return [...by.values()].filter((r) => r.total > 0).sort((a, b) => b.total - a.total || String(a.depart_name).localeCompare(String(b.depart_name)));
}

/** 车型进出报表's pivot: one column per vehicle type (most frequent first), one row per day. */
function vehicleTypeAnswer(days: string[], rows: Rows): ReportAnswer {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(typeLabel(r.vehicle_type), (totals.get(typeLabel(r.vehicle_type)) ?? 0) + n(r.total));
  const types = [...totals.entries()].filter(([, t]) => t > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const title = types.map(([label], i) => ({ key: `t${i}`, label }));
  const keyOf = new Map(title.map((t) => [t.label, t.key]));
  // By day once: a year of seven models is some 2,500 rows, read 365 times over it would cost more than the query.
  const byDay = new Map<string, Rows>();
  for (const r of rows) {
    const list = byDay.get(String(r.day));
    if (list) list.push(r);
    else byDay.set(String(r.day), [r]);
  }
  const list = days.map((day) => {
    const row: Record<string, string | number> = { stat_date: day, total: 0 };
    for (const t of title) row[t.key] = 0;
    for (const r of byDay.get(day) ?? []) {
      const key = keyOf.get(typeLabel(r.vehicle_type));
      if (!key) continue;
      row[key] = n(row[key]) + n(r.total);
      row.total = n(row.total) + n(r.total);
    }
    return row;
  });
  return { list, title };
}

function increaseRows(rows: Rows) {
  return rows
    .map((r) => ({ stat_date: String(r.day), vehicle_type: typeLabel(r.vehicle_type), new_vehicles: n(r.new_vehicles), vehicles: n(r.vehicles) }))
    .filter((r) => r.new_vehicles > 0 || r.vehicles > 0)
    .sort((a, b) => a.stat_date.localeCompare(b.stat_date) || b.vehicles - a.vehicles || a.vehicle_type.localeCompare(b.vehicle_type));
}

function approvalRows(date: string, rows: Rows) {
  return rows
    .map((r) => ({ count_date: date, depart_name: String(r.depart_name ?? ''), user_name: String(r.user_name ?? ''), total: n(r.total) }))
    .filter((r) => r.total > 0)
    .sort((a, b) => b.total - a.total || a.depart_name.localeCompare(b.depart_name) || a.user_name.localeCompare(b.user_name));
}

function gateRows(rows: Rows) {
  return rows
    .map((r) => {
      const in_count = n(r.in_count);
      const out_count = n(r.out_count);
      return { gate_name: String(r.gate_name ?? ''), entrances_type: n(r.entrances_type), in_count, out_count, refused: n(r.refused), total: in_count + out_count };
    })
    .filter((r) => r.total > 0 || r.refused > 0)
    .sort((a, b) => b.total - a.total || a.gate_name.localeCompare(b.gate_name));
}

const contains = (column: string, text: string | undefined) => (text ? sql`and lower(${sql.ref(column)}) like lower(${`%${text.replace(/[\\%_]/g, (m) => '\\' + m)}%`}) escape '\\'` : sql``);

/** The process types a kind's submissions run under (domain/appointments.ts ProcessType). */
const processTypes = { person: [1], car: [2, 3, 4, 5], registration: [6] } as const;

// ---------------------------------------------------------------- from the rollups

const crossingsByDay =
  (kind: 'car' | 'person'): ReportQuery =>
  async (db, f) => {
    const rows = await run(
      db,
      sql`select day, direction, sum(crossings) as total from stat_crossing_day
        where kind = ${kind} and opened = 1 and day between ${f.start_time} and ${f.end_time} and ${inPark('visit_area', f.visit_area)}
        group by day, direction`,
    );
    return { list: inOutRows(daysOf(f.start_time, f.end_time), rows) };
  };

const submissionsByDay =
  (kind: 'car' | 'person'): ReportQuery =>
  async (db, f) => {
    const rows = await run(
      db,
      sql`select day, sum(added) as added, sum(company_pending) as cp, sum(company_rejected) as cr, sum(company_passed) as ca,
          sum(squad_pending) as sp, sum(squad_rejected) as sr, sum(squad_approved) as sa
        from stat_submission_day where kind = ${kind} and day between ${f.start_time} and ${f.end_time} and ${inPark('visit_area', f.visit_area)}
        group by day`,
    );
    return { list: stateRows(daysOf(f.start_time, f.end_time), f.visit_area, rows) };
  };

const departApplications =
  (kind: 'car' | 'person'): ReportQuery =>
  async (db) => {
    const rows = await run(
      db,
      sql`select s.depart_id, d.name as depart_name, s.visitor_type, s.hazardous, sum(s.applications) as total
        from stat_depart_application s left join sys_department d on d.depart_id = s.depart_id
        where s.kind = ${kind} group by s.depart_id, d.name, s.visitor_type, s.hazardous`,
    );
    return { list: departRows(kind, rows) };
  };

/** 车型进出报表: the entries, or the exits when the filters say `direction: 'out'` (its outCounts path). */
const vehicleTypes: ReportQuery = async (db, f) => {
  const direction = f.direction === 'out' ? 2 : 1;
  const rows = await run(
    db,
    sql`select day, vehicle_type, sum(crossings) as total from stat_crossing_day
        where kind = 'car' and opened = 1 and direction = ${direction} and day between ${f.start_time} and ${f.end_time} and ${inPark('visit_area', f.type)}
        group by day, vehicle_type`,
  );
  return vehicleTypeAnswer(daysOf(f.start_time, f.end_time), rows);
};

export const reportQueries: Record<ReportKey, ReportQuery> = {
  vehicleInOut: crossingsByDay('car'),
  personInOut: crossingsByDay('person'),
  carReservation: submissionsByDay('car'),
  personReservation: submissionsByDay('person'),
  async applicationCounts(db, f) {
    const rows = await run(
      db,
      sql`select kind, sum(passed) as passed, sum(failed) as failed from stat_outcome_day
          where day = ${f.date} and ${inPark('visit_area', f.type)} group by kind`,
    );
    return { list: [outcomeRow(f.date, rows)] };
  },
  departPerson: departApplications('person'),
  departCar: departApplications('car'),
  vehicleType: vehicleTypes,
  async vehicleIncrease(db, f) {
    const rows = await run(
      db,
      sql`select day, vehicle_type, sum(vehicles) as vehicles, sum(new_vehicles) as new_vehicles from stat_vehicle_type_day
          where visit_area = ${f.visit_area} and day between ${f.start_time} and ${f.end_time} group by day, vehicle_type`,
    );
    return { list: increaseRows(rows) };
  },
  async approval(db, f) {
    const rows = await run(
      db,
      sql`select d.name as depart_name, u.user_name, sum(a.decisions) as total
          from stat_approval_day a left join sys_user u on u.user_id = a.user_id left join sys_department d on d.depart_id = a.depart_id
          where a.day = ${f.count_date} ${contains('d.name', f.depart_name)} ${contains('u.user_name', f.user_name)}
          group by a.depart_id, a.user_id, d.name, u.user_name`,
    );
    return { list: approvalRows(f.count_date, rows) };
  },
  async vehicleGateTimes(db, f) {
    const rows = await run(
      db,
      sql`select e.name as gate_name, e.entrances_type,
            sum(case when c.opened = 1 and c.direction = 1 then c.crossings else 0 end) as in_count,
            sum(case when c.opened = 1 and c.direction = 2 then c.crossings else 0 end) as out_count,
            sum(case when c.opened = 0 then c.crossings else 0 end) as refused
          from stat_crossing_day c join equipment e on e.id = c.device_id
          where c.kind = 'car' and c.day between ${f.start_time} and ${f.end_time} and ${inPark('c.visit_area', f.visit_area)}
          group by c.device_id, e.name, e.entrances_type`,
    );
    return { list: gateRows(rows) };
  },
};

// ---------------------------------------------------------------- the same figures from the base tables

/** A gate record's park is its gate's 入口归属; these read it from the gate as it is now. */
const crossingTable = { car: 'gate_record_car', person: 'gate_record_person' } as const;
const dayOf = (column: string) => sql`substr(${sql.ref(column)}, 1, 10)`;
/** The end of a day range as a time bound: before the day after. */
const until = (end: string) => `${addDays(end, 1)} 00:00:00`;

const plainCrossingsByDay =
  (kind: 'car' | 'person'): ReportQuery =>
  async (db, f) => {
    const rows = await run(
      db,
      sql`select ${dayOf('g.capture_time')} as day, g.direction, count(*) as total
        from ${sql.table(crossingTable[kind])} g left join equipment e on e.id = g.device_id
        where g.open_result = 1 and g.capture_time >= ${f.start_time} and g.capture_time < ${until(f.end_time)}
          and ${inPark('e.entrances_type', f.visit_area)}
        group by ${dayOf('g.capture_time')}, g.direction`,
    );
    return { list: inOutRows(daysOf(f.start_time, f.end_time), rows) };
  };

/**
 * Where a submission stands, from its chain and state alone: at (or stopped
 * at) the last node, at a 企业 node, and whether a 企业 node approved it.
 */
const instanceStanding = sql`
  (case when not exists (select 1 from process_instance_node n where n.process_instance_id = i.process_instance_id and n.sort > i.current_sort) then 2
        when exists (select 1 from process_instance_node n where n.process_instance_id = i.process_instance_id and n.sort = i.current_sort and n.company_check = 1) then 1
        else 0 end)`;
const companyPassed = sql`(case when exists (select 1 from process_instance_node n where n.process_instance_id = i.process_instance_id and n.company_check = 1
  and (n.sort < i.current_sort or i.state = 1)) then 1 else 0 end)`;
/** The park of the application an instance is about, read from the application. */
const instanceArea = sql`coalesce(case
  when i.process_type = 1 then (select a.visit_area from person_application a where a.person_application_id = i.ref_id)
  when i.process_type between 2 and 5 then (select a.visit_area from car_application a where a.car_application_id = i.ref_id)
  when i.process_type = 6 then (select a.visit_area from vehicle_registration a where a.id = i.ref_id) end, 0)`;
const parkOf = (expr: RawBuilder<unknown>, park: number) => (park === 3 ? sql`1 = 1` : sql`${expr} in (${park}, 3)`);

const plainSubmissionsByDay =
  (kind: 'car' | 'person'): ReportQuery =>
  async (db, f) => {
    const rows = await run(
      db,
      sql`select day, count(*) as added,
          sum(case when state = 0 and stage = 1 then 1 else 0 end) as cp, sum(case when state = 2 and stage = 1 then 1 else 0 end) as cr, sum(passed) as ca,
          sum(case when state = 0 and stage = 2 then 1 else 0 end) as sp, sum(case when state = 2 and stage = 2 then 1 else 0 end) as sr, sum(case when state = 1 then 1 else 0 end) as sa
        from (select ${dayOf('i.create_time')} as day, i.state, ${instanceStanding} as stage, ${companyPassed} as passed
              from process_instance i
              where i.process_type in (${sql.join([...processTypes[kind]])}) and i.create_time >= ${f.start_time} and i.create_time < ${until(f.end_time)}
                and ${parkOf(instanceArea, f.visit_area)}) s
        group by day`,
    );
    return { list: stateRows(daysOf(f.start_time, f.end_time), f.visit_area, rows) };
  };

/** Vehicles split by the hazardous-goods process (type 5); persons have no such split (and a constant cannot be a GROUP BY term). */
const applicationTable = {
  car: { table: 'car_application', hazardous: sql`case when a.process_type = 5 then 1 else 0 end`, groupHazardous: sql`, case when a.process_type = 5 then 1 else 0 end` },
  person: { table: 'person_application', hazardous: sql`0`, groupHazardous: sql`` },
} as const;
const plainDepartApplications =
  (kind: 'car' | 'person'): ReportQuery =>
  async (db) => {
    const t = applicationTable[kind];
    const rows = await run(
      db,
      sql`select a.interviewee_depart_id as depart_id, d.name as depart_name, a.visitor_type, ${t.hazardous} as hazardous, count(*) as total
        from ${sql.table(t.table)} a left join sys_department d on d.depart_id = a.interviewee_depart_id
        where a.state <> 0 and a.is_deleted = 0
        group by a.interviewee_depart_id, d.name, a.visitor_type ${t.groupHazardous}`,
    );
    return { list: departRows(kind, rows) };
  };

const plainVehicleTypes: ReportQuery = async (db, f) => {
  const direction = f.direction === 'out' ? 2 : 1;
  const rows = await run(
    db,
    sql`select ${dayOf('g.capture_time')} as day, coalesce(g.vehicle_type, '') as vehicle_type, count(*) as total
        from gate_record_car g left join equipment e on e.id = g.device_id
        where g.open_result = 1 and g.direction = ${direction} and g.capture_time >= ${f.start_time} and g.capture_time < ${until(f.end_time)}
          and ${inPark('e.entrances_type', f.type)}
        group by ${dayOf('g.capture_time')}, coalesce(g.vehicle_type, '')`,
  );
  return vehicleTypeAnswer(daysOf(f.start_time, f.end_time), rows);
};

export const plainQueries: Record<ReportKey, ReportQuery> = {
  vehicleInOut: plainCrossingsByDay('car'),
  personInOut: plainCrossingsByDay('person'),
  carReservation: plainSubmissionsByDay('car'),
  personReservation: plainSubmissionsByDay('person'),
  async applicationCounts(db, f) {
    const rows = await run(
      db,
      sql`select case when i.process_type = 1 then 'person' when i.process_type between 2 and 5 then 'car' else 'registration' end as kind,
            sum(case when i.state = 1 then 1 else 0 end) as passed, sum(case when i.state = 2 then 1 else 0 end) as failed
          from process_instance i
          where i.process_type between 1 and 6 and i.state in (1, 2) and i.update_time >= ${f.date} and i.update_time < ${until(f.date)}
            and ${parkOf(instanceArea, f.type)}
          group by case when i.process_type = 1 then 'person' when i.process_type between 2 and 5 then 'car' else 'registration' end`,
    );
    return { list: [outcomeRow(f.date, rows)] };
  },
  departPerson: plainDepartApplications('person'),
  departCar: plainDepartApplications('car'),
  vehicleType: plainVehicleTypes,
  async vehicleIncrease(db, f) {
    const entries = sql`from gate_record_car g left join equipment e on e.id = g.device_id
      where g.direction = 1 and g.open_result = 1 and ${inPark('e.entrances_type', f.visit_area)}`;
    const seen = await run(
      db,
      sql`select ${dayOf('g.capture_time')} as day, coalesce(g.vehicle_type, '') as vehicle_type, count(distinct g.license_plate) as vehicles
          ${entries} and g.capture_time >= ${f.start_time} and g.capture_time < ${until(f.end_time)}
          group by ${dayOf('g.capture_time')}, coalesce(g.vehicle_type, '')`,
    );
    const first = await run(
      db,
      sql`select day, vehicle_type, count(*) as new_vehicles from (
            select min(${dayOf('g.capture_time')}) as day, coalesce(g.vehicle_type, '') as vehicle_type ${entries}
            group by g.license_plate, coalesce(g.vehicle_type, '')) f
          where day between ${f.start_time} and ${f.end_time} group by day, vehicle_type`,
    );
    const merged = new Map<string, Record<string, unknown>>();
    for (const r of seen) merged.set(`${r.day}|${r.vehicle_type}`, { ...r, new_vehicles: 0 });
    for (const r of first)
      merged.set(`${r.day}|${r.vehicle_type}`, { vehicles: 0, ...merged.get(`${r.day}|${r.vehicle_type}`), day: r.day, vehicle_type: r.vehicle_type, new_vehicles: r.new_vehicles });
    return { list: increaseRows([...merged.values()]) };
  },
  async approval(db, f) {
    const rows = await run(
      db,
      sql`select d.name as depart_name, u.user_name, count(*) as total
          from process_task t left join sys_user u on u.user_id = t.user_id left join sys_department d on d.depart_id = t.depart_id
          where t.state = 1 and t.auto = 0 and t.approve_time >= ${f.count_date} and t.approve_time < ${until(f.count_date)}
            ${contains('d.name', f.depart_name)} ${contains('u.user_name', f.user_name)}
          group by t.depart_id, t.user_id, d.name, u.user_name`,
    );
    return { list: approvalRows(f.count_date, rows) };
  },
  async vehicleGateTimes(db, f) {
    const rows = await run(
      db,
      sql`select e.name as gate_name, e.entrances_type,
            sum(case when g.open_result = 1 and g.direction = 1 then 1 else 0 end) as in_count,
            sum(case when g.open_result = 1 and g.direction = 2 then 1 else 0 end) as out_count,
            sum(case when g.open_result = 0 then 1 else 0 end) as refused
          from gate_record_car g join equipment e on e.id = g.device_id
          where g.capture_time >= ${f.start_time} and g.capture_time < ${until(f.end_time)} and ${inPark('e.entrances_type', f.visit_area)}
          group by g.device_id, e.name, e.entrances_type`,
    );
    return { list: gateRows(rows) };
  },
};
