import { z } from 'zod';
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

/** A user row as the API answers it. */
export interface UserRow {
  user_id: number;
  user_name: string;
  account: string;
  gender: number;
  phone: string;
  depart_id: number;
  depart_name: string | null;
  status: number;
  uuid: string;
  create_time: string;
  roleNames?: string[];
}
