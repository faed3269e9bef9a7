import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { TaskState } from '../../domain/appointments';
import { approvalQueues, listableApprovalQueues } from '../../domain/registers';
import { ok } from '../core/errors';
import type { ZodTypeProvider } from '../core/route-schema';

/** The approver's home: how many tasks wait in each queue the caller may list. */
export async function approvalPendingRoutes(appInstance: FastifyInstance) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  app.get('/approval/pending', { config: { permission: 'role' }, schema: { summary: '各审批队列待我审批的数量', querystring: z.object({}) } }, async (req) => {
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
