import { sql } from 'kysely';
import { TaskState } from '../../domain/appointments';
import { ProcessEventKind, URGE_EVERY_MINUTES, urgeRefusal } from '../../domain/approval-events';
import { ErrorCode } from '../../domain/errors';
import { NotificationKind, recordLink } from '../../domain/notifications';
import { approvalQueues, type ApprovalQueueName } from '../../domain/registers';
import { formatInZone } from '../../domain/time';
import type { AppContext, AuthContext } from '../core/context';
import { fail } from '../core/errors';
import { notify } from '../core/notify';
import type { Db } from '../core/repository';
import { recordEvents } from './events';
import { assertAllows, instanceOf, lockLive } from './subject-actions';
import { subjectByTable, type SubjectTable } from './subjects';

/**
 * 催办 (docs/approvals.md): the applicant reminds the current approvers of
 * their own application under review, at most once per 30 minutes and 3
 * times per park day (domain/approval-events.ts urgeRefusal: 429 naming when
 * the next is allowed). Each pending task counts it (已催办 N 次), each
 * approver gets a notification and a push, and the process view shows it.
 * The row's lock (step 1 of the engine's lock order) makes two urges of one
 * application at once count as two, the second refused.
 */
export async function urgeApproval(trx: Db, ctx: AppContext, table: SubjectTable, id: number, auth: AuthContext): Promise<{ times_today: number; approvers: string }> {
  const row = await lockLive(trx, ctx, table, id, auth);
  assertAllows('urge', row.status);
  const instanceId = instanceOf(row, 'urge');
  const nowMs = ctx.now();
  const dayStart = `${ctx.time().slice(0, 10)} 00:00:00`;
  const urges = await trx
    .selectFrom('process_event')
    .select([(eb) => eb.fn.max('created_at').as('last'), (eb) => eb.fn.sum<number>(sql`case when create_time >= ${dayStart} then 1 else 0 end`).as('today')])
    .where('process_instance_id', '=', instanceId)
    .where('kind', '=', ProcessEventKind.URGE)
    .executeTakeFirst();
  const refusal = urgeRefusal(urges?.last == null ? null : Number(urges.last), Number(urges?.today ?? 0), nowMs, (ms) => formatInZone(ms, ctx.config.tz));
  if (refusal) fail(ErrorCode.RATE_LIMITED, refusal);

  const tasks = await trx
    .updateTable('process_task')
    .set((eb) => ({ urged: eb('urged', '+', 1) }))
    .where('process_instance_id', '=', instanceId)
    .where('state', '=', TaskState.PENDING)
    .returning(['process_task_id', 'user_id', 'queue', 'sort', 'urged'])
    .execute();
  if (!tasks.length) fail(ErrorCode.STATE_CONFLICT, '当前没有待审核的任务，无需催办');
  const names = await trx
    .selectFrom('sys_user')
    .select(['user_id', 'user_name'])
    .where('user_id', 'in', [...new Set(tasks.map((t) => t.user_id))])
    .execute();
  const approvers = names.map((n) => n.user_name).join('、');
  const subject = subjectByTable[table];
  const what = subject.name(row);
  await notify(
    trx,
    ctx,
    tasks.map((t) => {
      const q = t.queue ? approvalQueues[t.queue as ApprovalQueueName] : null;
      return {
        userId: t.user_id,
        kind: NotificationKind.TASK_URGED,
        title: '催办提醒',
        body: `${auth.userName}催您审核${q ? `${q.title}：` : ''}${what}（已催办${t.urged}次）`,
        url: q ? recordLink(q.route, t.process_task_id) : '/workbench',
        tag: `task-${t.process_task_id}`,
      };
    }),
  );
  const timesToday = Number(urges?.today ?? 0) + 1;
  await recordEvents(trx, ctx, [
    {
      process_instance_id: instanceId,
      process_task_id: null,
      sort: tasks[0]!.sort,
      kind: ProcessEventKind.URGE,
      user_id: auth.userId,
      text: `催办${approvers}审核（今日第${timesToday}次，${URGE_EVERY_MINUTES}分钟内不能再催）`,
    },
  ]);
  return { times_today: timesToday, approvers };
}
