import { sql, type Kysely } from 'kysely';
import { InstanceState, TaskResult, TaskState } from '../../domain/appointments';
import { AUTO_APPROVE_REMARK, AUTO_REJECT_REMARK, AutoAction, autoDecisionRule, deadlineStep, deadlineUnitLabels, type DeadlineRule } from '../../domain/approval-deadline';
import { ProcessEventKind, TaskOrigin } from '../../domain/approval-events';
import { NotificationKind, recordLink } from '../../domain/notifications';
import { approvalQueues, type ApprovalQueueName } from '../../domain/registers';
import type { AppContext } from '../core/context';
import { isTransientDbConflict } from '../core/db-errors';
import { AppError } from '../core/errors';
import { notify } from '../core/notify';
import { tableChanged } from '../core/paging';
import { deliverWaitingSms, enqueueSms } from '../core/sms-outbox';
import { afterCommit } from '../core/transactions';
import type { DB } from '../db/schema';
import { deadlineColumns, deadlineOf } from './chain';
import { addRoleApprovers, decide, lockInstance, type ActiveTask } from './engine';
import { recordEvents, type NewProcessEvent } from './events';
import { subjects } from './subjects';

/**
 * The deadline job's work (docs/approvals.md): every pending task whose next
 * step is due (process_task.next_at) fires it, as its node's rule says
 * (domain/approval-deadline.ts deadlineStep): reminders to its approver
 * (notification centre, push and SMS), the escalation (the holders of a role
 * join the node), the automatic decision. Each step is claimed by a
 * conditional update of the task's step counter, or decided by the engine's
 * conditional settle, so servers sharing a database fire each step once; the
 * SMS go through the outbox after commit.
 */

export interface DeadlineRun {
  reminded: number;
  escalated: number;
  decided: number;
}

type DueTask = ActiveTask & {
  user_id: number;
  due_at: number | null;
  next_at: number;
  deadline_step: number;
  origin: number;
  instance_state: number;
  current_sort: number;
  applicant_user_id: number;
  phone: string | null;
  account: string | null;
  rule: DeadlineRule;
};

async function duePage(ctx: AppContext, nowMs: number, after: { at: number; id: number } | null, limit: number): Promise<DueTask[]> {
  let q = ctx.db
    .selectFrom('process_task as t')
    .innerJoin('process_instance as i', 'i.process_instance_id', 't.process_instance_id')
    // Left: a task without its node's copy reads as "no deadline" and is cleared, never fetched again and again.
    .leftJoin('process_instance_node as n', (j) => j.onRef('n.process_instance_id', '=', 't.process_instance_id').onRef('n.sort', '=', 't.sort'))
    .leftJoin('sys_user as u', 'u.user_id', 't.user_id')
    .select([
      't.process_task_id',
      't.process_instance_id',
      't.definition_node_id',
      't.sort',
      't.process_type',
      't.queue',
      't.ref_id',
      't.submit_time',
      't.user_id',
      't.due_at',
      't.next_at',
      't.deadline_step',
      't.origin',
      'i.state as instance_state',
      'i.current_sort',
      'i.applicant_user_id',
      'u.phone',
      'u.account',
      ...deadlineColumns.map((c) => `n.${c}` as const),
    ])
    .where('t.next_at', 'is not', null)
    .where('t.next_at', '<=', nowMs)
    .where('t.state', '=', TaskState.PENDING);
  if (after) {
    const { at, id } = after;
    q = q.where((eb) => eb.or([eb('t.next_at', '>', at), eb.and([eb('t.next_at', '=', at), eb('t.process_task_id', '>', id)])]));
  }
  const rows = await q.orderBy('t.next_at').orderBy('t.process_task_id').limit(limit).execute();
  return rows.map((r) => ({ ...r, next_at: Number(r.next_at), due_at: r.due_at === null ? null : Number(r.due_at), rule: deadlineOf(r) }));
}

