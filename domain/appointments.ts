/**
 * Person and vehicle appointments: states, the state table of spec 000 §4,
 * which approval process a vehicle goes through, and which queue a task shows
 * in. The UI hides a button with the same function the server uses to refuse
 * the call (DESIGN.md §2).
 */

import type { PermissionCode } from './permissions';

export const AppState = { DRAFT: 0, REVIEW: 1, APPROVED: 2, REJECTED: 3, REVOKED: 4 } as const;
export type AppStateValue = (typeof AppState)[keyof typeof AppState];

export const stateLabel: Record<number, string> = { 0: '草稿', 1: '审核中', 2: '审核通过', 3: '已驳回', 4: '已撤销' };

export type AppointmentKind = 'car' | 'person';

/** Permission codes per kind, spelled as spec 000 §6 spells them. */
export const appointmentCodes = {
  car: {
    list: 'carApply:list',
    add: 'carApply:add',
    edit: 'carApply:edit',
    delete: 'carApply:delete',
    commit: 'carApply:commit',
    revoke: 'carApply:revoke',
    historyList: 'carApplyHistory:list',
    historyRevoke: 'carApplyHis:revoke',
    allList: 'allCarApplyHistory:list',
    allExport: 'allCarApplyHistory:export',
    allRevoke: 'carApplyAllHis:revoke',
    label: 'allCarApplyHistory:label',
    /** The stranded alarms of this kind (spec 000 §2 滞留告警). */
    strandedList: 'strandedManagementCar:list',
  },
  person: {
    list: 'personApply:list',
    add: 'personApply:add',
    edit: 'personApply:edit',
    delete: 'personApply:delete',
    commit: 'personApply:commit',
    revoke: 'personApply:revoke',
    historyList: 'personApplyHistory:list',
    historyRevoke: 'personApplyHis:revoke',
    allList: 'allPersonApplyHistory:list',
    allExport: 'allPersonApplyHistory:export',
    allRevoke: 'personApplyAllHis:revoke',
    label: undefined,
    strandedList: 'strandedManagementPerson:list',
  },
} as const satisfies Record<AppointmentKind, Record<string, PermissionCode | undefined>>;

export type AppointmentAction = 'edit' | 'copy' | 'delay' | 'process' | 'submit' | 'revoke' | 'urge' | 'delete' | 'historyRevoke' | 'allRevoke' | 'reject' | 'resume' | 'amend';

type Has = (code: PermissionCode | undefined) => boolean;

/** The state each action needs (spec 000 §4); permission is checked beside it. */
const stateRule: Record<AppointmentAction, (s: number) => boolean> = {
  edit: (s) => s === 0 || s === 3 || s === 4,
  copy: () => true,
  delay: (s) => s === 2,
  process: (s) => s !== 0,
  submit: (s) => s === 0,
  revoke: (s) => s === 1 || s === 2,
  // 催办 (docs/approvals.md): only while someone has it to approve.
  urge: (s) => s === 1,
  delete: (s) => s !== 1 && s !== 2,
  historyRevoke: (s) => s === 1 || s === 2,
  allRevoke: (s) => s === 1 || s === 2,
  reject: (s) => s === 1,
  resume: (s) => s === 3 || s === 4,
  amend: (s) => s === 1 || s === 2,
};

function permissionOf(kind: AppointmentKind, action: AppointmentAction): PermissionCode | undefined {
  const c = appointmentCodes[kind];
  switch (action) {
    case 'edit':
      return c.edit;
    case 'copy':
      return c.add;
    // The spec names no code for delay; the person who may edit the application may ask to extend it.
    case 'delay':
      return c.edit;
    case 'process':
      return undefined;
    case 'submit':
      return c.commit;
    case 'revoke':
    // The applicant who may revoke their application may urge it.
    case 'urge':
      return c.revoke;
    case 'delete':
      return c.delete;
    case 'historyRevoke':
      return c.historyRevoke;
    case 'allRevoke':
    case 'reject':
    case 'resume':
      return c.allRevoke;
    case 'amend':
      return undefined;
  }
}

