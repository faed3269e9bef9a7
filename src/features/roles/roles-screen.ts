import { isBuiltinRole, roleApi, roleCreate, roleLabels, roleUpdate, type RoleRow } from '../../../domain/schemas/role';
import { defineScreen } from '../../list-screen';
import { RolePermissionsModal } from './components/role-permissions-modal';
import { RoleUsersModal } from './components/role-users-modal';

const { calls } = roleApi;

/** 角色管理 (spec 002 §2 Role management, §5 Role, §6 role:*). */
export const rolesScreen = defineScreen<RoleRow>({
  key: 'system.roles',
  title: '角色列表',
  labels: roleLabels,
  // The whole list at once (a park has tens of roles), paged here.
  list: { path: calls.all, answer: 'array', permission: 'role:list' },
  rowKey: 'role_id',
  // The user screen's bind-role form lists roles; the signed-in person's own menu may change with a role.
  invalidates: [['users', 'roles'], ['me']],
  card: { title: 'name', extra: 'status' },
  fields: [
    { name: 'name', kind: 'text', dataIndex: 'name', width: 180 },
    { name: 'code', kind: 'text', dataIndex: 'code', hideInSearch: true, width: 180, form: { help: '数字、英文字母、冒号或下划线' } },
    { name: 'status', kind: 'enum', options: 'status', tag: true, dataIndex: 'status', width: 90, form: { only: 'edit' } },
    { name: 'user_count', kind: 'number', dataIndex: 'user_count', hideInSearch: true, hideInForm: true, width: 90, align: 'right' },
    { name: 'remark', kind: 'textarea', dataIndex: 'remark', hideInSearch: true, width: 220, form: { help: '最多80个字' } },
    { name: 'createTime', kind: 'text', dataIndex: 'create_time', hideInSearch: true, hideInForm: true, hideInCard: true, width: 170 },
  ],
  toolbar: [{ key: 'add', label: '新增角色', type: 'create', permission: 'role:add' }],
  rowActions: [
    { key: 'edit', label: '编辑', type: 'edit', permission: 'role:edit' },
    { key: 'permissions', label: '权限', type: 'modal', permission: 'role:bindPerm', component: RolePermissionsModal },
    // Spec 002 §2: the bind-users button is always shown (the server still asks for user:bindRole).
    { key: 'users', label: '绑定用户', type: 'modal', component: RoleUsersModal },
    { key: 'delete', label: '删除', type: 'delete', permission: 'role:delete', path: calls.delete, body: (r) => ({ role_id: r.role_id }), visible: (r) => !isBuiltinRole(r) },
  ],
  form: {
    schema: { create: roleCreate, edit: roleUpdate },
    create: { path: calls.save, title: '新增角色', failure: '创建角色错误：' },
    edit: { path: calls.edit, title: '编辑角色', failure: '编辑角色错误：', idParam: 'roleId' },
  },
  detail: { title: '角色详情' },
});
