import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ClockCircleOutline, ExclamationCircleOutline } from 'antd-mobile-icons';
import { useCallback, useSyncExternalStore } from 'react';
import { offlineStamp } from '../lib/offline-reads';
import { useOnline } from '../lib/use-online';
import './offline-banner.css';

const pad = (n: number) => String(n).padStart(2, '0');

/** HH:mm for today's copies; older ones name the day too, so a copy from yesterday never passes for fresh. */
export function cachedTimeText(at: number, now = Date.now()): string {
  const d = new Date(at);
  const today = new Date(now).toDateString() === d.toDateString();
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return today ? time : `${d.getMonth() + 1}月${d.getDate()}日 ${time}`;
}

/**
 * Not what a screen is about: code tables and preloads (departments, vehicle
 * models, users) feed pickers, and 'me' (the signed-in person, their menus and
 * permissions) frames every screen. A copy of these alone must not say the
 * screen is showing cached data when its own read failed.
 */
const NOT_SCREEN_CONTENT = new Set(['enum', 'preload', 'me']);

/** The oldest offline copy among the data of queries some screen is watching now; null when all of it is fresh. */
function oldestCopyOnScreen(client: QueryClient): number | null {
  let oldest: number | null = null;
  for (const q of client.getQueryCache().findAll({ type: 'active' })) {
    if (NOT_SCREEN_CONTENT.has(q.queryKey[0] as string)) continue;
    const at = offlineStamp(q.state.data);
    if (at !== undefined && (oldest === null || at < oldest)) oldest = at;
  }
  return oldest;
}

/**
 * DESIGN.md §5: the offline state is honest about what is stale. Shown under
 * the title bar while any answer on screen came from the service worker's
 * copy (with the time it was fetched), and whenever the device is offline.
 */
export function OfflineBanner() {
  const online = useOnline();
  const client = useQueryClient();
  const subscribe = useCallback((cb: () => void) => client.getQueryCache().subscribe(cb), [client]);
  const cachedAt = useSyncExternalStore(
    subscribe,
    () => oldestCopyOnScreen(client),
    () => null,
  );

  if (cachedAt === null && online) return null;
  const text = cachedAt !== null ? `${online ? '网络不畅' : '当前离线'}，显示的是 ${cachedTimeText(cachedAt)} 缓存的数据` : '当前离线，网络恢复后将自动刷新';
  return (
    <div className={`offline-banner${cachedAt !== null ? ' offline-banner--cached' : ''}`} role="status" aria-live="polite">
      {cachedAt !== null ? <ClockCircleOutline aria-hidden /> : <ExclamationCircleOutline aria-hidden />}
      <span>{text}</span>
    </div>
  );
}
