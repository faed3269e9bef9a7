import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { AppState } from '../../domain/appointments';
import { boardApi, type BoardChart, type DeviceCount, type ParkCounts, type ParkInOutCheckCounts, type TodayApplicationCounts, type TodayOtherCounts } from '../../domain/schemas/board';
import { equipmentKindList } from '../../domain/schemas/equipment';
import { addMinutes } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import { ok } from '../core/errors';
import type { Db } from '../core/repository';
import { route } from '../core/route';
import { deviceAlarmCountsOn } from './big-screen';

export type { DeviceCount };

/** PostgreSQL answers count and sum as bigint strings. */
const n = (v: unknown) => Number(v ?? 0);
type Kind = 'car' | 'person';
const KINDS: readonly Kind[] = ['car', 'person'];

/** 超时未离场 by how long past the deadline: upper bounds in minutes, the last open. */
export const OVERTIME_BUCKETS: ReadonlyArray<{ label: string; below: number }> = [
  { label: '1小时内', below: 60 },
  { label: '1-2小时', below: 120 },
  { label: '2-4小时', below: 240 },
  { label: '4-8小时', below: 480 },
  { label: '8-24小时', below: 1440 },
  { label: '超24小时', below: Infinity },
];

/** Where each kind's approved visits are (the stays' application_id names their key). */
const visitTables = {
  car: { table: 'car_application', key: 'car_application_id', begin: 'visitor_begin_time' },
  person: { table: 'person_application', key: 'person_application_id', begin: 'visit_begin_time' },
} as const;

/**
 * The day's crossings by kind, direction and whether the gate opened, from
 * the daily rollup (migration 023): a handful of rows per gate, whatever the
 * day's traffic.
 */
async function crossingsOn(db: Db, day: string) {
  const rows = await db
    .selectFrom('stat_crossing_day')
    .select(['kind', 'direction', 'opened', (eb) => eb.fn.sum<number>('crossings').as('total')])
    .where('day', '=', day)
    .groupBy(['kind', 'direction', 'opened'])
    .execute();
  return (kind: Kind, match: { direction?: number; opened: number }) =>
    rows.filter((r) => r.kind === kind && r.opened === match.opened && (match.direction === undefined || r.direction === match.direction)).reduce((s, r) => s + n(r.total), 0);
}

/** Submissions made on a day (stat_submission_day), settled on it (stat_outcome_day), per kind. */
async function applicationsOn(db: Db, day: string) {
  const [added, outcomes] = await Promise.all([
    db
      .selectFrom('stat_submission_day')
      .select(['kind', (eb) => eb.fn.sum<number>('added').as('added')])
      .where('day', '=', day)
      .groupBy('kind')
      .execute(),
    db
      .selectFrom('stat_outcome_day')
      .select(['kind', (eb) => eb.fn.sum<number>('passed').as('passed'), (eb) => eb.fn.sum<number>('failed').as('failed')])
      .where('day', '=', day)
      .groupBy('kind')
      .execute(),
  ]);
  return {
    added: (k: Kind) => n(added.find((r) => r.kind === k)?.added),
    passed: (k: Kind) => n(outcomes.find((r) => r.kind === k)?.passed),
    failed: (k: Kind) => n(outcomes.find((r) => r.kind === k)?.failed),
  };
}

