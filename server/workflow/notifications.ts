import type { Kysely, Transaction } from 'kysely';
import { approvalQueues, type ApprovalQueueName } from '../../domain/registers';
import { NotificationKind, recordLink } from '../../domain/notifications';
import type { AppContext } from '../core/context';
import { notify } from '../core/notify';
import { preparedPer } from '../db/prepared';
import type { DB } from '../db/schema';
import { subjects, type SubjectDef } from './subjects';

type Db = Kysely<DB> | Transaction<DB>;

const nameRead = preparedPer<SubjectDef, { id: number }, Record<string, unknown>>((def, db, arg) =>
  (db as unknown as Kysely<any>)
    .selectFrom(def.table)
    .select([...def.nameColumns])
    .where(def.key, '=', arg('id')),
);

/**
 * The row a process is about, named for a notification; null when it is gone.
 * `known` is the row when the caller has read it already (a decision on
 * PostgreSQL, which locked it).
 */
async function describe(trx: Db, ctx: AppContext, processType: number, refId: number, known?: Record<string, unknown>): Promise<{ def: SubjectDef; name: string } | null> {
  const def = subjects[processType];
  if (!def) return null;
  let row = known;
  if (!row) {
    row = (await nameRead(def)(trx, ctx.dialect, { id: refId })).rows[0];
  }
  return row ? { def, name: def.name(row) } : null;
}

/**
 * '新的审批任务' to each candidate of a node that just became active; tapping
 * opens the queue the task is in. `back`: the task returns to its approver
 * after the signer they added before themself approved (加签).
 */
export async function notifyTasksAssigned(
  trx: Db,
  ctx: AppContext,
  inst: { process_type: number; ref_id: number },
  queue: ApprovalQueueName | null,
  tasks: Array<{ process_task_id: number; user_id: number }>,
  subjectRow?: Record<string, unknown>,
  back = false,
): Promise<void> {
  const subject = await describe(trx, ctx, inst.process_type, inst.ref_id, subjectRow);
  const q = queue ? approvalQueues[queue] : null;
  const what = subject ? subject.name : '一项申请';
  await notify(
    trx,
    ctx,
    tasks.map((t) => ({
      userId: t.user_id,
      kind: NotificationKind.TASK_ASSIGNED,
      title: back ? '加签人已审核' : '新的审批任务',
      body: `${q ? `${q.title}：` : ''}${what}${back ? '已由加签人审核通过，请继续审核' : '待您审核'}`,
      url: q ? recordLink(q.route, t.process_task_id) : '/workbench',
      tag: `task-${t.process_task_id}`,
    })),
  );
}

/** '预约已通过' / '预约被驳回' to the applicant once the approval has ended either way. */
export async function notifyDecided(
  trx: Db,
  ctx: AppContext,
  inst: { process_type: number; ref_id: number; applicant_user_id: number },
  approved: boolean,
  remark = '',
  subjectRow?: Record<string, unknown>,
): Promise<void> {
  const subject = await describe(trx, ctx, inst.process_type, inst.ref_id, subjectRow);
  if (!subject) return;
  const { def } = subject;
  const reason = remark.trim() ? `：${remark.trim().slice(0, 100)}` : '';
  await notify(trx, ctx, [
    {
      userId: inst.applicant_user_id,
      kind: NotificationKind.APPLICATION_DECIDED,
      title: def.decided[approved ? 0 : 1],
      body: approved ? `${def.noun} ${subject.name} 已审核通过` : `${def.noun} ${subject.name} 被驳回${reason}`,
      url: recordLink(def.url, inst.ref_id),
      tag: `application-${def.kind}-${inst.ref_id}`,
    },
  ]);
}
