import { useSyncExternalStore } from 'react';
import type { OutboxCounts, OutboxItem } from './types';

/**
 * What the screens see of the outbox: the signed-in user's items, fed by
 * ./runtime from IndexedDB (also across tabs). Kept free of dexie so the
 * badge in the layouts costs nothing on the first load.
 */
export interface OutboxSnapshot {
  /** False until IndexedDB has answered once: the badge then says nothing rather than 0. */
  ready: boolean;
  userId: number | null;
  /** Everything not done yet, oldest first (the order it is sent in). */
  waiting: OutboxItem[];
  /** Done items not yet pruned, newest first. */
  recent: OutboxItem[];
  counts: OutboxCounts;
  /** A drain pass is running in this tab. */
  draining: boolean;
}

const EMPTY_COUNTS: OutboxCounts = { pending: 0, sending: 0, done: 0, conflict: 0, failed: 0, waiting: 0 };
let snapshot: OutboxSnapshot = { ready: false, userId: null, waiting: [], recent: [], counts: EMPTY_COUNTS, draining: false };
const listeners = new Set<() => void>();

function publish(next: OutboxSnapshot) {
  snapshot = next;
  listeners.forEach((l) => l());
}

export function countsOf(items: readonly OutboxItem[]): OutboxCounts {
  const c = { ...EMPTY_COUNTS };
  for (const i of items) c[i.state] += 1;
  c.waiting = items.length - c.done;
  return c;
}

export const outboxStore = {
  get: (): OutboxSnapshot => snapshot,
  subscribe(l: () => void): () => void {
    listeners.add(l);
    return () => listeners.delete(l);
  },
  /** The user's items as stored (any order). */
  setItems(userId: number | null, items: readonly OutboxItem[]) {
    rememberItemCount(items.length);
    const byAge = [...items].sort((a, b) => a.createdAt - b.createdAt);
    publish({
      ...snapshot,
      ready: true,
      userId,
      waiting: byAge.filter((i) => i.state !== 'done'),
      recent: byAge.filter((i) => i.state === 'done').reverse(),
      counts: countsOf(byAge),
    });
  },
  setDraining(draining: boolean) {
    if (snapshot.draining !== draining) publish({ ...snapshot, draining });
  },
};

/**
 * How many items (done ones included) the outbox held when this device last
 * looked, so a start with nothing waiting can leave dexie for later; null
 * when unknown (first start, storage refused).
 */
const ITEM_COUNT_KEY = 'park.outbox.count';
function rememberItemCount(n: number) {
  try {
    localStorage.setItem(ITEM_COUNT_KEY, String(n));
  } catch {
    // Private mode or full storage: the next start simply loads the outbox at once.
  }
}
export function lastItemCount(): number | null {
  try {
    const v = localStorage.getItem(ITEM_COUNT_KEY);
    return v === null ? null : Number(v);
  } catch {
    return null;
  }
}

export function useOutbox(): OutboxSnapshot {
  return useSyncExternalStore(outboxStore.subscribe, outboxStore.get, outboxStore.get);
}

/** Task ids with a decision in the outbox that the server has not accepted yet (approvals and batch approvals). */
export function waitingTaskIds(s: OutboxSnapshot = snapshot): Set<number> {
  const ids = new Set<number>();
  for (const i of s.waiting) {
    if (i.kind !== 'approval' && i.kind !== 'batchApproval') continue;
    const taskIds = i.meta?.taskIds;
    if (Array.isArray(taskIds)) for (const t of taskIds) ids.add(Number(t));
  }
  return ids;
}

/** The waiting outbox item that holds a decision on this task, if any. */
export function waitingItemOfTask(taskId: number, s: OutboxSnapshot = snapshot): OutboxItem | undefined {
  return s.waiting.find((i) => (i.kind === 'approval' || i.kind === 'batchApproval') && Array.isArray(i.meta?.taskIds) && (i.meta.taskIds as unknown[]).map(Number).includes(taskId));
}
