import type { FastifyInstance } from 'fastify';
import { sql, type Transaction } from 'kysely';
import { enumLabel } from '../../../domain/enums';
import { ErrorCode } from '../../../domain/errors';
import {
  ALARM_LISTS,
  AlarmLevel,
  alarmLists,
  handlingStateOf,
  STRANDED_KINDS,
  strandedApi,
  strandedHandlingOptions,
  strandedKinds,
  strandedLabels,
  strandedStatApi,
  strandedStatQuery,
  type AlarmDeal,
  type AlarmList,
  type DeviationCrossing,
  type StrandedAlarmRow,
  type StrandedKindDecl,
  type StrandedKind,
  type StrandedStats,
} from '../../../domain/schemas/stranded';
import { addDays, dateOf, eachDay } from '../../../domain/visit-rules';
import type { AppContext } from '../../core/context';
import { fail, notFound, ok } from '../../core/errors';
import type { AnySelect, Db, FilterMatch, ListFilter, RowValues } from '../../core/repository';
import { defineResource, registerResource } from '../../core/resource';
import { tableChanged } from '../../core/paging';
import { route } from '../../core/route';
import { inSavepoint } from '../../core/transactions';
import type { DB } from '../../db/schema';
import { xlsxExports } from '../../core/xlsx-export';
import { readRule } from '../access';
import { fileRepeatOffender } from './repeat-offenders';

/**
 * 滞留告警 (spec 001 §2, §7; DESIGN.md §8): the person and vehicle alarm
 * lists, read-only detail and handling, and 偏离路线告警 beside them. Alarms
 * are raised only by detection (detection.ts, on the stays of
 * modules/devices/presence.ts) and by ingestion for a crossing off a visit's
 * route (modules/driving-routes/deviation.ts); these routes read and handle them.
 */

const kinds = strandedKinds;

const columns = [
  'id',
  'kind',
  'application_id',
  'application_info',
  'license_plate',
  'idcard',
  'person_name',
  'visit_area',
  'level_type',
  'is_black',
  'entry_time',
  'alarm_time',
  'exit_time',
  'handle_user_id',
  'handled_remark',
  'false_alarm',
  'handle_time',
  'phones',
  'sms_send',
  'sms_content',
  'sms_error_response',
  'create_time',
  'crossings',
] as const;

/** A route deviation's crossings (stored as JSON objects joined by commas, in the order they were ingested), by capture time. */
function crossingsOf(stored: unknown): DeviationCrossing[] {
  if (typeof stored !== 'string' || !stored) return [];
  try {
    const list = JSON.parse(`[${stored}]`) as DeviationCrossing[];
    return list.sort((a, b) => (a.capture_time < b.capture_time ? -1 : a.capture_time > b.capture_time ? 1 : a.record_id - b.record_id));
  } catch {
    return [];
  }
}

/** The visit as it was when the alarm was raised (stored as JSON), the handler's name, and the gate the subject came in by. */
async function decorate(rows: RowValues[], db: Db): Promise<RowValues[]> {
  const handlers = [...new Set(rows.map((r) => r.handle_user_id).filter((v): v is number => typeof v === 'number'))];
  const names = new Map(handlers.length ? (await db.selectFrom('sys_user').select(['user_id', 'user_name']).where('user_id', 'in', handlers).execute()).map((u) => [u.user_id, u.user_name]) : []);
  const ids = rows.map((r) => r.id as number);
  const gates = new Map(
    ids.length
      ? (
          await db
            .selectFrom('stranded_alarm as a')
            .innerJoin('presence as p', 'p.id', 'a.presence_id')
            .leftJoin('equipment as e', 'e.id', 'p.entry_device_id')
            .select(['a.id', 'e.name'])
            .where('a.id', 'in', ids)
            .execute()
        ).map((g) => [g.id, g.name])
      : [],
  );
  return rows.map((r) => {
    let info: unknown = {};
    try {
      info = r.application_info ? JSON.parse(String(r.application_info)) : {};
    } catch {
      info = {};
    }
    return {
      ...r,
      application_info: info,
      handle_user_name: names.get(r.handle_user_id as number) ?? null,
      entry_gate_name: gates.get(r.id as number) ?? null,
      crossings: crossingsOf(r.crossings),
    };
  });
}

