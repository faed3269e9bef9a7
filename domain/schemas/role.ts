import { z } from 'zod';
import { col, defineCall, defineResourceContract, none } from '../contract';
import { choice01, CODE_PATTERN, CODE_PATTERN_MSG, idField, idNumber, labelled, optionalFilterInt, optionalFilterText, optionalText, requiredText, stampLabels } from './common';

/** 角色管理 (spec 002 §2 Role management, §3 Role, §5 Role, §7 Roles). */
export const roleLabels = {
  ...stampLabels,
  roleId: '角色ID',
  role_id: '角色ID',
  name: '角色名',
  code: '唯一编码',
  status: '状态',
  remark: '备注',
  user_count: '用户数',
  permissionIds: '权限',
  userIds: '用户',
  userId: '操作人',
};

const fields = {
  name: requiredText('请输入角色名', 30, '不能超过30个文字'),
  code: requiredText('请输入唯一编码', 30, '不能超过30个字符').regex(CODE_PATTERN, { error: CODE_PATTERN_MSG }),
  remark: optionalText(80, '备注不能超过80个字符'),
};

/** Search by role name and status (any, 1 enabled, 0 disabled; -1 or empty is any). */
export const roleQuery = labelled(z.object({ name: optionalFilterText, status: optionalFilterInt }), roleLabels);
/** A new role is enabled: the status is set on edit only (spec 002 §2). */
export const roleCreate = labelled(z.object(fields), roleLabels);
/** Edit: status 1 or 0; left out, it stays as it is. */
export const roleUpdate = labelled(z.object({ ...fields, roleId: idField(roleLabels.roleId), status: choice01('请选择状态').optional() }), roleLabels);

/** The spec's delete body names the key `role_id`; `roleId`, as every other role call names it, is taken too. */
export const roleDelete = labelled(
  z.preprocess(
    (v) => (v && typeof v === 'object' && !('role_id' in v) && 'roleId' in v ? { ...v, role_id: (v as { roleId: unknown }).roleId } : v),
    // Answered as both names: the register reads a role's key as `roleId`, as its edit names it.
    z.object({ role_id: idField(roleLabels.role_id) }).transform((v) => ({ ...v, roleId: v.role_id })),
  ),
  roleLabels,
);
export const roleIdBody = labelled(z.object({ roleId: idField(roleLabels.roleId) }), roleLabels);

/** Most ids one bind takes: the whole permission catalogue is about 300 codes, a park's staff a few thousand. */
export const MAX_BIND_PERMISSIONS = 2000;
export const MAX_BIND_USERS = 5000;

/**
 * A list of ids as the spec sends it, a comma list ('1,2,3'), or as an array;
 * '' and [] are the empty list (a bind that removes everything). Duplicates count once.
 */
const idList = (label: string, max: number) =>
  z.preprocess(
    (v) => {
      if (typeof v === 'number') return [v];
      if (typeof v !== 'string') return v;
      const t = v.trim();
      return t === '' ? [] : t.split(',').map((s) => (/^\s*\d+\s*$/.test(s) ? Number(s) : s));
    },
    z
      .array(idNumber(`${label}不正确`), { error: `请选择${label}` })
      .max(max, { error: `一次最多绑定${max}个${label}` })
      .transform((ids) => [...new Set(ids)]),
  );

export const rolePermissionBind = labelled(z.object({ roleId: idField(roleLabels.roleId), permissionIds: idList('权限', MAX_BIND_PERMISSIONS) }), roleLabels);
/** `userId` (the spec sends the signed-in person's id beside the list) is accepted and not used: the session says who acts. */
export const roleUserBind = labelled(z.object({ roleId: idField(roleLabels.roleId), userIds: idList('用户', MAX_BIND_USERS), userId: z.unknown().optional() }), roleLabels);

export type RoleCreate = z.infer<typeof roleCreate>;
export type RoleUpdate = z.infer<typeof roleUpdate>;

