import { sql, type Kysely } from 'kysely';
import { AppState } from '../../../domain/appointments';
import { enumLabel } from '../../../domain/enums';
import { NotificationKind, recordLink } from '../../../domain/notifications';
import { RoutePublish, splitIds } from '../../../domain/schemas/driving-route';
import { AlarmLevel, routeDeviationAlarms, type DeviationCrossing } from '../../../domain/schemas/stranded';
import type { AppContext } from '../../core/context';
import { notify } from '../../core/notify';
import { tableChanged } from '../../core/paging';
import { afterCommit } from '../../core/transactions';
import type { DB } from '../../db/schema';
import { applicationInfo } from '../stranded/detection';
import { carVisitCovering } from '../park-rules';
import { holdersOf } from '../stranded/notification';

/** The visit a crossing is off the route of: what its alarm keeps and says. */
export interface Deviation {
  application_id: number;
  application_number: string;
  visit_area: number | null;
  route_name: string;
}

/**
 * 偏离路线: is this vehicle crossing at a gate that is not a point of the
 * published route bound to the department its current visit is to? The
 * visit is the one presence counts (park-rules.ts carVisitCovering): the newest
 * approved visit of the plate whose window holds the capture time. One query
 * by the plate's index answers the visit with its route; only a visit with a
 * route asks which point this gate is. No route, no deviation.
 */
export async function deviationOf(t: Kysely<DB>, deviceId: number, plate: string, at: string): Promise<Deviation | undefined> {
  const visit = await carVisitCovering(t, plate, at)
    .leftJoin('driving_route_depart as b', 'b.depart_id', 'a.interviewee_depart_id')
    .leftJoin('driving_route as r', (j) => j.onRef('r.id', '=', 'b.route_id').on('r.deleted', '=', 0).on('r.publish', '=', RoutePublish.PUBLISHED))
    .select(['a.car_application_id', 'a.application_number', 'a.visit_area', 'r.id as route_id', 'r.name as route_name', 'r.location_id'])
    .executeTakeFirst();
  if (!visit || visit.route_id === null) return undefined;
  const here = await t.selectFrom('location').select('id').where('equipment_id', '=', deviceId).executeTakeFirst();
  if (here && splitIds(visit.location_id).includes(here.id)) return undefined;
  return { application_id: visit.car_application_id, application_number: visit.application_number, visit_area: visit.visit_area, route_name: visit.route_name ?? '' };
}

/** A crossing off the route, stored: its gate record and what the alarm shows of it. */
export interface OffRouteCrossing {
  recordId: number;
  plate: string;
  deviceId: number;
  /** The gate's name when crossed. */
  gate: string;
  direction: number;
  openResult: number;
  captureTime: string;
}

/**
 * A visit deviates once (docs/decisions.md): its first crossing off the route
 * raises its 偏离路线告警, and every later one is added to that alarm. Runs in
 * the ingesting transaction, after the crossing's gate record is stored.
 *
 * The alarm is one row per visit by a partial unique index (migration 031):
 * of two batches ingesting the same visit at once, on two servers or two
 * connections, one inserts and the other's insert does nothing and appends
 * instead (on PostgreSQL it waits for the first to commit). The append is one
 * UPDATE of the column, so concurrent appends keep every crossing.
 */
export async function recordDeviation(t: Kysely<DB>, ctx: AppContext, d: Deviation, c: OffRouteCrossing): Promise<void> {
  const crossing: DeviationCrossing = { record_id: c.recordId, device_id: c.deviceId, gate: c.gate, direction: c.direction, open_result: c.openResult, capture_time: c.captureTime };
  const item = JSON.stringify(crossing);
  afterCommit(t, () => tableChanged('stranded_alarm'));
  if (await appendCrossing(t, d.application_id, item)) return;
  const raised = await raiseAlarm(t, ctx, d, c, item);
  if (raised === undefined) {
    // Another ingest raised it first and has committed since: this crossing is a later one.
    await appendCrossing(t, d.application_id, item);
    return;
  }
  await notifyDeviation(t, ctx, d, c, raised);
}

