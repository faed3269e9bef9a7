import { z } from 'zod';
import { col, defineCall, defineResourceContract } from '../contract';
import { isIconCode } from '../icons';
import { allPermissionCodes, type PermissionType } from '../permissions';
import { builtScreenRoutes } from '../screens';
import { roleIdBody } from './role';
import { CODE_PATTERN, CODE_PATTERN_MSG, idField, intField, labelled, optionalFilterText, optionalText, requiredText, stampLabels } from './common';

/** 权限管理 (spec 002 §2 Permission tree, §3 Permission, §5 Permission, §7 Permissions). */
export const permissionLabels = {
  ...stampLabels,
  permissionId: '权限ID',
  pid: '上级权限',
  name: '权限名',
  code: '权限编码',
  type: '类型',
  route: '路由',
  icon: '图标',
  remark: '备注',
  role_count: '角色数',
};

export const PERMISSION_TYPE = { DIRECTORY: 0, MENU: 1, PERMISSION: 2 } as const satisfies Record<string, PermissionType>;
export const ROUTE_MAX = 100;

const routeField = z
  .string()
  .trim()
  .max(ROUTE_MAX, { error: `不能超过${ROUTE_MAX}个字符` })
  .regex(/^(\/[^\s]*)?$/, { error: '须以“/”开头，且不能含空格' })
  .optional()
  .nullable()
  .transform((v) => v || null);

const fields = {
  /** 0: a root node ('0' on the wire too). */
  pid: intField('请选择上级权限')
    .pipe(z.number().min(0, { error: '上级权限不正确' }))
    .optional()
    .transform((v) => v ?? 0),
  name: requiredText('请输入权限名', 30, '不能超过30个文字'),
  // "code same pattern as the role code" (spec 002 §5).
  code: requiredText('请输入唯一编码', 30, '不能超过30个字符').regex(CODE_PATTERN, { error: CODE_PATTERN_MSG }),
  type: intField('请选择类型').pipe(z.union([z.literal(0), z.literal(1), z.literal(2)], { error: '请选择类型' })),
  route: routeField,
  icon: z
    .string()
    .trim()
    .optional()
    .nullable()
    .transform((v) => v || null)
    .refine((v) => v === null || isIconCode(v), { error: '请从图标库中选择图标' }),
  remark: optionalText(80, '备注不能超过80个字符'),
};

/** A directory has no route (the input shows only for menus and permissions): whatever was sent is dropped. */
const routeOnlyBelowDirectory = <T extends { type: number; route: string | null }>(v: T): T => (v.type === PERMISSION_TYPE.DIRECTORY ? { ...v, route: null } : v);

export const permissionQuery = labelled(z.object({ name: optionalFilterText }), permissionLabels);
export const permissionCreate = labelled(z.object(fields).transform(routeOnlyBelowDirectory), permissionLabels);
export const permissionUpdate = labelled(z.object({ ...fields, permissionId: idField(permissionLabels.permissionId) }).transform(routeOnlyBelowDirectory), permissionLabels);
export const permissionIdBody = labelled(z.object({ permissionId: idField(permissionLabels.permissionId) }), permissionLabels);

export type PermissionCreate = z.infer<typeof permissionCreate>;
export type PermissionUpdate = z.infer<typeof permissionUpdate>;

export const permissionRow = z.object({
  permission_id: col.id,
  pid: col.int,
  name: col.text,
  code: col.text,
  type: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  route: col.text.nullable(),
  icon: col.text.nullable(),
  status: col.flag,
  remark: col.text,
  sort: col.int,
  create_time: col.time,
  update_time: col.time,
  /** 1: a code of the product's catalogue (domain/permissions.ts). */
  builtin: col.flag,
  /** Roles holding it. */
  role_count: col.int,
});
export type PermissionRow = z.infer<typeof permissionRow>;

/** A permission a role holds (POST /permission/findByRoleId). */
export const rolePermissionRow = z.object({ permission_id: col.id, pid: col.int, code: col.text, name: col.text, type: col.int });

const builtinCodes: ReadonlySet<string> = new Set(allPermissionCodes);