export const roleRow = z.object({
  role_id: col.id,
  name: col.text,
  code: col.text,
  remark: col.text,
  status: col.flag,
  create_time: col.time,
  /** Live users bound to the role. */
  user_count: col.int,
});
export type RoleRow = z.infer<typeof roleRow>;

/** A user bound to a role (POST /user/findByRoleId). */
export const roleUserRow = z.object({ user_id: col.id, user_name: col.text, account: col.text, status: col.flag });
export type RoleUserRow = z.infer<typeof roleUserRow>;

/**
 * The built-in administrator role (the seed's `admin`, the spec's mock role):
 * it always holds every permission, so that however the other roles are
 * configured somebody can still repair them. The seed binds it to the whole
 * catalogue on every start; the API refuses what would take that away.
 */
export const ADMIN_ROLE_CODE = 'admin';
export const isBuiltinRole = (r: { code: string }) => r.code === ADMIN_ROLE_CODE;

/** Refusals of the role rules, worded once for the server's 409s and the screen's hints. */
export const roleRules = {
  adminDelete: '内置管理员角色不能删除',
  adminDisable: '内置管理员角色不能停用',
  adminCode: '内置管理员角色的唯一编码不能修改',
  adminPermissions: '内置管理员角色始终拥有全部权限，不能修改其权限',
  adminLastUser: '内置管理员角色至少要保留一个启用的用户',
  ownRoles: '不能修改当前登录账号自己的角色，请由其他管理员操作',
  ownRolePermissions: '不能修改自己所属角色的权限，请由其他管理员操作',
  ownRoleEnable: '不能启用自己所属的角色，请由其他管理员操作',
  grantLacking: '不能授予自己没有的权限：',
  usersHold: (n: number) => `该角色下还有${n}个用户，请先在“绑定用户”中移除这些用户后再删除`,
  nodesUse: (names: string) => `该角色已被流程节点“${names}”使用，请先修改这些节点后再删除`,
};

/** 角色管理 on the wire (spec 002 §2, §5, §7; codes role:*): the register and its two bindings. */
const roleContract = defineResourceContract({
  noun: '角色',
  key: 'role_id',
  idParam: 'roleId',
  labels: roleLabels,
  row: roleRow,
  paths: { all: '/role/all', save: '/role/save', edit: '/role/update', delete: '/role/delete' },
  // Readable by any role holder: it is also the preload of the user's bind-role form and the process node form.
  permissions: { list: 'role', save: 'role:add', edit: 'role:edit', delete: 'role:delete' },
  schemas: { all: roleQuery, id: roleDelete, create: roleCreate, update: roleUpdate },
  operations: { save: '新增角色', edit: '编辑角色', delete: '删除角色' },
});

export const roleApi = {
  ...roleContract,
  // The list and delete say what they filter and refuse.
  calls: {
    ...roleContract.calls,
    all: { ...roleContract.calls.all, summary: '全部角色（可按名称、状态筛选）' },
    delete: { ...roleContract.calls.delete, summary: '删除角色（仍有用户或流程节点使用时拒绝）' },
  },
  bindPermissions: defineCall({
    method: 'POST',
    path: '/role/permission/bind',
    permission: 'role:bindPerm',
    summary: '为角色绑定权限（替换为所给的权限，父子不联动）',
    operation: '绑定权限',
    input: rolePermissionBind,
    answer: none,
  }),
  // No spec code names this button ("always shown"); who may change who holds a role is the user screen's bind-role code.
  bindUsers: defineCall({
    method: 'POST',
    path: '/role/user/bind',
    permission: 'user:bindRole',
    summary: '为角色绑定用户（替换为所给的用户）',
    operation: '绑定用户',
    input: roleUserBind,
    answer: none,
  }),
  users: defineCall({ method: 'POST', path: '/user/findByRoleId', permission: 'role:list', summary: '角色的用户', input: roleIdBody, answer: z.array(roleUserRow) }),
};