/**
 * An alarm keeps its first crossings up to about this many characters (some 200 crossings): a visit valid for months
 * must not grow one row, and every read of it, without end. Later ones are still in 车辆进出记录, marked deviated.
 */
export const DEVIATION_CROSSINGS_CHARS = 32_000;

/** Adds a crossing to the visit's alarm (unless it is full); answers whether there was one. */
async function appendCrossing(t: Kysely<DB>, applicationId: number, item: string): Promise<boolean> {
  const r = await t
    .updateTable('stranded_alarm')
    .set({
      crossings: sql<string>`case when crossings = '' then ${item} when length(crossings) >= ${DEVIATION_CROSSINGS_CHARS} then crossings else crossings || ${`,${item}`} end`,
    })
    .where('application_id', '=', applicationId)
    .where('level_type', '=', AlarmLevel.ROUTE_DEVIATION)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Inserts the visit's alarm unless one exists; answers its id, or nothing when
 * another ingest holds it. Its stay is the visit's stay that the crossing
 * falls in (an entry opens it before the record is stored, an exit has just
 * closed it); a crossing that opened no stay has none, and the alarm's entry
 * time is then the crossing's. No SMS: the lead learns of it in the app.
 */
async function raiseAlarm(t: Kysely<DB>, ctx: AppContext, d: Deviation, c: OffRouteCrossing, item: string): Promise<number | undefined> {
  const stay = await t
    .selectFrom('presence')
    .select(['id', 'entry_time', 'exit_time'])
    .where('kind', '=', 'car')
    .where('subject', '=', c.plate)
    .where('application_id', '=', d.application_id)
    .where('entry_time', '<=', c.captureTime)
    .where((eb) => eb.or([eb('exit_time', 'is', null), eb('exit_time', '>=', c.captureTime)]))
    .orderBy('entry_time', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const info = { ...(await applicationInfo(t, 'car', d.application_id)), route_name: d.route_name };
  const now = ctx.time();
  const row = await t
    .insertInto('stranded_alarm')
    .values({
      kind: routeDeviationAlarms.kind,
      presence_id: stay?.id ?? null,
      application_id: d.application_id,
      application_info: JSON.stringify(info),
      license_plate: c.plate,
      visit_area: d.visit_area,
      level_type: AlarmLevel.ROUTE_DEVIATION,
      entry_time: stay?.entry_time ?? c.captureTime,
      alarm_time: c.captureTime,
      exit_time: stay?.exit_time ?? null,
      crossings: item,
      create_time: now,
    })
    // The index's own predicate, written as a literal: PostgreSQL infers a partial index only from one.
    .onConflict((oc) =>
      oc
        .column('application_id')
        .where(sql<boolean>`level_type = ${sql.lit(AlarmLevel.ROUTE_DEVIATION)}`)
        .doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/**
 * Tells whoever handles vehicle alarms (the holders of the vehicle alarms'
 * deal code) once, when the visit's alarm is raised, in the ingesting
 * transaction: the notification row commits with the alarm or not at all, and
 * delivery wakes after commit (core/notify.ts). Its own kind, so the banner
 * counts it apart from the stranded alarms; it opens the alarm.
 */
async function notifyDeviation(t: Kysely<DB>, ctx: AppContext, d: Deviation, c: OffRouteCrossing, alarmId: number): Promise<void> {
  const holders = await holdersOf(t, routeDeviationAlarms.deal);
  const way = enumLabel('gateDirection', c.direction) || '过闸';
  await notify(
    t,
    ctx,
    holders.map((h) => ({
      userId: h.user_id,
      kind: NotificationKind.ROUTE_DEVIATION,
      title: '车辆偏离路线',
      body: `车辆${c.plate}于${c.captureTime}经${c.gate}${way}，不在被访部门的行车路线“${d.route_name}”上（预约${d.application_number}），请及时处理`,
      url: recordLink(routeDeviationAlarms.screen, alarmId),
      tag: `route-deviation-${alarmId}`,
    })),
  );
}
