import { z } from 'zod';
import { col, defineCall, defineResourceContract, none } from '../contract';
import { enums } from '../enums';
import {
  AutoAction,
  DEADLINE_HOURS_MAX,
  DEADLINE_WORKING_DAYS_MAX,
  DeadlineUnit,
  NO_DEADLINE,
  overtimeFieldsOf,
  overtimeRule,
  REMIND_INTERVAL_HOURS_MAX,
  REMIND_TIMES_MAX,
  type DeadlineRule,
} from '../approval-deadline';
import { idField, idList, idNumber, intField, labelled, optionalFilterInt, optionalFilterText, optionalText, pageQuery, requiredText, stampLabels, choice01 } from './common';

/**
 * Approval-process configuration (spec 002 §2 "Approval process
 * configuration", §3, §5; DESIGN.md §4): processes (one in force per process
 * type), process definitions (an ordered chain of nodes) and process nodes
 * (who reviews: one role in some departments or in the visited enterprise,
 * countersign or first decision, overtime auto review).
 */

export const NODE_NAME_MAX = 30;
export const REMARK_MAX = 80;
/** The longest overtime limit a node may set: 30 days. */
export const OVERTIME_HOURS_MAX = 720;
export const OVERTIME_HOURS_DEFAULT = 24;
/** A chain longer than this is a configuration mistake, not a process. */
export const CHAIN_MAX = 20;
export const OVERTIME_HOURS_MSG = `超时时限范围为1-${OVERTIME_HOURS_MAX}小时`;
/** Spec 002 §5: the definition form's transfer puts chosen nodes on the right. */
export const CHAIN_REQUIRED_MSG = '未创建流程，请将节点添加到右侧';

/** How a chain reads on a line: 被访企业审核 → 石化大队终审. */
export const chainText = (names: readonly string[]) => names.join(' → ');

const always = { when: () => true };

// ---------------------------------------------------------------- processes

export const processLabels = {
  ...stampLabels,
  processId: '流程ID',
  name: '流程名',
  type: '类型',
  processDefinitionId: '流程定义',
  process_definition_name: '流程定义',
  chain: '节点链',
  create_user_name: '创建人',
};

const processTypeValues = new Set(enums.processType.map((o) => o.value));

const processFields = {
  name: requiredText('请输入流程名', 30, '不能超过30个文字'),
  type: intField('请选择类型').refine((v) => processTypeValues.has(v), { error: '请选择类型' }),
  processDefinitionId: intField('请选择流程定义').pipe(idNumber('请选择流程定义')),
};

export const processQuery = labelled(pageQuery.extend({ name: optionalFilterText, type: optionalFilterInt }), processLabels);
export const processCreate = labelled(z.object(processFields), processLabels);
export const processUpdate = labelled(z.object({ ...processFields, processId: idField(processLabels.processId) }), processLabels);
export const processId = labelled(z.object({ processId: idField(processLabels.processId) }), processLabels);

export type ProcessCreate = z.infer<typeof processCreate>;

/** One node of a chain as lists show it. */
export const chainNodeRow = z.object({ definitionNodeId: col.id, processNodeId: col.id, sort: col.int, name: col.text });
export type ChainNodeRow = z.infer<typeof chainNodeRow>;

/** A row of /process/all (spec 002 §3 Process, with the definition's chain for the line view). */
export const processRow = z.object({
  process_id: col.id,
  uuid: col.text,
  name: col.text,
  type: col.int,
  process_definition_id: col.id,
  process_definition: z.object({ name: col.text, remark: col.text, create_time: col.time, definitionNodeList: z.array(chainNodeRow) }).nullable(),
  process_definition_name: col.text,
  create_user_id: col.id.nullable(),
  create_user: z.object({ user_name: col.text }).nullable(),
  create_user_name: col.text,
  create_time: col.time,
  update_time: col.time,
});
export type ProcessRow = z.infer<typeof processRow>;

// ---------------------------------------------------------------- process nodes

