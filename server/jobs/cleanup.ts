import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../core/context';
import { purgeIdempotencyKeys } from '../core/idempotency';
import { purgeRateCounters } from '../core/rate-limit';
import { purgeSettledSms } from '../core/sms-outbox';
import { ABANDONED_UPLOAD_MS, fileStoreOf } from '../core/storage';
import { purgeUnreferencedDeviceFiles } from '../modules/devices/device-files';
import { startPeriodic } from './periodic';

/**
 * One run of the housekeeping: forgets idempotency keys after their 7 days
 * (DESIGN.md §3) and rate-limit windows that ended, and removes device
 * images that no event named within a day (DESIGN.md §8), and SMS settled
 * in the outbox more than 30 days ago, and uploads into the database store
 * that a server abandoned half way a day ago. Answers how many of each went.
 */
export async function cleanupOnce(ctx: AppContext, now = ctx.now()): Promise<{ keys: number; windows: number; files: number; sms: number; partialFiles: number }> {
  const keys = await purgeIdempotencyKeys(ctx.db, now);
  const windows = await purgeRateCounters(ctx.db, now);
  const store = fileStoreOf(ctx);
  const files = await purgeUnreferencedDeviceFiles(ctx.db, store, now);
  const sms = await purgeSettledSms(ctx.db, now);
  const partialFiles = await store.sweep(now - ABANDONED_UPLOAD_MS);
  return { keys, windows, files, sms, partialFiles };
}

/**
 * Hourly housekeeping (cleanupOnce). Every server runs it; the deletes of two
 * servers on one PostgreSQL simply overlap: readers treat expired keys and
 * windows as absent anyway, and each device file goes by one conditional
 * DELETE, whose winner alone removes it from disk.
 */
export function startCleanupJob(app: FastifyInstance, everyMs = 3600_000): () => void {
  return startPeriodic(app, 'cleanup', everyMs, async () => {
    const done = await cleanupOnce(app.ctx);
    if (Object.values(done).some((n) => n > 0)) app.log.info(done, 'expired idempotency keys, rate-limit windows, unreferenced device files, settled SMS and abandoned uploads removed');
  });
}
