/**
 * Registers under approval (spec 001, DESIGN.md §7): vehicle and person
 * black/white lists, and in time vehicle registrations and waybills. They
 * live as appointments do: draft → submit → approval through a process of
 * their own type → approved, rejected or revoked. The state table of spec 001
 * §4 is the one of spec 000 §4 for the actions both name, so it is that table
 * (stateAllows), not a copy.
 */
import { AppState, ProcessType, queueFor, queues, stateAllows, stateConflictMessage, type QueueName } from './appointments';
import type { PermissionCode } from './permissions';

export type RegisterKind = 'carList' | 'personList' | 'registration' | 'waybill';
export type RegisterAction = 'edit' | 'submit' | 'revoke' | 'delete' | 'process';

export const registerAllows = (action: RegisterAction, state: number): boolean => stateAllows(action, state);
export const registerConflictMessage = (action: RegisterAction, state: number): string => stateConflictMessage(action, state);

/** An edit of a rejected or revoked entry makes it a draft again: spec 001 has no resume, and submit starts from draft. */
export const stateAfterEdit = (state: number): number => (state === AppState.REJECTED || state === AppState.REVOKED ? AppState.DRAFT : state);

/** The approval queue of each register (spec 001 §2): its screen, list and check codes. */
export const registerQueues = {
  car_list: { kind: 'carList', title: '车辆黑白名单审核', list: 'carListApproval:list', check: 'carListApproval:check', route: '/approval/car-list' },
  person_list: { kind: 'personList', title: '人员黑白名单审核', list: 'personListApproval:list', check: 'personListApproval:check', route: '/approval/person-list' },
  registration: { kind: 'registration', title: '车辆备案审核', list: 'carRegistrationApproval:list', check: 'carRegistrationApproval:check', route: '/approval/registration' },
  // Spec 001 §6 names one code for the waybill queue: it lists and decides.
  transport: { kind: 'waybill', title: '运单审核', list: 'transportListApproval:check', check: 'transportListApproval:check', route: '/approval/transport' },
} as const satisfies Record<string, { kind: RegisterKind; title: string; list: PermissionCode; check: PermissionCode; route: string }>;

export type RegisterQueueName = keyof typeof registerQueues;
export type ApprovalQueueName = QueueName | RegisterQueueName;

/** Every approval queue, appointments' and registers': what the home's 待我审批 rows and the task notifications read. */
export const approvalQueues: Record<ApprovalQueueName, { title: string; list: PermissionCode; route: string }> = { ...queues, ...registerQueues };

export const listableApprovalQueues = (permissions: { has(code: string): boolean }): ApprovalQueueName[] =>
  (Object.keys(approvalQueues) as ApprovalQueueName[]).filter((q) => permissions.has(approvalQueues[q].list));

/** The queue of a new task of any process type. */
export function approvalQueueFor(processType: number, isLastNode: boolean): ApprovalQueueName | null {
  if (processType === ProcessType.CAR_LIST) return 'car_list';
  if (processType === ProcessType.PERSON_LIST) return 'person_list';
  if (processType === ProcessType.REGISTRATION) return 'registration';
  if (processType === ProcessType.WAYBILL) return 'transport';
  return queueFor(processType, isLastNode);
}

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
  processInfo: `/v2${base}/check/process/info`,
  taskPage: `${base}/task/page`,
  taskCheck: `${base}/task/check`,
});

/** Waybills (spec 001 §7): the filer's own list is the history (运单记录); get, save, edit, push and delete are ours (the spec names none). */
export const waybillPaths: ApprovablePaths = {
  list: '/transportList/history',
  get: '/transportList/get',
  detail: '/transportList/detail',
  save: '/transportList/save',
  edit: '/transportList/edit',
  push: '/transportList/push',
  delete: '/transportList/delete',
  revoke: '/transportList/revoke',
  processInfo: '/transportList/checkProcessInfo',
  taskPage: '/transportList/taskPage',
  taskCheck: '/transportList/check',
};
/** The all-history of waybills (运单总记录) and its revoke. */
export const waybillAllHistoryPaths = { list: '/transportList/list', revoke: '/transportList/revokeForHis' } as const;

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
