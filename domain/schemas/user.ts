import { z } from 'zod';
import { col, defineCall, defineResourceContract, none } from '../contract';
import { encryptedBody } from './auth';
import { choice01, CODE_PATTERN, CODE_PATTERN_MSG, idField, idNumber, intField, labelled, optionalFilterInt, optionalFilterText, pageQuery, requiredText, stampLabels, text } from './common';

export const PHONE_PATTERN = /^1\d{10}$/;
export const PASSWORD_RULE = { min: 8, max: 64 };

export const userLabels = {
  ...stampLabels,
  roleNames: '角色',
  userId: '用户ID',
  userName: '用户名',
  account: '账号',
  password: '密码',
  gender: '性别',
  phone: '手机号',
  departId: '部门',
  status: '状态',
  roleIds: '角色',
};

const passwordMsg = `密码长度为${PASSWORD_RULE.min}-${PASSWORD_RULE.max}位，且须同时包含字母和数字`;
const strongPassword = z
  .string()
  .min(PASSWORD_RULE.min, { error: passwordMsg })
  .max(PASSWORD_RULE.max, { error: passwordMsg })
  .regex(/[A-Za-z]/, { error: passwordMsg })
  .regex(/\d/, { error: passwordMsg });

const userBase = {
  userName: requiredText('请输入用户名', 30, '不能超过30个文字'),
  account: requiredText('请输入账号', 50, '不能超过50个字符').regex(CODE_PATTERN, { error: CODE_PATTERN_MSG }),
  gender: choice01('请选择性别'),
  phone: text('请输入手机号').trim().min(1, { error: '请输入手机号' }).regex(PHONE_PATTERN, { error: '请输入11位手机号' }),
  departId: intField('请选择部门').pipe(z.number().min(1, { error: '请选择部门' })),
  status: choice01('请选择状态').optional(),
};

/** Create: password required. */
export const userCreate = labelled(
  z.object({
    ...userBase,
    password: text('请输入密码').min(1, { error: '请输入密码' }).pipe(strongPassword),
  }),
  userLabels,
);

/** Edit: an empty password means unchanged. */
export const userUpdate = labelled(
  z.object({
    ...userBase,
    userId: idField('用户ID'),
    password: text()
      .optional()
      .nullable()
      .transform((v) => v ?? '')
      .pipe(z.union([z.literal(''), strongPassword])),
  }),
  userLabels,
);

export const userPageQuery = labelled(
  pageQuery.extend({
    userName: optionalFilterText,
    account: optionalFilterText,
    phone: optionalFilterText,
    status: optionalFilterInt,
    departId: optionalFilterInt,
  }),
  userLabels,
);

export const userDelete = labelled(z.object({ userId: idField('用户ID') }), userLabels);
export const userRolesQuery = labelled(z.object({ userId: idField('用户ID') }), userLabels);
export const userBindRole = labelled(
  z.object({
    userId: idField('用户ID'),
    roleIds: z
      // Required, though it may be empty: a body without it must not silently strip every role.
      .preprocess((v) => (typeof v === 'string' ? v.split(',').filter(Boolean).map(Number) : v), z.array(idNumber('角色不正确'), { error: '请选择角色' })),
  }),
  userLabels,
);

/** Profile: account, roles and department are read-only; empty password means unchanged. */
export const profileUpdate = labelled(
  z.object({
    userName: userBase.userName,
    gender: userBase.gender,
    phone: userBase.phone,
    password: userUpdate.shape.password,
  }),
  userLabels,
);

export type UserCreate = z.infer<typeof userCreate>;
export type UserUpdate = z.infer<typeof userUpdate>;
export type ProfileUpdate = z.infer<typeof profileUpdate>;

/** A user row as the list answers it: its department's name and its live roles' names joined in. */
export const userRow = z.object({
  user_id: col.id,
  user_name: col.text,
  account: col.text,
  gender: col.int,
  phone: col.text,
  depart_id: col.id,
  depart_name: col.text.nullable(),
  status: col.flag,
  uuid: col.text,
  create_time: col.time,
  roleNames: z.array(col.text),
});
export type UserRow = z.infer<typeof userRow>;

/** A user as the pickers list them (every live user): account and department tell apart two people of one name. */
export const userOption = z.object({ user_id: col.id, user_name: col.text, account: col.text, depart_name: col.text.nullable() });
export type UserOption = z.infer<typeof userOption>;

/** A role a user holds (POST /role/findByUserId). */
export const userRoleRow = z.object({ role_id: col.id, name: col.text, code: col.text });
export type UserRoleRow = z.infer<typeof userRoleRow>;

/** The signed-in person as the profile shows them. */
export const selfRow = z.object({
  userId: col.id,
  userName: col.text,
  account: col.text,
  roleNames: z.array(col.text),
  departId: col.id,
  departName: col.text.nullable(),
  gender: col.int,
  phone: col.text,
});
export type SelfRow = z.infer<typeof selfRow>;

/** 用户管理 on the wire (spec 002 §2, §5, §7; codes user:*): a register whose writes arrive encrypted, its bindings and options, and the profile. */
export const userApi = {
  ...defineResourceContract({
    noun: '用户',
    key: 'user_id',
    idParam: 'userId',
    labels: userLabels,
    row: userRow,
    paths: { list: '/user/page', save: '/user/save', edit: '/user/update', delete: '/user/delete' },
    permissions: { list: 'user:list', save: 'user:add', edit: 'user:edit', delete: 'user:delete' },
    schemas: { list: userPageQuery, id: userDelete, create: userCreate, update: userUpdate, writeBody: encryptedBody },
    operations: { save: '新增用户', edit: '编辑用户', delete: '删除用户' },
  }),
  options: defineCall({ method: 'POST', path: '/user/options', permission: 'role', summary: '用户全部选项', input: z.object({}), answer: z.array(userOption) }),
  roles: defineCall({ method: 'POST', path: '/role/findByUserId', permission: 'user:bindRole', summary: '用户的角色', input: userRolesQuery, answer: z.array(userRoleRow) }),
  bindRole: defineCall({ method: 'POST', path: '/user/bindRole', permission: 'user:bindRole', summary: '为用户绑定角色', operation: '绑定角色', input: userBindRole, answer: none }),
  self: defineCall({ method: 'POST', path: '/user/self', permission: 'signed-in', summary: '个人信息', input: z.object({}), answer: selfRow }),
  updateSelf: defineCall({ method: 'POST', path: '/user/updateSelf', permission: 'signed-in', summary: '修改个人信息（加密）', operation: '修改个人信息', input: encryptedBody, answer: none }),
};
