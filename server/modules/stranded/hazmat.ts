import type { Kysely } from 'kysely';
import { Direction } from '../../../domain/gate';
import { AlarmLevel, strandedKinds, type DeviationCrossing } from '../../../domain/schemas/stranded';
import type { VehicleEvent } from '../../../domain/schemas/device-event';
import type { AppContext } from '../../core/context';
import type { DeviceIdentity } from '../../core/device-auth';
import { tableChanged } from '../../core/paging';
import { afterCommit } from '../../core/transactions';
import type { DB } from '../../db/schema';
import { blackListedOn, registrationMissing, whiteListedOn, type CrossingHazmat } from '../park-rules';
import { applicationInfo } from './detection';
import { raiseStrandedAlarmNotifications } from './notification';

/**
 * 危化品无运单 (docs/decisions.md): a hazardous-goods vehicle refused at a gate
 * for want of a waybill is an alarm for the security lead, with banner, push
 * and SMS as a black-listed entry's. The gate's answer (POST /device/access)
 * is a question and may be asked twice; the crossing the gate then reports
 * is the durable fact, so the alarm is raised here, when a refused entry is
 * ingested, and at most once per plate and park day (stranded_alarm.dedupe_key,
 * unique: two servers ingesting two refusals at once raise one).
 */

/**
 * Whether the gate's rule (domain/gate.ts) refused this crossing for the
 * waybill: an entry that did not open, of a vehicle on an approved visit
 * whose model is hazardous, without a covering waybill, that no list entry
 * and no missing registration decided first.
 */
async function refusedForWaybill(t: Kysely<DB>, e: VehicleEvent, hz: CrossingHazmat): Promise<boolean> {
  if (e.direction !== Direction.IN || e.open_result !== 0 || !hz.hazmat || hz.waybill || !hz.visit) return false;
  const day = e.capture_time.slice(0, 10);
  if ((await blackListedOn(t, 'car', e.license_plate, day)) || (await whiteListedOn(t, 'car', e.license_plate, day))) return false;
  return !(await registrationMissing(t, { vehicle_type_id: hz.visit.vehicle_type_id, license_plate: e.license_plate, begin: hz.visit.begin, end: hz.visit.end }));
}

/**
 * Raises the crossing's 危化品无运单 alarm when the gate refused it for the
 * waybill and none was raised for the plate that day; in the ingesting
 * transaction, after the crossing's record is stored. The notifications and
 * the outbox row commit with it; answers the alarm's id, whose SMS the
 * caller sends once the transaction has committed (sendAlarmSms).
 */
export async function raiseHazmatAlarm(t: Kysely<DB>, ctx: AppContext, device: DeviceIdentity, e: VehicleEvent, recordId: number, hz: CrossingHazmat): Promise<number | undefined> {
  if (!(await refusedForWaybill(t, e, hz))) return undefined;
  const visit = hz.visit!;
  const crossing: DeviationCrossing = { record_id: recordId, device_id: device.id, gate: device.name, direction: e.direction, open_result: e.open_result, capture_time: e.capture_time };
  const row = await t
    .insertInto('stranded_alarm')
    .values({
      kind: 'car',
      presence_id: null,
      application_id: visit.id,
      application_info: JSON.stringify(await applicationInfo(t, 'car', visit.id)),
      license_plate: e.license_plate,
      visit_area: visit.visit_area,
      level_type: AlarmLevel.HAZMAT_NO_WAYBILL,
      entry_time: e.capture_time,
      alarm_time: e.capture_time,
      exit_time: null,
      crossings: JSON.stringify(crossing),
      dedupe_key: `hazmat:${e.license_plate}:${e.capture_time.slice(0, 10)}`,
      create_time: ctx.time(),
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!row) return undefined;
  const sms = await raiseStrandedAlarmNotifications(t, ctx, {
    kind: strandedKinds.car.kind,
    alarmId: row.id,
    subject: e.license_plate,
    visitArea: visit.visit_area,
    alarmTime: e.capture_time,
    black: false,
    level: AlarmLevel.HAZMAT_NO_WAYBILL,
    gate: device.name,
    entryTime: e.capture_time,
  });
  await t.updateTable('stranded_alarm').set(sms).where('id', '=', row.id).execute();
  afterCommit(t, () => tableChanged('stranded_alarm'));
  return row.id;
}
