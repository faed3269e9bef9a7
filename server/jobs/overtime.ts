import type { FastifyInstance } from 'fastify';
import { approveOverdue } from '../workflow/engine';
import { startPeriodic } from './periodic';

/**
 * Timer of the overtime nodes (DESIGN.md §4). Every server runs it; the
 * engine's conditional updates make concurrent runs on one PostgreSQL safe.
 */
export function startOvertimeJob(app: FastifyInstance, everyMs = 60_000): () => void {
  return startPeriodic(app, 'overtime auto review', everyMs, async () => {
    // Drain in batches so a backlog after downtime clears in one tick.
    for (let n = await approveOverdue(app.ctx); n > 0; n = await approveOverdue(app.ctx)) app.log.info({ approved: n }, '超时自动通过');
  });
}
