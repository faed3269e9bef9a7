import type { FastifyInstance } from 'fastify';
import { TaskState } from '../../domain/appointments';
import { approvalQueues, listableApprovalQueues } from '../../domain/registers';
import { approvalPendingCall } from '../../domain/schemas/approval-task';
import { ok } from '../core/errors';
import { route } from '../core/route';

/** The approver's home: how many tasks wait in each queue the caller may list, and how many of them are past their node's deadline. */
export async function approvalPendingRoutes(app: FastifyInstance) {
  route(app, approvalPendingCall, async (req) => {
    const auth = req.auth!;
    const mine = listableApprovalQueues(auth.permissions);
    if (mine.length === 0) return ok({ list: [] });
    const counts = await app.ctx.db
      .selectFrom('process_task')
      .select(['queue', (eb) => eb.fn.countAll<number>().as('count'), (eb) => eb.fn.sum<number>(eb.case().when('due_at', '<=', app.ctx.now()).then(1).else(0).end()).as('overdue')])
      .where('user_id', '=', auth.userId)
      .where('queue', 'in', mine)
      .where('state', '=', TaskState.PENDING)
      .groupBy('queue')
      .execute();
    const byQueue = new Map(counts.map((c) => [c.queue, { count: Number(c.count), overdue: Number(c.overdue ?? 0) }]));
    return ok({ list: mine.map((q) => ({ queue: q, title: approvalQueues[q].title, route: approvalQueues[q].route, count: byQueue.get(q)?.count ?? 0, overdue: byQueue.get(q)?.overdue ?? 0 })) });
  });
}
