import { z } from 'zod';
import { shellWire } from '../shell-calls';
import { col, defineCall, none } from '../contract';
import type { MenuNode } from '../permissions';
import { labelled, requiredText, text } from './common';

export const authLabels = { account: '用户名', password: '密码', captcha: '验证码', content: '加密内容' };

export const captchaPayload = labelled(
  z.object({
    account: requiredText('请输入用户名', 50, '不能超过50个字符'),
  }),
  authLabels,
);

export const loginPayload = labelled(
  z.object({
    account: requiredText('请输入用户名', 50, '不能超过50个字符'),
    password: text('请输入密码').min(1, { error: '请输入密码' }).max(64, { error: '密码不能超过64个字符' }),
    captcha: z
      .string({ error: '请输入验证码' })
      .trim()
      .min(1, { error: '请输入验证码' })
      .regex(/^\d{6}$/, { error: '验证码为6位数字' }),
  }),
  authLabels,
);

export type CaptchaPayload = z.infer<typeof captchaPayload>;
export type LoginPayload = z.infer<typeof loginPayload>;

/** Every encrypted call carries one JWE compact string as `content`. */
export const encryptedBody = labelled(
  z.object({
    content: z.string({ error: '缺少加密内容' }).min(1, { error: '缺少加密内容' }).max(20_000, { error: '加密内容过长' }),
  }),
  authLabels,
);

export { CAPTCHA_COOLDOWN_SECONDS, CAPTCHA_TTL_SECONDS, LOGIN_LOADING_MAX_MS } from '../auth-rules';

/** The signed-in person as /user/info answers them (sys_user joined with the department's name). */
export const meUserRow = z.object({
  user_id: col.id,
  user_name: col.text,
  account: col.text,
  gender: col.int,
  phone: col.text,
  depart_id: col.id,
  depart_name: col.text.nullable(),
});

/** A menu node the caller may see (domain/permissions.ts buildMenuTree): route and icon only when set, children only on directories. */
export const menuNode: z.ZodType<MenuNode> = z.object({
  code: col.text,
  name: col.text,
  type: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  route: col.text.optional(),
  icon: col.text.optional(),
  get children() {
    return z.array(menuNode).optional();
  },
});

export const meAnswer = z.object({ user: meUserRow, roleNames: z.array(col.text), permissions: z.array(col.text), menus: z.array(menuNode) });
export type Me = z.infer<typeof meAnswer>;

/** Sign-in and the session (spec 002 login, DESIGN.md §3): the encrypted calls carry one JWE (`encryptedBody`). */
export const authApi = {
  publicKey: defineCall({ method: 'GET', path: '/user/publicKey', permission: 'public', summary: '登录加密公钥', input: z.object({}), answer: z.object({ publicKey: col.text }) }),
  captcha: defineCall({
    method: 'POST',
    path: '/user/captcha',
    permission: 'public',
    summary: '获取短信验证码（加密）',
    input: encryptedBody,
    // The seconds until another code may be asked for (also the data of the 429 while waiting).
    answer: z.object({ expireOfSeconds: col.int }),
  }),
  login: defineCall({ method: 'POST', path: '/user/v2login', permission: 'public', summary: '登录（加密）', input: encryptedBody, answer: z.object({ token: col.text }) }),
  logout: defineCall({ ...shellWire.logout, permission: 'signed-in', summary: '退出登录', operation: '退出登录', input: z.object({}), answer: none }),
  info: defineCall({ ...shellWire.me, permission: 'signed-in', summary: '当前用户、权限与菜单', input: z.object({}), answer: meAnswer }),
};
