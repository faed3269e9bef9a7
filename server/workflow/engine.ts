import type { Compilable, Kysely, Selectable, Transaction } from 'kysely';
import { AppState, TaskResult, TaskState } from '../../domain/appointments';
import { deadlineAt, DeadlineUnit, firstStepAt, type DeadlineRule } from '../../domain/approval-deadline';
import { ProcessEventKind, SKIP_REMARK, SYSTEM_ACTOR, TaskOrigin } from '../../domain/approval-events';
import { dateOf } from '../../domain/visit-rules';
import { approvalQueueFor, type ApprovalQueueName } from '../../domain/registers';
import { subjectByTable, subjectOf, type SubjectTable } from './subjects';
import { enumLabel } from '../../domain/enums';
import { ErrorCode } from '../../domain/errors';
import type { AppContext } from '../core/context';
import { fail } from '../core/errors';
import { tableChanged } from '../core/paging';
import { afterCommit } from '../core/transactions';
import { prepared, preparedIn, preparedPer } from '../db/prepared';
import type { DB, ProcessInstanceTable } from '../db/schema';
import { chainNodeOf, configuredChain, copyChain, deadlineColumns, InstanceState, instanceChain, instanceChainView, instanceNode, type ChainNode, type JoinedNode } from './chain';
import { readCalendarMarks } from '../modules/work-calendar';
import { eventsOf, recordEvents } from './events';
import { notifyDecided, notifyTasksAssigned } from './notifications';

/**
 * The approval engine of DESIGN.md §4. An instance walks the ordered nodes it
 * copied from its process's definition at submit (chain.ts: configuration
 * edited later never changes an instance under way); each active node has
 * one task per candidate. Countersign
 * nodes need every candidate's approval, other nodes settle on the first
 * decision. Every change of one decision (task, instance, application, next
 * tasks) happens in the caller's transaction; decisions are conditional
 * updates on a pending task, so of two concurrent decisions exactly one wins.
 */

export { InstanceState };

type Db = Kysely<DB> | Transaction<DB>;

/** Every write that adds or settles a pending task is in this file; each tells the remembered queue totals (queue-routes.ts) once it commits. */
const tasksChanged = (trx: Db) => afterCommit(trx as Kysely<any>, () => tableChanged('process_task'));

export type { SubjectTable } from './subjects';

/*
 * LOCK ORDER (PostgreSQL; SQLite has one writer and takes no row locks).
 *
 * Every transaction that changes an application together with its approval
 * locks, in this order and never the other way round:
 *
 *   1. the application row (car_application / person_application),
 *   2. its process instance,
 *   3. the instance's tasks (by the UPDATEs that settle or close them).
 *
 * A submit also takes its process definition, shared, between 1 and 2; an
 * edit of a definition's nodes locks the definition and no application row,
 * so the two only queue.
 *
 * Two transactions that take the same rows in the same order queue behind one
 * another; two that take them in opposite orders deadlock, and PostgreSQL
 * kills one ("deadlock detected", which used to answer 500 when a reject raced
 * a revoke or a squad's return). So: the service's actions (revoke, return,
 * resume, submit, delay, edit, delete) lock the row first through
 * lockSubjectRow; the engine's entry points that start from a task or an
 * instance (decide, batch decide, the overtime timer) find the subject from
 * the task and lock it through lockInstance before anything else; the
 * approver's amend locks the row before reading its tasks. Because the
 * application row is always first, two decisions of one countersign node
 * also run one after the other, and the later one sees the earlier one's
 * task as settled when it counts what is still open.
 */

