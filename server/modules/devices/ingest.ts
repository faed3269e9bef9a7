import type { Kysely } from 'kysely';
import { deviceEvent, eventProblem, MAX_CAPTURE_AGE_DAYS, MAX_CLOCK_AHEAD_MS, type DeviceEvent } from '../../../domain/schemas/device-event';
import { addMinutes, formatInZone } from '../../../domain/time';
import type { AppContext } from '../../core/context';
import { recordFileRefs, type FileRecordKind } from '../../core/file-refs';
import { tableChanged } from '../../core/paging';
import type { Db } from '../../core/repository';
import type { DeviceIdentity } from '../../core/device-auth';
import { foreignFileProblem, ownDeviceFiles } from './device-files';
import { handlerOf } from './event-handlers';
import { lockSubjects, trackCrossing } from './presence';
import { raiseDueAlarms } from '../stranded/detection';
import { sendAlarmSms } from '../stranded/notification';
import type { DB } from '../../db/schema';

export interface IngestResult {
  accepted: number;
  duplicates: number;
  rejected: Array<{ event_id: string; msg: string }>;
}

/**
 * Stores one batch of a device's events (DESIGN.md §8) in one transaction:
 * each event is checked alone (a bad one is listed in `rejected`, the good
 * ones are kept); device_event's key (device_id, event_id) admits each event
 * once, so a replayed batch, on any server or connection, stores nothing
 * twice; crossings become gate records; any contact marks the device online.
 * The simulator and the demo seed call this too.
 */