/**
 * A code the product declares (domain/permissions.ts): routes and screens
 * check it, and the seed writes its name, type, parent, route and icon again
 * on every start. Such a node keeps all of that; only its remark is the
 * park's. It cannot be deleted: the seed would bring it back, and until then
 * the function behind it would be out of reach.
 */
export const isBuiltinPermission = (code: string) => builtinCodes.has(code);

/** What an edit of a built-in node may change. */
export const BUILTIN_EDITABLE = ['remark'] as const;
/** The fields of a built-in node that stay as the catalogue has them. */
export const BUILTIN_LOCKED = ['pid', 'name', 'code', 'type', 'route', 'icon'] as const;

export const permissionRules = {
  builtinEdit: '内置权限只能修改备注：名称、编码、类型、上级、路由和图标随系统版本维护',
  builtinDelete: '内置权限不能删除：系统功能依赖该权限编码',
  hasChildren: '该权限下还有下级权限，请先删除下级权限',
  childrenKeepType: '该权限下还有下级权限，不能改为“权限”类型',
  parentMissing: '所选上级权限不存在',
  parentIsPermission: '类型为“权限”的节点下不能再添加下级',
  parentLoop: '不能选择本权限或其下级权限',
};

/**
 * Why a node cannot be deleted, or null when it can: the screen hides or
 * explains the action with the same rule the server refuses with.
 */
export function deleteRefusal(node: { code: string }, hasChildren: boolean): string | null {
  if (isBuiltinPermission(node.code)) return permissionRules.builtinDelete;
  if (hasChildren) return permissionRules.hasChildren;
  return null;
}

/** The delete confirmation: a permission that roles hold says how many lose it (the bindings go in the same transaction). */
export const deleteConfirmText = (roleCount: number) => (roleCount > 0 ? `该权限已授予 ${roleCount} 个角色，删除后这些角色将同时失去该权限。确认删除？` : '确认删除？');

/** The permission and everything under it, from permission_id/pid rows (a move into its own branch is refused). */
export function permissionBranch(rows: ReadonlyArray<{ permission_id: number; pid: number }>, id: number): number[] {
  const children = new Map<number, number[]>();
  for (const r of rows) children.set(r.pid, [...(children.get(r.pid) ?? []), r.permission_id]);
  const out: number[] = [];
  const stack = [id];
  while (stack.length) {
    const cur = stack.pop()!;
    if (out.includes(cur)) continue;
    out.push(cur);
    stack.push(...(children.get(cur) ?? []));
  }
  return out;
}

/** A node of the permission tree as both screens show it (built client-side from permission_id and pid, spec 002 §2). */
export interface PermissionTreeNode<T> {
  row: T;
  children: PermissionTreeNode<T>[];
}

/** Roots in the rows' order (sort, then id); a row whose parent is missing stands at the top, as a root would. */
export function permissionTreeOf<T extends { permission_id: number; pid: number }>(rows: readonly T[]): PermissionTreeNode<T>[] {
  const byId = new Map(rows.map((r) => [r.permission_id, { row: r, children: [] as PermissionTreeNode<T>[] }]));
  const roots: PermissionTreeNode<T>[] = [];
  for (const r of rows) {
    const me = byId.get(r.permission_id)!;
    const parent = r.pid && r.pid !== r.permission_id ? byId.get(r.pid) : undefined;
    (parent ? parent.children : roots).push(me);
  }
  return roots;
}

export interface VisibleTreeRow<T> {
  row: T;
  depth: number;
  /** Ids of every node below it (for "k of n ticked" on a folded node). */
  descendants: number[];
  hasChildren: boolean;
  open: boolean;
}

/**
 * The rows on screen, depth first: below a folded node nothing shows. With
 * `match`, only matching nodes and their ancestors show, unfolded, so a hit
 * is never hidden in a folded branch.
 */
