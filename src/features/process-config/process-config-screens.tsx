import { Tag } from 'antd-mobile';
import { AutoAction, DeadlineUnit } from '../../../domain/approval-deadline';
import { enums } from '../../../domain/enums';
import {
  processConfigApi,
  processCreate,
  processDefinitionCreate,
  processDefinitionLabels,
  processDefinitionUpdate,
  processLabels,
  processNodeCreate,
  processNodeLabels,
  processNodeUpdate,
  processUpdate,
  type ProcessDefinitionRow,
  type ProcessNodeRow,
  type ProcessRow,
} from '../../../domain/schemas/process-config';
import { DetailLines, defineScreen, type Values } from '../../list-screen';
import { processDefinitionsQuery, processNodesQuery, useProcessNodes } from './api';
import { ChainLine } from './components/chain-line';
import { DefinitionSelect } from './components/definition-select';
import { NodeChainPicker } from './components/node-chain-picker';
import { AutoActionInput, DeadlineUnitInput, DeadlineValueInput, deadlineSet, EscalateRoleInput, RemindIntervalInput, RemindTimesInput } from './components/deadline-inputs';
import { CompanyCheckInput, CountersignInput, DepartmentsInput, RoleSelect, reviewersText } from './components/node-inputs';

const { process: processCalls, definition: definitionCalls, node: nodeCalls } = processConfigApi;

/**
 * 审批流程配置 (spec 002 §2 Approval process configuration, §3, §5, §6):
 * processes, process nodes and process definitions. An edit applies to
 * applications submitted afterwards; those under way keep the chain they
 * started with (DESIGN.md §4), which the forms say where it matters. Each
 * screen says in a line under its title what it is for: 审批流程 and 流程定义
 * were taken for one another (issue 24).
 */

const yesNo = (v: number) => (
  <Tag color={v === 1 ? 'primary' : 'default'} fill="outline" className="ls-tag">
    {enums.yesNo.find((o) => o.value === v)?.label ?? '-'}
  </Tag>
);

const listKey = (screen: string) => ['list', screen] as const;
const SCREENS = { processes: 'system.processes', nodes: 'system.process-nodes', definitions: 'system.process-definitions' } as const;

// ---------------------------------------------------------------- 审批流程

function ProcessDetail({ row }: { row: ProcessRow }) {
  const chain = row.process_definition?.definitionNodeList ?? [];
  return (
    <>
      <DetailLines fields={processesScreen.fields.filter((f) => !f.hideInDetail)} row={row} />
      <div className="pc-detail__chain">
        <div className="pc-detail__title">节点链（此后提交的申请按此审批）</div>
        <ChainLine names={chain.map((n) => n.name)} />
      </div>
    </>
  );
}

