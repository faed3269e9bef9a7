import type { FastifyInstance } from 'fastify';
import { purgeIdempotencyKeys } from '../core/idempotency';
import { startPeriodic } from './periodic';

/**
 * Forgets idempotency keys after their 7 days (DESIGN.md §3). Every server
 * runs it; the deletes of two servers on one PostgreSQL simply overlap. Claims
 * treat older rows as absent anyway, so the job only keeps the table small.
 */
export function startIdempotencyCleanupJob(app: FastifyInstance, everyMs = 3600_000): () => void {
  return startPeriodic(app, 'idempotency key cleanup', everyMs, async () => {
    const removed = await purgeIdempotencyKeys(app.ctx.db, app.ctx.now());
    if (removed > 0) app.log.info({ removed }, 'expired idempotency keys removed');
  });
}