/** 数据看板 (spec 002 §2 Dashboard, §7 /board/…): its calls are declared in domain/schemas/board.ts; what each figure counts is in docs/decisions.md. */
export async function boardRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const now = () => app.ctx.time();

  route(app, boardApi.deviceCounts, async () => {
    const rows = await db
      .selectFrom('equipment')
      .select((eb) => ['kind', eb.fn.countAll().as('total'), eb.fn.sum(eb.case().when('state', '=', 1).then(1).else(0).end()).as('online')])
      .where('deleted', '=', 0)
      .groupBy('kind')
      .execute();
    const byKind = new Map(rows.map((r) => [r.kind, { total: Number(r.total), online: Number(r.online ?? 0) }]));
    const lines: DeviceCount[] = equipmentKindList.map((k) => {
      const { total, online } = byKind.get(k.kind) ?? { total: 0, online: 0 };
      return { kind: k.kind, title: k.title, total, online, offline: total - online };
    });
    const sum = (key: 'total' | 'online' | 'offline') => lines.reduce((s, l) => s + l[key], 0);
    lines.push({ kind: 'total', title: '合计', total: sum('total'), online: sum('online'), offline: sum('offline') });
    return ok(lines);
  });

  route(app, boardApi.parkCounts, async () => {
    const today = dateOf(now());
    // Open stays only: the partial index presence_open_subject holds exactly those.
    const [count, inside] = await Promise.all([
      crossingsOn(db, today),
      db
        .selectFrom('presence')
        .select(['kind', (eb) => eb.fn.countAll().as('total')])
        .where('exit_time', 'is', null)
        .groupBy('kind')
        .execute(),
    ]);
    const insideOf = (k: Kind) => n(inside.find((r) => r.kind === k)?.total);
    const answer: ParkCounts = {
      car_in_count: count('car', { direction: 1, opened: 1 }),
      car_out_count: count('car', { direction: 2, opened: 1 }),
      car_inside_count: insideOf('car'),
      person_in_count: count('person', { direction: 1, opened: 1 }),
      person_out_count: count('person', { direction: 2, opened: 1 }),
      person_inside_count: insideOf('person'),
    };
    return ok(answer);
  });

  route(app, boardApi.todayOtherCounts, async () => {
    const today = dateOf(now());
    const [count, apps, alarms] = await Promise.all([crossingsOn(db, today), applicationsOn(db, today), deviceAlarmCountsOn(db, today)]);
    const answer: TodayOtherCounts = {
      car_in_count: count('car', { direction: 1, opened: 1 }),
      car_out_count: count('car', { direction: 2, opened: 1 }),
      person_in_count: count('person', { direction: 1, opened: 1 }),
      person_out_count: count('person', { direction: 2, opened: 1 }),
      device_alarm_count: alarms.total,
      application_count: apps.added('car') + apps.added('person'),
      car_denied_count: count('car', { opened: 0 }),
      person_denied_count: count('person', { opened: 0 }),
    };
    return ok(answer);
  });

  route(app, boardApi.todayApplicationCounts, async () => {
    const today = dateOf(now());
    const [apps, registered] = await Promise.all([
      applicationsOn(db, today),
      // 登记: applications whose visitor came in today (a stay begun today on that application), each once.
      db
        .selectFrom('presence')
        .select(['kind', (eb) => eb.fn.count('application_id').distinct().as('total')])
        .where('kind', 'in', KINDS)
        .where('entry_time', '>=', today)
        .where('entry_time', '<', addDays(today, 1))
        .where('application_id', 'is not', null)
        .groupBy('kind')
        .execute(),
    ]);
    const of = (k: Kind) => ({ apply: apps.added(k), register: n(registered.find((r) => r.kind === k)?.total), agree: apps.passed(k), disagree: apps.failed(k) });
    const answer: TodayApplicationCounts = { car: of('car'), person: of('person') };
    return ok(answer);
  });

  route(app, boardApi.parkInOutCheckCounts, async () => {
    const at = now();
    const today = dateOf(at);
    const overtime = await db
      .selectFrom('presence')
      .select(['kind', (eb) => eb.fn.countAll().as('total')])
      .where('exit_time', 'is', null)
      .where('deadline', '<', at)
      .groupBy('kind')
      .execute();
    // 超时未入园: approved visits whose time began today, by now, and nobody has come in on yet.
    const notEntered = async (k: Kind) => {
      const v = visitTables[k];
      const { rows } = await sql<{ total: number }>`SELECT count(*) AS total FROM ${sql.table(v.table)} a
        WHERE a.state = ${AppState.APPROVED} AND a.${sql.ref(v.begin)} >= ${today} AND a.${sql.ref(v.begin)} <= ${at} AND a.is_deleted = 0
          AND NOT EXISTS (SELECT 1 FROM presence p WHERE p.application_id = a.${sql.ref(v.key)} AND p.kind = ${k})`.execute(db);
      return n(rows[0]?.total);
    };
    const [carNot, personNot] = await Promise.all([notEntered('car'), notEntered('person')]);
    const overtimeOf = (k: Kind) => n(overtime.find((r) => r.kind === k)?.total);
    const answer: ParkInOutCheckCounts = {
      car_overtime_count: overtimeOf('car'),
      person_overtime_count: overtimeOf('person'),
      car_not_entered_count: carNot,
      person_not_entered_count: personNot,
    };
    return ok(answer);
  });

  route(app, boardApi.applicationCounts, async () => {
    const today = dateOf(now());
    const days = Array.from({ length: 7 }, (_, i) => addDays(today, i - 6));
    const rows = await db
      .selectFrom('stat_submission_day')
      .select(['day', 'kind', (eb) => eb.fn.sum<number>('added').as('added')])
      .where('day', '>=', days[0])
      .where('day', '<=', today)
      .where('kind', 'in', KINDS)
      .groupBy(['day', 'kind'])
      .execute();
    const line = (k: Kind) => days.map((d) => n(rows.find((r) => r.day === d && r.kind === k)?.added));
    const answer: BoardChart = {
      xAxis: days,
      series: [
        { name: '车辆预约', data: line('car') },
        { name: '人员预约', data: line('person') },
      ],
    };
    return ok(answer);
  });

  route(app, boardApi.parkInOutChart, async (req) => {
    const direction = req.query.type;
    const today = dateOf(now());
    const rows = await db
      .selectFrom('stat_crossing_hour')
      .select(['hour', 'kind', (eb) => eb.fn.sum<number>('crossings').as('total')])
      .where('day', '=', today)
      .where('direction', '=', direction)
      .where('opened', '=', 1)
      .groupBy(['hour', 'kind'])
      .execute();
    const hours = Array.from({ length: 24 }, (_, h) => h);
    const line = (k: Kind) => hours.map((h) => n(rows.find((r) => n(r.hour) === h && r.kind === k)?.total));
    const answer: BoardChart = {
      xAxis: hours.map((h) => `${String(h).padStart(2, '0')}:00`),
      series: [
        { name: '车辆', data: line('car') },
        { name: '人员', data: line('person') },
      ],
    };
    return ok(answer);
  });

  route(app, boardApi.overtimeChart, async (req) => {
    const kind: Kind = req.query.type === 1 ? 'car' : 'person';
    const at = now();
    // Counted in the database, one bound per band (a band's stays are late by less than its bound: their deadline is after
    // now minus the bound), so the answer costs the same however many stays are overdue (DESIGN.md §11).
    const bounds = OVERTIME_BUCKETS.filter((b) => Number.isFinite(b.below)).map((b) => addMinutes(at, -b.below));
    const row = await db
      .selectFrom('presence')
      .select((eb) => [eb.fn.countAll().as('late'), ...bounds.map((bound, i) => eb.fn.sum<number>(eb.case().when('deadline', '>', bound).then(1).else(0).end()).as(`b${i}`))])
      .where('kind', '=', kind)
      .where('exit_time', 'is', null)
      .where('deadline', '<', at)
      .executeTakeFirst();
    const within = (i: number) => n((row as Record<string, unknown> | undefined)?.[`b${i}`]);
    const data = OVERTIME_BUCKETS.map((_, i) => (i < bounds.length ? within(i) : n(row?.late)) - (i === 0 ? 0 : within(i - 1)));
    const answer: BoardChart = { xAxis: OVERTIME_BUCKETS.map((b) => b.label), series: [{ name: kind === 'car' ? '超时未离场车辆' : '超时未离场人员', data }] };
    return ok(answer);
  });
}
