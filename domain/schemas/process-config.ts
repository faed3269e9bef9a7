import { z } from 'zod';
import { enums } from '../enums';
import { idField, idNumber, intField, labelled, optionalFilterInt, optionalFilterText, optionalText, pageQuery, requiredText, stampLabels, choice01 } from './common';

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

/** Comma-joined ids, one number, or an array → number[] (absent: empty); a bad part fails the whole list. */
const idList = (bad: string) =>
  z.preprocess(
    (v) => {
      if (v === undefined || v === null || v === '') return [];
      if (typeof v === 'number') return [v];
      if (typeof v !== 'string') return v;
      const parts = v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : null;
    },
    z.array(idNumber(bad), { error: bad }),
  );

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
export interface ChainNodeRow {
  definitionNodeId: number;
  processNodeId: number;
  sort: number;
  name: string;
}

/** A row of /process/all (spec 002 §3 Process, with the definition's chain for the line view). */
export interface ProcessRow {
  process_id: number;
  uuid: string;
  name: string;
  type: number;
  process_definition_id: number;
  process_definition: { name: string; remark: string; create_time: string; definitionNodeList: ChainNodeRow[] } | null;
  process_definition_name: string;
  create_user_id: number | null;
  create_user: { user_name: string } | null;
  create_user_name: string;
  create_time: string;
  update_time: string;
}

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
  remark: '备注',
  create_user_name: '创建人',
};

const nodeFields = {
  name: requiredText('请输入节点名称', NODE_NAME_MAX, '不能超过30个文字'),
  departIds: idList('关联部门不正确').pipe(z.array(z.number()).max(100, { error: '关联部门最多选择100个' })),
  roleId: intField('请选择关联角色').pipe(idNumber('请选择关联角色')),
  countersign: choice01('请选择是否会签'),
  companyCheck: choice01('请选择被访企业审核'),
  overtimeAutoCheck: choice01('请选择是否开启超时自动审核'),
  // Asked only with overtime auto review on; without it the stored limit is the default and unused.
  overtimeHours: z.preprocess(
    (v) => (v === '' || v === null ? undefined : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
    z.number({ error: OVERTIME_HOURS_MSG }).int({ error: OVERTIME_HOURS_MSG }).min(1, { error: OVERTIME_HOURS_MSG }).max(OVERTIME_HOURS_MAX, { error: OVERTIME_HOURS_MSG }).optional(),
  ),
  remark: optionalText(REMARK_MAX, '备注不能超过80个字符'),
};

/**
 * Spec 002 §4-§5: departments are required only without the visited-enterprise
 * check; with it they are cleared and countersign is no (nodeRow applies that).
 * Overtime auto review needs its limit.
 */
const nodeChecks = (v: { companyCheck?: unknown; departIds?: unknown; overtimeAutoCheck?: unknown; overtimeHours?: unknown }, ctx: z.RefinementCtx) => {
  const failed = new Set(ctx.issues.map((i) => String(i.path?.[0] ?? '')));
  if (v.companyCheck === 0 && !failed.has('departIds') && (!Array.isArray(v.departIds) || v.departIds.length === 0)) {
    ctx.addIssue({ code: 'custom', path: ['departIds'], message: '请选择关联部门' });
  }
  if (v.overtimeAutoCheck === 1 && !failed.has('overtimeHours') && v.overtimeHours === undefined) {
    ctx.addIssue({ code: 'custom', path: ['overtimeHours'], message: '请输入超时时限' });
  }
};

export const processNodeQuery = labelled(z.object({ name: optionalFilterText }), processNodeLabels);
export const processNodeCreate = labelled(z.object(nodeFields).superRefine(nodeChecks, always), processNodeLabels);
export const processNodeUpdate = labelled(z.object({ ...nodeFields, processNodeId: idField(processNodeLabels.processNodeId) }).superRefine(nodeChecks, always), processNodeLabels);
export const processNodeId = labelled(z.object({ processNodeId: idField(processNodeLabels.processNodeId) }), processNodeLabels);

export type ProcessNodeCreate = z.infer<typeof processNodeCreate>;

/** A node's rule as stored: the visited-enterprise check clears departments and countersign (spec 002 §4). */
export function nodeRule(v: Pick<ProcessNodeCreate, 'companyCheck' | 'countersign' | 'departIds' | 'overtimeAutoCheck' | 'overtimeHours'>) {
  const company = v.companyCheck === 1;
  return {
    company_check: v.companyCheck,
    countersign: company ? 0 : v.countersign,
    departIds: company ? [] : [...new Set(v.departIds)],
    overtime_auto_check: v.overtimeAutoCheck,
    overtime_hours: v.overtimeAutoCheck === 1 ? (v.overtimeHours ?? OVERTIME_HOURS_DEFAULT) : OVERTIME_HOURS_DEFAULT,
  };
}

/** A row of /processNode/all (spec 002 §3 Process node). */
export interface ProcessNodeRow {
  process_node_id: number;
  name: string;
  countersign: number;
  company_check: number;
  overtime_auto_check: number;
  overtime_hours: number;
  remark: string;
  role_id: number;
  role: { role_id: number; name: string } | null;
  departList: Array<{ depart_id: number; name: string }>;
  departIds: number[];
  /** Live definitions whose chain holds the node. */
  definitions: Array<{ process_definition_id: number; name: string }>;
  create_user_id: number | null;
  create_user_name: string;
  create_time: string;
  update_time: string;
}

// ---------------------------------------------------------------- process definitions

export const processDefinitionLabels = {
  ...stampLabels,
  processDefinitionId: '流程定义ID',
  name: '流程定义名称',
  remark: '备注',
  processNodeIds: '流程节点',
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
export interface ProcessDefinitionRow {
  process_definition_id: number;
  name: string;
  remark: string;
  /** The chain's node ids, comma-joined in order (spec 002 §7). */
  processNodeIds: string;
  definitionNodeList: ChainNodeRow[];
  /** Live processes that use the definition. */
  processes: Array<{ process_id: number; name: string; type: number }>;
  create_user_id: number | null;
  createUser: { user_name: string } | null;
  create_user_name: string;
  create_time: string;
  update_time: string;
}
