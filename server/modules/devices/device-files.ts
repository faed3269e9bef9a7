import type { Kysely } from 'kysely';
import { ErrorCode } from '../../../domain/errors';
import { deviceEventLabels, type DeviceEvent } from '../../../domain/schemas/device-event';
import { formatInZone } from '../../../domain/time';
import type { AppContext } from '../../core/context';
import { AppError } from '../../core/errors';
import { hit } from '../../core/rate-limit';
import { isFileName, type FileStore } from '../../core/storage';
import type { DB } from '../../db/schema';
import { eventHandlers, handlerOf } from './event-handlers';

/**
 * A device's uploaded images (DESIGN.md §8: POST /api/device/files, then
 * events name them): whose they are, how many a device may send a day, and
 * when those no record took are removed.
 */

/** A device's files have no user behind them: their file_object.uploader_user_id is this, and uploader_device_id says which device. */
export const DEVICE_UPLOADER = 0;

/** A device file that no record holds after this long was never named by an event, and is removed. */
export const DEVICE_FILE_RETENTION_MS = 24 * 3600_000;

/** The fields of any event type that name an uploaded file: a batch's are looked up before its events are checked. */
const FILE_FIELDS: readonly string[] = [...new Set(Object.values(eventHandlers).flatMap((h) => h.files ?? []))];

const DAY_MS = 24 * 3600_000;

/**
 * The file names that `events` (as sent, valid or not) carry and that this
 * device uploaded: one query for a whole batch, so the per-event check
 * (foreignFileProblem) costs no round trip.
 */
export async function ownDeviceFiles(db: Kysely<DB>, deviceId: number, events: readonly unknown[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (const e of events) {
    if (!e || typeof e !== 'object') continue;
    for (const f of FILE_FIELDS) {
      const v = (e as Record<string, unknown>)[f];
      if (typeof v === 'string' && isFileName(v.trim())) named.add(v.trim());
    }
  }
  if (!named.size) return new Set();
  // At most 3 names for each of 500 events: well under SQLite's bound-parameter limit.
  const rows = await db
    .selectFrom('file_object')
    .select('name')
    .where('uploader_device_id', '=', deviceId)
    .where('name', 'in', [...named])
    .execute();
  return new Set(rows.map((r) => r.name));
}

/** Why a valid event may not be stored for the files it names: one this device did not upload (another device's, a user's, none at all). */
export function foreignFileProblem(e: DeviceEvent, own: ReadonlySet<string>): string | null {
  for (const f of handlerOf(e).files ?? []) {
    const v = e[f] as string;
    if (v && !own.has(v)) return `${deviceEventLabels[f]}：文件不存在或不是本设备上传的`;
  }
  return null;
}

/**
 * Counts one upload against the device's quota of the park-local day
 * (config.deviceDailyUploads), in rate_counter so that every server adds to
 * one count; 429 past it. The bucket is named by the day, and its window ends
 * at the park's midnight, when the purge of ended windows takes it away.
 */
export async function countDeviceUpload(ctx: AppContext, deviceId: number): Promise<void> {
  const now = Math.round(ctx.now());
  const parkNow = formatInZone(now, ctx.config.tz);
  const [h, m, s] = parkNow.slice(11).split(':').map(Number) as [number, number, number];
  const sinceMidnight = ((h * 60 + m) * 60 + s) * 1000 + (now % 1000);
  const limit = ctx.config.deviceDailyUploads;
  const w = await hit(ctx.db, `device-files:${deviceId}:${parkNow.slice(0, 10)}`, DAY_MS - sinceMidnight, now);
  if (w.count > limit) throw new AppError(ErrorCode.RATE_LIMITED, `本设备今日上传的图片已达上限（每台设备每天${limit}个），请次日再上传`);
}

/** Candidates read per statement, and statements per run: one run's work stays bounded, the next hour takes the rest. */
const PURGE_BATCH = 500;
const PURGE_BATCHES = 40;

/**
 * Removes device files older than DEVICE_FILE_RETENTION_MS that no record
 * holds: the row, then the file on disk; answers how many. Safe with two
 * servers running it at once: each row goes by one conditional DELETE (still
 * unreferenced), and only the server whose DELETE took the row removes the
 * file. A crash between the two leaves a file without a row, never a row
 * without its file.
 */
export async function purgeUnreferencedDeviceFiles(db: Kysely<DB>, store: FileStore, now: number): Promise<number> {
  let removed = 0;
  for (let batch = 0; batch < PURGE_BATCHES; batch++) {
    const candidates = await db
      .selectFrom('file_object')
      .select('name')
      .where('uploader_user_id', '=', DEVICE_UPLOADER)
      .where('created_at', '<=', now - DEVICE_FILE_RETENTION_MS)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('file_ref').select('file_ref.file_name').whereRef('file_ref.file_name', '=', 'file_object.name'))))
      .orderBy('created_at')
      .limit(PURGE_BATCH)
      .execute();
    if (!candidates.length) break;
    const taken = await db
      .deleteFrom('file_object')
      .where(
        'name',
        'in',
        candidates.map((c) => c.name),
      )
      .where('uploader_user_id', '=', DEVICE_UPLOADER)
      // Checked again in the DELETE itself: an event may have taken the file since the SELECT.
      .where((eb) => eb.not(eb.exists(eb.selectFrom('file_ref').select('file_ref.file_name').whereRef('file_ref.file_name', '=', 'file_object.name'))))
      .returning('name')
      .execute();
    for (const { name } of taken) await store.remove(name);
    removed += taken.length;
    if (candidates.length < PURGE_BATCH) break;
  }
  return removed;
}
