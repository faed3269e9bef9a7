import { z } from 'zod';
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
