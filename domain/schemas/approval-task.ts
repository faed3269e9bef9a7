/**
 * The approval queues' row, which wraps either kind of application. It has its
 * own module because it names both: person-application.ts builds on
 * car-application.ts, so the vehicle schema cannot import the person one back.
 */
import { z } from 'zod';
import { shellWire } from '../shell-calls';
import { col, defineCall, pageOf } from '../contract';
import type { PermissionCode } from '../permissions';
import { checkBody, idBody, type CarApplicationRow } from './car-application';
import type { PersonApplicationRow } from './person-application';

/** An approval-queue entry (spec 000 §3 "approval task wrapper"). */
export interface TaskRow {
  ref_id: number;
  process_task_id: number;
  process_instance_id: number;
  submit_time: string;
  state: number;
  approval_status: number | null;
  result: number | null;
  remark: string | null;
  approve_time: string | null;
  node_name: string | null;
  urged: number;
  due_at: number | null;
  carApplication?: CarApplicationRow & { carInfo?: Record<string, unknown> | null };
  personApplication?: PersonApplicationRow;
}

/** The task's own fields of a queue row, whatever it wraps (server/workflow/queue-routes.ts wrapTask). */
export const taskFields = {
  ref_id: col.id,
  process_task_id: col.id,
  process_instance_id: col.id,
  type_id: col.int,
  submit_time: col.time,
  state: col.int,
  /** The wrapped row's own state beside the task's. */
  approval_status: col.int.nullable(),
  result: col.int.nullable(),
  remark: col.text,
  approve_time: col.time.nullable(),
  node_name: col.text.nullable(),
  /** How often the applicant urged this task (已催办 N 次). */
  urged: col.int,
  /** The node's deadline (ms); pending past it, the task is overdue. */
  due_at: col.int.nullable(),
};

/** A queue's row: the task and the record under its kind's key (carApplication, carBlackWhiteList …). */
export const taskRowOf = <R extends z.ZodType>(wrapper: string, row: R) => z.object({ ...taskFields, [wrapper]: row });

/** What a check answers: the tasks decided (a batch is all or nothing, so `failed` stays empty). */
export const taskCheckAnswer = z.object({ done: z.array(col.id), failed: z.array(z.never()) });

/**
 * One approval queue's two calls (spec 000 §2, spec 001 §2): the approver's
 * page of pending tasks and the check, single or batch. Appointments' seven
 * queues and the registers' four are each declared with this.
 */
export function queueCalls<Q extends z.ZodType, R extends z.ZodType>(queue: {
  title: string;
  list: PermissionCode;
  check: PermissionCode;
  paths: { page: string; check: string };
  query: Q;
  wrapper: string;
  row: R;
}) {
  return {
    page: defineCall({
      method: 'POST',
      path: queue.paths.page,
      permission: queue.list,
      summary: `${queue.title}：待我审批（分页）`,
      input: queue.query,
      answer: pageOf(taskRowOf(queue.wrapper, queue.row)),
    }),
    check: defineCall({
      method: 'POST',
      path: queue.paths.check,
      permission: queue.check,
      summary: `${queue.title}：审核（可批量）`,
      operation: queue.title,
      input: checkBody,
      answer: taskCheckAnswer,
    }),
  };
}

/** One queue the caller may list, with how many of its tasks wait for them. */
/** `overdue`: of `count`, the tasks past their node's deadline (docs/approvals.md). */
export const pendingQueueRow = z.object({ queue: col.text, title: col.text, route: col.text, count: col.int, overdue: col.int });
export type PendingQueue = z.infer<typeof pendingQueueRow>;

/** The approver's home (spec 000 §2): how many tasks wait in each queue the caller may list. */
export const approvalPendingCall = defineCall({
  ...shellWire.pendingApprovals,
  permission: 'role',
  summary: '各审批队列待我审批的数量',
  input: z.object({}),
  answer: z.object({ list: z.array(pendingQueueRow) }),
});

/** What an urge answers: how many times today the application has been urged now, and whom it reached. */
export const urgeAnswer = z.object({ times_today: col.int, approvers: col.text });

/** 催办 of one kind under approval (docs/approvals.md): the applicant's own row, under the code of its revoke. */
export const urgeCall = (path: string, permission: PermissionCode, noun: string) =>
  defineCall({ method: 'POST', path, permission, summary: `催办${noun}（通知当前审核人）`, operation: `催办${noun}`, input: idBody, answer: urgeAnswer });
