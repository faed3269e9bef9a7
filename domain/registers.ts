/**
 * Registers under approval (spec 001, DESIGN.md §7): vehicle and person
 * black/white lists, and in time vehicle registrations and waybills. They
 * live as appointments do: draft → submit → approval through a process of
 * their own type → approved, rejected or revoked. The state table of spec 001
 * §4 is the one of spec 000 §4 for the actions both name, so it is that table
 * (stateAllows), not a copy.
 */
import { z } from 'zod';
import { registerQueues, type RegisterQueueName } from './approval-queues';
import { AppState, stateAllows, stateConflictMessage } from './appointments';
import { defineCall, defineResourceContract, none, pageOf, type Access } from './contract';
import type { PermissionCode } from './permissions';
import { queueCalls, urgeCall } from './schemas/approval-task';
import { filterTimeField, idBody, revokeBody } from './schemas/car-application';
import { labelled, optionalFilterText, pageQuery, type FieldLabels } from './schemas/common';
import { processInfoAnswer } from './schemas/process-info';

export type RegisterKind = 'carList' | 'personList' | 'registration' | 'waybill';
export type RegisterAction = 'edit' | 'submit' | 'revoke' | 'urge' | 'delete' | 'process';

export const registerAllows = (action: RegisterAction, state: number): boolean => stateAllows(action, state);
export const registerConflictMessage = (action: RegisterAction, state: number): string => stateConflictMessage(action, state);

/** An edit of a rejected or revoked entry makes it a draft again: spec 001 has no resume, and submit starts from draft. */
export const stateAfterEdit = (state: number): number => (state === AppState.REJECTED || state === AppState.REVOKED ? AppState.DRAFT : state);

// The queues are zod-free, so the home's 待我审批 loads without the schemas.
export { approvalQueueFor, approvalQueues, listableApprovalQueues, registerQueues, type ApprovalQueueName, type RegisterQueueName } from './approval-queues';

/** The spec's paths of a register; standardPaths gives the shape most of spec 001 §7 uses. */
export interface ApprovablePaths {
  list: string;
  get: string;
  /** GET */
  detail: string;
  save: string;
  edit: string;
  push: string;
  delete: string;
  revoke: string;
  /** 催办 (docs/approvals.md), beside revoke. */
  urge: string;
  processInfo: string;
  taskPage: string;
  taskCheck: string;
}

export const standardPaths = (base: string): ApprovablePaths => ({
  list: `${base}/list`,
  get: `${base}/get`,
  detail: `${base}/detail`,
  save: `${base}/save`,
  edit: `${base}/edit`,
  push: `${base}/push`,
  delete: `${base}/delete`,
  revoke: `${base}/revoke`,
  urge: `${base}/urge`,
  processInfo: `/v2${base}/check/process/info`,
  taskPage: `${base}/task/page`,
  taskCheck: `${base}/task/check`,
});

/** Black/white list type (enums.blackWhiteType). */
export const ListType = { BLACK: 1, WHITE: 2 } as const;

/**
 * Whether an entry is in force on `day` (YYYY-MM-DD): approved, not deleted,
 * and the day within start..end, either end open (DESIGN.md §7).
 */
export function inForce(entry: { status: number; deleted?: number; start_time: string | null; end_time: string | null }, day: string): boolean {
  if (entry.status !== AppState.APPROVED || entry.deleted === 1) return false;
  if (entry.start_time && entry.start_time.slice(0, 10) > day) return false;
  if (entry.end_time && entry.end_time.slice(0, 10) < day) return false;
  return true;
}

/** A register's permission codes (spec 001 §6): its list, the form's add and edit, delete, submit (commit) and revoke. */
export interface RegisterCodes {
  list: PermissionCode;
  add: PermissionCode;
  edit: PermissionCode;
  delete: PermissionCode;
  commit: PermissionCode;
  revoke: PermissionCode;
}

/** A screen over every row of a filed register (车辆备案记录, 运单总记录): its list, detail and revoke, each under its own code. */
export interface RegisterHistoryDecl {
  /** '车辆备案记录': the screen's title, and what the calls' summaries say. */
  summary: string;
  list: string;
  /** GET; the register's own detail call serves the screen when absent. */
  detail?: string;
  permission: PermissionCode;
  revoke?: { path: string; permission: PermissionCode };
}

/**
 * A register under approval on the wire, declared once (DESIGN.md §7): the
 * plain register's calls (list, get, GET detail, save, edit, delete), submit
 * (push), revoke, the process view, its history screens' calls and its
 * approval queue's page and check. The server (modules/registers/approvable.ts)
 * registers its routes from it and the screens (features/registers) call it.
 */
