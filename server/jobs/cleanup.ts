import type { FastifyInstance } from 'fastify';
import { purgeIdempotencyKeys } from '../core/idempotency';
import { purgeRateCounters } from '../core/rate-limit';
import { startPeriodic } from './periodic';

/**
 * Hourly housekeeping: forgets idempotency keys after their 7 days
 * (DESIGN.md §3) and rate-limit windows that ended. Every server runs it;
 * the deletes of two servers on one PostgreSQL simply overlap. Readers treat
 * such rows as absent anyway, so the job only keeps the tables small.
 */
export function startCleanupJob(app: FastifyInstance, everyMs = 3600_000): () => void {
  return startPeriodic(app, 'cleanup', everyMs, async () => {
    const now = app.ctx.now();
    const keys = await purgeIdempotencyKeys(app.ctx.db, now);
    const windows = await purgeRateCounters(app.ctx.db, now);
    if (keys > 0 || windows > 0) app.log.info({ keys, windows }, 'expired idempotency keys and rate-limit windows removed');
  });
}
