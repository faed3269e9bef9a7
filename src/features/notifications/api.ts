import { queryOptions } from '@tanstack/react-query';
import { ALARM_NOTIFICATION_KINDS, type NotificationKindValue } from '../../../domain/notifications';
import type { NotificationItem } from '../../../domain/schemas/notifications';
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

/** What the alarm banner shows: the newest unread alarm, how many are unread, and how many of each kind. */
export interface UnreadAlarms {
  newest: NotificationItem | undefined;
  total: number;
  /** The kinds with unread alarms, in ALARM_NOTIFICATION_KINDS order. */
  kinds: Array<{ kind: NotificationKindValue; total: number }>;
}

/** The alarm banner's read: each alarm kind's newest unread alarm and count, one page of one row per kind (the stream invalidates it, see live.ts). */
export const alarmBannerKey = ['notifications', 'alarm-banner'] as const;
export const alarmBannerQuery = queryOptions({
  queryKey: alarmBannerKey,
  queryFn: async (): Promise<UnreadAlarms> => {
    const pages = await Promise.all(ALARM_NOTIFICATION_KINDS.map((kind) => call(shellCalls.notificationPage, { size: 1, pn: 1, unread: true, kind }).then((page) => ({ kind, page }))));
    const newest = pages.flatMap((p) => p.page.list).sort((a, b) => (a.create_time === b.create_time ? b.notification_id - a.notification_id : a.create_time < b.create_time ? 1 : -1))[0];
    const kinds = pages.filter((p) => p.page.total > 0).map((p) => ({ kind: p.kind, total: p.page.total }));
    return { newest, total: kinds.reduce((n, k) => n + k.total, 0), kinds };
  },
  staleTime: 0,
  refetchOnMount: 'always',
  refetchOnWindowFocus: 'always',
});

export const markRead = (ids: number[]) => call(shellCalls.notificationRead, { ids });
export const markAllRead = () => call(shellCalls.notificationReadAll);
/** 全部标为已查看: every unread alarm of the caller, of every alarm kind, and nothing else. */
export const markAlarmsRead = () => call(shellCalls.notificationReadAll, { kinds: [...ALARM_NOTIFICATION_KINDS] });
