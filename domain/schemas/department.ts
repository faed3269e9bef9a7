import { z } from 'zod';
import { optionalFilterText } from './common';

export const departQuery = z.object({ name: optionalFilterText });

export interface DepartmentRow {
  depart_id: number;
  pid: number;
  name: string;
  code: string;
  visit_area: number;
  remark: string;
  create_time: string;
}

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
