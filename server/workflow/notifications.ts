import type { Kysely, Transaction } from 'kysely';
import { queues, type QueueName } from '../../domain/appointments';
import { NotificationKind, recordLink } from '../../domain/notifications';
import type { AppContext } from '../core/context';
import { notify } from '../core/notify';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

interface Subject {
  kind: 'person' | 'car';
  /** The plate, or '访客' and the visitor's name. */
  name: string;
  number: string;
  /** The applicant's own list, where the application and its approval are shown. */
  url: string;
}

/** What the engine's process types 1-5 are about; other types have no application screen yet. */
async function subjectOf(trx: Db, processType: number, refId: number): Promise<Subject | null> {
  if (processType === 1) {
    const p = await trx.selectFrom('person_application').select(['visitor_name', 'application_number']).where('person_application_id', '=', refId).executeTakeFirst();
    return p ? { kind: 'person', name: `访客${p.visitor_name}`, number: p.application_number, url: '/appointments/person' } : null;
  }
  if (processType >= 2 && processType <= 5) {
    const c = await trx.selectFrom('car_application').select(['license_plate', 'application_number']).where('car_application_id', '=', refId).executeTakeFirst();
    return c ? { kind: 'car', name: c.license_plate, number: c.application_number, url: '/appointments/car' } : null;
  }
  return null;
}

const numbered = (s: Subject) => (s.number ? `${s.name}（${s.number}）` : s.name);

/** '新的审批任务' to each candidate of a node that just became active; tapping opens the queue the task is in. */
export async function notifyTasksAssigned(
  trx: Db,
  ctx: AppContext,
  inst: { process_type: number; ref_id: number },
  queue: QueueName | null,
  tasks: Array<{ process_task_id: number; user_id: number }>,
): Promise<void> {
  const subject = await subjectOf(trx, inst.process_type, inst.ref_id);
  const q = queue ? queues[queue] : null;
  const what = subject ? numbered(subject) : '一项申请';
  await notify(
    trx,
    ctx,
    tasks.map((t) => ({
      userId: t.user_id,
      kind: NotificationKind.TASK_ASSIGNED,
      title: '新的审批任务',
      body: `${q ? `${q.title}：` : ''}${what}待您审核`,
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
): Promise<void> {
  const subject = await subjectOf(trx, inst.process_type, inst.ref_id);
  if (!subject) return;
  const label = subject.kind === 'person' ? '人员预约' : '车辆预约';
  const reason = remark.trim() ? `：${remark.trim().slice(0, 100)}` : '';
  await notify(trx, ctx, [
    {
      userId: inst.applicant_user_id,
      kind: NotificationKind.APPLICATION_DECIDED,
      title: approved ? '预约已通过' : '预约被驳回',
      body: approved ? `${label} ${numbered(subject)} 已审核通过` : `${label} ${numbered(subject)} 被驳回${reason}`,
      url: recordLink(subject.url, inst.ref_id),
      tag: `application-${subject.kind}-${inst.ref_id}`,
    },
  ]);
}
