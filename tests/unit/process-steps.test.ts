import { describe, expect, it } from 'vitest';
import { nodeSteps, reviewersOf, type ProcessInfo, type ProcessTask } from '../../src/components/process/node-steps';

/** The approval-process drawer's model: the instance's whole chain, node by node (issue 24 item 8). */

const chain = [
  { sort: 1, name: '被访企业审核', company_check: 1, countersign: 0, role: { name: '企业审核员' }, departList: [] },
  { sort: 2, name: '危化品安全管理部审核', company_check: 0, countersign: 0, role: { name: '危化品审核员' }, departList: [{ name: '危化品安全管理部' }] },
  { sort: 3, name: '石化大队终审', company_check: 0, countersign: 0, role: { name: '石化大队审核员' }, departList: [{ name: '石化大队' }] },
];
let seq = 0;
const task = (sort: number, state: number, result: number | null = null, remark = ''): ProcessTask => ({
  process_task_id: ++seq,
  state,
  result,
  remark,
  approve_time: state === 0 ? null : '2026-11-27 10:00:00',
  processDefinitionNode: { name: chain[sort - 1]!.name, sort },
  user: { user_name: `审核人${seq}` },
  depart: { name: '部门' },
});
const info = (state: number, current: number, tasks: ProcessTask[], withChain = true): ProcessInfo => ({
  processInstance: { state, current_sort: current, create_time: '2026-11-27 09:00:00' },
  processTaskList: tasks,
  processNodeList: withChain ? chain : undefined,
});

describe('nodeSteps', () => {
  it('shows every node of a running instance: done, 审批中, and the nodes still to come as 待审批', () => {
    const steps = nodeSteps(info(0, 2, [task(1, 1, 1), task(2, 0), task(2, 0)]));
    expect(steps.map((s) => [s.name, s.status, s.tasks.length])).toEqual([
      ['被访企业审核', 'done', 1],
      ['危化品安全管理部审核', 'current', 2],
      ['石化大队终审', 'todo', 0],
    ]);
    expect(reviewersOf(steps[2]!.node)).toBe('石化大队 · 石化大队审核员');
    expect(reviewersOf(steps[0]!.node)).toBe('被访企业 · 企业审核员');
  });

  it('marks the rejecting node and leaves the nodes after it 未审批; a resumed node is 审批中 again', () => {
    const first = task(1, 1, 1);
    const rejected = task(2, 1, 2, '材料不全');
    expect(nodeSteps(info(2, 2, [first, rejected])).map((s) => s.status)).toEqual(['done', 'rejected', 'unreached']);
    expect(nodeSteps(info(0, 2, [first, rejected, task(2, 0)])).map((s) => s.status)).toEqual(['done', 'current', 'todo']);
  });

  it('shows a node whose tasks a revoke closed as 已关闭', () => {
    expect(nodeSteps(info(3, 1, [task(1, 2, null, '申请已撤销')])).map((s) => s.status)).toEqual(['closed', 'unreached', 'unreached']);
  });

  it('falls back to the nodes that have tasks when an older answer has no chain', () => {
    expect(nodeSteps(info(0, 2, [task(1, 1, 1), task(2, 0)], false)).map((s) => [s.name, s.status])).toEqual([
      ['被访企业审核', 'done'],
      ['危化品安全管理部审核', 'current'],
    ]);
  });
});
