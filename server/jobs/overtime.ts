import type { FastifyInstance } from 'fastify';
import { approveOverdue } from '../workflow/engine';

/**
 * Timer of the overtime nodes (DESIGN.md §4). Every server runs it; the
 * engine's conditional updates make concurrent runs on one PostgreSQL safe.
 */
export function startOvertimeJob(app: FastifyInstance, everyMs = 60_000): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      // Drain in batches so a backlog after downtime clears in one tick.
      for (let n = await approveOverdue(app.ctx); n > 0; n = await approveOverdue(app.ctx)) app.log.info({ approved: n }, '超时自动通过');
    } catch (err) {
      app.log.error({ err }, 'overtime auto review failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