/** The lists' filters (and the statistics'): plate, name, park, and the alarm time range. */
const strandedFilters: Record<string, ListFilter> = {
  license_plate: { column: 'license_plate', match: 'contains' },
  person_name: { column: 'person_name', match: 'contains' },
  visit_area: { column: 'visit_area', match: 'equals' },
  begin_time: { column: 'alarm_time', match: (q: AnySelect, v: unknown) => q.where('alarm_time', '>=', v) },
  end_time: { column: 'alarm_time', match: (q: AnySelect, v: unknown) => q.where('alarm_time', '<=', v) },
};

/** A list's rows among its kind's: the route deviations, or every other alarm (the stranded lists stay free of deviations). */
const ofList = <Q extends AnySelect>(k: StrandedKindDecl, q: Q): Q => q.where('level_type', k.deviation ? '=' : '!=', AlarmLevel.ROUTE_DEVIATION) as Q;

const readAlarm = readRule('stranded_alarm');

const strandedResource = (list: AlarmList) => {
  const k = alarmLists[list];
  return defineResource({
    contract: strandedApi[list],
    table: 'stranded_alarm',
    scope: { kind: k.kind },
    columns,
    listFrom: (db) => ofList(k, db.selectFrom('stranded_alarm').where('kind', '=', k.kind) as AnySelect),
    // Another list's alarm reads as absent here (404), as a row of another kind does.
    readable: async (db, auth, ids) => !!(await ofList(k, db.selectFrom('stranded_alarm').select('id').where('id', 'in', ids) as AnySelect).executeTakeFirst()) && readAlarm(db, auth, ids),
    filters: strandedFilters,
    decorate,
  });
};

/** The kinds of alarm the caller may list (either code is enough for the home and the statistics). */
function listableKinds(held: ReadonlySet<string>): StrandedKind[] {
  const allowed = STRANDED_KINDS.filter((kind) => held.has(kinds[kind].list));
  if (!allowed.length) fail(ErrorCode.FORBIDDEN, `没有操作权限：缺少权限 ${kinds.car.list}（车辆滞留告警）或 ${kinds.person.list}（人员滞留告警）`);
  return allowed;
}

/** 车辆滞留导出.xlsx: every column of the vehicle alarm list, handling included, and the park day it counts on. */
const L = strandedLabels as Record<string, string>;
const exportColumns: Array<{ header: string; width: number; cell: (r: StrandedAlarmRow) => unknown }> = [
  { header: L.stat_date!, width: 12, cell: (r) => dateOf(r.alarm_time) },
  { header: L.visit_area!, width: 12, cell: (r) => (r.visit_area == null ? '' : enumLabel('visitArea', r.visit_area)) },
  { header: L.license_plate!, width: 14, cell: (r) => r.license_plate },
  { header: L.level_type!, width: 14, cell: (r) => enumLabel('strandedLevel', r.level_type) },
  { header: L.handled!, width: 10, cell: (r) => strandedHandlingOptions.find((o) => o.value === handlingStateOf(r))?.label },
  { header: L.entry_gate_name!, width: 16, cell: (r) => r.entry_gate_name },
  { header: L.entry_time!, width: 20, cell: (r) => r.entry_time },
  { header: L.alarm_time!, width: 20, cell: (r) => r.alarm_time },
  { header: L.exit_time!, width: 20, cell: (r) => r.exit_time },
  { header: L.handle_user_name!, width: 10, cell: (r) => r.handle_user_name },
  { header: L.handle_time!, width: 20, cell: (r) => r.handle_time },
  { header: L.false_alarm!, width: 10, cell: (r) => (r.handle_time && r.false_alarm != null ? enumLabel('yesNo', r.false_alarm) : '') },
  { header: L.handled_remark!, width: 24, cell: (r) => r.handled_remark },
];

/** The daily statistics rows (spec 001 §3 "Stranded row"): one per vehicle alarm, on the day it was raised. */
const statRow = (r: RowValues) => ({ id: r.id, stat_date: String(r.alarm_time).slice(0, 10), visit_area: r.visit_area, license_plate: r.license_plate, create_time: r.create_time });