export function defineRegister<
  R extends z.ZodType,
  Q extends z.ZodType,
  C extends z.ZodType,
  U extends z.ZodType,
  H extends Record<string, RegisterHistoryDecl> = Record<never, RegisterHistoryDecl>,
>(d: {
  noun: string;
  labels: FieldLabels;
  /** A row as the lists, the details and the queue's wrapper answer it (names beside ids). */
  row: R;
  queue: RegisterQueueName;
  /** The key of the row inside a task of the queue (spec 001 §3: carBlackWhiteList …). */
  wrapper: string;
  paths: ApprovablePaths;
  codes: RegisterCodes;
  schemas: { list: Q; create: C; update: U };
  /** The queue's text filters, matched as "contains" (spec 001 §2: the register's text fields). */
  taskFilters: readonly string[];
  /** The queue's other filters (a registration's park). */
  taskShape?: Record<string, z.ZodType>;
  histories?: H;
}) {
  const { noun, paths, codes, row } = d;
  const resource = defineResourceContract({
    noun,
    key: 'id',
    labels: d.labels,
    row,
    paths: { list: paths.list, get: paths.get, detail: { url: paths.detail, method: 'GET' }, save: paths.save, edit: paths.edit, delete: paths.delete },
    // Detail is read by the list's keepers and its approvers alike: the server's access switch decides per row.
    permissions: { list: codes.list, get: codes.edit, detail: 'role', save: codes.add, edit: codes.edit, delete: codes.delete },
    schemas: d.schemas,
  });
  const queue = registerQueues[d.queue];
  const taskQuery = labelled(
    pageQuery.extend({ ...Object.fromEntries(d.taskFilters.map((f) => [f, optionalFilterText])), ...d.taskShape, begin_time: filterTimeField('begin'), end_time: filterTimeField('end') }),
    d.labels,
  );
  const revoke = (path: string, permission: Access, where = '') =>
    defineCall({ method: 'POST', path, permission, summary: `撤销${noun}${where}`, operation: `撤销${noun}${where}`, input: revokeBody, answer: none });
  const histories = Object.fromEntries(
    Object.entries(d.histories ?? {}).map(([key, h]) => [
      key,
      {
        title: h.summary,
        list: defineCall({ method: 'POST', path: h.list, permission: h.permission, summary: h.summary, input: d.schemas.list, answer: pageOf(row) }),
        detail: h.detail ? defineCall({ method: 'GET', path: h.detail, permission: h.permission, summary: `${noun}详情（${h.summary}）`, input: idBody, answer: row }) : undefined,
        revoke: h.revoke ? revoke(h.revoke.path, h.revoke.permission, `（${h.summary}）`) : undefined,
      },
    ]),
  ) as { [K in keyof H]: RegisterHistoryCalls<R, Q> };
  return {
    ...resource,
    queue: d.queue,
    wrapper: d.wrapper,
    codes,
    taskFilters: d.taskFilters,
    taskQuery,
    push: defineCall({ method: 'POST', path: paths.push, permission: codes.commit, summary: `提交${noun}审批`, operation: `提交${noun}`, input: idBody, answer: none }),
    /** Revoke with a reason from the filer's list (spec 001 §4). */
    revoke: revoke(paths.revoke, codes.revoke),
    urge: urgeCall(paths.urge, codes.revoke, noun),
    processInfo: defineCall({ method: 'POST', path: paths.processInfo, permission: 'role', summary: `${noun}审批流程`, input: idBody, answer: processInfoAnswer }),
    task: queueCalls({ title: queue.title, list: queue.list, check: queue.check, paths: { page: paths.taskPage, check: paths.taskCheck }, query: taskQuery, wrapper: d.wrapper, row }),
    histories,
  };
}

interface RegisterHistoryCalls<R extends z.ZodType, Q extends z.ZodType> {
  title: string;
  list: ReturnType<typeof defineCall<Q, ReturnType<typeof pageOf<R>>>>;
  detail: ReturnType<typeof defineCall<typeof idBody, R>> | undefined;
  revoke: ReturnType<typeof defineCall<typeof revokeBody, typeof none>> | undefined;
}

/** Any register's declaration, as the server's approvable routes and the screens read it. */
export type RegisterContract = ReturnType<typeof defineRegister<z.ZodType, z.ZodType, z.ZodType, z.ZodType, Record<string, RegisterHistoryDecl>>>;
