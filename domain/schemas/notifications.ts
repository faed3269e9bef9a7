import { z } from 'zod';
import { shellWire } from '../shell-calls';
import { binary, col, defineCall, pageOf } from '../contract';
import { NotificationKind, type NotificationKindValue } from '../notifications';
import { idNumber, labelled, pageQuery } from './common';

/**
 * Request bodies of the push and notification-centre routes. Kept apart from
 * domain/notifications.ts (types and constants) so the page's live stream
 * and bell do not pull zod into the first load.
 */

export const pushLabels = { endpoint: '推送地址', keys: '推送密钥', device_label: '设备名称', push_subscription_id: '设备ID' };
export const notificationLabels = { ids: '消息ID', size: '每页条数', pn: '页码', unread: '只看未读', kind: '消息类型', kinds: '消息类型' };

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

/** 全部已读 of some kinds only (the alarm banner's 全部标为已查看); without kinds, every unread message. */
export const notificationReadAllBody = labelled(
  z.object({
    kinds: z
      .array(z.enum(kinds, { error: `必须是以下之一：${kinds.join('、')}` }), { error: '消息类型必须是列表' })
      .min(1, { error: '请提供要标为已读的消息类型' })
      .max(kinds.length, { error: `消息类型最多${kinds.length}个` })
      .optional(),
  }),
  notificationLabels,
);

/** One row of the notification centre as the API answers it. */
export const notificationItemRow = z.object({
  notification_id: col.id,
  kind: z.enum(kinds),
  title: col.text,
  body: col.text,
  url: col.text,
  tag: col.text,
  create_time: col.time,
  read_at: col.time.nullable(),
});

/** One device that receives Web Push for the caller. */
export const pushDeviceRow = z.object({
  push_subscription_id: col.id,
  endpoint: col.text,
  device_label: col.text,
  create_time: col.time,
  update_time: col.time,
  last_push_time: col.time.nullable(),
  last_push_error: col.text.nullable(),
  /** Subscribed from the session making the call. */
  current: z.boolean(),
});

const unread = z.object({ count: col.int });

/** The notification centre (DESIGN.md §5): each person's own rows. */
export const notificationApi = {
  page: defineCall({ ...shellWire.notificationPage, permission: 'signed-in', summary: '我的消息（分页）', input: notificationPageQuery, answer: pageOf(notificationItemRow) }),
  unreadCount: defineCall({ ...shellWire.unreadCount, permission: 'signed-in', summary: '未读消息数', input: z.object({}), answer: unread }),
  read: defineCall({ ...shellWire.notificationRead, permission: 'signed-in', summary: '消息标为已读', operation: '消息标为已读', input: notificationReadBody, answer: unread }),
  readAll: defineCall({
    ...shellWire.notificationReadAll,
    permission: 'signed-in',
    summary: '消息全部标为已读（可只标某些类型）',
    operation: '消息全部已读',
    input: notificationReadAllBody,
    answer: unread,
  }),
  /** Read with fetch() and the Bearer header (src/features/notifications/live.ts); events: domain/notifications.ts StreamEvent. */
  stream: defineCall({
    method: 'GET',
    path: '/notifications/stream',
    permission: 'signed-in',
    summary: '消息实时推送流（text/event-stream）',
    input: z.object({}),
    answer: binary('text/event-stream'),
  }),
};

/** Web Push (DESIGN.md §2 server-push/): the key and each person's devices. */
export const pushApi = {
  vapidPublicKey: defineCall({
    method: 'GET',
    path: '/push/vapidPublicKey',
    permission: 'signed-in',
    summary: '推送服务公钥（VAPID）',
    input: z.object({}),
    answer: z.object({ publicKey: col.text }),
  }),
  subscriptions: defineCall({ method: 'GET', path: '/push/subscriptions', permission: 'signed-in', summary: '我已开启推送的设备', input: z.object({}), answer: pageOf(pushDeviceRow) }),
  subscribe: defineCall({
    method: 'POST',
    path: '/push/subscribe',
    permission: 'signed-in',
    summary: '开启本机推送通知',
    operation: '开启推送通知',
    input: pushSubscribeBody,
    answer: z.object({ push_subscription_id: col.id }),
  }),
  unsubscribe: defineCall({
    method: 'POST',
    path: '/push/unsubscribe',
    permission: 'signed-in',
    summary: '关闭一台设备的推送通知',
    operation: '关闭推送通知',
    input: pushUnsubscribeBody,
    answer: z.object({ removed: col.int }),
  }),
};
export type NotificationItem = z.infer<typeof notificationItemRow>;
export type PushDevice = z.infer<typeof pushDeviceRow>;
/** The `notification` event of the stream: a row and the recipient's unread count right after it. */
export type NotificationEvent = NotificationItem & { unread: number };