export function stateAllows(action: AppointmentAction, state: number): boolean {
  return stateRule[action](state);
}

/** Whether the row shows the action's button: permission held and state allows it. */
export function canDo(kind: AppointmentKind, action: AppointmentAction, state: number, has: Has): boolean {
  const code = permissionOf(kind, action);
  return (code === undefined || has(code)) && stateAllows(action, state);
}

const actionName: Record<AppointmentAction, string> = {
  edit: '编辑',
  copy: '复制',
  delay: '申请延期',
  process: '查看审批流程',
  submit: '提交',
  revoke: '撤销',
  urge: '催办',
  delete: '删除',
  historyRevoke: '撤销',
  allRevoke: '撤销',
  reject: '驳回',
  resume: '继续审批',
  amend: '修改来访时间',
};

/** The 409 message when the state forbids the action: says the state and what is allowed. */
export function stateConflictMessage(action: AppointmentAction, state: number): string {
  const allowed = [0, 1, 2, 3, 4]
    .filter((s) => stateRule[action](s))
    .map((s) => `“${stateLabel[s]}”`)
    .join('、');
  return `当前状态为“${stateLabel[state] ?? state}”，不能${actionName[action]}（仅${allowed}状态可以）`;
}

/** Process types (enums.processType) of the appointment processes. */
export const ProcessType = {
  PERSON: 1,
  CAR: 2,
  HEAVY_DUMP: 3,
  BUS: 4,
  CHEMICALS: 5,
  REGISTRATION: 6,
  CAR_LIST: 7,
  PERSON_LIST: 8,
  WAYBILL: 9,
} as const;

/** The vehicle-model words the spec's rules key on. */
export const DUMP_TRUCK_TERM = '自卸';
export const MIXER_TERM = '搅拌';
export const BUS_TERM = '客车';
export const HAZARDOUS_TERM = '危险';

export const isDumpTruckModel = (name: string | null | undefined) => !!name && name.includes(DUMP_TRUCK_TERM);
export const isBusModel = (name: string | null | undefined) => !!name && name.includes(BUS_TERM);
export const isMixerModel = (name: string | null | undefined) => !!name && name.includes(MIXER_TERM);
export const isHazardousModel = (name: string | null | undefined) => !!name && name.includes(HAZARDOUS_TERM);

/** Which vehicle process applies (DESIGN.md §4): hazardous cargo, dump truck, bus, otherwise general. */
export function vehicleProcessType(modelName: string | null | undefined, cargoType: number | null | undefined): number {
  if (cargoType === 1 || isHazardousModel(modelName)) return ProcessType.CHEMICALS;
  if (isDumpTruckModel(modelName)) return ProcessType.HEAVY_DUMP;
  if (isBusModel(modelName)) return ProcessType.BUS;
  return ProcessType.CAR;
}

/**
 * The approval queues, with their spec 000 §7 page and check paths (the final
 * queues spell theirs differently); appointment-kinds.ts declares their calls
 * from these. Every pending task is in exactly one: the last node of
 * a vehicle or person process is the squad's final review; earlier nodes show
 * in the queue of the process type.
 */
