import { z } from 'zod';
import { NotificationKind, type NotificationKindValue } from '../notifications';
import { idNumber, labelled, pageQuery } from './common';

/**
 * Request bodies of the push and notification-centre routes. Kept apart from
 * domain/notifications.ts (types and constants) so the page's live stream
 * and bell do not pull zod into the first load.
 */

export const pushLabels = { endpoint: '推送地址', keys: '推送密钥', device_label: '设备名称', push_subscription_id: '设备ID' };
export const notificationLabels = { ids: '消息ID', size: '每页条数', pn: '页码', unread: '只看未读', kind: '消息类型' };

const kinds = Object.values(NotificationKind) as [NotificationKindValue, ...NotificationKindValue[]];

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/**
 * A push service endpoint: https, or plain http only on the loopback
 * interface (a push service on the same machine, as the tests run one);
 * anything else would carry the encrypted payload and the server's VAPID
 * signature in the clear.
 */
export function isPushEndpoint(value: string): boolean {
  // domain/ has neither the DOM's nor Node's URL: the scheme and authority are all this needs.
  const m = /^(https?):\/\/([^/?#\s]+)(?:[/?#]\S*)?$/i.exec(value);
  if (!m) return false;
  const authority = m[2]!;
  if (authority.includes('@')) return false;
  const host = authority.replace(/:\d{1,5}$/, '').toLowerCase();
  if (!host) return false;
  return m[1]!.toLowerCase() === 'https' || LOOPBACK.test(host);
}

// Base64url of a P-256 public point (65 bytes) and of the 16-byte auth secret, as PushSubscription.toJSON() gives them.
const P256DH = /^[A-Za-z0-9_-]{86,87}={0,2}$/;
const AUTH = /^[A-Za-z0-9_-]{22}={0,2}$/;

export const pushSubscribeBody = labelled(
  z.object({
    endpoint: z
      .string({ error: '推送地址不能为空' })
      .trim()
      .min(1, { error: '推送地址不能为空' })
      .max(1000, { error: '推送地址不能超过1000个字符' })
      .refine(isPushEndpoint, { error: '推送地址必须是 https 地址' }),
    keys: z.object(
      {
        p256dh: z.string({ error: '推送公钥不能为空' }).regex(P256DH, { error: '推送公钥格式不正确' }),
        auth: z.string({ error: '推送认证密钥不能为空' }).regex(AUTH, { error: '推送认证密钥格式不正确' }),
      },
      { error: '推送密钥不能为空' },
    ),
    device_label: z
      .string()
      .trim()
      .max(60, { error: '设备名称不能超过60个字符' })
      .optional()
      .nullable()
      .transform((v) => v || '未命名设备'),
  }),
  pushLabels,
);
export type PushSubscribeBody = z.infer<typeof pushSubscribeBody>;

/** Unsubscribe names the device by its endpoint (this device) or by its id (another device in the list). */
export const pushUnsubscribeBody = labelled(
  z
    .object({
      endpoint: z.string().trim().max(1000, { error: '推送地址不能超过1000个字符' }).optional(),
      push_subscription_id: z.preprocess((v) => (v === '' || v === null ? undefined : typeof v === 'string' ? Number(v) : v), idNumber('设备ID必须是正整数').optional()),
    })
    .refine((v) => !!v.endpoint || v.push_subscription_id !== undefined, { error: '请提供推送地址或设备ID' }),
  pushLabels,
);

export const notificationPageQuery = labelled(
  pageQuery.extend({
    unread: z.preprocess((v) => (v === undefined || v === null || v === '' ? undefined : v === true || v === 1 || v === '1' || v === 'true'), z.boolean().optional()),
    kind: z.preprocess((v) => (v === null || v === '' ? undefined : v), z.enum(kinds, { error: `必须是以下之一：${kinds.join('、')}` }).optional()),
  }),
  notificationLabels,
);

export const notificationReadBody = labelled(
  z.object({
    ids: z
      .array(
        z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), idNumber('消息ID必须是正整数')),
        { error: '请提供要标为已读的消息' },
      )
      .min(1, { error: '请提供要标为已读的消息' })
      .max(500, { error: '一次最多标记500条消息' }),
  }),
  notificationLabels,
);
