import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'antd-mobile';
import { ExclamationCircleFill } from 'antd-mobile-icons';
import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { NotificationKind } from '../../../domain/notifications';
import type { NotificationItem } from '../../../domain/schemas/notifications';
import { useCan } from '../../lib/me';
import { alarmBannerKey, alarmBannerQuery, markRead, unreadKey } from './api';
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

/**
 * The alarm banner (issue 24 item 4): on every signed-in screen, under the
 * title bar, while an alarm this person was notified of is unread; the newest
 * with how many, and 查看, which marks it read and opens the alarm. "Opened"
 * is the notification read, by 查看 here, a tap in the notification centre or
 * 全部已读: a mark per person that the server and the live stream already
 * keep. It sits in the page's flow, so it covers none of the screen's own
 * controls. Only holders of a stranded deal code are asked.
 */
export function AlarmBanner() {
  const can = useCan();
  const mayHandle = can('strandedManagementCar:deal') || can('strandedManagementPerson:deal');
  const client = useQueryClient();
  const navigate = useNavigate();
  const { data } = useQuery({ ...alarmBannerQuery, enabled: mayHandle });
  const open = useMutation({
    mutationFn: (n: NotificationItem) => markRead([n.notification_id]),
    onSuccess: (r) => client.setQueryData(unreadKey, r),
    onSettled: () => void client.invalidateQueries({ queryKey: alarmBannerKey }),
  });

  useEffect(() => {
    if (!mayHandle) return;
    let stop: (() => void) | undefined;
    let cancelled = false;
    void import('./live').then((m) => {
      if (cancelled) return;
      stop = m.onLiveNotification((n) => {
        if (n.kind === NotificationKind.STRANDED_ALARM) beep();
      });
    });
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [mayHandle]);

  const newest = data?.list[0];
  if (!mayHandle || !newest || open.isPending) return null;
  const total = data.total;
  const view = () => {
    open.mutate(newest);
    if (isInternal(newest.url)) navigate(newest.url);
  };
  return (
    <div className="alarm-banner" role="alert" data-testid="alarm-banner">
      <ExclamationCircleFill className="alarm-banner-icon" aria-hidden />
      <div className="alarm-banner-text">
        <span className="alarm-banner-title">
          {newest.title}
          {total > 1 && <span className="alarm-banner-count">共 {total > 99 ? '99+' : total} 条未查看告警</span>}
        </span>
        <span className="alarm-banner-body">{newest.body}</span>
      </div>
      <Button size="small" color="danger" className="alarm-banner-view" onClick={view}>
        查看
      </Button>
    </div>
  );
}