/** A lead's judgement of an alarm of one list (是否误判, 处理说明): the route's, and the demo history's (server/seed/seed-gate-history.ts); `then` runs in its transaction once it stands. */
export async function dealAlarm(ctx: AppContext, list: AlarmList, userId: number, b: AlarmDeal, then?: (trx: Transaction<DB>) => Promise<void>): Promise<void> {
  const k = alarmLists[list];
  await ctx.db.transaction().execute(async (trx) => {
    const row = await ofList(k, trx.selectFrom('stranded_alarm').select(['id', 'handle_time']).where('id', '=', b.id).where('kind', '=', k.kind) as AnySelect).executeTakeFirst();
    if (!row) notFound(k.noun);
    const now = ctx.time();
    const r = await trx
      .updateTable('stranded_alarm')
      .set({ false_alarm: b.false_alarm, handled_remark: b.handled_remark, handle_user_id: userId, handle_time: now })
      .where('id', '=', b.id)
      .where('handle_time', 'is', null)
      .executeTakeFirst();
    // Of two leads handling one alarm at once, the first one's judgement stands.
    if (Number(r.numUpdatedRows) === 0) fail(ErrorCode.STATE_CONFLICT, '处理告警错误：该告警已被处理');
    await then?.(trx);
  });
  tableChanged('stranded_alarm');
}

