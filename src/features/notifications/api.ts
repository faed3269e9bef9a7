import { queryOptions } from '@tanstack/react-query';
import { NotificationKind, type NotificationKindValue } from '../../../domain/notifications';
import { notificationApi, pushApi, type PushSubscribeBody } from '../../../domain/schemas/notifications';
import { call } from '../../lib/http';

export const unreadKey = ['notifications', 'unread'] as const;
export const pageKey = ['notifications', 'page'] as const;
export const devicesKey = ['push', 'devices'] as const;

/** The bell's number: asked on every mount and focus (a count from yesterday is worse than none), kept live by the stream meanwhile. */
export const unreadQuery = queryOptions({
  queryKey: unreadKey,
  queryFn: () => call(notificationApi.unreadCount),
  staleTime: 0,
  refetchOnMount: 'always',
  refetchOnWindowFocus: 'always',
});

export const PAGE_SIZE = 20;
export const fetchPage = (pn: number, unread: boolean, kind?: NotificationKindValue) =>
  call(notificationApi.page, { size: PAGE_SIZE, pn, ...(unread ? { unread: true } : {}), ...(kind ? { kind } : {}) });

/** The alarm banner's read: the newest unread alarm and how many there are (the stream invalidates it, see live.ts). */
export const alarmBannerKey = ['notifications', 'alarm-banner'] as const;
export const alarmBannerQuery = queryOptions({
  queryKey: alarmBannerKey,
  queryFn: () => call(notificationApi.page, { size: 1, pn: 1, unread: true, kind: NotificationKind.STRANDED_ALARM }),
  staleTime: 0,
  refetchOnMount: 'always',
  refetchOnWindowFocus: 'always',
});

export const markRead = (ids: number[]) => call(notificationApi.read, { ids });
export const markAllRead = () => call(notificationApi.readAll);

export const devicesQuery = queryOptions({
  queryKey: devicesKey,
  queryFn: () => call(pushApi.subscriptions),
  staleTime: 0,
});

export const vapidPublicKey = () => call(pushApi.vapidPublicKey).then((d) => d.publicKey);
export const subscribeDevice = (body: PushSubscribeBody) => call(pushApi.subscribe, body);
export const unsubscribeDevice = (by: { endpoint: string } | { push_subscription_id: number }) => call(pushApi.unsubscribe, by);
