import type { FastifyInstance } from 'fastify';
import type { Compilable, Kysely } from 'kysely';
import { TaskState } from '../../domain/appointments';
import { ErrorCode } from '../../domain/errors';
import { flattenPermissions, type PermissionCode } from '../../domain/permissions';
import type { ApprovalQueueName } from '../../domain/registers';
import type { z } from 'zod';
import type { queueCalls } from '../../domain/schemas/approval-task';
import type { AppContext, AuthContext } from '../core/context';
import { prepared } from '../db/prepared';
import { AppError, ok } from '../core/errors';
import { containsText, pageOf, rememberedTotal } from '../core/paging';
import type { AnySelect, Db, RowValues } from '../core/repository';
import { route } from '../core/route';
import { committedFailure, unitOfWorkRoute } from '../core/unit-of-work';
import { decideTasks } from './decide-tasks';
import { subjectByTable, type SubjectTable } from './subjects';

/**
 * One approval queue of any kind under approval (appointments' seven, the
 * registers' four), declared: its paths, codes, query and how its rows are
 * filtered and read. The task page and the check (single or batch) are
 * written here once.
 */
export type QueueDecl = QueueRows & DeclaredQueue;

/** A queue whose calls domain declares (queueCalls, domain/schemas/approval-task.ts). */
export interface DeclaredQueue {
  /**
   * The page and the check: their paths, list and check codes, title (the check's operation name) and the
   * page's body (paging, the row filters, begin_time/end_time on the submit time).
   */
  calls: QueueCalls;
  /** The code a check of more than one task needs beside the check code. */
  batch?: PermissionCode;
}

interface QueueRows {
  name: ApprovalQueueName;
  table: SubjectTable;
  /** The key of the row inside a task wrapper (spec 000 §3 and spec 001 §3: carApplication, carBlackWhiteList …). */
  wrapper: string;
  /** Conditions on the row (`a`) for this page's query; none keeps the count inside the task index. */
  rowFilters: (q: RowValues, auth: AuthContext) => Array<(s: AnySelect) => AnySelect>;
  /** The rows of a page by key, as the wrapper shows them (names beside ids, JSON columns parsed). */
  rowsById: (ctx: Pick<AppContext, 'db' | 'dialect'>, ids: number[]) => Promise<Map<number, RowValues>>;
}

/** A text filter matched as "contains"; upper-cased where the column is stored upper-case (plates, ID numbers). */
export type TextFilter = { field: string; upper?: boolean };

export const textFilterConditions = (filters: readonly TextFilter[], q: RowValues, alias = 'a'): Array<(s: AnySelect) => AnySelect> =>
  filters.flatMap((f) => {
    const v = q[f.field];
    return typeof v === 'string' && v ? [(s: AnySelect) => s.where(containsText(`${alias}.${f.field}`, v, f.upper))] : [];
  });

const permissionNames = new Map(flattenPermissions().map((n) => [n.code, n.name]));
/** 403 naming the missing code and what it allows. */
export const missingCode = (code: string) => {
  const name = permissionNames.get(code);
  return new AppError(ErrorCode.FORBIDDEN, `没有操作权限：缺少权限 ${code}${name ? `（${name}）` : ''}`);
};

export const taskColumns = [
  't.process_task_id',
  't.process_instance_id',
  't.ref_id',
  't.process_type',
  't.queue',
  't.user_id',
  't.state',
  't.result',
  't.remark',
  't.submit_time',
  't.approve_time',
  't.urged',
  't.due_at',
  'd.name as node_name',
] as const;

export type TaskFields = {
  process_task_id: number;
  process_instance_id: number;
  ref_id: number;
  process_type: number;
  queue: string | null;
  user_id: number;
  state: number;
  result: number | null;
  remark: string;
  submit_time: string;
  approve_time: string | null;
  urged: number;
  due_at: number | null;
  node_name: string | null;
};

/** The task wrapper around one row: the task, the row's own status beside the task's state, and the row under the kind's key. */
export function wrapTask(table: SubjectTable, wrapper: string, task: TaskFields, row: RowValues) {
  return {
    ref_id: task.ref_id,
    process_task_id: task.process_task_id,
    process_instance_id: task.process_instance_id,
    type_id: task.process_type,
    submit_time: task.submit_time,
    state: task.state,
    // Vehicle screens gate "review" on the task, person and register screens on the row.
    approval_status: (row[subjectByTable[table].stateColumn] as number | undefined) ?? null,
    result: task.result,
    remark: task.remark,
    approve_time: task.approve_time,
    node_name: task.node_name,
    urged: task.urged,
    due_at: task.due_at === null ? null : Number(task.due_at),
    [wrapper]: row,
  };
}

