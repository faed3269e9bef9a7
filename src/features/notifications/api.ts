import { queryOptions } from '@tanstack/react-query';
import { NotificationKind, type NotificationKindValue } from '../../../domain/notifications';
import { shellCalls } from '../../../domain/shell-calls';
import { call } from '../../lib/http';

export const unreadKey = ['notifications', 'unread'] as const;
export const pageKey = ['notifications', 'page'] as const;

/** The bell's number: asked on every mount and focus (a count from yesterday is worse than none), kept live by the stream meanwhile. */
export const unreadQuery = queryOptions({
  queryKey: unreadKey,
  queryFn: () => call(shellCalls.unreadCount),
  staleTime: 0,
  refetchOnMount: 'always',
  refetchOnWindowFocus: 'always',
});

export const PAGE_SIZE = 20;
export const fetchPage = (pn: number, unread: boolean, kind?: NotificationKindValue) =>
  call(shellCalls.notificationPage, { size: PAGE_SIZE, pn, ...(unread ? { unread: true } : {}), ...(kind ? { kind } : {}) });

/** The alarm banner's read: the newest unread alarm and how many there are (the stream invalidates it, see live.ts). */
export const alarmBannerKey = ['notifications', 'alarm-banner'] as const;
export const alarmBannerQuery = queryOptions({
  queryKey: alarmBannerKey,
  queryFn: () => call(shellCalls.notificationPage, { size: 1, pn: 1, unread: true, kind: NotificationKind.STRANDED_ALARM }),
  staleTime: 0,
  refetchOnMount: 'always',
  refetchOnWindowFocus: 'always',
});

export const markRead = (ids: number[]) => call(shellCalls.notificationRead, { ids });
export const markAllRead = () => call(shellCalls.notificationReadAll);