export async function ingestEvents(ctx: AppContext, device: DeviceIdentity, events: readonly unknown[]): Promise<IngestResult> {
  const rejected: IngestResult['rejected'] = [];
  const valid: DeviceEvent[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const latest = formatInZone(ctx.now() + MAX_CLOCK_AHEAD_MS, ctx.config.tz);
  const ownFiles = await ownDeviceFiles(ctx.db, device.id, events);
  const oldest = formatInZone(ctx.now() - MAX_CAPTURE_AGE_DAYS * 86_400_000, ctx.config.tz);
  // A device's clock may lag the server's as far as it may lead it, so a capture just before the registration is kept.
  const registered = await ctx.db.selectFrom('equipment').select('create_time').where('id', '=', device.id).executeTakeFirst();
  const installed = registered ? addMinutes(registered.create_time, -MAX_CLOCK_AHEAD_MS / 60_000) : '';
  for (const raw of events) {
    const id = typeof (raw as { event_id?: unknown })?.event_id === 'string' ? (raw as { event_id: string }).event_id.trim() || '' : '';
    const problem = eventProblem(raw);
    if (problem) {
      rejected.push({ event_id: id, msg: problem });
      continue;
    }
    const e = deviceEvent.parse(raw);
    if (e.capture_time > latest) {
      rejected.push({ event_id: e.event_id, msg: '抓拍时间晚于服务器时间，请校准设备时钟' });
      continue;
    }
    if (e.capture_time < oldest) {
      rejected.push({ event_id: e.event_id, msg: `抓拍时间早于${MAX_CAPTURE_AGE_DAYS}天前，不再接收，请检查设备时钟` });
      continue;
    }
    if (e.capture_time < installed) {
      rejected.push({ event_id: e.event_id, msg: `抓拍时间早于设备登记时间（${registered!.create_time}），请检查设备时钟` });
      continue;
    }
    const fileProblem = foreignFileProblem(e, ownFiles);
    if (fileProblem) {
      rejected.push({ event_id: e.event_id, msg: fileProblem });
      continue;
    }
    // The same id twice in one batch: the second is a replay of the first.
    if (seen.has(e.event_id)) {
      duplicates++;
      continue;
    }
    seen.add(e.event_id);
    valid.push(e);
  }

  const now = ctx.time();
  // Whole milliseconds: a shifted clock (the seed's, the simulator's) may carry fractions, which a bigint column refuses.
  const nowMs = Math.round(ctx.now());
  const accepted = await ctx.db.transaction().execute(async (trx) => {
    const stored = valid.length ? await admit(trx, device.id, valid, nowMs) : new Set<string>();
    const fresh = valid.filter((e) => stored.has(e.event_id));
    const crossings = fresh.flatMap((e) => handlerOf(e).crossing?.(e) ?? []);
    await lockSubjects(trx, ctx.dialect, crossings);
    const { blackInside, tables, alarms } = await writeRecords(trx, ctx, device, fresh, now);
    await markSeen(trx, device.id, now, nowMs);
    return { count: fresh.length, blackInside, tables, alarms, stays: crossings.some((c) => c.open_result === 1), types: new Set(fresh.map((e) => e.type)) };
  });
  // The crossing records' lists remember their day's total (gate-records.ts).
  for (const table of accepted.tables) tableChanged(table);
  // The board's live figures (server/modules/figures.ts) count crossings and device alarms.
  for (const type of accepted.types) if (type !== 'heartbeat') tableChanged(`device_event:${type}`);
  // A new or ended stay moves the next deadline: the alarm timer re-reads it (server/modules/stranded/timer.ts, relayed to the process running it).
  if (accepted.stays) tableChanged('presence');
  // A black-listed subject inside is stranded at once (DESIGN.md §8): its alarm goes out now, not at the next minute.
  if (accepted.blackInside) await raiseDueAlarms(ctx);
  // The alarms the crossings raised (危化品无运单) text the lead now that they are committed; the minute pass sends any left behind.
  for (const id of accepted.alarms) await sendAlarmSms(ctx, id);
  return { accepted: accepted.count, duplicates: duplicates + valid.length - accepted.count, rejected };
}

/** Multi-row inserts stay well under SQLite's bound-parameter limit (6 columns a row). */
const CHUNK = 150;

/** Inserts the ledger rows; answers the event ids that were new (a conflict is a replay and returns nothing). */
async function admit(trx: Db, deviceId: number, events: DeviceEvent[], nowMs: number): Promise<Set<string>> {
  const fresh = new Set<string>();
  for (let i = 0; i < events.length; i += CHUNK) {
    const rows = await trx
      .insertInto('device_event')
      .values(events.slice(i, i + CHUNK).map((e) => ({ device_id: deviceId, event_id: e.event_id, type: e.type, capture_time: e.capture_time, received_at: nowMs })))
      .onConflict((oc) => oc.columns(['device_id', 'event_id']).doNothing())
      .returning('event_id')
      .execute();
    for (const r of rows) fresh.add(r.event_id);
  }
  return fresh;
}

/**
 * Each event is stored by its type's handler, a crossing moving who is inside first. Answers whether a
 * black-listed subject came in, the tables that got records (a record's kind is its table's name), and the alarms raised.
 */
async function writeRecords(trx: Db, ctx: AppContext, device: DeviceIdentity, events: DeviceEvent[], now: string): Promise<{ blackInside: boolean; tables: Set<FileRecordKind>; alarms: number[] }> {
  const t = trx as unknown as Kysely<DB>;
  let blackInside = false;
  const tables = new Set<FileRecordKind>();
  const alarms: number[] = [];
  // In capture order: a batch replayed out of order still opens a stay before closing it.
  for (const e of [...events].sort((a, b) => (a.capture_time < b.capture_time ? -1 : a.capture_time > b.capture_time ? 1 : 0))) {
    const handler = handlerOf(e);
    const crossing = handler.crossing?.(e);
    if (crossing) blackInside = (await trackCrossing(trx, { ...crossing, device_id: device.id })) || blackInside;
    const record = await handler.store(t, device, e, now, ctx);
    if (record) tables.add(record.kind);
    if (record?.alarms) alarms.push(...record.alarms);
    const files = (handler.files ?? []).map((f) => e[f] as string).filter(Boolean);
    if (record && files.length) await recordFileRefs(trx, record.kind, record.id, files);
  }
  return { blackInside, tables, alarms };
}

/** How stale an online device's last_seen_at may be before a contact rewrites it (well under the five offline minutes). */
const SEEN_RESOLUTION_MS = 10_000;

/** Any contact is a sign of life: online now, and the state time moves only when the state changes. */
export async function markSeen(db: Db, deviceId: number, now: string, nowMs: number): Promise<void> {
  // An online device's sign of life is written at most every few seconds: the offline rule counts minutes, and a gate asking for
  // every plate would otherwise pay a durable commit (an fsync) per answer. The condition is in the statement, so it holds on every server.
  await db
    .updateTable('equipment')
    .set({ last_seen_at: nowMs })
    .where('id', '=', deviceId)
    .where('state', '=', 1)
    .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', nowMs - SEEN_RESOLUTION_MS)]))
    .execute();
  await db.updateTable('equipment').set({ last_seen_at: nowMs, state: 1, state_update_time: now }).where('id', '=', deviceId).where('state', '!=', 1).execute();
}

/**
 * The online timer's one statement: devices silent for `silentMs` go
 * offline. A conditional UPDATE, so two servers running it at once change
 * each device once.
 */
export async function markSilentOffline(db: Db, now: string, nowMs: number, silentMs: number): Promise<number> {
  const r = await db
    .updateTable('equipment')
    .set({ state: 0, state_update_time: now })
    .where('state', '=', 1)
    .where('deleted', '=', 0)
    .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', nowMs - silentMs)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