export const processNodeLabels = {
  ...stampLabels,
  processNodeId: '节点ID',
  name: '节点名称',
  departIds: '关联部门',
  roleId: '关联角色',
  countersign: '是否会签',
  companyCheck: '被访企业审核',
  overtimeAutoCheck: '超时自动审核',
  overtimeHours: '超时时限',
  deadlineValue: '审批时限',
  deadlineUnit: '时限单位',
  remindTimes: '到期提醒次数',
  remindInterval: '提醒间隔',
  escalateRoleId: '到期升级角色',
  autoAction: '到期自动处理',
  deadline_text: '审批时限',
  remark: '备注',
  create_user_name: '创建人',
};

export const DEADLINE_HOURS_MSG = `审批时限范围为1-${DEADLINE_HOURS_MAX}小时`;
export const DEADLINE_DAYS_MSG = `审批时限范围为1-${DEADLINE_WORKING_DAYS_MAX}个工作日`;
export const REMIND_TIMES_MSG = `到期提醒次数范围为0-${REMIND_TIMES_MAX}次`;
export const REMIND_INTERVAL_MSG = `提醒间隔范围为1-${REMIND_INTERVAL_HOURS_MAX}小时`;

/** A whole number from `min` to `max`, digits from a form too; `message` for anything else. */
const rangedInt = (min: number, max: number, message: string) =>
  z.preprocess(
    (v) => (v === '' || v === null ? undefined : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
    z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message }).optional(),
  );