export const processesScreen = defineScreen<ProcessRow>({
  key: SCREENS.processes,
  title: '审批流程',
  description: '为每种申请类型指定按哪个流程定义审批，每种类型一个流程。',
  labels: processLabels,
  list: { path: processCalls.page, permission: 'menu:process' },
  rowKey: 'process_id',
  invalidates: [processDefinitionsQuery.queryKey, listKey(SCREENS.definitions)],
  card: { title: 'name', extra: 'type' },
  fields: [
    { name: 'name', kind: 'text', dataIndex: 'name', width: 160 },
    { name: 'type', kind: 'enum', options: 'processType', dataIndex: 'type', width: 140, search: { allLabel: '全部类型' } },
    {
      name: 'processDefinitionId',
      kind: 'custom',
      input: DefinitionSelect,
      dataIndex: 'process_definition_id',
      hideInSearch: true,
      width: 160,
      render: (r) => r.process_definition_name || '-',
      form: { placeholder: '请选择流程定义', help: '修改只影响此后提交的申请，审批中的申请按原流程走完' },
    },
    {
      name: 'chain',
      kind: 'custom',
      hideInSearch: true,
      hideInForm: true,
      hideInDetail: true,
      width: 290,
      render: (r) => <ChainLine names={(r.process_definition?.definitionNodeList ?? []).map((n) => n.name)} compact />,
    },
    { name: 'createUserName', label: '创建人', kind: 'text', dataIndex: 'create_user_name', hideInSearch: true, hideInForm: true, width: 80 },
    { name: 'createTime', kind: 'text', dataIndex: 'create_time', hideInSearch: true, hideInForm: true, hideInCard: true, width: 160 },
  ],
  toolbar: [{ key: 'add', label: '新增流程', type: 'create', permission: 'process:add' }],
  rowActions: [
    { key: 'edit', label: '编辑', type: 'edit', permission: 'process:edit' },
    {
      key: 'delete',
      label: '删除',
      type: 'delete',
      permission: 'process:delete',
      path: processCalls.delete,
      body: (r) => ({ processId: r.process_id }),
      confirm: (r) => `删除后，“${enums.processType.find((o) => o.value === r.type)?.label ?? ''}”类型的申请将无法提交，直到重新配置流程（审批中的申请不受影响）。确认删除？`,
    },
  ],
  form: {
    schema: { create: processCreate, edit: processUpdate },
    create: { path: processCalls.save, title: '新增流程', success: '创建流程成功！' },
    edit: { path: processCalls.edit, title: '编辑流程', idParam: 'processId' },
    width: 620,
  },
  detail: { title: '流程详情', render: (r) => <ProcessDetail row={r} />, width: 680 },
});

// ---------------------------------------------------------------- 流程节点

/**
 * The node form's rule before validation: the visited-enterprise check clears
 * departments and countersign. The deadline is always sent (0: 不限时), so
 * the server reads the deadline rule, not the spec's 超时自动审核 pair; the
 * follow-up fields go only with a limit, the interval only with reminders.
 */
function nodePayload(v: Values): Values {
  const company = Number(v.companyCheck) === 1;
  const base = { ...v, departIds: company ? [] : (v.departIds ?? []), countersign: company ? 0 : v.countersign };
  const none = { deadlineUnit: undefined, remindTimes: undefined, remindInterval: undefined, escalateRoleId: undefined, autoAction: undefined };
  if (!deadlineSet(v.deadlineValue)) return { ...base, ...none, deadlineValue: 0 };
  const times = v.remindTimes === undefined || v.remindTimes === null || v.remindTimes === '' ? 0 : v.remindTimes;
  return { ...base, remindTimes: times, remindInterval: Number(times) > 0 ? v.remindInterval : undefined };
}

/** The deadline's fields are the form's only: the list, card and detail show the rule in words. */
const deadlineField = { hideInSearch: true, hideInTable: true, hideInCard: true, hideInDetail: true } as const;