export const queues = {
  car_task: {
    kind: 'car',
    title: '车辆预约审核',
    list: 'carApplyApproval:list',
    check: 'carApplyApproval:check',
    batch: 'carApplyApproval:batch',
    showDept: 'carApplyApproval:showDept',
    route: '/approval/car',
    paths: { page: '/carApplications/task/page', check: '/carApplications/task/check' },
  },
  car_zxzxc: {
    kind: 'car',
    title: '重型自卸货车审核',
    list: 'heavytipperApproval:check',
    check: 'heavytipperApproval:check',
    batch: 'carApplyApproval:batch',
    showDept: 'heavytipperApproval:showDept',
    route: '/approval/heavy-tipper',
    paths: { page: '/carApplications/zxzxc_task/page', check: '/carApplications/zxzxc_task/check' },
  },
  car_bus: {
    kind: 'car',
    title: '中大型客车审核',
    list: 'mediumlargeApproval:check',
    check: 'mediumlargeApproval:check',
    batch: 'carApplyApproval:batch',
    showDept: 'mediumlargeApproval:showDept',
    route: '/approval/medium-large',
    paths: { page: '/carApplications/bus_task/page', check: '/carApplications/bus_task/check' },
  },
  car_chemicals: {
    kind: 'car',
    title: '危化品车辆审核',
    list: 'chemicalsCarApproval:list',
    check: 'chemicalsCarApproval:check',
    batch: 'carApplyApproval:batch',
    showDept: 'chemicalsCarApproval:showDept',
    route: '/approval/chemicals',
    paths: { page: '/carApplications/chemicals_task/page', check: '/carApplications/chemicals_task/check' },
  },
  car_final: {
    kind: 'car',
    title: '车辆预约终审',
    list: 'carShddFinalCheck:check',
    check: 'carShddFinalCheck:check',
    batch: 'carApplyApproval:batch',
    showDept: 'carApplyApproval:showDept',
    route: '/approval/car-final',
    paths: { page: '/carApplications/shdd_final/taskPage', check: '/carApplications/shdd_final/taskCheck' },
  },
  person_task: {
    kind: 'person',
    title: '人员预约审核',
    list: 'personAppyApproval:list',
    check: 'personAppyApproval:check',
    batch: 'personAppyApproval:batch',
    showDept: 'personApplyApproval:ShowDept',
    route: '/approval/person',
    paths: { page: '/personApplications/task/page', check: '/personApplications/task/check' },
  },
  person_final: {
    kind: 'person',
    title: '人员预约终审',
    list: 'personShddFinalCheck:check',
    check: 'personShddFinalCheck:check',
    batch: 'personAppyApproval:batch',
    showDept: 'personApplyApproval:ShowDept',
    route: '/approval/person-final',
    paths: { page: '/personApplications/shdd_final/taskPage', check: '/personApplications/shdd_final/taskCheck' },
  },
} as const;

export type QueueName = keyof typeof queues;
export const queueNames = Object.keys(queues) as QueueName[];

/** The queue of a new task; null for process types whose queues belong to other screens (registrations, lists, waybills). */
export function queueFor(processType: number, isLastNode: boolean): QueueName | null {
  if (processType === ProcessType.PERSON) return isLastNode ? 'person_final' : 'person_task';
  if (processType === ProcessType.CAR || processType === ProcessType.HEAVY_DUMP || processType === ProcessType.BUS || processType === ProcessType.CHEMICALS) {
    if (isLastNode) return 'car_final';
    return processType === ProcessType.HEAVY_DUMP ? 'car_zxzxc' : processType === ProcessType.BUS ? 'car_bus' : processType === ProcessType.CHEMICALS ? 'car_chemicals' : 'car_task';
  }
  return null;
}

/** process_instance.state: 0 running (审核中), 1 approved, 2 rejected, 3 revoked. */
export const InstanceState = { RUNNING: 0, APPROVED: 1, REJECTED: 2, REVOKED: 3 } as const;

/** Task states (enums.processTaskState) and results. */
/** WAITING: its approver added a signer before themself; pending again once that signer approves (docs/approvals.md). */
export const TaskState = { PENDING: 0, DONE: 1, CLOSED: 2, WAITING: 3 } as const;
export const TaskResult = { APPROVE: 1, REJECT: 2 } as const;
export const APPROVED_TEXT = '同意';
export const OVERTIME_REMARK = '超时自动通过';
/** The responsibility notice of the review form (spec 000 §4). */
export const APPROVAL_NOTICE = '审核通过即表示您确认已核实来访信息，并对审核结果承担相应责任。';

/** Whether a task result is shown red (spec 000 §4: result 2 red, otherwise green). */
export const isRejectResult = (result: number | null | undefined) => result === TaskResult.REJECT;
