import { liveQuery } from 'dexie';
import { session } from '../session';
import { toast } from '../toast';
import { OutboxDb } from './db';
import { createOutboxEngine, type DrainReport } from './engine';
import { bindOwner, currentOwner } from './owner';
import { outboxStore } from './store';
import type { EnqueueInput, OutboxItem } from './types';

/**
 * The outbox in the browser: one database, the engine wired to the session,
 * navigator.onLine, navigator.locks and Background Sync, the store fed live
 * from IndexedDB, and the drain triggers. Loaded on demand (dexie stays off
 * the first load).
 */

const LOCK_NAME = 'park-outbox-drain';
/** The Background Sync tag the service worker answers with {type:'OUTBOX_DRAIN'}. */
export const SYNC_TAG = 'outbox';

type SyncRegistration = ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } };

function requestSync(): void {
  if (!('serviceWorker' in navigator)) return;
  // ready never settles without a registered worker (dev): nothing is waiting on it.
  void navigator.serviceWorker.ready.then((reg) => (reg as SyncRegistration).sync?.register(SYNC_TAG)).catch(() => undefined);
}

const db = new OutboxDb();

const engine = createOutboxEngine({
  db,
  token: () => session.token(),
  userId: currentOwner,
  isOnline: () => navigator.onLine !== false,
  withLock: typeof navigator !== 'undefined' && navigator.locks ? (fn) => navigator.locks.request(LOCK_NAME, fn) : undefined,
  requestSync,
  onUnauthorized: () => {
    const kept = outboxStore.get().counts.waiting;
    // The shell's session listener says the session ended and opens the sign-in page, coming back here after.
    session.expire();
    if (kept > 0) toast(`登录已过期，请重新登录。${kept} 项待发送操作已保留，登录后自动发送`);
  },
});

// ---------- live view for the screens ----------

let watched: { userId: number | null; stop?: () => void } | null = null;

function watch(): void {
  const userId = currentOwner();
  if (watched && watched.userId === userId) return;
  watched?.stop?.();
  if (userId === null) {
    watched = { userId };
    outboxStore.setItems(null, []);
    return;
  }
  const sub = liveQuery(() => engine.list(userId)).subscribe({
    next: (items) => outboxStore.setItems(userId, items),
    error: () => outboxStore.setItems(userId, []),
  });
  watched = { userId, stop: () => sub.unsubscribe() };
}

// ---------- draining ----------

let running = 0;
let wakeTimer: ReturnType<typeof setTimeout> | undefined;

/** One pass over the signed-in user's due items; resolves when it is over. */
export async function drain(): Promise<DrainReport> {
  running += 1;
  outboxStore.setDraining(true);
  let report: DrainReport | undefined;
  try {
    report = await engine.drain();
    return report;
  } finally {
    running -= 1;
    if (running === 0) outboxStore.setDraining(false);
    // Offline, signed out or expired: the online event or the next sign-in wakes it, not a timer.
    if (report && !report.stoppedBy) void scheduleWake();
  }
}

/** The next drain when the earliest backed-off item is due (timers stop in a background tab; focus drains too). */
async function scheduleWake(): Promise<void> {
  clearTimeout(wakeTimer);
  const userId = currentOwner();
  if (userId === null) return;
  const at = await engine.nextWakeAt(userId);
  if (at === null) return;
  wakeTimer = setTimeout(() => void drain(), Math.max(250, at - Date.now()));
}

/** Reconnect, start, Background Sync: items that failed only for the network start over, then a pass. */
async function wake(): Promise<DrainReport> {
  watch();
  const userId = currentOwner();
  if (userId !== null && navigator.onLine !== false) await engine.reviveTransient(userId);
  return drain();
}

let started = false;

/** Starts (or re-binds to a signed-in user) the outbox: live counts and every drain trigger. */
export function start(userId?: number): void {
  if (userId !== undefined) bindOwner(userId);
  watch();
  if (!started) {
    started = true;
    window.addEventListener('online', () => void wake());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') void drain();
    });
    if ('serviceWorker' in navigator) {
      navigator.serviceWorker.addEventListener('message', (e: MessageEvent) => {
        if ((e.data as { type?: string } | null)?.type === 'OUTBOX_DRAIN') void wake();
      });
    }
    session.subscribe(() => watch());
  }
  void wake();
}

// ---------- actions ----------

export async function enqueue(input: EnqueueInput): Promise<OutboxItem> {
  watch();
  const item = await engine.enqueue(input);
  requestSync();
  void drain();
  return item;
}

export const get = (id: string) => engine.get(id);

export async function retry(id: string): Promise<void> {
  await engine.retry(id);
  void drain();
}

export const discard = (id: string) => engine.discard(id);

export async function sendNow(): Promise<DrainReport> {
  const userId = currentOwner();
  if (userId !== null) await engine.sendNow(userId);
  return drain();
}
