import type { Kysely } from 'kysely';
import { AppState } from '../../../domain/appointments';
import { enumLabel } from '../../../domain/enums';
import { NotificationKind, recordLink } from '../../../domain/notifications';
import { menuRoutes } from '../../../domain/permissions';
import { RoutePublish, splitIds } from '../../../domain/schemas/driving-route';
import { strandedKinds } from '../../../domain/schemas/stranded';
import type { AppContext } from '../../core/context';
import { notify } from '../../core/notify';
import type { DB } from '../../db/schema';
import { holdersOf } from '../stranded/notification';

/** The visit a crossing is off the route of: what the alarm says. */
export interface Deviation {
  application_number: string;
  route_name: string;
}

/**
 * 偏离路线 (issue 27): is this vehicle crossing at a gate that is not a point
 * of the published route bound to the department its current visit is to?
 * The visit is the one presence counts (modules/devices/presence.ts): the
 * newest approved visit of the plate whose window holds the capture time.
 * One query by the plate's index answers the visit with its route; only a
 * visit with a route asks which point this gate is. No route, no deviation.
 */
export async function deviationOf(t: Kysely<DB>, deviceId: number, plate: string, at: string): Promise<Deviation | undefined> {
  const visit = await t
    .selectFrom('car_application as a')
    .leftJoin('driving_route_depart as b', 'b.depart_id', 'a.interviewee_depart_id')
    .leftJoin('driving_route as r', (j) => j.onRef('r.id', '=', 'b.route_id').on('r.deleted', '=', 0).on('r.publish', '=', RoutePublish.PUBLISHED))
    .select(['a.application_number', 'r.id as route_id', 'r.name as route_name', 'r.location_id'])
    .where('a.license_plate', '=', plate)
    .where('a.state', '=', AppState.APPROVED)
    .where('a.is_deleted', '=', 0)
    .where('a.visitor_begin_time', '<=', at)
    .where('a.visitor_end_time', '>=', at)
    .orderBy('a.car_application_id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!visit || visit.route_id === null) return undefined;
  const here = await t.selectFrom('location').select('id').where('equipment_id', '=', deviceId).executeTakeFirst();
  if (here && splitIds(visit.location_id).includes(here.id)) return undefined;
  return { application_number: visit.application_number, route_name: visit.route_name ?? '' };
}

/**
 * Tells whoever handles vehicle alarms (the security lead: the holders of the
 * vehicle stranded deal code, as the stranded alarm does) in the ingesting
 * transaction: the notification row commits with the gate record or not at
 * all, and delivery wakes after commit (core/notify.ts). It is an alarm in the
 * notification centre (the 告警 kind), so the lead's alarm banner shows it.
 */
export async function notifyDeviation(t: Kysely<DB>, ctx: AppContext, d: Deviation & { recordId: number; plate: string; gate: string; direction: number; captureTime: string }): Promise<void> {
  const holders = await holdersOf(t, strandedKinds.car.deal);
  const way = enumLabel('gateDirection', d.direction) || '过闸';
  await notify(
    t,
    ctx,
    holders.map((h) => ({
      userId: h.user_id,
      kind: NotificationKind.STRANDED_ALARM,
      title: '车辆偏离路线',
      body: `车辆${d.plate}于${d.captureTime}经${d.gate}${way}，不在被访部门的行车路线“${d.route_name}”上（预约${d.application_number}），请及时处理`,
      url: recordLink(menuRoutes.get('menu:vehicleGateCrosRecords')!.route, d.recordId),
      tag: `route-deviation-${d.recordId}`,
    })),
  );
}
