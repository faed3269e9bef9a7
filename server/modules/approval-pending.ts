import type { FastifyInstance } from 'fastify';
import { TaskState } from '../../domain/appointments';
import { approvalQueues, listableApprovalQueues } from '../../domain/registers';
import { approvalPendingCall } from '../../domain/schemas/approval-task';
import { ok } from '../core/errors';
import { route } from '../core/route';

/** The approver's home: how many tasks wait in each queue the caller may list. */
export async function approvalPendingRoutes(app: FastifyInstance) {
  route(app, approvalPendingCall, async (req) => {
    const auth = req.auth!;
    const mine = listableApprovalQueues(auth.permissions);
    if (mine.length === 0) return ok({ list: [] });
    const counts = await app.ctx.db
      .selectFrom('process_task')
      .select(['queue', (eb) => eb.fn.countAll<number>().as('count')])
      .where('user_id', '=', auth.userId)
      .where('queue', 'in', mine)
      .where('state', '=', TaskState.PENDING)
      .groupBy('queue')
      .execute();
    const byQueue = new Map(counts.map((c) => [c.queue, Number(c.count)]));
    return ok({ list: mine.map((q) => ({ queue: q, title: approvalQueues[q].title, route: approvalQueues[q].route, count: byQueue.get(q) ?? 0 })) });
  });
}
