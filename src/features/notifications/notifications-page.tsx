import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { Button, DotLoading, ErrorBlock, InfiniteScroll } from 'antd-mobile';
import { BellOutline, CheckShieldOutline, EnvironmentOutline, ExclamationCircleOutline, FileOutline, RightOutline, SetOutline, SoundOutline, StopOutline, TeamOutline } from 'antd-mobile-icons';
import { useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { Page } from '../../../domain/envelope';
import { isAlarmNotification, NotificationKind, type NotificationKindValue } from '../../../domain/notifications';
import type { NotificationItem } from '../../../domain/schemas/notifications';
import { alarmBannerKey, fetchPage, markAllRead, markRead, PAGE_SIZE, pageKey, unreadKey, unreadQuery } from './api';
import './notifications.css';
import { showToast } from '../../lib/feedback';

const icons: Record<string, ReactNode> = {
  [NotificationKind.TASK_ASSIGNED]: <CheckShieldOutline />,
  [NotificationKind.APPLICATION_DECIDED]: <FileOutline />,
  [NotificationKind.STRANDED_ALARM]: <ExclamationCircleOutline />,
  [NotificationKind.NOTICE]: <SoundOutline />,
  [NotificationKind.ROUTE_DEVIATION]: <EnvironmentOutline />,
  [NotificationKind.BACKUP_FAILED]: <SetOutline />,
  [NotificationKind.MUSTER]: <TeamOutline />,
  [NotificationKind.REPEAT_OFFENDER]: <StopOutline />,
};

/** The kind filter, alarms first: they are what must not be missed among the rest (issue 24 item 4). */
const kindFilters: Array<{ kind: NotificationKindValue | undefined; label: string }> = [
  { kind: undefined, label: '全部类型' },
  { kind: NotificationKind.STRANDED_ALARM, label: '告警' },
  { kind: NotificationKind.ROUTE_DEVIATION, label: '偏离路线' },
  { kind: NotificationKind.MUSTER, label: '应急清点' },
  { kind: NotificationKind.TASK_ASSIGNED, label: '审批任务' },
  { kind: NotificationKind.APPLICATION_DECIDED, label: '审批结果' },
  { kind: NotificationKind.NOTICE, label: '通知公告' },
];

/** Only paths of this app are followed: a stored url is never a way off the site. */
const isInternal = (url: string) => url.startsWith('/') && !url.startsWith('//');

type Pages = InfiniteData<Page<NotificationItem>, number>;

/** 消息中心: newest first, unread in bold; a tap marks it read and opens the screen it is about. */
export default function NotificationsPage() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [kind, setKind] = useState<NotificationKindValue | undefined>();
  const unread = useQuery(unreadQuery).data?.count ?? 0;
  const list = useInfiniteQuery({
    queryKey: [...pageKey, unreadOnly ? 'unread' : 'all', kind ?? 'any'],
    queryFn: ({ pageParam }) => fetchPage(pageParam, unreadOnly, kind),
    initialPageParam: 1,
    getNextPageParam: (last, all) => (all.length * PAGE_SIZE < last.total ? all.length + 1 : undefined),
    staleTime: 0,
    refetchOnMount: 'always',
  });
  const items = list.data?.pages.flatMap((p) => p.list) ?? [];
  const total = list.data?.pages[0]?.total ?? 0;

  /** Shows the read mark at once; the server's answer sets the count. */
  const setReadLocally = (ids: number[] | 'all') => {
    // Only whether it is read matters on this screen; the next fetch brings the server's time.
    const justRead = 'just-read';
    client.setQueriesData<Pages>(
      { queryKey: pageKey },
      (data) =>
        data && { ...data, pages: data.pages.map((p) => ({ ...p, list: p.list.map((n) => (ids === 'all' || ids.includes(n.notification_id) ? { ...n, read_at: n.read_at ?? justRead } : n)) })) },
    );
  };

  // A page read still on its way was read before the mark: it must not land over it (the first load would even be shared with the refetch).
  const settle = async (ids: number[] | 'all') => {
    await client.cancelQueries({ queryKey: pageKey });
    setReadLocally(ids);
  };

  const readOne = useMutation({
    mutationFn: (n: NotificationItem) => markRead([n.notification_id]),
    onMutate: (n) => settle([n.notification_id]),
    onSuccess: (r) => {
      client.setQueryData(unreadKey, r);
      void client.invalidateQueries({ queryKey: alarmBannerKey });
      // The screen opened by the tap mounts a bell whose count read may have been answered before this mark
      // committed and land after it; a read started now (replacing any still on its way) sees the mark.
      void client.invalidateQueries({ queryKey: unreadKey });
    },
  });
  const readAll = useMutation({
    mutationFn: markAllRead,
    onMutate: () => settle('all'),
    onSuccess: async (r) => {
      client.setQueryData(unreadKey, r);
      void client.invalidateQueries({ queryKey: alarmBannerKey });
      showToast({ icon: 'success', content: '已全部标为已读' });
      await client.cancelQueries({ queryKey: pageKey });
      void client.invalidateQueries({ queryKey: pageKey });
      void client.invalidateQueries({ queryKey: unreadKey });
    },
    onError: (err) => {
      showToast({ icon: 'fail', content: `操作失败：${err.message}` });
      void client.invalidateQueries({ queryKey: pageKey });
    },
  });

  const open = (n: NotificationItem) => {
    // Marking read must not hold up the screen the person asked for; a failure shows it unread again next time.
    if (!n.read_at) readOne.mutate(n);
    if (isInternal(n.url)) navigate(n.url);
  };

  return (
    <div className="page ncenter">
      <div className="ncenter-bar">
        <div className="ncenter-tabs" role="tablist" aria-label="筛选">
          <button type="button" role="tab" aria-selected={!unreadOnly} className={unreadOnly ? '' : 'is-active'} onClick={() => setUnreadOnly(false)}>
            全部
          </button>
          <button type="button" role="tab" aria-selected={unreadOnly} className={unreadOnly ? 'is-active' : ''} onClick={() => setUnreadOnly(true)}>
            未读{unread > 0 ? ` ${unread > 99 ? '99+' : unread}` : ''}
          </button>
        </div>
        <div className="ncenter-actions">
          <Button size="small" fill="none" color="primary" disabled={unread === 0 || readAll.isPending} onClick={() => readAll.mutate()}>
            全部已读
          </Button>
          <Link to="/notifications/push" className="ncenter-settings">
            <SetOutline /> 推送设置
          </Link>
        </div>
      </div>

      <div className="ncenter-kinds" role="radiogroup" aria-label="消息类型">
        {kindFilters.map((f) => (
          <button
            key={f.label}
            type="button"
            role="radio"
            aria-checked={kind === f.kind}
            className={`ncenter-kind${kind === f.kind ? ' is-active' : ''}${f.kind && isAlarmNotification(f.kind) ? ' ncenter-kind--alarm' : ''}`}
            onClick={() => setKind(f.kind)}
          >
            {f.label}
          </button>
        ))}
      </div>

      <section className="card ncenter-card">
        {list.isPending ? (
          <div className="ncenter-state">
            <DotLoading color="primary" /> 加载中
          </div>
        ) : list.isError && items.length === 0 ? (
          <ErrorBlock status="disconnected" title="消息加载失败" description={list.error.message}>
            <Button color="primary" size="small" onClick={() => void list.refetch()}>
              重试
            </Button>
          </ErrorBlock>
        ) : items.length === 0 ? (
          <div className="ncenter-empty">
            <BellOutline className="ncenter-empty-icon" />
            <div>{unreadOnly ? '没有未读消息' : kind ? `暂无${kindFilters.find((f) => f.kind === kind)!.label}消息` : '暂无消息'}</div>
            <div className="ncenter-empty-hint">新的审批任务、审批结果、滞留告警和偏离路线告警会出现在这里</div>
          </div>
        ) : (
          <ul className="ncenter-list" aria-label="消息列表">
            {items.map((n) => (
              <li key={n.notification_id}>
                <button type="button" className={n.read_at ? 'nitem' : 'nitem is-unread'} onClick={() => open(n)} data-testid="notification-item">
                  <span className={`nitem-icon nitem-icon--${n.kind}`} aria-hidden>
                    {icons[n.kind] ?? <BellOutline />}
                  </span>
                  <span className="nitem-main">
                    <span className="nitem-head">
                      <span className="nitem-title">{n.title}</span>
                      {!n.read_at && <span className="nitem-dot" role="img" aria-label="未读" />}
                      <span className="nitem-time">{n.create_time.slice(5, 16)}</span>
                    </span>
                    <span className="nitem-body">{n.body}</span>
                  </span>
                  <RightOutline className="nitem-arrow" />
                </button>
              </li>
            ))}
          </ul>
        )}
        {items.length > 0 && (
          <InfiniteScroll hasMore={!!list.hasNextPage} loadMore={async () => void (await list.fetchNextPage())}>
            {list.hasNextPage ? (
              <>
                <DotLoading /> 加载更多
              </>
            ) : (
              <span className="ncenter-total">共 {total} 条</span>
            )}
          </InfiniteScroll>
        )}
      </section>
    </div>
  );
}