export function visibleTreeRows<T extends { permission_id: number }>(roots: readonly PermissionTreeNode<T>[], isOpen: (id: number) => boolean, match?: (row: T) => boolean): VisibleTreeRow<T>[] {
  const out: VisibleTreeRow<T>[] = [];
  const ids = (n: PermissionTreeNode<T>): number[] => n.children.flatMap((c) => [c.row.permission_id, ...ids(c)]);
  const hits = (n: PermissionTreeNode<T>): boolean => !match || match(n.row) || n.children.some(hits);
  const walk = (nodes: readonly PermissionTreeNode<T>[], depth: number, seen: Set<number>) => {
    for (const n of nodes) {
      if (seen.has(n.row.permission_id) || !hits(n)) continue;
      seen.add(n.row.permission_id);
      const open = match ? n.children.some(hits) : isOpen(n.row.permission_id);
      out.push({ row: n.row, depth, descendants: ids(n), hasChildren: n.children.length > 0, open: n.children.length > 0 && open });
      if (open) walk(n.children, depth + 1, seen);
    }
  };
  walk(roots, 0, new Set());
  return out;
}

/** Ids of every node that has children: what 展开全部 opens. */
export const parentIds = (rows: ReadonlyArray<{ permission_id: number; pid: number }>) => [...new Set(rows.map((r) => r.pid).filter((pid) => pid !== 0))];

/** The tag beside a node whose screen the app has not built yet (unreleasedIds). */
export const UNRELEASED = { label: '未上线', hint: '该功能的页面尚未上线，可先授予角色，上线后即生效' };

/**
 * Nodes of screens not built yet, for the 未上线 tag: a menu whose route opens
 * no built screen (domain/screens.ts), everything below it, and a directory
 * all of whose children are such. They stay bindable, so that a role can be
 * prepared before the release that brings the screen.
 */
export function unreleasedIds(rows: ReadonlyArray<Pick<PermissionRow, 'permission_id' | 'pid' | 'type' | 'route'>>): Set<number> {
  const out = new Set<number>();
  const walk = (n: PermissionTreeNode<(typeof rows)[number]>, under: boolean): boolean => {
    const self = under || (n.row.type === PERMISSION_TYPE.MENU && !(n.row.route && builtScreenRoutes.has(n.row.route)));
    const kids = n.children.map((c) => walk(c, self));
    const off = self || (n.row.type === PERMISSION_TYPE.DIRECTORY && kids.length > 0 && kids.every(Boolean));
    if (off) out.add(n.row.permission_id);
    return off;
  };
  for (const root of permissionTreeOf(rows)) walk(root, false);
  return out;
}

const permissionContract = defineResourceContract({
  noun: '权限',
  key: 'permission_id',
  idParam: 'permissionId',
  labels: permissionLabels,
  row: permissionRow,
  paths: { get: '/permission/get', save: '/permission/save', edit: '/permission/update' },
  permissions: { list: 'perm:list', get: 'perm:list', save: 'perm:add', edit: 'perm:edit' },
  schemas: { id: permissionIdBody, create: permissionCreate, update: permissionUpdate },
  operations: { save: '新增权限', edit: '编辑权限', delete: '删除权限' },
});

/** 权限管理 on the wire (spec 002 §2, §5, §7; codes perm:*): the tree, the register's writes, and what a role holds. */
export const permissionApi = {
  ...permissionContract,
  calls: { ...permissionContract.calls, edit: { ...permissionContract.calls.edit, summary: '编辑权限（内置权限只改备注）' } },
  // The tree is read with perm:list or role:bindPerm, which one guard code cannot say: the route checks it (server/modules/permissions.ts).
  tree: defineCall({
    method: 'POST',
    path: '/permission/all',
    permission: 'role',
    summary: '全部权限（树由 permission_id、pid 构建；perm:list 或 role:bindPerm）',
    input: permissionQuery,
    answer: z.array(permissionRow),
  }),
  // A delete answers how many role bindings went with it.
  delete: defineCall({
    method: 'POST',
    path: '/permission/delete',
    permission: 'perm:delete',
    summary: '删除权限（同一事务内解除角色绑定；有下级或内置时拒绝）',
    operation: '删除权限',
    input: permissionIdBody,
    answer: z.object({ removedBindings: col.int }),
  }),
  byRole: defineCall({
    method: 'POST',
    path: '/permission/findByRoleId',
    permission: 'role:bindPerm',
    summary: '角色已有的权限',
    input: roleIdBody,
    answer: z.array(rolePermissionRow),
  }),
};