/** Moves a task's step on, if no one else has: answers whether this call did. */
async function claimStep(trx: Kysely<DB>, t: DueTask, nextAt: number | null): Promise<boolean> {
  const res = await trx
    .updateTable('process_task')
    .set({ deadline_step: t.deadline_step + 1, next_at: nextAt })
    .where('process_task_id', '=', t.process_task_id)
    .where('state', '=', TaskState.PENDING)
    .where('deadline_step', '=', t.deadline_step)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

const limitText = (r: DeadlineRule) => `${r.value}${deadlineUnitLabels[r.unit]}`;

/** The subject's name for a reminder ('苏E12345' / '张三'), read for a page at once per kind. */
async function subjectNames(ctx: AppContext, tasks: DueTask[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const byType = new Map<number, number[]>();
  for (const t of tasks) byType.set(t.process_type, [...(byType.get(t.process_type) ?? []), t.ref_id]);
  for (const [type, ids] of byType) {
    const def = subjects[type];
    if (!def) continue;
    const rows = await (ctx.db as Kysely<any>)
      .selectFrom(def.table)
      .select([def.key, ...def.nameColumns])
      .where(def.key, 'in', [...new Set(ids)])
      .execute();
    for (const r of rows) out.set(`${type}:${r[def.key]}`, def.name(r));
  }
  return out;
}

/**
 * A page's reminders (and the steps that only move on: an escalation's
 * task with no reminder left) in one transaction: each task's step claimed,
 * then the notifications, the SMS row and the process events written
 * together. Escalations are done apart (they lock the application).
 */
async function remindPage(ctx: AppContext, tasks: DueTask[]): Promise<{ reminded: number; escalate: DueTask[] }> {
  if (!tasks.length) return { reminded: 0, escalate: [] };
  const names = await subjectNames(ctx, tasks);
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const reminded: DueTask[] = [];
    const escalate: DueTask[] = [];
    for (const t of tasks) {
      const step = deadlineStep(t.rule, t.deadline_step, t.due_at ?? t.next_at);
      if (!(await claimStep(trx, t, step.nextAt))) continue;
      if (step.remind) reminded.push(t);
      if (step.escalate && t.origin !== TaskOrigin.ESCALATED) escalate.push(t);
    }
    if (reminded.length) {
      const what = (t: DueTask) => names.get(`${t.process_type}:${t.ref_id}`) ?? '一项申请';
      const nth = (t: DueTask) => `第${t.deadline_step + 1}次提醒`;
      await notify(
        trx,
        ctx,
        reminded.map((t) => {
          const q = t.queue ? approvalQueues[t.queue as ApprovalQueueName] : null;
          return {
            userId: t.user_id,
            kind: NotificationKind.TASK_REMINDED,
            title: '审批超时提醒',
            body: `${q ? `${q.title}：` : ''}${what(t)}已超过审批时限${limitText(t.rule)}，请尽快审核（${nth(t)}）`,
            url: q ? recordLink(q.route, t.process_task_id) : '/workbench',
            tag: `task-${t.process_task_id}`,
          };
        }),
      );
      const texts = reminded
        .filter((t) => t.phone)
        .map((t) => ({ phone: t.phone!, account: t.account ?? '', text: `【园区出入管理】审批超时提醒：${what(t)}已超过审批时限${limitText(t.rule)}，请尽快审核。`, time: ctx.time() }));
      if (texts.length) await enqueueSms(trx, 'approval_remind', null, texts, ctx.now());
      await recordEvents(
        trx,
        ctx,
        reminded.map((t): NewProcessEvent => ({
          process_instance_id: t.process_instance_id,
          process_task_id: t.process_task_id,
          sort: t.sort,
          kind: ProcessEventKind.REMIND,
          user_id: null,
          text: `审批时限${limitText(t.rule)}已到，提醒审核人（${nth(t)}，共${t.rule.remindTimes}次）`,
        })),
      );
    }
    afterCommit(trx, () => tableChanged('process_task'));
    return { reminded: reminded.length, escalate };
  });
  if (outcome.reminded) await deliverWaitingSms(ctx, 'approval_remind').catch(() => 0);
  return outcome;
}

/**
 * The escalation of one task's node: under the lock order, if the instance
 * is still running at that node, the holders of the rule's role join it.
 * Answers how many joined.
 */
async function escalate(ctx: AppContext, t: DueTask): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const inst = await lockInstance(trx, ctx, t.process_instance_id, { processType: t.process_type, refId: t.ref_id });
    if (inst.state !== InstanceState.RUNNING || inst.current_sort !== t.sort) return 0;
    const roleId = t.rule.escalateRoleId!;
    const created = await addRoleApprovers(trx, ctx, t, inst.applicant_user_id, roleId, TaskOrigin.ESCALATED);
    const role = await trx.selectFrom('sys_role').select('name').where('role_id', '=', roleId).executeTakeFirst();
    const who = created.length ? `${created.length}人加入审批` : '无可加入的审核人';
    await recordEvents(trx, ctx, [
      {
        process_instance_id: t.process_instance_id,
        process_task_id: t.process_task_id,
        sort: t.sort,
        kind: ProcessEventKind.ESCALATE,
        user_id: null,
        text: `审批时限${limitText(t.rule)}已到，升级至“${role?.name ?? roleId}”：${who}`,
      },
    ]);
    return created.length;
  });
}