type QueueCalls = ReturnType<typeof queueCalls>;

/** An approver's pending tasks in one queue, driven by process_task_queue (user_id, queue, state, process_task_id). */
const pendingTasks = (db: Kysely<any>, userId: number, queue: string): AnySelect =>
  db.selectFrom('process_task as t').where('t.user_id', '=', userId).where('t.queue', '=', queue).where('t.state', '=', TaskState.PENDING);

/**
 * A page of tasks, then the node names of its rows: joined before the
 * OFFSET, every skipped task would be joined too.
 */
const taskPage = (db: Kysely<any>, tasks: AnySelect, limit: number, offset: number): AnySelect =>
  db
    .selectFrom(
      tasks
        .select([...taskColumns.filter((c) => c.startsWith('t.')), 't.sort'])
        .orderBy('t.process_task_id', 'desc')
        .limit(limit)
        .offset(offset)
        .as('t'),
    )
    .innerJoin('process_instance_node as d', (j) => j.onRef('d.process_instance_id', '=', 't.process_instance_id').onRef('d.sort', '=', 't.sort'))
    .select([...taskColumns])
    .orderBy('t.process_task_id', 'desc');

/** The unfiltered page, what every queue screen opens on, compiled once for all queues (issue 28). */
const unfilteredQueuePage = prepared<{ userId: number; queue: string; limit: number; offset: number }, TaskFields>(
  (db, arg) => taskPage(db as unknown as Kysely<any>, pendingTasks(db as unknown as Kysely<any>, arg('userId'), arg('queue')), arg('limit'), arg('offset')) as unknown as Compilable<TaskFields>,
);

export function queueRoutes(app: FastifyInstance, decl: QueueDecl) {
  const { db } = app.ctx;
  const anyDb = db as unknown as Kysely<any>;
  const subject = subjectByTable[decl.table];

  route(app, decl.calls.page, async (req) => {
    const q = req.body as RowValues & { size: number; pn: number };
    const rowFilters = decl.rowFilters(q, req.auth!);
    // The row joins by key, and only when a filter reads it. A pending task's row is under review, which cannot be deleted: no deleted test needed.
    const tasks = () => {
      let s = pendingTasks(anyDb, req.auth!.userId, decl.name);
      if (q.begin_time) s = s.where('t.submit_time', '>=', q.begin_time);
      if (q.end_time) s = s.where('t.submit_time', '<=', q.end_time);
      if (!rowFilters.length) return s;
      s = s.innerJoin(`${decl.table} as a`, `a.${subject.key}`, 't.ref_id');
      return rowFilters.reduce((acc, f) => f(acc), s);
    };
    const count = () =>
      tasks()
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .executeTakeFirst() as Promise<{ total: number } | undefined>;
    // The unfiltered queue's count reads every pending task of the approver's index range and costs as much as the page.
    const filtered = rowFilters.length > 0 || !!q.begin_time || !!q.end_time;
    const page = await pageOf(q, filtered ? count : rememberedTotal({ db: anyDb, table: 'process_task', scope: `queue:${req.auth!.userId}:${decl.name}` }, count), async (limit, offset) =>
      filtered
        ? ((await taskPage(anyDb, tasks(), limit, offset).execute()) as TaskFields[])
        : (await unfilteredQueuePage(anyDb, app.ctx.dialect, { userId: req.auth!.userId, queue: decl.name, limit, offset })).rows,
    );
    const rows = page.list.length
      ? await decl.rowsById(
          app.ctx,
          page.list.map((t) => t.ref_id),
        )
      : new Map<number, RowValues>();
    // The rows' own shape is the queue's declared row; this side holds them as plain records.
    return ok({ list: page.list.map((t) => wrapTask(decl.table, decl.wrapper, t, rows.get(t.ref_id) ?? {})) as never, total: page.total });
  });

  // A decision is one commit: the tasks, the key of the outbox's send and the log entry together.
  unitOfWorkRoute(app, decl.calls.check, async (req, trx, reply) => {
    const body = req.body;
    if (decl.batch && new Set(body.taskIds).size > 1 && !req.auth!.permissions.has(decl.batch)) throw missingCode(decl.batch);
    const { failure, ...outcome } = await decideTasks(trx, app.ctx, { taskIds: body.taskIds, userId: req.auth!.userId, result: body.result, remark: body.remark, queues: [decl.name] });
    return failure ? committedFailure(reply, failure) : ok(outcome, '审核成功！');
  });
}
