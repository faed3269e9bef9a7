import { replaceEqualDeep, type QueryKey } from '@tanstack/react-query';
import { copyOfflineStamp } from '../lib/offline-reads';

/**
 * What survives a reload or an offline start (DESIGN.md §5): the signed-in
 * person, the code tables, the approval queues with their pending counts, the
 * home's open alarms and unread notices, and the dashboard's figures.
 * Other lists and details are left to the service worker's read cache.
 */
export function isPersistedQuery(key: QueryKey): boolean {
  const [head, second] = key;
  if (head === 'me' || head === 'enum') return true;
  // The home's cards above its menus: drawn from the copy at once on a return, they do not push the page down when the answer comes (CLS was 0.26).
  if (head === 'home' && (second === 'approval-pending' || second === 'open-alarms')) return true;
  if (head === 'notices' && second === 'received' && key[2] === 'unread') return true;
  // The dashboard's last figures, so that an offline start shows them under its stale badge.
  if (head === 'figures' && second === 'dashboard') return true;
  // A running muster's board and list: a marshal whose phone lost the network keeps marking from them (docs/muster.md).
  if ((head === 'figures' && second === 'muster') || (head === 'muster' && second === 'subjects')) return true;
  return head === 'list' && typeof second === 'string' && second.startsWith('approval.');
}

/**
 * React Query's structural sharing, keeping the offline stamp true: an answer
 * equal to the one on screen keeps the old object, which must then take the
 * new answer's provenance (a fresh answer clears it, a copy sets its time).
 */
export function shareKeepingStamp(previous: unknown, next: unknown): unknown {
  const shared = replaceEqualDeep(previous, next);
  if (shared !== next) copyOfflineStamp(next, shared);
  return shared;
}

/** FNV-1a: a short, stable name for a session token (the token itself never goes into the persisted copy). */
export function sessionTag(token: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}