export const processNodesScreen = defineScreen<ProcessNodeRow>({
  key: SCREENS.nodes,
  title: '流程节点',
  description: '审批链中的一步：由哪些部门的哪个角色审核，是否会签，审批时限及到期处理。',
  labels: processNodeLabels,
  list: { path: nodeCalls.all, answer: 'array' },
  rowKey: 'process_node_id',
  invalidates: [processNodesQuery.queryKey, processDefinitionsQuery.queryKey, listKey(SCREENS.definitions), listKey(SCREENS.processes)],
  card: { title: 'name' },
  fields: [
    { name: 'name', kind: 'text', dataIndex: 'name', width: 180 },
    {
      name: 'companyCheck',
      kind: 'custom',
      input: CompanyCheckInput,
      dataIndex: 'company_check',
      hideInSearch: true,
      width: 100,
      render: (r) => yesNo(r.company_check),
      form: { help: '选择“是”时由申请所访问企业的审核人审核，无需关联部门，且不会签' },
    },
    {
      name: 'departIds',
      kind: 'custom',
      input: DepartmentsInput,
      dataIndex: 'departIds',
      hideInSearch: true,
      width: 150,
      render: (r) => (r.company_check === 1 ? '被访企业' : r.departList.map((d) => d.name).join('、') || '-'),
      form: { required: true },
    },
    { name: 'roleId', kind: 'custom', input: RoleSelect, dataIndex: 'role_id', hideInSearch: true, width: 130, render: (r) => r.role?.name ?? '-', form: { placeholder: '请选择关联角色' } },
    {
      name: 'countersign',
      kind: 'custom',
      input: CountersignInput,
      dataIndex: 'countersign',
      hideInSearch: true,
      width: 80,
      render: (r) => yesNo(r.countersign),
      form: { help: '会签：关联部门中持有该角色的每个人都须审核通过' },
    },
    // The rule in words in the list, the card and the detail; the form asks for it field by field.
    { name: 'deadlineText', kind: 'text', dataIndex: 'deadline_text', hideInSearch: true, hideInForm: true, width: 220 },
    {
      name: 'deadlineValue',
      kind: 'custom',
      input: DeadlineValueInput,
      dataIndex: 'deadline_value',
      ...deadlineField,
      form: { help: '不填或填0为不限时' },
    },
    { name: 'deadlineUnit', kind: 'custom', input: DeadlineUnitInput, dataIndex: 'deadline_unit', ...deadlineField, form: { help: '工作日按“系统设置 → 工作日历”计算' } },
    { name: 'remindTimes', kind: 'custom', input: RemindTimesInput, dataIndex: 'remind_times', ...deadlineField, form: { help: '到期后提醒审批人，0为不提醒' } },
    { name: 'remindInterval', kind: 'custom', input: RemindIntervalInput, dataIndex: 'remind_interval', ...deadlineField, form: { help: '每隔多久再提醒一次', required: true } },
    {
      name: 'escalateRoleId',
      kind: 'custom',
      input: EscalateRoleInput,
      dataIndex: 'escalate_role_id',
      ...deadlineField,
      form: { help: '到期时该角色的人员也加入审批' },
    },
    { name: 'autoAction', kind: 'custom', input: AutoActionInput, dataIndex: 'auto_action', ...deadlineField, form: { help: '到期后先提醒，提醒完仍未审核再自动处理' } },
    { name: 'remark', kind: 'textarea', dataIndex: 'remark', hideInSearch: true, width: 150, form: { help: '最多80个字' } },
    {
      name: 'definitions',
      label: '所属流程定义',
      kind: 'text',
      hideInSearch: true,
      hideInForm: true,
      hideInTable: true,
      hideInCard: true,
      render: (r) => r.definitions.map((d) => d.name).join('、') || '未使用',
    },
    { name: 'createUserName', label: '创建人', kind: 'text', dataIndex: 'create_user_name', hideInSearch: true, hideInForm: true, width: 80 },
    { name: 'createTime', kind: 'text', dataIndex: 'create_time', hideInSearch: true, hideInForm: true, hideInTable: true, hideInCard: true },
  ],
  toolbar: [{ key: 'add', label: '新增节点', type: 'create', permission: 'processNode:add' }],
  rowActions: [
    { key: 'edit', label: '编辑', type: 'edit', permission: 'processNode:edit' },
    { key: 'delete', label: '删除', type: 'delete', permission: 'processNode:delet', path: nodeCalls.delete, body: (r) => ({ processNodeId: r.process_node_id }) },
  ],
  form: {
    schema: { create: processNodeCreate, edit: processNodeUpdate },
    create: { path: nodeCalls.save, title: '新增流程节点' },
    edit: { path: nodeCalls.edit, title: '编辑流程节点', idParam: 'processNodeId' },
    initialValues: { companyCheck: 0, countersign: 0, departIds: [], deadlineUnit: DeadlineUnit.HOURS, remindTimes: 0, autoAction: AutoAction.NONE },
    toPayload: (v) => nodePayload(v),
    width: 640,
  },
  detail: { title: '流程节点详情' },
});

// ---------------------------------------------------------------- 流程定义

