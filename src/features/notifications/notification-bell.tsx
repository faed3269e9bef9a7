import { useQuery, useQueryClient } from '@tanstack/react-query';
import { BellOutline } from 'antd-mobile-icons';
import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { useMe } from '../../lib/me';
import { afterFirstScreen } from '../../lib/after-first-screen';
import { session } from '../../lib/session';
import { unreadQuery } from './api';
import './notification-bell.css';

/**
 * The header bell: the unread count from the server on every open, kept live
 * by the notification stream while the app is open. Mounting it starts the
 * stream, so each layout shows it once.
 */
export function NotificationBell({ className = '' }: { className?: string }) {
  const client = useQueryClient();
  const { data: me } = useMe();
  const { data } = useQuery(unreadQuery);
  const count = data?.count ?? 0;
  const userId = me?.user.user_id;

  useEffect(() => {
    // The live stream starts once the first screen has settled; until then the count comes from the query above.
    let stop: (() => void) | undefined;
    let cancelled = false;
    const cancelStart = afterFirstScreen(
      () =>
        void import('./live').then((m) => {
          if (!cancelled) stop = m.startLive(client);
        }),
      0,
    );
    return () => {
      cancelled = true;
      cancelStart();
      stop?.();
    };
  }, [client]);
  useEffect(() => {
    if (userId === undefined) return;
    // After a new sign-in, this browser's earlier opt-in (same person) is bound to the new session; failures only mean no push.
    return afterFirstScreen(() => void import('./push-device').then((m) => m.rebindIfOptedIn(userId, session.token())).catch(() => undefined));
  }, [userId]);

  const shown = count > 99 ? '99+' : String(count);
  // The name holds the badge as shown (WCAG 2.5.3: a spoken "99+" must find the bell); the tooltip gives the exact count.
  const label = count ? `消息中心，${shown} 条未读` : '消息中心';
  const title = count ? `消息中心，${count} 条未读` : '消息中心';
  return (
    <Link to="/notifications" className={`nbell ${className}`} aria-label={label} title={title} data-testid="notification-bell">
      <BellOutline className="nbell-icon" />
      {count > 0 && (
        <span className="nbell-count" data-testid="notification-count">
          {shown}
        </span>
      )}
    </Link>
  );
}
