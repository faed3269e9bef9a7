/**
 * Every approval queue, the appointments' (domain/appointments.ts) and the
 * registers' (spec 001 §2), free of the schemas (domain/registers.ts
 * re-exports it), so the home's 待我审批 needs no zod on its first load.
 */
import { ProcessType, queueFor, queues, type QueueName } from './appointments';
import type { PermissionCode } from './permissions';
import type { RegisterKind } from './registers';

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
export const approvalQueues: Record<ApprovalQueueName, { title: string; list: PermissionCode; check: PermissionCode; route: string }> = { ...queues, ...registerQueues };

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
