import { z } from 'zod';
import { col, defineResourceContract } from '../contract';
import { CODE_PATTERN, CODE_PATTERN_MSG, idField, intField, labelled, optionalFilterText, optionalText, requiredText, stampLabels } from './common';

/** 部门管理 (spec 002 §2 Department tree, §3, §5). */
export const departmentLabels = {
  ...stampLabels,
  departId: '部门ID',
  pid: '上级部门',
  name: '部门名称',
  code: '部门编码',
  visit_area: '所属区域',
  remark: '备注',
};

const fields = {
  /** 0: a top-level department. */
  pid: intField('请选择上级部门')
    .pipe(z.number().min(0, { error: '上级部门不正确' }))
    .optional()
    .transform((v) => v ?? 0),
  name: requiredText('请输入部门名称', 30, '不能超过30个文字'),
  code: requiredText('请输入部门编码', 30, '不能超过30个字符').regex(CODE_PATTERN, { error: CODE_PATTERN_MSG }),
  visit_area: intField('请选择所属区域').pipe(z.union([z.literal(1), z.literal(2), z.literal(3)], { error: '请选择所属区域' })),
  remark: optionalText(80, '备注不能超过80个字符'),
};

export const departQuery = labelled(z.object({ name: optionalFilterText }), departmentLabels);
export const departCreate = labelled(z.object(fields), departmentLabels);
export const departUpdate = labelled(z.object({ ...fields, departId: idField(departmentLabels.departId) }), departmentLabels);
export const departId = labelled(z.object({ departId: idField(departmentLabels.departId) }), departmentLabels);

export type DepartCreate = z.infer<typeof departCreate>;

export const departmentRow = z.object({
  depart_id: col.id,
  /** 0: a top-level department. */
  pid: col.int,
  name: col.text,
  code: col.text,
  visit_area: col.int,
  remark: col.text,
  create_time: col.time,
});
export type DepartmentRow = z.infer<typeof departmentRow>;

/** 部门管理 on the wire (spec 002 §2 Department tree; codes dept:*): the tree answers as an array the client builds from depart_id and pid. */
export const departmentApi = defineResourceContract({
  noun: '部门',
  key: 'depart_id',
  idParam: 'departId',
  labels: departmentLabels,
  row: departmentRow,
  paths: { all: '/depart/all', get: '/depart/get', save: '/depart/save', edit: '/depart/update', delete: '/depart/delete' },
  permissions: { list: 'role', save: 'dept:add', edit: 'dept:edit', delete: 'dept:delete' },
  schemas: { all: departQuery, id: departId, create: departCreate, update: departUpdate },
});

/** Builds the department tree client-side from depart_id and pid (spec 002 §2). */
export interface TreeNode<T> {
  node: T;
  children: TreeNode<T>[];
}
export function buildTree<T extends { depart_id: number; pid: number }>(rows: T[]): TreeNode<T>[] {
  const byId = new Map<number, TreeNode<T>>(rows.map((r) => [r.depart_id, { node: r, children: [] }]));
  const roots: TreeNode<T>[] = [];
  for (const r of rows) {
    const me = byId.get(r.depart_id)!;
    const parent = r.pid ? byId.get(r.pid) : undefined;
    (parent ? parent.children : roots).push(me);
  }
  return roots;
}

/** The department and everything under it, from depart_id/pid rows (a filter on a branch, a move refused into its own branch). */
export function branchOf(rows: ReadonlyArray<{ depart_id: number; pid: number }>, departId: number): number[] {
  const children = new Map<number, number[]>();
  for (const r of rows) children.set(r.pid, [...(children.get(r.pid) ?? []), r.depart_id]);
  const out: number[] = [];
  const stack = [departId];
  while (stack.length) {
    const id = stack.pop()!;
    if (out.includes(id)) continue;
    out.push(id);
    stack.push(...(children.get(id) ?? []));
  }
  return out;
}
