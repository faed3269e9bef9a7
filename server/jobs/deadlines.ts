import type { FastifyInstance } from 'fastify';
import { deliverWaitingSms } from '../core/sms-outbox';
import { nextDeadlineStep, runDeadlines } from '../workflow/deadlines';
import { startExactTimer } from './exact-timer';

/**
 * The approval deadlines' timer (docs/approvals.md): armed for the earliest
 * step a pending task has to fire (process_task.next_at), re-read whenever a
 * task is written (the engine announces tableChanged('process_task') after
 * commit). A task's deadline comes from its instance's own copy of the node
 * (server/workflow/chain.ts), so an administrator's later edit never moves it.
 */
export function startDeadlineJob(app: FastifyInstance, everyMs = 60_000): () => void {
  const ctx = app.ctx;
  return startExactTimer(app, {
    what: 'approval deadlines',
    table: 'process_task',
    everyMs,
    async untilNext() {
      const next = await nextDeadlineStep(ctx);
      return next === null ? null : next - ctx.now();
    },
    async fire() {
      const run = await runDeadlines(ctx);
      if (run.reminded + run.escalated + run.decided > 0) app.log.info(run, '审批时限');
    },
    async sweep() {
      // Reminders a stopped server wrote but did not send.
      await deliverWaitingSms(ctx, 'approval_remind', { olderThanMs: 60_000 });
    },
  });
}