/**
 * A page's automatic decisions in one transaction, each in a savepoint: a
 * decision the engine refuses (settled meanwhile, or the next node has no
 * reviewer) is undone alone. A refused one that is still pending stops
 * waiting on the timer (next_at cleared) and says why in the process view,
 * for a person to decide.
 */
async function decidePage(ctx: AppContext, tasks: DueTask[]): Promise<number> {
  if (!tasks.length) return 0;
  const refused: Array<{ t: DueTask; why: string }> = [];
  const decided = await ctx.db.transaction().execute(async (trx) => {
    let n = 0;
    for (const t of tasks) {
      const approve = t.rule.autoAction === AutoAction.APPROVE;
      await sql`savepoint auto_decide`.execute(trx);
      try {
        await decide(trx, ctx, { taskId: t.process_task_id, userId: null, result: approve ? TaskResult.APPROVE : TaskResult.REJECT, remark: approve ? AUTO_APPROVE_REMARK : AUTO_REJECT_REMARK });
        await recordEvents(trx, ctx, [
          { process_instance_id: t.process_instance_id, process_task_id: t.process_task_id, sort: t.sort, kind: ProcessEventKind.AUTO_DECIDE, user_id: null, text: autoDecisionRule(t.rule) },
        ]);
        await sql`release savepoint auto_decide`.execute(trx);
        n++;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await sql`rollback to savepoint auto_decide`.execute(trx);
        refused.push({ t, why: err.message });
      }
    }
    return n;
  });
  for (const { t, why } of refused) {
    await ctx.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('process_task')
        .set({ next_at: null })
        .where('process_task_id', '=', t.process_task_id)
        .where('state', '=', TaskState.PENDING)
        .where('next_at', '=', t.next_at)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1)
        await recordEvents(trx, ctx, [
          {
            process_instance_id: t.process_instance_id,
            process_task_id: t.process_task_id,
            sort: t.sort,
            kind: ProcessEventKind.AUTO_DECIDE,
            user_id: null,
            text: `审批时限${limitText(t.rule)}已到，${t.rule.autoAction === AutoAction.APPROVE ? '自动通过' : '自动驳回'}未能完成：${why}，请人工审核`,
          },
        ]);
    });
  }
  return decided;
}

/**
 * Fires every step due by `nowMs`, in pages of `batch` oldest first, the
 * whole backlog (after downtime too). A deadlock victim is rolled back whole
 * and its page comes up again on the next run.
 */
export async function runDeadlines(ctx: AppContext, nowMs = ctx.now(), batch = 200): Promise<DeadlineRun> {
  const run: DeadlineRun = { reminded: 0, escalated: 0, decided: 0 };
  let after: { at: number; id: number } | null = null;
  for (;;) {
    const page = await duePage(ctx, nowMs, after, batch);
    if (!page.length) return run;
    const deciding = page.filter((t) => deadlineStep(t.rule, t.deadline_step, t.due_at ?? t.next_at).decide !== AutoAction.NONE);
    const others = page.filter((t) => !deciding.includes(t));
    try {
      const { reminded, escalate: toEscalate } = await remindPage(ctx, others);
      run.reminded += reminded;
      // One escalation per node: a countersign node's tasks all fall due together.
      const nodes = new Map(toEscalate.map((t) => [`${t.process_instance_id}:${t.sort}`, t]));
      for (const t of nodes.values()) run.escalated += await escalate(ctx, t);
      run.decided += await decidePage(ctx, deciding);
    } catch (err) {
      if (!isTransientDbConflict(err)) throw err;
    }
    if (page.length < batch) return run;
    const last = page[page.length - 1]!;
    after = { at: last.next_at, id: last.process_task_id };
  }
}

/** The earliest step still to fire (ms), for the timer; null when none. */
export async function nextDeadlineStep(ctx: AppContext): Promise<number | null> {
  const row = await ctx.db.selectFrom('process_task').select('next_at').where('next_at', 'is not', null).where('state', '=', TaskState.PENDING).orderBy('next_at').limit(1).executeTakeFirst();
  return row?.next_at === undefined || row.next_at === null ? null : Number(row.next_at);
}