export async function strandedRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const sendXlsx = xlsxExports(app);
  const repos = {} as Record<AlarmList, Awaited<ReturnType<typeof registerResource>>>;
  for (const list of ALARM_LISTS) repos[list] = await registerResource(app, strandedResource(list));
  // 车辆滞留统计's rows and the export are the vehicle stranded list's: no route deviations.
  const carAlarms = (f: RowValues) => repos.car.applyFilters(ofList(kinds.car, repos.car.live()), strandedFilters, f);

  /** Every vehicle alarm matching the filters, newest first, a page at a time by key (the export). */
  async function* carAlarmPages(f: RowValues, pageSize = 1000) {
    let last: number | null = null;
    for (;;) {
      let q = await carAlarms(f);
      if (last !== null) q = q.where('id', '<', last);
      const rows = await repos.car.page(q, pageSize, 0);
      if (rows.length) yield (await decorate(rows, ctx.db)) as unknown as StrandedAlarmRow[];
      if (rows.length < pageSize) return;
      last = rows[rows.length - 1]!.id as number;
    }
  }

  // 车辆滞留统计 (spec 001 §2, §7): the vehicle alarms by day; its export is always allowed to the list's holders.
  route(app, strandedStatApi.list, async (req) => {
    const q = req.body as RowValues & { size: number; pn: number };
    const matching = await carAlarms(q);
    const [total, rows] = await Promise.all([repos.car.count(matching), repos.car.page(matching, q.size, (q.pn - 1) * q.size)]);
    return ok({ list: rows.map(statRow) as never, total });
  });
  route(app, strandedStatApi.export, async (req, reply) => {
    const f = req.body as RowValues;
    return sendXlsx(req, reply, {
      fileName: '车辆滞留导出.xlsx',
      fallback: 'stranded-vehicles.xlsx',
      sheet: '车辆滞留统计',
      columns: exportColumns,
      pages: () => carAlarmPages(f),
    });
  });

  // 滞留统计 (issue 24 item 6): counts in SQL, each a GROUP BY over the range of the (kind, alarm_time, id)
  // index stranded_alarm_kind_time; the answer is at most a year of days, 2×3 kinds, 3 states and the gates.
  route(app, strandedStatApi.summary, async (req) => {
    const allowed = listableKinds(req.auth!.permissions);
    const today = dateOf(ctx.time());
    const begin = req.body.begin_time ?? `${addDays(today, -7)} 00:00:00`;
    const end = req.body.end_time ?? `${addDays(today, 1)} 23:59:59`;
    // One edge given, the other defaulted: the same rules as when both are given.
    const checked = strandedStatQuery.safeParse({ begin_time: begin, end_time: end });
    if (!checked.success) fail(ErrorCode.VALIDATION, `${strandedLabels.end_time}：${checked.error.issues[0]!.message}`);
    const visitArea = req.body.visit_area;
    const inRange = () => {
      let q = ctx.db.selectFrom('stranded_alarm as a').where('a.kind', 'in', allowed).where('a.alarm_time', '>=', begin).where('a.alarm_time', '<=', end);
      if (visitArea !== undefined) q = q.where('a.visit_area', '=', visitArea);
      return q;
    };
    const day = sql<string>`substr(a.alarm_time, 1, 10)`;
    const state = sql<number>`case when a.handle_time is null then 0 when a.false_alarm = 1 then 1 else 2 end`;
    const [byDay, byKind, byState, byGate] = await Promise.all([
      inRange()
        .select([day.as('date'), 'a.kind', (eb) => eb.fn.countAll<number>().as('total')])
        .groupBy([day, 'a.kind'])
        .execute(),
      inRange()
        .select(['a.kind', 'a.level_type', (eb) => eb.fn.countAll<number>().as('total')])
        .groupBy(['a.kind', 'a.level_type'])
        .orderBy('a.kind')
        .orderBy('a.level_type')
        .execute(),
      inRange()
        .select([state.as('state'), (eb) => eb.fn.countAll<number>().as('total')])
        .groupBy(state)
        .execute(),
      inRange()
        .leftJoin('presence as p', 'p.id', 'a.presence_id')
        .leftJoin('equipment as e', 'e.id', 'p.entry_device_id')
        .select(['e.id', 'e.name', (eb) => eb.fn.countAll<number>().as('total')])
        .groupBy(['e.id', 'e.name'])
        .execute(),
    ]);
    // Every day of the range, so the chart's axis has no gaps.
    const days: StrandedStats['days'] = eachDay(begin, end).map((date) => ({ date, car: 0, person: 0 }));
    const dayAt = new Map(days.map((d) => [d.date, d]));
    for (const r of byDay) {
      const d = dayAt.get(String(r.date));
      if (d) d[r.kind as StrandedKind] += Number(r.total);
    }
    const states = strandedHandlingOptions.map((o) => ({ state: o.value as number, total: Number(byState.find((r) => Number(r.state) === o.value)?.total ?? 0) }));
    const stats: StrandedStats = {
      begin_time: begin,
      end_time: end,
      total: states.reduce((n, s) => n + s.total, 0),
      days,
      kinds: byKind.map((r) => ({ kind: r.kind as StrandedKind, level_type: Number(r.level_type), total: Number(r.total) })),
      states,
      gates: byGate.map((r) => ({ gate: r.name ?? null, total: Number(r.total) })).sort((a, b) => b.total - a.total),
    };
    return ok(stats);
  });

  route(app, strandedStatApi.open, async (req) => {
    const allowed = listableKinds(req.auth!.permissions);
    const open = () => ctx.db.selectFrom('stranded_alarm').where('handle_time', 'is', null).where('kind', 'in', allowed);
    const [count, rows] = await Promise.all([
      open()
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .executeTakeFirst(),
      open().select(['id', 'kind', 'license_plate', 'person_name', 'idcard', 'is_black', 'level_type', 'visit_area', 'entry_time', 'alarm_time', 'crossings']).orderBy('id', 'desc').limit(5).execute(),
    ]);
    const list = (await decorate(rows as RowValues[], ctx.db)).map(({ application_info: _info, handle_user_name: _h, ...r }) => r);
    return ok({ total: Number(count?.total ?? 0), list: list as never });
  });

  for (const list of ALARM_LISTS) {
    route(app, strandedApi[list].alarmDeal, async (req) => {
      // A real alarm may make its plate or ID number a repeat offender (repeat-offenders.ts): one step of the handling's
      // transaction that fails alone, so the handling stands whatever happens there.
      await dealAlarm(ctx, list, req.auth!.userId, req.body, async (trx) => {
        if (req.body.false_alarm !== 0) return;
        try {
          await inSavepoint(trx, () => fileRepeatOffender(trx, ctx, req.body.id, req.auth!.userId));
        } catch (err) {
          req.log.error({ err }, '重复告警自动提报黑名单失败');
        }
      });
      return ok(null, '处理告警成功！');
    });
  }
}
