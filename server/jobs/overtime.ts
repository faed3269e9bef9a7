import type { FastifyInstance } from 'fastify';
import { approveOverdue } from '../workflow/engine';
import { startPeriodic } from './periodic';

/**
 * Timer of the overtime nodes (DESIGN.md §4). Every server runs it; the
 * engine locks each task's application before deciding and decides with a
 * conditional update, so concurrent runs on one PostgreSQL approve each task
 * once. One run walks the whole backlog (after downtime too). A task's due
 * time comes from its instance's own copy of the node (server/workflow/chain.ts),
 * so an administrator's later edit of the node's limit never moves it.
 */
export function startOvertimeJob(app: FastifyInstance, everyMs = 60_000): () => void {
  return startPeriodic(app, 'overtime auto review', everyMs, async () => {
    const approved = await approveOverdue(app.ctx);
    if (approved > 0) app.log.info({ approved }, '超时自动通过');
  });
}
