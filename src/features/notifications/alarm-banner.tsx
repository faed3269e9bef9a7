import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'antd-mobile';
import { ExclamationCircleFill } from 'antd-mobile-icons';
import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { isAlarmNotification, NotificationKind, type NotificationKindValue } from '../../../domain/notifications';
import type { NotificationItem } from '../../../domain/schemas/notifications';
import { alarmLists } from '../../../domain/stranded-kinds';
import { showToast } from '../../lib/feedback';
import { useCan } from '../../lib/me';
import { alarmBannerKey, alarmBannerQuery, markAlarmsRead, markRead, pageKey, unreadKey } from './api';
import './alarm-banner.css';

/** Only paths of this app are followed: a stored url is never a way off the site. */
const isInternal = (url: string) => url.startsWith('/') && !url.startsWith('//');

/** A short two-tone beep where the browser lets the page play sound (after the person has interacted with it); silence otherwise. */
function beep() {
  try {
    const Ctx = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Ctx) return;
    const audio = new Ctx();
    if (audio.state !== 'running') {
      void audio.close();
      return;
    }
    const gain = audio.createGain();
    gain.gain.value = 0.08;
    gain.connect(audio.destination);
    [880, 660].forEach((hz, i) => {
      const osc = audio.createOscillator();
      osc.frequency.value = hz;
      osc.connect(gain);
      osc.start(audio.currentTime + i * 0.18);
      osc.stop(audio.currentTime + i * 0.18 + 0.15);
    });
    setTimeout(() => void audio.close(), 600);
  } catch {
    // No sound is no loss: the banner and the bell still show the alarm.
  }
}

/** Each alarm kind's word in the banner's counts. */
const kindWords: Partial<Record<NotificationKindValue, string>> = {
  [NotificationKind.STRANDED_ALARM]: '滞留告警',
  [NotificationKind.ROUTE_DEVIATION]: '偏离路线',
};

const countText = (n: number) => (n > 99 ? '99+' : String(n));

/**
 * The alarm banner: on every signed-in screen, under the title bar, while an
 * alarm this person was notified of is unread. One line at any width (on a
 * phone no taller than the title bar): the newest alarm, how many are unread
 * (per kind when there are several kinds), 查看, which marks the newest read
 * and opens its alarm, and 全部标为已查看, which marks every unread alarm read.
 * "Opened" is the notification read, here, by a tap in the notification
 * centre or by 全部已读: a mark per person that the server and the live stream
 * already keep. It sits in the page's flow, so it covers none of the screen's
 * own controls. Only holders of an alarm deal code are asked.
 */
export function AlarmBanner() {
  const can = useCan();
  const mayHandle = Object.values(alarmLists).some((k) => can(k.deal));
  const client = useQueryClient();
  const navigate = useNavigate();
  const { data } = useQuery({ ...alarmBannerQuery, enabled: mayHandle });
  const settled = () => {
    void client.invalidateQueries({ queryKey: alarmBannerKey });
    void client.invalidateQueries({ queryKey: pageKey });
  };
  const open = useMutation({
    mutationFn: (n: NotificationItem) => markRead([n.notification_id]),
    onSuccess: (r) => client.setQueryData(unreadKey, r),
    onSettled: settled,
  });
  const readAll = useMutation({
    mutationFn: markAlarmsRead,
    onSuccess: (r) => client.setQueryData(unreadKey, r),
    onError: (err) => showToast({ icon: 'fail', content: `操作失败：${err.message}` }),
    onSettled: settled,
  });

  useEffect(() => {
    if (!mayHandle) return;
    let stop: (() => void) | undefined;
    let cancelled = false;
    void import('./live').then((m) => {
      if (cancelled) return;
      stop = m.onLiveNotification((n) => {
        if (isAlarmNotification(n.kind)) beep();
      });
    });
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [mayHandle]);

  const newest = data?.newest;
  if (!mayHandle || !newest || open.isPending || readAll.isPending) return null;
  const view = () => {
    open.mutate(newest);
    if (isInternal(newest.url)) navigate(newest.url);
  };
  const several = data.kinds.length > 1;
  return (
    <div className="alarm-banner" role="alert" data-testid="alarm-banner">
      <ExclamationCircleFill className="alarm-banner-icon" aria-hidden />
      <div className="alarm-banner-text" title={`${newest.title}：${newest.body}`}>
        {several ? (
          <span className="alarm-banner-counts" data-testid="alarm-banner-counts">
            {data.kinds.map((k) => (
              <span key={k.kind} className="alarm-banner-kind">
                {kindWords[k.kind] ?? '告警'} <b>{countText(k.total)}</b>
              </span>
            ))}
          </span>
        ) : (
          data.total > 1 && <span className="alarm-banner-count">共 {countText(data.total)} 条未查看</span>
        )}
        <span className="alarm-banner-line">
          <span className="alarm-banner-title">{newest.title}</span>
          <span className="alarm-banner-body">{newest.body}</span>
        </span>
      </div>
      <Button size="mini" color="danger" className="alarm-banner-view" onClick={view}>
        查看
      </Button>
      <Button size="mini" color="danger" fill="outline" className="alarm-banner-all" onClick={() => readAll.mutate()}>
        全部标为已查看
      </Button>
    </div>
  );
}