function DefinitionDetail({ row }: { row: ProcessDefinitionRow }) {
  const nodes = useProcessNodes();
  const byId = new Map((nodes.data ?? []).map((n) => [n.process_node_id, n]));
  return (
    <>
      <DetailLines fields={processDefinitionsScreen.fields.filter((f) => !f.hideInDetail)} row={row} />
      <div className="pc-detail__chain">
        <div className="pc-detail__title">节点链</div>
        <ChainLine
          names={row.definitionNodeList.map((n) => n.name)}
          notes={row.definitionNodeList.map((n) => {
            const node = byId.get(n.processNodeId);
            return node ? reviewersText(node) : undefined;
          })}
        />
      </div>
    </>
  );
}

export const processDefinitionsScreen = defineScreen<ProcessDefinitionRow>({
  key: SCREENS.definitions,
  title: '流程定义',
  description: '由流程节点按顺序组成的审批链，供审批流程选用；没有审核中的申请时可修改节点。',
  labels: processDefinitionLabels,
  list: { path: definitionCalls.all, answer: 'array' },
  rowKey: 'process_definition_id',
  invalidates: [processDefinitionsQuery.queryKey, processNodesQuery.queryKey, listKey(SCREENS.nodes), listKey(SCREENS.processes)],
  card: { title: 'name' },
  fields: [
    // '名称' in the list and its filter (spec 002: "name, node chain, …"), the spec's full wording in the form.
    { name: 'name', label: '名称', kind: 'text', dataIndex: 'name', width: 180, form: { label: '流程定义名称' } },
    {
      name: 'processNodeIds',
      label: '节点链',
      kind: 'custom',
      input: NodeChainPicker,
      dataIndex: 'processNodeIds',
      hideInSearch: true,
      hideInDetail: true,
      width: 360,
      render: (r) => <ChainLine names={r.definitionNodeList.map((n) => n.name)} compact />,
      form: { label: '流程节点', required: true },
    },
    {
      name: 'skipRepeat',
      kind: 'yesNo',
      dataIndex: 'skip_repeat',
      // The form and the detail: the list keeps its chain column wide.
      hideInSearch: true,
      hideInTable: true,
      hideInCard: true,
      form: { help: '同一人连续审批相邻节点时，后一节点自动通过（记为系统）' },
    },
    { name: 'remark', kind: 'textarea', dataIndex: 'remark', hideInSearch: true, width: 170, form: { help: '最多80个字' } },
    {
      name: 'processes',
      label: '使用的流程',
      kind: 'text',
      hideInSearch: true,
      hideInForm: true,
      hideInTable: true,
      render: (r) => r.processes.map((p) => p.name).join('、') || <span className="ls-dash">未使用</span>,
    },
    { name: 'createUserName', label: '创建人', kind: 'text', dataIndex: 'create_user_name', hideInSearch: true, hideInForm: true, width: 90 },
    { name: 'createTime', kind: 'text', dataIndex: 'create_time', hideInSearch: true, hideInForm: true, hideInCard: true, width: 170 },
  ],
  toolbar: [{ key: 'add', label: '新增流程定义', type: 'create', permission: 'menu:processDefinition' }],
  rowActions: [
    { key: 'edit', label: '编辑', type: 'edit', permission: 'menu:processDefinition' },
    {
      key: 'delete',
      label: '删除',
      type: 'delete',
      permission: 'menu:processDefinition',
      path: definitionCalls.delete,
      body: (r) => ({ processDefinitionId: r.process_definition_id }),
    },
  ],
  form: {
    schema: { create: processDefinitionCreate, edit: processDefinitionUpdate },
    create: { path: definitionCalls.save, title: '新增流程定义' },
    edit: { path: definitionCalls.edit, title: '编辑流程定义', idParam: 'processDefinitionId' },
    initialValues: { processNodeIds: [], skipRepeat: 1 },
    width: 860,
  },
  detail: { title: '流程定义详情', render: (r) => <DefinitionDetail row={r} />, width: 720 },
});
