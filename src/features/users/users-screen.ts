import { PASSWORD_RULE, userApi, userCreate, userLabels, userUpdate, type UserRow } from '../../../domain/schemas/user';
import { userOptionsQuery } from '../../lib/preloads';
import { defineScreen } from '../../list-screen';
import { BindRoleModal } from './components/bind-role-modal';

const { calls } = userApi;

/** 用户管理 (spec 002 §2 User management, §5 User, §6 user:*). */
export const usersScreen = defineScreen<UserRow>({
  key: 'system.users',
  title: '用户列表',
  labels: userLabels,
  list: { path: calls.list, permission: 'user:list' },
  rowKey: 'user_id',
  reveal: 'user',
  // The forms' user pickers read this preload: a new or renamed user shows there at once.
  invalidates: [userOptionsQuery.queryKey],
  card: { title: 'userName', extra: 'status' },
  fields: [
    { name: 'userName', kind: 'text', dataIndex: 'user_name', width: 140 },
    { name: 'account', kind: 'text', dataIndex: 'account', width: 140 },
    {
      name: 'password',
      kind: 'password',
      hideInSearch: true,
      hideInTable: true,
      hideInDetail: true,
      form: { placeholder: { create: '请输入密码', edit: '不修改请留空' }, help: `${PASSWORD_RULE.min}-${PASSWORD_RULE.max}位，须同时包含字母和数字` },
    },
    { name: 'gender', kind: 'enum', options: 'gender', dataIndex: 'gender', hideInSearch: true, width: 80 },
    { name: 'phone', kind: 'text', dataIndex: 'phone', width: 140, search: { placeholder: '请输入完整手机号' } },
    { name: 'departId', kind: 'department', dataIndex: 'depart_id', width: 180, render: (r) => r.depart_name ?? '-' },
    { name: 'status', kind: 'enum', options: 'status', tag: true, dataIndex: 'status', width: 90, form: { only: 'edit' } },
    { name: 'roleNames', kind: 'text', hideInSearch: true, hideInTable: true, hideInForm: true, render: (r) => (r.roleNames?.length ? r.roleNames.join('、') : '-') },
    { name: 'createTime', kind: 'text', dataIndex: 'create_time', hideInSearch: true, hideInTable: true, hideInCard: true, hideInForm: true },
  ],
  toolbar: [{ key: 'add', label: '新增用户', type: 'create', permission: 'user:add' }],
  rowActions: [
    { key: 'edit', label: '编辑', type: 'edit', permission: 'user:edit' },
    { key: 'bindRole', label: '绑定角色', type: 'modal', permission: 'user:bindRole', component: BindRoleModal },
    { key: 'delete', label: '删除', type: 'delete', permission: 'user:delete', path: calls.delete, body: (r) => ({ userId: r.user_id }) },
  ],
  form: {
    schema: { create: userCreate, edit: userUpdate },
    encrypt: true,
    create: { path: calls.save, title: '新增用户' },
    edit: { path: calls.edit, title: '编辑用户', idParam: 'userId' },
    // The edit schema makes the password optional; an empty field must travel as '' (unchanged), not be dropped.
    toPayload: (v) => ({ ...v, password: typeof v.password === 'string' ? v.password : '' }),
  },
  detail: { title: '用户详情' },
});