const nodeFields = {
  name: requiredText('请输入节点名称', NODE_NAME_MAX, '不能超过30个文字'),
  departIds: idList('关联部门不正确').pipe(z.array(z.number()).max(100, { error: '关联部门最多选择100个' })),
  roleId: intField('请选择关联角色').pipe(idNumber('请选择关联角色')),
  countersign: choice01('请选择是否会签'),
  companyCheck: choice01('请选择被访企业审核'),
  // The spec's pair; optional where the deadline fields below are given, which then say the whole rule.
  overtimeAutoCheck: choice01('请选择是否开启超时自动审核').optional(),
  // Asked only with overtime auto review on; without it the stored limit is the default and unused.
  overtimeHours: z.preprocess(
    (v) => (v === '' || v === null ? undefined : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
    z.number({ error: OVERTIME_HOURS_MSG }).int({ error: OVERTIME_HOURS_MSG }).min(1, { error: OVERTIME_HOURS_MSG }).max(OVERTIME_HOURS_MAX, { error: OVERTIME_HOURS_MSG }).optional(),
  ),
  // 0: no deadline. Checked against its unit's range in nodeChecks.
  deadlineValue: rangedInt(0, DEADLINE_HOURS_MAX, DEADLINE_HOURS_MSG),
  deadlineUnit: rangedInt(1, 2, '请选择时限单位'),
  remindTimes: rangedInt(0, REMIND_TIMES_MAX, REMIND_TIMES_MSG),
  remindInterval: rangedInt(1, REMIND_INTERVAL_HOURS_MAX, REMIND_INTERVAL_MSG),
  escalateRoleId: z.preprocess((v) => (v === '' || v === null || v === 0 || v === '0' ? undefined : v), intField('到期升级角色不正确').pipe(idNumber('到期升级角色不正确')).optional()),
  // AutoAction's values are 0, 1 and 2.
  autoAction: rangedInt(AutoAction.NONE, AutoAction.REJECT, '请选择到期自动处理方式'),
  remark: optionalText(REMARK_MAX, '备注不能超过80个字符'),
};

/**
 * Spec 002 §4-§5: departments are required only without the visited-enterprise
 * check; with it they are cleared and countersign is no (nodeRow applies that).
 * Overtime auto review needs its limit.
 */
const nodeChecks = (
  v: {
    companyCheck?: unknown;
    departIds?: unknown;
    overtimeAutoCheck?: unknown;
    overtimeHours?: unknown;
    deadlineValue?: number;
    deadlineUnit?: number;
    remindTimes?: number;
    remindInterval?: number;
  },
  ctx: z.RefinementCtx,
) => {
  const failed = new Set(ctx.issues.map((i) => String(i.path?.[0] ?? '')));
  const issue = (field: string, message: string) => !failed.has(field) && ctx.addIssue({ code: 'custom', path: [field], message });
  if (v.companyCheck === 0 && (!Array.isArray(v.departIds) || v.departIds.length === 0)) issue('departIds', '请选择关联部门');
  if (v.deadlineValue === undefined) {
    if (v.overtimeAutoCheck === undefined) issue('overtimeAutoCheck', '请选择是否开启超时自动审核');
    if (v.overtimeAutoCheck === 1 && v.overtimeHours === undefined) issue('overtimeHours', '请输入超时时限');
    return;
  }
  if (v.deadlineValue === 0) return;
  if (v.deadlineUnit === undefined) issue('deadlineUnit', '请选择时限单位');
  if (v.deadlineUnit === DeadlineUnit.WORKING_DAYS && v.deadlineValue > DEADLINE_WORKING_DAYS_MAX) issue('deadlineValue', DEADLINE_DAYS_MSG);
  if ((v.remindTimes ?? 0) > 0 && v.remindInterval === undefined) issue('remindInterval', '请输入提醒间隔');
};

export const processNodeQuery = labelled(z.object({ name: optionalFilterText }), processNodeLabels);
export const processNodeCreate = labelled(z.object(nodeFields).superRefine(nodeChecks, always), processNodeLabels);
export const processNodeUpdate = labelled(z.object({ ...nodeFields, processNodeId: idField(processNodeLabels.processNodeId) }).superRefine(nodeChecks, always), processNodeLabels);
export const processNodeId = labelled(z.object({ processNodeId: idField(processNodeLabels.processNodeId) }), processNodeLabels);

export type ProcessNodeCreate = z.infer<typeof processNodeCreate>;

/**
 * A node's deadline as entered: the deadline fields when given, else the
 * spec's 超时自动审核 (its hours, then approve). Reminders without an
 * interval, or an interval without reminders, are not kept.
 */
export function deadlineRuleOf(
  v: Pick<ProcessNodeCreate, 'overtimeAutoCheck' | 'overtimeHours' | 'deadlineValue' | 'deadlineUnit' | 'remindTimes' | 'remindInterval' | 'escalateRoleId' | 'autoAction'>,
): DeadlineRule {
  if (v.deadlineValue === undefined) return v.overtimeAutoCheck === 1 ? overtimeRule(v.overtimeHours ?? OVERTIME_HOURS_DEFAULT) : NO_DEADLINE;
  if (v.deadlineValue === 0) return NO_DEADLINE;
  const remindTimes = v.remindInterval ? (v.remindTimes ?? 0) : 0;
  return {
    value: v.deadlineValue,
    unit: v.deadlineUnit === DeadlineUnit.WORKING_DAYS ? DeadlineUnit.WORKING_DAYS : DeadlineUnit.HOURS,
    remindTimes,
    remindIntervalHours: remindTimes > 0 ? v.remindInterval! : 0,
    escalateRoleId: v.escalateRoleId ?? null,
    autoAction: (v.autoAction ?? AutoAction.NONE) as AutoAction,
  };
}

/** A node's rule as stored: the visited-enterprise check clears departments and countersign (spec 002 §4). */
export function nodeRule(v: Parameters<typeof deadlineRuleOf>[0] & Pick<ProcessNodeCreate, 'companyCheck' | 'countersign' | 'departIds'>) {
  const company = v.companyCheck === 1;
  const deadline = deadlineRuleOf(v);
  return {
    company_check: v.companyCheck,
    countersign: company ? 0 : v.countersign,
    departIds: company ? [] : [...new Set(v.departIds)],
    deadline,
    ...overtimeFieldsOf(deadline),
  };
}

/** A row of /processNode/all (spec 002 §3 Process node). */
export const processNodeRow = z.object({
  process_node_id: col.id,
  name: col.text,
  countersign: col.flag,
  company_check: col.flag,
  overtime_auto_check: col.flag,
  overtime_hours: col.int,
  deadline_value: col.int,
  deadline_unit: col.int,
  remind_times: col.int,
  remind_interval: col.int,
  escalate_role_id: col.id.nullable(),
  auto_action: col.int,
  /** The deadline rule in words: 24小时内审批，到期提醒3次（每4小时）… */
  deadline_text: col.text,
  remark: col.text,
  role_id: col.id,
  role: z.object({ role_id: col.id, name: col.text }).nullable(),
  departList: z.array(z.object({ depart_id: col.id, name: col.text })),
  departIds: z.array(col.id),
  /** Live definitions whose chain holds the node. */
  definitions: z.array(z.object({ process_definition_id: col.id, name: col.text })),
  create_user_id: col.id.nullable(),
  create_user_name: col.text,
  create_time: col.time,
  update_time: col.time,
});
export type ProcessNodeRow = z.infer<typeof processNodeRow>;

// ---------------------------------------------------------------- process definitions

export const processDefinitionLabels = {
  ...stampLabels,
  processDefinitionId: '流程定义ID',
  name: '流程定义名称',
  remark: '备注',
  processNodeIds: '流程节点',
  skipRepeat: '相同审核人自动通过',
  skip_repeat: '相同审核人自动通过',
  chain: '节点链',
  create_user_name: '创建人',
};

const chainField = idList('流程节点不正确')
  .pipe(
    z
      .array(z.number())
      .min(1, { error: CHAIN_REQUIRED_MSG })
      .max(CHAIN_MAX, { error: `最多选择${CHAIN_MAX}个节点` }),
  )
  .refine((ids) => new Set(ids).size === ids.length, { error: '同一节点不能重复选择' });

const definitionFields = {
  name: requiredText('请输入流程定义名称', 30, '不能超过30个文字'),
  remark: optionalText(REMARK_MAX, '备注不能超过80个字符'),
  // 相同审核人自动通过 (docs/approvals.md): on when absent at create, unchanged when absent at edit.
  skipRepeat: choice01('请选择相同审核人是否自动通过').optional(),
};

export const processDefinitionQuery = labelled(z.object({ name: optionalFilterText }), processDefinitionLabels);
export const processDefinitionCreate = labelled(z.object({ ...definitionFields, processNodeIds: chainField }), processDefinitionLabels);
/** Without processNodeIds, or with the stored chain, only name and remark change; another chain replaces it while no application on the definition is in review (issue 24, where spec 002 §2 disabled node selection when editing). */
export const processDefinitionUpdate = labelled(
  z.object({ ...definitionFields, processDefinitionId: idField(processDefinitionLabels.processDefinitionId), processNodeIds: chainField.optional() }),
  processDefinitionLabels,
);
export const processDefinitionId = labelled(z.object({ processDefinitionId: idField(processDefinitionLabels.processDefinitionId) }), processDefinitionLabels);

export type ProcessDefinitionCreate = z.infer<typeof processDefinitionCreate>;

/** A row of /processDefinition/all (spec 002 §3 Process definition). */
export const processDefinitionRow = z.object({
  process_definition_id: col.id,
  name: col.text,
  remark: col.text,
  skip_repeat: col.flag,
  /** The chain's node ids, comma-joined in order (spec 002 §7). */
  processNodeIds: col.text,
  definitionNodeList: z.array(chainNodeRow),
  /** Live processes that use the definition. */
  processes: z.array(z.object({ process_id: col.id, name: col.text, type: col.int })),
  create_user_id: col.id.nullable(),
  createUser: z.object({ user_name: col.text }).nullable(),
  create_user_name: col.text,
  create_time: col.time,
  update_time: col.time,
});
export type ProcessDefinitionRow = z.infer<typeof processDefinitionRow>;

// ---------------------------------------------------------------- on the wire

/** 审批流程配置 on the wire (spec 002 §7): processes, process definitions and process nodes. */
const processContract = defineResourceContract({
  noun: '流程',
  key: 'process_id',
  idParam: 'processId',
  labels: processLabels,
  row: processRow,
  paths: { list: '/process/all', save: '/process/save', edit: '/process/update', delete: '/process/delete' },
  permissions: { list: 'menu:process', save: 'process:add', edit: 'process:edit', delete: 'process:delete' },
  schemas: { list: processQuery, id: processId, create: processCreate, update: processUpdate },
  operations: { save: '新增流程', edit: '编辑流程', delete: '删除流程' },
  messages: { save: '创建流程成功！' },
});

/** 审批流程 on the wire: a declared register (one process in force per type). */
export const processApi = {
  ...processContract,
  calls: {
    list: { ...processContract.calls.list, summary: '审批流程列表（分页）' },
    save: { ...processContract.calls.save, summary: '新增流程（每种类型只能有一个）' },
    edit: { ...processContract.calls.edit, summary: '编辑流程（只影响此后提交的申请）' },
    // Instances keep their own chain, so a process may go while applications are under way; new submissions of its type are refused until another is configured.
    delete: { ...processContract.calls.delete, summary: '删除流程（该类型此后无法提交，直到重新配置）' },
  },
};

export const processConfigApi = {
  process: { page: processApi.calls.list, save: processApi.calls.save, edit: processApi.calls.edit, delete: processApi.calls.delete },
  definition: {
    // Read by any role holder: the process form picks from it.
    all: defineCall({
      method: 'POST',
      path: '/processDefinition/all',
      permission: 'role',
      summary: '全部流程定义（可按名称筛选），含节点链',
      input: processDefinitionQuery,
      answer: z.array(processDefinitionRow),
    }),
    save: defineCall({
      method: 'POST',
      path: '/v2/processDefinition/save',
      permission: 'menu:processDefinition',
      summary: '新增流程定义（节点按所选顺序审批）',
      operation: '新增流程定义',
      input: processDefinitionCreate,
      answer: z.object({ process_definition_id: col.id }),
    }),
    edit: defineCall({
      method: 'POST',
      path: '/processDefinition/update',
      permission: 'menu:processDefinition',
      summary: '编辑流程定义（节点只能在没有审核中的申请时修改）',
      operation: '编辑流程定义',
      input: processDefinitionUpdate,
      answer: none,
    }),
    delete: defineCall({
      method: 'POST',
      path: '/processDefinition/delete',
      permission: 'menu:processDefinition',
      summary: '删除流程定义（被流程或审批中的申请使用时不能删除）',
      operation: '删除流程定义',
      input: processDefinitionId,
      answer: none,
    }),
  },
  node: {
    // Read by any role holder, like departments and roles: the definition form picks from it, and it holds nothing secret.
    all: defineCall({ method: 'POST', path: '/processNode/all', permission: 'role', summary: '全部流程节点（可按名称筛选）', input: processNodeQuery, answer: z.array(processNodeRow) }),
    save: defineCall({
      method: 'POST',
      path: '/v2/processNode/save',
      permission: 'processNode:add',
      summary: '新增流程节点',
      operation: '新增流程节点',
      input: processNodeCreate,
      answer: z.object({ process_node_id: col.id }),
    }),
    edit: defineCall({
      method: 'POST',
      path: '/v2/processNode/update',
      permission: 'processNode:edit',
      summary: '编辑流程节点（只影响此后提交的申请）',
      operation: '编辑流程节点',
      input: processNodeUpdate,
      answer: none,
    }),
    delete: defineCall({
      method: 'POST',
      path: '/processNode/delete',
      permission: 'processNode:delet',
      summary: '删除流程节点（被流程定义或审批中的申请使用时不能删除）',
      operation: '删除流程节点',
      input: processNodeId,
      answer: none,
    }),
  },
};