/** Step 1 of the lock order: the application row, locked on PostgreSQL. Answers the row as stored (also a deleted one). */
export async function lockSubjectRow(trx: Db, ctx: AppContext, table: SubjectTable, id: number): Promise<Record<string, any> | undefined> {
  const q = (trx as Kysely<any>).selectFrom(table).selectAll().where(subjectByTable[table].key, '=', id);
  return (ctx.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
}

/**
 * Steps 1 and 2 of the lock order for a caller that starts from an instance or
 * a task: the subject row (given, as a task carries it, or read from the
 * instance; neither changes after submit), then the instance itself, read
 * again under its lock.
 */
export async function lockInstance(trx: Db, ctx: AppContext, id: number, subject?: { processType: number; refId: number }): Promise<Instance> {
  if (ctx.dialect === 'postgres') {
    let s = subject;
    if (!s) {
      const found = await selectInstance(trx, id).executeTakeFirst();
      if (!found) fail(ErrorCode.NOT_FOUND, '审批流程不存在');
      s = { processType: found!.process_type, refId: found!.ref_id };
    }
    await lockSubjectRow(trx, ctx, subjectOf(s.processType).table, s.refId);
  }
  return loadInstance(trx, ctx, id, true);
}

const subjectStateUpdate = preparedPer<SubjectTable, { state: number; time: string; id: number }, unknown>((table, db, arg) => {
  const s = subjectByTable[table];
  return (db as unknown as Kysely<any>)
    .updateTable(table)
    .set({ [s.stateColumn]: arg('state'), update_time: arg('time') })
    .where(s.key, '=', arg('id'));
});

async function setSubjectState(trx: Db, ctx: AppContext, processType: number, refId: number, state: number) {
  const { table } = subjectOf(processType);
  await subjectStateUpdate(table)(trx, ctx.dialect, { state, time: ctx.time(), id: refId });
}

export interface StartInput {
  processType: number;
  refId: number;
  applicantUserId: number;
  intervieweeDepartId: number | null;
}

/**
 * Submits: creates the instance with its own copy of the chain in force (the
 * one live process of the type), at the first node, and its tasks. Refuses
 * when the type has no process, its chain no node, or the node no candidate.
 */
export async function startInstance(trx: Db, ctx: AppContext, input: StartInput): Promise<number> {
  const process = await trx
    .selectFrom('process')
    .innerJoin('process_definition as d', 'd.process_definition_id', 'process.process_definition_id')
    .select(['process.process_id', 'process.process_definition_id', 'd.skip_repeat'])
    .where('process.type', '=', input.processType)
    .where('process.deleted', '=', 0)
    .executeTakeFirst();
  if (!process) fail(ErrorCode.STATE_CONFLICT, `未配置“${enumLabel('processType', input.processType)}”审批流程，无法提交，请联系管理员在“审批流程”中配置`);
  if (ctx.dialect === 'postgres') {
    // Shared: submissions run side by side, but an edit of the definition's nodes (which locks it for update and then
    // counts the applications in review) waits for this one to commit and counts it, or this one copies the edited chain.
    await trx.selectFrom('process_definition').select('process_definition_id').where('process_definition_id', '=', process!.process_definition_id).forShare().execute();
  }
  const chain = await configuredChain(trx, process!.process_definition_id);
  const first = chain[0];
  if (!first) fail(ErrorCode.STATE_CONFLICT, `“${enumLabel('processType', input.processType)}”审批流程没有节点，无法提交，请联系管理员`);
  const now = ctx.time();
  const subject = subjectOf(input.processType);
  const area = subject.areaColumn
    ? ((await (trx as Kysely<any>).selectFrom(subject.table).select(subject.areaColumn).where(subject.key, '=', input.refId).executeTakeFirst())?.[subject.areaColumn] ?? null)
    : null;
  const inst = await trx
    .insertInto('process_instance')
    .values({
      process_id: process!.process_id,
      process_definition_id: process!.process_definition_id,
      process_type: input.processType,
      ref_id: input.refId,
      state: InstanceState.RUNNING,
      current_sort: first!.sort,
      applicant_user_id: input.applicantUserId,
      interviewee_depart_id: input.intervieweeDepartId,
      visit_area: area,
      skip_repeat: process!.skip_repeat,
      create_time: now,
      update_time: now,
    })
    .returning('process_instance_id')
    .executeTakeFirstOrThrow();
  await copyChain(trx, inst.process_instance_id, chain);
  const instance = await loadInstance(trx, ctx, inst.process_instance_id, false);
  // The chain just copied is the instance's own.
  await activateNode(trx, ctx, instance, first!.sort, chain);
  await setSubjectState(trx, ctx, input.processType, input.refId, AppState.REVIEW);
  return inst.process_instance_id;
}

type Instance = Selectable<ProcessInstanceTable>;

function selectInstance(trx: Db, id: number) {
  return trx.selectFrom('process_instance').selectAll().where('process_instance_id', '=', id);
}

/** Reads the instance; with `lock` on PostgreSQL locks it (step 2 of the lock order: callers hold the subject row already). */
async function loadInstance(trx: Db, ctx: AppContext, id: number, lock: boolean): Promise<Instance> {
  const q = selectInstance(trx, id);
  const row = await (lock && ctx.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
  if (!row) fail(ErrorCode.NOT_FOUND, '审批流程不存在');
  return row!;
}

/**
 * Creates one pending task per candidate of the instance's node at `sort`; a
 * node without candidates is refused, never skipped. The rule (role,
 * departments, visited enterprise, overtime) is the instance's copy; the
 * people holding that role there are looked up now.
 */
async function activateNode(
  trx: Db,
  ctx: AppContext,
  inst: Instance,
  sort: number,
  known?: ChainNode[],
  subjectRow?: Record<string, unknown>,
): Promise<Array<{ process_task_id: number; user_id: number }>> {
  const chain = known ?? (await instanceChain(trx, inst.process_instance_id));
  const defNode = chain.find((n) => n.sort === sort);
  if (!defNode) fail(ErrorCode.STATE_CONFLICT, '审批流程节点不存在，请联系管理员');
  const last = !chain.some((n) => n.sort > sort);

  const departIds = defNode!.company_check === 1 ? (inst.interviewee_depart_id ? [inst.interviewee_depart_id] : []) : defNode!.departIds;
  const dueAt = await taskDeadline(trx, ctx, defNode!.deadline);
  const queue = approvalQueueFor(inst.process_type, last);
  const created = departIds.length
    ? (
        await insertCandidates('candidates', departIds)(trx, ctx.dialect, {
          instanceId: inst.process_instance_id,
          nodeId: defNode!.definition_node_id,
          sort,
          processType: inst.process_type,
          queue,
          refId: inst.ref_id,
          state: TaskState.PENDING,
          submitTime: inst.create_time,
          dueAt,
          nextAt: firstStepAt(defNode!.deadline, dueAt),
          required: defNode!.countersign === 1 ? 1 : 0,
          roleId: defNode!.role_id,
          applicantId: inst.applicant_user_id,
        })
      ).rows
    : [];
  if (created.length === 0) {
    const names = departIds.length ? (await trx.selectFrom('sys_department').select('name').where('depart_id', 'in', departIds).execute()).map((d) => d.name).join('、') : '被访部门';
    fail(ErrorCode.STATE_CONFLICT, `审批节点“${defNode!.name}”在“${names}”没有可用的审核人，无法提交，请联系管理员配置审核人`);
  }
  tasksChanged(trx);
  // Where it stands, for the reports (migration 023): at the squad's last node, at a 企业 node, or between.
  const stage = last ? 2 : defNode!.company_check === 1 ? 1 : 0;
  const companyPassed = chain.some((n) => n.company_check === 1 && n.sort < sort) ? 1 : 0;
  await instanceAt(trx, ctx.dialect, { sort, state: InstanceState.RUNNING, stage, companyPassed, time: ctx.time(), id: inst.process_instance_id });
  await notifyTasksAssigned(trx, ctx, inst, queue, created, subjectRow);
  return created;
}

/** When a task of a node with this rule, created now, is due (ms); working days count on the 工作日历. */
async function taskDeadline(trx: Db, ctx: AppContext, rule: DeadlineRule): Promise<number | null> {
  const now = ctx.now();
  const text = ctx.time();
  const marks = rule.value > 0 && rule.unit === DeadlineUnit.WORKING_DAYS ? await readCalendarMarks(trx as Kysely<DB>, dateOf(text)) : new Map();
  return deadlineAt(rule, now, text, marks);
}

type CandidateArgs = {
  instanceId: number;
  nodeId: number;
  sort: number;
  processType: number;
  queue: string | null;
  refId: number;
  state: number;
  submitTime: string;
  dueAt: number | null;
  nextAt: number | null;
  required: number;
  roleId: number;
  applicantId: number;
};

/**
 * A node's candidates given their tasks in one statement: the people holding
 * the node's role in its departments now. Prepared per number of departments
 * (issue 28): built per call, it was the largest query a decision compiled.
 */
const insertCandidates = preparedIn<'candidates', CandidateArgs, { process_task_id: number; user_id: number }>((_key, db, arg, departIds) =>
  db
    .insertInto('process_task')
    .columns(['process_instance_id', 'definition_node_id', 'sort', 'process_type', 'queue', 'ref_id', 'user_id', 'depart_id', 'state', 'submit_time', 'due_at', 'next_at', 'required'])
    .expression((eb) =>
      eb
        .selectFrom('sys_user as u')
        .innerJoin('sys_user_role as ur', 'ur.user_id', 'u.user_id')
        .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
        .select((s) => [
          s.cast<number>(s.val(arg('instanceId')), 'integer').as('process_instance_id'),
          s.cast<number>(s.val(arg('nodeId')), 'integer').as('definition_node_id'),
          s.cast<number>(s.val(arg('sort')), 'integer').as('sort'),
          s.cast<number>(s.val(arg('processType')), 'integer').as('process_type'),
          s.cast<string | null>(s.val(arg('queue')), 'text').as('queue'),
          s.cast<number>(s.val(arg('refId')), 'integer').as('ref_id'),
          'u.user_id',
          'u.depart_id',
          s.cast<number>(s.val(arg('state')), 'integer').as('state'),
          // The filer's submission, not this node's arrival: every queue and the review header show it as 提交时间.
          s.cast<string>(s.val(arg('submitTime')), 'text').as('submit_time'),
          s.cast<number | null>(s.val(arg('dueAt')), 'bigint').as('due_at'),
          s.cast<number | null>(s.val(arg('nextAt')), 'bigint').as('next_at'),
          s.cast<number>(s.val(arg('required')), 'integer').as('required'),
        ])
        .where('ur.role_id', '=', arg('roleId'))
        .where('r.status', '=', 1)
        .where('r.deleted', '=', 0)
        .where('u.status', '=', 1)
        .where('u.deleted', '=', 0)
        .where('u.depart_id', 'in', departIds)
        // Separation of duties: nobody approves their own application.
        .where('u.user_id', '!=', arg('applicantId'))
        .orderBy('u.user_id'),
    )
    .returning(['process_task_id', 'user_id']),
);

const instanceAt = prepared<{ sort: number; state: number; stage: number; companyPassed: number; time: string; id: number }, unknown>((db, arg) =>
  db
    .updateTable('process_instance')
    .set({ current_sort: arg('sort'), state: arg('state'), stage: arg('stage'), company_passed: arg('companyPassed'), update_time: arg('time') })
    .where('process_instance_id', '=', arg('id')),
);
const instanceEnded = prepared<{ state: number; time: string; id: number }, unknown>((db, arg) =>
  db
    .updateTable('process_instance')
    .set({ state: arg('state'), update_time: arg('time') })
    .where('process_instance_id', '=', arg('id')),
);
const instanceApproved = prepared<{ companyPassed: number; time: string; id: number }, unknown>((db, arg) =>
  db
    .updateTable('process_instance')
    .set({ state: InstanceState.APPROVED, company_passed: arg('companyPassed'), update_time: arg('time') })
    .where('process_instance_id', '=', arg('id')),
);

/** Open: pending, or waiting for a signer its approver added before themself. */
const OPEN = [TaskState.PENDING, TaskState.WAITING];

const closeAll = prepared<{ remark: string; time: string; id: number }, unknown>((db, arg) =>
  db
    .updateTable('process_task')
    .set({ state: TaskState.CLOSED, remark: arg('remark'), approve_time: arg('time'), next_at: null })
    .where('process_instance_id', '=', arg('id'))
    .where('state', 'in', OPEN),
);
const closeNode = prepared<{ remark: string; time: string; id: number; sort: number }, unknown>((db, arg) =>
  db
    .updateTable('process_task')
    .set({ state: TaskState.CLOSED, remark: arg('remark'), approve_time: arg('time'), next_at: null })
    .where('process_instance_id', '=', arg('id'))
    .where('state', 'in', OPEN)
    .where('sort', '=', arg('sort')),
);
/** The node's any-one approvers, once one approval decided for them. */
const closeOptional = prepared<{ remark: string; time: string; id: number; sort: number }, unknown>((db, arg) =>
  db
    .updateTable('process_task')
    .set({ state: TaskState.CLOSED, remark: arg('remark'), approve_time: arg('time'), next_at: null })
    .where('process_instance_id', '=', arg('id'))
    .where('state', '=', TaskState.PENDING)
    .where('sort', '=', arg('sort'))
    .where('required', '=', 0),
);

async function closePending(trx: Db, ctx: AppContext, instanceId: number, remark: string, sort?: number, optionalOnly = false) {
  const args = { remark, time: ctx.time(), id: instanceId };
  await (sort === undefined ? closeAll(trx, ctx.dialect, args) : (optionalOnly ? closeOptional : closeNode)(trx, ctx.dialect, { ...args, sort }));
  tasksChanged(trx);
}

/** Says what already happened to a task that is no longer pending (the 409 message). */
export async function describeSettled(trx: Db, taskId: number): Promise<string> {
  const t = await trx
    .selectFrom('process_task as t')
    .leftJoin('sys_user as u', 'u.user_id', 't.user_id')
    .select(['t.state', 't.result', 't.remark', 't.approve_time', 't.auto', 'u.user_name'])
    .where('t.process_task_id', '=', taskId)
    .executeTakeFirst();
  if (!t) return '审批任务不存在';
  if (t.state === TaskState.DONE) {
    const what = t.result === TaskResult.APPROVE ? '审核通过' : '驳回';
    return t.auto ? `该任务已于${t.approve_time}由系统处理（${t.remark || what}），无需再审核` : `该任务已由${t.user_name ?? ''}于${t.approve_time}${what}，不能重复审核`;
  }
  return `该任务已关闭（${t.remark || '流程已结束'}），无需再审核`;
}

export interface Decision {
  taskId: number;
  /** The deciding user; null for the overtime timer. */
  userId: number | null;
  result: number;
  remark: string;
  /** Only tasks of these queues may be decided through the calling endpoint. */
  queues?: readonly string[];
  /** 后加签: with an approval, this user must approve at the node too before it moves on (checked by the caller, task-actions.ts). */
  addAfter?: number;
  /** The person a system decision passes a node for (相同审核人自动通过): their approval counts at the next node too. */
  skipFor?: number;
}

export type DecisionOutcome = 'waiting' | 'advanced' | 'approved' | 'rejected';

/** Of a task, what the lock order needs before anything else is read: its subject, and whose task it is. */
const taskSubject = prepared<{ taskId: number }, { process_type: number; ref_id: number; user_id: number }>((db, arg) =>
  db.selectFrom('process_task').select(['process_type', 'ref_id', 'user_id']).where('process_task_id', '=', arg('taskId')),
);

type DecisionRow = Instance & JoinedNode & { task_user_id: number; task_queue: string | null; task_sort: number; task_origin: number; task_origin_id: number | null };

/**
 * A decision's reads in one statement: the task, its instance and the
 * instance's chain (one row per node). On PostgreSQL it locks the instance
 * (step 2 of the lock order; the caller holds the subject row).
 */
const decisionRead = (lock: boolean) =>
  prepared<{ taskId: number }, DecisionRow>((db, arg) => {
    const q = db
      .selectFrom('process_task as t')
      .innerJoin('process_instance as i', 'i.process_instance_id', 't.process_instance_id')
      .leftJoin('process_instance_node as n', 'n.process_instance_id', 't.process_instance_id')
      .selectAll('i')
      .select([
        't.user_id as task_user_id',
        't.queue as task_queue',
        't.sort as task_sort',
        't.origin as task_origin',
        't.origin_task_id as task_origin_id',
        'n.sort as node_sort',
        'n.definition_node_id',
        'n.process_node_id',
        'n.name as node_name',
        'n.role_id',
        'n.depart_ids',
        'n.countersign',
        'n.company_check',
        'n.overtime_auto_check',
        'n.overtime_hours',
        ...deadlineColumns.map((c) => `n.${c}` as const),
      ])
      .where('t.process_task_id', '=', arg('taskId'))
      .orderBy('n.sort');
    return (lock ? q.forUpdate('i') : q) as unknown as Compilable<DecisionRow>;
  });
const readUnlocked = decisionRead(false);
const readLocked = decisionRead(true);

const settleTask = prepared<{ result: number; remark: string; time: string; auto: number; taskId: number }, unknown>((db, arg) =>
  db
    .updateTable('process_task')
    .set({ state: TaskState.DONE, result: arg('result'), remark: arg('remark'), approve_time: arg('time'), auto: arg('auto'), next_at: null })
    .where('process_task_id', '=', arg('taskId'))
    .where('state', '=', TaskState.PENDING),
);

const openAtNode = prepared<{ id: number; sort: number }, { n: number }>((db, arg) =>
  db
    .selectFrom('process_task')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('process_instance_id', '=', arg('id'))
    .where('sort', '=', arg('sort'))
    .where('state', 'in', OPEN)
    // Only these hold the node: escalated and any-one approvers never do.
    .where('required', '=', 1),
);

/**
 * One decision, inside the caller's transaction. Throws 404 for a task that
 * is not the caller's, 409 for one no longer pending. An approval that
 * moves on is seven statements on SQLite and eight on PostgreSQL (issue 28):
 * the reads (task, instance and chain in one; the subject's lock first on
 * PostgreSQL, its name on SQLite), the task, the node's other tasks, the next
 * node's tasks with their candidates, the instance, and the notifications.
 */
export async function decide(trx: Db, ctx: AppContext, d: Decision): Promise<DecisionOutcome> {
  const notYours = () => fail(ErrorCode.NOT_FOUND, `审批任务${d.taskId}不存在或不属于您`);
  let subjectRow: Record<string, unknown> | undefined;
  if (ctx.dialect === 'postgres') {
    // The lock order: the application row, then the instance, then the task's conditional update.
    const t = (await taskSubject(trx, ctx.dialect, { taskId: d.taskId })).rows[0];
    if (!t || (d.userId !== null && t.user_id !== d.userId)) notYours();
    subjectRow = await lockSubjectRow(trx, ctx, subjectOf(t!.process_type).table, t!.ref_id);
  }
  const rows = (await (ctx.dialect === 'postgres' ? readLocked : readUnlocked)(trx, ctx.dialect, { taskId: d.taskId })).rows;
  const read = rows[0];
  if (!read || (d.userId !== null && read.task_user_id !== d.userId) || (d.queues && !d.queues.includes(read.task_queue ?? ''))) notYours();
  const { task_user_id: _u, task_queue: _q, task_sort: taskSort, task_origin: origin, task_origin_id: originTaskId, ...first } = read!;
  const inst = instanceOf(first);
  const chain = rows.filter((r) => r.node_sort !== null).map(chainNodeOf);
  const now = ctx.time();
  const settled = await settleTask(trx, ctx.dialect, { result: d.result, remark: d.remark, time: now, auto: d.userId === null ? 1 : 0, taskId: d.taskId });
  if (Number(settled.numAffectedRows ?? 0) === 0) fail(ErrorCode.STATE_CONFLICT, await describeSettled(trx, d.taskId));
  tasksChanged(trx);

  if (d.result !== TaskResult.APPROVE) {
    await closePending(trx, ctx, inst.process_instance_id, '审批已被驳回');
    await instanceEnded(trx, ctx.dialect, { state: InstanceState.REJECTED, time: now, id: inst.process_instance_id });
    await setSubjectState(trx, ctx, inst.process_type, inst.ref_id, AppState.REJECTED);
    await notifyDecided(trx, ctx, inst, false, d.remark, subjectRow);
    return 'rejected';
  }

  const node = chain.find((n) => n.sort === taskSort);
  if (!node) fail(ErrorCode.STATE_CONFLICT, '审批流程节点不存在，请联系管理员');
  if (origin === TaskOrigin.ADDED_BEFORE && originTaskId !== null) {
    // The signer asked first has approved: the task that asked returns to its approver.
    await reopenWaiting(trx, ctx, inst, originTaskId, subjectRow);
    return 'waiting';
  }
  // An approver who joined at the deadline (escalation) decides for the node, countersign or not.
  if (origin !== TaskOrigin.ESCALATED) {
    // A first-decision node's other candidates are decided for; whoever must still approve (an added signer) holds it.
    if (node!.countersign !== 1) await closePending(trx, ctx, inst.process_instance_id, '同节点其他审核人已审核', taskSort, true);
    if (d.addAfter)
      await addSignerTask(trx, ctx, { ...inst, sort: taskSort, definition_node_id: node!.definition_node_id, queue: _q, taskId: d.taskId }, d.addAfter, TaskOrigin.ADDED_AFTER, subjectRow);
    const open = (await openAtNode(trx, ctx.dialect, { id: inst.process_instance_id, sort: taskSort })).rows[0];
    if (Number(open?.n ?? 0) > 0) return 'waiting';
  }
  await closePending(trx, ctx, inst.process_instance_id, '同节点其他审核人已审核', taskSort);

  const next = chain.find((n) => n.sort > taskSort)?.sort;
  if (next === undefined) {
    await instanceApproved(trx, ctx.dialect, { companyPassed: chain.some((n) => n.company_check === 1) ? 1 : 0, time: now, id: inst.process_instance_id });
    await setSubjectState(trx, ctx, inst.process_type, inst.ref_id, AppState.APPROVED);
    await notifyDecided(trx, ctx, inst, true, '', subjectRow);
    return 'approved';
  }
  const created = await activateNode(trx, ctx, inst, next, chain, subjectRow);
  // 相同审核人自动通过: the person who just approved is an approver of the next node too, which passes by itself, as 系统.
  const approver = d.userId ?? d.skipFor;
  const again = inst.skip_repeat === 1 && approver !== undefined && approver !== null ? created.find((t) => t.user_id === approver) : undefined;
  if (again) {
    await recordEvents(trx, ctx, [
      {
        process_instance_id: inst.process_instance_id,
        process_task_id: again.process_task_id,
        sort: next,
        kind: ProcessEventKind.SKIP,
        user_id: null,
        text: `同一审核人已审核通过“${node!.name}”，本节点自动通过`,
      },
    ]);
    const outcome = await decide(trx, ctx, { taskId: again.process_task_id, userId: null, result: TaskResult.APPROVE, remark: SKIP_REMARK, skipFor: approver! });
    return outcome === 'approved' ? 'approved' : 'advanced';
  }
  return 'advanced';
}

/** The instance's own columns of a decision's read. */
function instanceOf(r: Instance & Record<string, unknown>): Instance {
  return {
    process_instance_id: r.process_instance_id,
    process_id: r.process_id,
    process_definition_id: r.process_definition_id,
    process_type: r.process_type,
    ref_id: r.ref_id,
    state: r.state,
    current_sort: r.current_sort,
    applicant_user_id: r.applicant_user_id,
    interviewee_depart_id: r.interviewee_depart_id,
    visit_area: r.visit_area,
    stage: r.stage,
    company_passed: r.company_passed,
    skip_repeat: r.skip_repeat,
    create_time: r.create_time,
    update_time: r.update_time,
  };
}

/** Revoke (state 4): open tasks are closed; resume later restarts at the node where it stopped. */
export async function revokeInstance(trx: Db, ctx: AppContext, instanceId: number): Promise<void> {
  const inst = await lockInstance(trx, ctx, instanceId);
  if (inst.state !== InstanceState.RUNNING && inst.state !== InstanceState.APPROVED) fail(ErrorCode.STATE_CONFLICT, '审批流程已结束，不能撤销');
  await closePending(trx, ctx, instanceId, '申请已撤销');
  await instanceEnded(trx, ctx.dialect, { state: InstanceState.REVOKED, time: ctx.time(), id: instanceId });
  await setSubjectState(trx, ctx, inst.process_type, inst.ref_id, AppState.REVOKED);
}

/**
 * Reject from the all-history screen: recorded as a decision of the person who
 * rejected, at the active node, so the process view shows who and why.
 */
export async function rejectInstance(trx: Db, ctx: AppContext, instanceId: number, user: { userId: number; departId: number }, remark: string): Promise<void> {
  const inst = await lockInstance(trx, ctx, instanceId);
  if (inst.state !== InstanceState.RUNNING) fail(ErrorCode.STATE_CONFLICT, '审批流程不在审核中，不能驳回');
  const node = await instanceNode(trx, instanceId, inst.current_sort);
  if (!node) fail(ErrorCode.STATE_CONFLICT, '审批流程节点不存在，请联系管理员');
  await closePending(trx, ctx, instanceId, '审批已被驳回');
  const now = ctx.time();
  await trx
    .insertInto('process_task')
    .values({
      process_instance_id: instanceId,
      definition_node_id: node!.definition_node_id,
      sort: inst.current_sort,
      process_type: inst.process_type,
      queue: null,
      ref_id: inst.ref_id,
      user_id: user.userId,
      depart_id: user.departId,
      state: TaskState.DONE,
      result: TaskResult.REJECT,
      remark,
      submit_time: inst.create_time,
      approve_time: now,
      due_at: null,
    })
    .execute();
  await instanceEnded(trx, ctx.dialect, { state: InstanceState.REJECTED, time: now, id: instanceId });
  await setSubjectState(trx, ctx, inst.process_type, inst.ref_id, AppState.REJECTED);
  await notifyDecided(trx, ctx, inst, false, remark);
}

/** Continue approval from 3 or 4: the node where the instance stopped gets fresh tasks. */
export async function resumeInstance(trx: Db, ctx: AppContext, instanceId: number): Promise<void> {
  const inst = await lockInstance(trx, ctx, instanceId);
  if (inst.state !== InstanceState.REJECTED && inst.state !== InstanceState.REVOKED) fail(ErrorCode.STATE_CONFLICT, '审批流程未被驳回或撤销，不能继续审批');
  await activateNode(trx, ctx, inst, inst.current_sort);
  await setSubjectState(trx, ctx, inst.process_type, inst.ref_id, AppState.REVIEW);
}

/**
 * The approval-process view (spec 002 §3): processInstance (with current_sort,
 * the node it is at or stopped at) and processTaskList, plus the instance's
 * own chain (processNodeList), so the drawer shows the nodes still to come.
 */
export async function processInfo(db: Db, instanceId: number) {
  const inst = await db
    .selectFrom('process_instance')
    .select(['process_instance_id', 'process_type', 'state', 'current_sort', 'create_time', 'update_time'])
    .where('process_instance_id', '=', instanceId)
    .executeTakeFirst();
  if (!inst) fail(ErrorCode.NOT_FOUND, '审批流程不存在');
  const tasks = await db
    .selectFrom('process_task as t')
    .innerJoin('process_instance_node as d', (j) => j.onRef('d.process_instance_id', '=', 't.process_instance_id').onRef('d.sort', '=', 't.sort'))
    .leftJoin('sys_user as u', 'u.user_id', 't.user_id')
    .leftJoin('sys_department as dep', 'dep.depart_id', 't.depart_id')
    .select(['t.process_task_id', 't.sort', 'd.name as node_name', 'u.user_name', 'dep.name as depart_name', 't.state', 't.result', 't.remark', 't.approve_time', 't.submit_time', 't.auto'])
    .where('t.process_instance_id', '=', instanceId)
    .orderBy('t.process_task_id')
    .execute();
  return {
    processInstance: inst!,
    processNodeList: await instanceChainView(db, instanceId),
    processTaskList: tasks.map((t) => ({
      process_task_id: t.process_task_id,
      state: t.state,
      result: t.result,
      remark: t.remark,
      approve_time: t.approve_time,
      submit_time: t.submit_time,
      auto: t.auto,
      processDefinitionNode: { name: t.node_name, sort: t.sort },
      // The system decided, not the person the task was for (the rule is in processEventList).
      user: { user_name: t.auto ? SYSTEM_ACTOR : (t.user_name ?? '') },
      depart: { name: t.auto ? '' : (t.depart_name ?? '') },
    })),
    processEventList: await eventsOf(db, instanceId),
  };
}

export interface ActiveTask {
  process_task_id: number;
  process_instance_id: number;
  definition_node_id: number;
  sort: number;
  process_type: number;
  queue: string | null;
  ref_id: number;
  submit_time: string;
}

/**
 * More approvers at the node `task` is at (an escalation): one pending task
 * each for the enabled holders of `roleId` who have none there yet, never the
 * applicant (separation of duties). The caller holds the lock order's first
 * two locks and has checked the instance is still at that node. Answers the
 * tasks made; their holders are told as a node's own candidates are.
 */
export async function addRoleApprovers(
  trx: Db,
  ctx: AppContext,
  task: ActiveTask,
  applicantId: number,
  roleId: number,
  origin: TaskOrigin,
): Promise<Array<{ process_task_id: number; user_id: number }>> {
  const created = await trx
    .insertInto('process_task')
    .columns(['process_instance_id', 'definition_node_id', 'sort', 'process_type', 'queue', 'ref_id', 'user_id', 'depart_id', 'state', 'submit_time', 'origin', 'origin_task_id'])
    .expression((eb) =>
      eb
        .selectFrom('sys_user as u')
        .innerJoin('sys_user_role as ur', 'ur.user_id', 'u.user_id')
        .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
        .select((s) => [
          s.val(task.process_instance_id).as('process_instance_id'),
          s.val(task.definition_node_id).as('definition_node_id'),
          s.val(task.sort).as('sort'),
          s.val(task.process_type).as('process_type'),
          s.cast<string | null>(s.val(task.queue), 'text').as('queue'),
          s.val(task.ref_id).as('ref_id'),
          'u.user_id',
          'u.depart_id',
          s.val(TaskState.PENDING).as('state'),
          s.val(task.submit_time).as('submit_time'),
          s.val(origin).as('origin'),
          s.val(task.process_task_id).as('origin_task_id'),
        ])
        .where('ur.role_id', '=', roleId)
        .where('r.status', '=', 1)
        .where('r.deleted', '=', 0)
        .where('u.status', '=', 1)
        .where('u.deleted', '=', 0)
        .where('u.user_id', '!=', applicantId)
        .where((w) =>
          w.not(
            w.exists(
              w
                .selectFrom('process_task as o')
                .select('o.process_task_id')
                .where('o.process_instance_id', '=', task.process_instance_id)
                .where('o.sort', '=', task.sort)
                .where('o.state', '=', TaskState.PENDING)
                .whereRef('o.user_id', '=', 'u.user_id'),
            ),
          ),
        )
        .orderBy('u.user_id'),
    )
    .returning(['process_task_id', 'user_id'])
    .execute();
  if (created.length) {
    tasksChanged(trx);
    await notifyTasksAssigned(trx, ctx, task, task.queue as ApprovalQueueName | null, created);
  }
  return created;
}

/** Where a task is: what a task added at its node copies. */
export interface TaskPlace {
  process_instance_id: number;
  process_type: number;
  ref_id: number;
  /** The instance's submission: every task shows it as 提交时间. */
  create_time: string;
  sort: number;
  definition_node_id: number;
  queue: string | null;
  /** The task the new one comes from. */
  taskId: number;
}

/**
 * An added signer's task at the node (加签, docs/approvals.md): the node waits
 * for its approval (required), it has no deadline of its own, and its holder
 * is told as a node's candidates are. The caller checked who may be added.
 */
export async function addSignerTask(trx: Db, ctx: AppContext, at: TaskPlace, userId: number, origin: TaskOrigin, subjectRow?: Record<string, unknown>): Promise<number> {
  const user = await trx.selectFrom('sys_user').select('depart_id').where('user_id', '=', userId).executeTakeFirstOrThrow();
  const created = await trx
    .insertInto('process_task')
    .values({
      process_instance_id: at.process_instance_id,
      definition_node_id: at.definition_node_id,
      sort: at.sort,
      process_type: at.process_type,
      queue: at.queue,
      ref_id: at.ref_id,
      user_id: userId,
      depart_id: user.depart_id,
      state: TaskState.PENDING,
      submit_time: at.create_time,
      due_at: null,
      origin,
      origin_task_id: at.taskId,
      required: 1,
    })
    .returning(['process_task_id', 'user_id'])
    .executeTakeFirstOrThrow();
  tasksChanged(trx);
  await notifyTasksAssigned(trx, ctx, at, at.queue as ApprovalQueueName | null, [created], subjectRow);
  return created.process_task_id;
}

/** A task waiting on a signer its approver added before themself is pending again, and its approver told. */
async function reopenWaiting(trx: Db, ctx: AppContext, inst: { process_type: number; ref_id: number }, taskId: number, subjectRow?: Record<string, unknown>): Promise<void> {
  const back = await trx
    .updateTable('process_task')
    .set({ state: TaskState.PENDING })
    .where('process_task_id', '=', taskId)
    .where('state', '=', TaskState.WAITING)
    .returning(['process_task_id', 'user_id', 'queue'])
    .executeTakeFirst();
  if (!back) return;
  tasksChanged(trx);
  await notifyTasksAssigned(trx, ctx, inst, back.queue as ApprovalQueueName | null, [back], subjectRow, true);
}

/** A pending task of `userId` made to wait for a signer added before them (前加签); false when it is no longer pending. */
export async function suspendTask(trx: Db, taskId: number, userId: number): Promise<boolean> {
  const res = await trx
    .updateTable('process_task')
    .set({ state: TaskState.WAITING })
    .where('process_task_id', '=', taskId)
    .where('user_id', '=', userId)
    .where('state', '=', TaskState.PENDING)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 1) tasksChanged(trx);
  return Number(res.numUpdatedRows) === 1;
}

/** The node now waits for this pending task's approval too (并加签: the approver and the signer both approve). */
export async function requireTask(trx: Db, taskId: number): Promise<void> {
  await trx.updateTable('process_task').set({ required: 1 }).where('process_task_id', '=', taskId).where('state', '=', TaskState.PENDING).execute();
}

/**
 * 转交 (docs/approvals.md): the task is closed as handed over and its holder's
 * successor gets it as it stood (whether the node waits for it, its deadline
 * and reminders so far, its urges). The caller holds the lock order's locks
 * and checked the successor. Answers the new task's id.
 */
export async function handOverTask(trx: Db, ctx: AppContext, taskId: number, fromUserId: number, to: { user_id: number; user_name: string; depart_id: number }, reason: string): Promise<number> {
  const t = await trx.selectFrom('process_task').selectAll().where('process_task_id', '=', taskId).executeTakeFirstOrThrow();
  const closed = await trx
    .updateTable('process_task')
    .set({ state: TaskState.CLOSED, remark: `已转交给${to.user_name}：${reason}`.slice(0, 200), approve_time: ctx.time(), next_at: null })
    .where('process_task_id', '=', taskId)
    .where('user_id', '=', fromUserId)
    .where('state', '=', TaskState.PENDING)
    .executeTakeFirst();
  if (Number(closed.numUpdatedRows) !== 1) fail(ErrorCode.STATE_CONFLICT, await describeSettled(trx, taskId));
  const created = await trx
    .insertInto('process_task')
    .values({
      process_instance_id: t.process_instance_id,
      definition_node_id: t.definition_node_id,
      sort: t.sort,
      process_type: t.process_type,
      queue: t.queue,
      ref_id: t.ref_id,
      user_id: to.user_id,
      depart_id: to.depart_id,
      state: TaskState.PENDING,
      submit_time: t.submit_time,
      due_at: t.due_at,
      next_at: t.next_at,
      deadline_step: t.deadline_step,
      urged: t.urged,
      origin: TaskOrigin.TRANSFERRED,
      origin_task_id: taskId,
      required: t.required,
    })
    .returning(['process_task_id', 'user_id'])
    .executeTakeFirstOrThrow();
  tasksChanged(trx);
  await notifyTasksAssigned(trx, ctx, t, t.queue as ApprovalQueueName | null, [created]);
  return created.process_task_id;
}
