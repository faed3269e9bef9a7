import type { Kysely } from 'kysely';
import type { DeviceEvent } from '../../../domain/schemas/device-event';
import { addMinutes } from '../../../domain/time';
import type { AppContext } from '../../core/context';
import type { DeviceIdentity } from '../../core/device-auth';
import type { FileRecordKind } from '../../core/file-refs';
import type { DB } from '../../db/schema';
import { Direction } from '../../../domain/gate';
import { deviationOf, recordDeviation } from '../driving-routes/deviation';
import { crossingHazmat } from '../park-rules';
import { raiseHazmatAlarm } from '../stranded/hazmat';
import type { Crossing } from './presence';

type EventOf<T extends DeviceEvent['type']> = Extract<DeviceEvent, { type: T }>;

/**
 * What ingestion does with one type of device event (DESIGN.md §8), in the
 * ingesting transaction, once the event is admitted to the ledger
 * (device_event) and passed the batch's checks. A new event type is its
 * schema in domain/schemas/device-event.ts (the body and its messages) and
 * one entry of eventHandlers: the entry's type is checked against the schema,
 * so a type without a handler does not compile.
 */
interface EventHandler<E extends DeviceEvent> {
  /** The fields naming files this device uploaded first (POST /api/device/files): each must be the device's own, and the record holds them. */
  files?: readonly (keyof E & string)[];
  /** A gate crossing moves who is inside (presence.ts): whose, which way, whether it opened the gate. Tracked before the record is stored. */
  crossing?: (e: E) => Omit<Crossing, 'device_id'>;
  /** Stores the event's own record; answers it when the record holds the event's files, with the alarms it raised whose SMS waits for the commit. */
  store: (t: Kysely<DB>, device: DeviceIdentity, e: E, now: string, ctx: AppContext) => Promise<{ kind: FileRecordKind; id: number; alarms?: number[] } | void>;
}

export const eventHandlers: { [T in DeviceEvent['type']]: EventHandler<EventOf<T>> } = {
  vehicle: {
    files: ['plate_image', 'vehicle_image'],
    crossing: (e) => ({ kind: 'car', subject: e.license_plate, direction: e.direction, open_result: e.open_result, capture_time: e.capture_time }),
    async store(t, device, e, now, ctx) {
      const { type: _t, ...fields } = e;
      // 偏离路线: a crossing at a gate off the route of the visit's department is marked, and raises or joins the visit's one alarm.
      const deviation = await deviationOf(t, device.id, e.license_plate, e.capture_time);
      // 危化品: the record keeps whether the visit's model is hazardous and the waybill covering the day (the list's 运单号 and filter).
      const hz = await crossingHazmat(t, e.license_plate, e.capture_time, e.direction === Direction.OUT);
      const row = await t
        .insertInto('gate_record_car')
        .values({ ...fields, device_id: device.id, create_time: now, deviated: deviation ? 1 : 0, hazmat: hz.hazmat ? 1 : 0, waybill_number: hz.waybill ?? '' })
        .returning('id')
        .executeTakeFirstOrThrow();
      // A hazardous vehicle the gate refused for want of a waybill raises 危化品无运单 (stranded/hazmat.ts).
      const hazmatAlarm = await raiseHazmatAlarm(t, ctx, device, e, row.id, hz);
      if (deviation) {
        const crossing = { recordId: row.id, plate: e.license_plate, deviceId: device.id, gate: device.name, direction: e.direction, openResult: e.open_result, captureTime: e.capture_time };
        await recordDeviation(t, ctx, deviation, crossing);
      }
      return { kind: 'gate_record_car', id: row.id, ...(hazmatAlarm ? { alarms: [hazmatAlarm] } : {}) };
    },
  },
  person: {
    files: ['snapshot'],
    crossing: (e) => ({ kind: 'person', subject: e.idcard, direction: e.direction, open_result: e.open_result, capture_time: e.capture_time }),
    async store(t, device, e, now) {
      const { type: _t, ...fields } = e;
      const row = await t
        .insertInto('gate_record_person')
        .values({ ...fields, device_id: device.id, create_time: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { kind: 'gate_record_person', id: row.id };
    },
  },
  alarm: {
    async store(t, device, e, now) {
      await t.insertInto('device_alarm').values({ device_id: device.id, event_id: e.event_id, alarm_type: e.alarm_type, remark: e.remark, capture_time: e.capture_time, create_time: now }).execute();
    },
  },
  // A sign of life: the ledger keeps it, and every batch marks its device seen (markSeen). A gate deciding offline
  // also reports its allow-list (docs/offline-gates.md): kept unless a newer list was already reported (replays come late).
  heartbeat: {
    async store(t, device, e) {
      if (e.list_version === null) return;
      const built = addMinutes(e.capture_time, -(e.list_age ?? 0) / 60);
      await t
        .updateTable('equipment')
        .set({ allowlist_version: e.list_version, allowlist_time: built })
        .where('id', '=', device.id)
        .where((eb) => eb.or([eb('allowlist_time', 'is', null), eb('allowlist_time', '<=', built)]))
        .execute();
    },
  },
};

/** The handler of an event's own type. */
export function handlerOf<E extends DeviceEvent>(e: E): EventHandler<E> {
  // The mapped type pairs each type with its handler; indexing by a union type loses that pairing.
  return eventHandlers[e.type] as unknown as EventHandler<E>;
}
