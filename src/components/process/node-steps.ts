import { InstanceState, TaskState, isRejectResult } from '../../../domain/appointments';

/** One entry of processTaskList (spec 000 §3 "approval task wrapper", spec 002 §3). */
export interface ProcessTask {
  process_task_id: number;
  state: number;
  result: number | null;
  remark: string | null;
  approve_time: string | null;
  submit_time?: string | null;
  processDefinitionNode?: { name?: string | null; sort?: number | null } | null;
  user?: { user_name?: string | null } | null;
  depart?: { name?: string | null } | null;
}

/** One node of the instance's own chain (processNodeList), as copied when the application was submitted. */
export interface ChainNode {
  sort: number;
  name: string;
  countersign?: number;
  company_check?: number;
  role?: { name?: string | null } | null;
  departList?: Array<{ name?: string | null }> | null;
}

/** One entry of processEventList: a step besides decisions (domain/approval-events.ts), under the node of its sort. */
export interface ProcessEvent {
  event_id: number;
  process_task_id?: number | null;
  sort: number;
  /** A ProcessEventKind; a kind this build does not know yet is shown by its text. */
  kind: string;
  /** 系统 for the system's steps. */
  user_name: string | null;
  text: string | null;
  create_time: string | null;
}

export interface ProcessInfo {
  processInstance: { create_time?: string | null; update_time?: string | null; state?: number | null; current_sort?: number | null } | null;
  processTaskList: ProcessTask[];
  /** Older answers (a page cached offline before the server sent it) lack it: the nodes are then those with tasks. */
  processNodeList?: ChainNode[] | null;
  /** Reminders, escalations, automatic decisions …; older answers lack it. */
  processEventList?: ProcessEvent[] | null;
}

/**
 * done: approved; rejected; current: 审批中 (tasks pending); closed: its tasks
 * closed undecided (the application was revoked there); todo: not reached yet
 * while the instance runs (待审批); unreached: after where a rejected or
 * revoked instance stopped (未审批).
 */
export type NodeStatus = 'done' | 'rejected' | 'current' | 'closed' | 'todo' | 'unreached';

export interface NodeStep {
  sort: number;
  name: string;
  status: NodeStatus;
  /** The node's tasks in the order they were created (a resumed node has the earlier round's too). */
  tasks: ProcessTask[];
  /** The node's other steps (reminders, escalations …) in the order they happened. */
  events: ProcessEvent[];
  node?: ChainNode;
}

const sortOf = (t: ProcessTask) => t.processDefinitionNode?.sort ?? undefined;

/** The instance's chain, node by node, with each node's tasks and where it stands (the approval-process drawer). */
export function nodeSteps(info: ProcessInfo | undefined): NodeStep[] {
  if (!info) return [];
  const running = (info.processInstance?.state ?? InstanceState.RUNNING) === InstanceState.RUNNING;
  // Each task under its node's sort; a task without one (an old answer) stands alone.
  const keyed = [...(info.processTaskList ?? [])].sort((a, b) => a.process_task_id - b.process_task_id).map((t, i) => ({ t, key: sortOf(t) ?? -(i + 1) }));
  const events = [...(info.processEventList ?? [])].sort((a, b) => a.event_id - b.event_id);
  const known = !!info.processNodeList?.length;
  const chain: ChainNode[] = known
    ? [...info.processNodeList!].sort((a, b) => a.sort - b.sort)
    : keyed.reduce<ChainNode[]>((acc, { t, key }) => (acc.some((n) => n.sort === key) ? acc : [...acc, { sort: key, name: t.processDefinitionNode?.name || '审批节点' }]), []);
  return chain.map((node) => {
    const own = keyed.filter((k) => k.key === node.sort).map((k) => k.t);
    const lastDecided = [...own].reverse().find((t) => t.state === TaskState.DONE);
    const status: NodeStatus = own.some((t) => t.state === TaskState.PENDING || t.state === TaskState.WAITING)
      ? 'current'
      : lastDecided
        ? isRejectResult(lastDecided.result)
          ? 'rejected'
          : 'done'
        : own.length
          ? 'closed'
          : running
            ? 'todo'
            : 'unreached';
    return { sort: node.sort, name: node.name || '审批节点', status, tasks: own, events: events.filter((e) => e.sort === node.sort), node: known ? node : undefined };
  });
}

/** Who reviews at a node, by its rule: '被访企业 · 企业审核员', '石化大队 · 石化大队审核员'. */
export function reviewersOf(node: ChainNode | undefined): string {
  if (!node) return '';
  const where =
    node.company_check === 1
      ? '被访企业'
      : (node.departList ?? [])
          .map((d) => d.name)
          .filter(Boolean)
          .join('、');
  return [where, node.role?.name].filter(Boolean).join(' · ');
}
