import { queryOptions } from '@tanstack/react-query';
import type { Page } from '../../../domain/envelope';
import { NotificationKind, type NotificationItem, type NotificationKindValue, type PushDevice } from '../../../domain/notifications';
import { get, post } from '../../lib/http';

export const unreadKey = ['notifications', 'unread'] as const;
export const pageKey = ['notifications', 'page'] as const;
export const devicesKey = ['push', 'devices'] as const;

/** The bell's number: asked on every mount and focus (a count from yesterday is worse than none), kept live by the stream meanwhile. */
export const unreadQuery = queryOptions({
  queryKey: unreadKey,
  queryFn: () => get<{ count: number }>('/notifications/unreadCount'),
  staleTime: 0,
  refetchOnMount: 'always',
  refetchOnWindowFocus: 'always',
});

export const PAGE_SIZE = 20;
export const fetchPage = (pn: number, unread: boolean, kind?: NotificationKindValue) =>
  post<Page<NotificationItem>>('/notifications/page', { size: PAGE_SIZE, pn, ...(unread ? { unread: true } : {}), ...(kind ? { kind } : {}) });

/** The alarm banner's read: the newest unread alarm and how many there are (the stream invalidates it, see live.ts). */
export const alarmBannerKey = ['notifications', 'alarm-banner'] as const;
export const alarmBannerQuery = queryOptions({
  queryKey: alarmBannerKey,
  queryFn: () => post<Page<NotificationItem>>('/notifications/page', { size: 1, pn: 1, unread: true, kind: NotificationKind.STRANDED_ALARM }),
  staleTime: 0,
  refetchOnMount: 'always',
  refetchOnWindowFocus: 'always',
});

export const markRead = (ids: number[]) => post<{ count: number }>('/notifications/read', { ids });
export const markAllRead = () => post<{ count: number }>('/notifications/readAll', {});

export const devicesQuery = queryOptions({
  queryKey: devicesKey,
  queryFn: () => get<{ list: PushDevice[] }>('/push/subscriptions'),
  staleTime: 0,
});

export const vapidPublicKey = () => get<{ publicKey: string }>('/push/vapidPublicKey').then((d) => d.publicKey);
export const subscribeDevice = (body: { endpoint: string; keys: { p256dh: string; auth: string }; device_label: string }) => post<{ push_subscription_id: number }>('/push/subscribe', body);
export const unsubscribeDevice = (by: { endpoint: string } | { push_subscription_id: number }) => post<{ removed: number }>('/push/unsubscribe', by);
