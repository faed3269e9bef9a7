/**
 * The outbox (DESIGN.md §5, issue 4): actions made without a signal wait in
 * IndexedDB (dexie) and are sent exactly once when it returns.
 *
 * Contract (others build on it; keep it exact):
 *
 * - `enqueue({ kind, url, body, title, photos?, meta? }): Promise<OutboxItem>`
 *   kind: 'approval' | 'batchApproval' | 'flag' | 'markCancel' | 'alarmDeal' | 'musterMark';
 *   url: a declared call's path under /api (a queue's `calls.check.path`); body: the JSON;
 *   title: one Chinese line for the outbox screen ('审核 粤L12345 同意');
 *   photos: Record<fieldName, Blob[]>, kept as Blobs until sent; meta: anything the
 *   caller wants back (approvals put `taskIds: number[]` there), never sent.
 *   The item belongs to the signed-in user (another user's session never sends it),
 *   is stored as 'pending', a Background Sync 'outbox' is registered, and a drain
 *   starts at once. Throws when nobody is signed in or IndexedDB is unusable.
 * - Sending: photos first, each `POST /api/file/upload` (multipart field 'file')
 *   with `Idempotency-Key: <id>.<field>.<index>`; each returned name is saved on
 *   the item at once (a retry never uploads twice), then appended to body[field]
 *   after any names already there, joined with ';'. Then `POST /api<url>` with
 *   `Idempotency-Key: <item id>` — the same key and the same body on every try.
 * - States: pending → sending → done | conflict | failed. Network trouble, 5xx,
 *   408/425/429 and 409 IDEMPOTENCY_IN_PROGRESS: back to pending with backoff
 *   (domain/backoff.ts: 6 steps, 1000 ms ×2; `attempts`, `nextAttemptAt`), then
 *   'failed' once the steps are used (a reconnect or app start tries those again).
 *   While the device is offline nothing is tried and no attempt is spent.
 *   409: 'conflict' with the server's Chinese message in `error`. Other 4xx: 'failed'
 *   with the message. 401: the drain stops, every item stays as it was, the session
 *   expires (sign in again); after the same user signs in their items drain.
 * - Drains on: the `online` event, app start (`startOutbox`), a service worker message
 *   {type:'OUTBOX_DRAIN'} (Background Sync tag 'outbox'), a page becoming visible,
 *   the earliest backoff falling due, and 立即发送 / 重试 on the outbox screen. One pass at
 *   a time per tab and, through navigator.locks ('park-outbox-drain'), across tabs.
 * - `useOutbox()` / `outboxStore`: the signed-in user's items (waiting = not done,
 *   oldest first; recent = done, newest first) and counts by state; `counts.waiting`
 *   is what the badge shows. Done items are pruned after 24 hours.
 *
 * - Also: `drain()` (a pass now, resolves when over), `outboxItem(id)`, `retry(id)`,
 *   `discard(id)` (not while sending), `sendNow()`, `startOutbox(userId?)`, and
 *   `sendOrQueue(input, waitMs)`: enqueue and send now, the one path every action modal takes, through
 *   `sendAction` (./action.tsx, imported from there), which also tells the person what became of it.
 *
 * dexie and the engine load on first use (./runtime), so importing this module
 * (the badge in the layouts) costs the first load nothing.
 */
import type { DrainReport } from './engine';
import type { EnqueueInput, OutboxItem } from './types';

import { afterFirstScreen } from '../after-first-screen';
import { sendOrQueueWith } from './send';
import { lastItemCount } from './store';

let startUser: number | undefined;
let loaded: Promise<typeof import('./runtime')> | null = null;
/** The engine, started for the signed-in user by whatever loads it first: start-up, an enqueue or the outbox screen. */
function runtime(): Promise<typeof import('./runtime')> {
  loaded ??= import('./runtime').then((r) => {
    r.start(startUser);
    return r;
  });
  return loaded;
}

export async function enqueue(input: EnqueueInput): Promise<OutboxItem> {
  return (await runtime()).enqueue(input);
}

/** A drain pass now (after any running one); resolves when it is over. */
export async function drain(): Promise<DrainReport> {
  return (await runtime()).drain();
}

export async function outboxItem(id: string): Promise<OutboxItem | undefined> {
  return (await runtime()).get(id);
}

/** 重试: a failed (or conflicting) item goes back to pending with fresh attempts, and a drain starts. */
export async function retry(id: string): Promise<void> {
  return (await runtime()).retry(id);
}

/** 放弃: drops an item unless it is being sent right now; answers whether it was dropped. */
export async function discard(id: string): Promise<boolean> {
  return (await runtime()).discard(id);
}

/**
 * Stores an action and sends it at once, waiting up to `waitMs` for the answer (./send.ts): 'done', 'refused'
 * (the item is discarded; its error says why) or 'waiting' (offline, or slow: the outbox sends it later).
 * Throws OutboxUnavailableError when the action could not be stored.
 */
export const sendOrQueue = sendOrQueueWith({ enqueue, drain, get: outboxItem, discard, isOnline: () => navigator.onLine });

/** 立即发送: every waiting and failed item of the signed-in user, ignoring backoff. */
export async function sendNow(): Promise<DrainReport> {
  return (await runtime()).sendNow();
}

/** Called by the shell with the signed-in user (and at start without one): live counts and the drain triggers. */
export function startOutbox(userId?: number): () => void {
  if (userId !== undefined) startUser = userId;
  const load = () =>
    void runtime()
      .then((r) => r.start(userId))
      .catch(() => undefined);
  // Something was waiting when this device last looked (or it is unknown): send it now. Otherwise dexie and the
  // engine load once the first screen has settled (an enqueue loads them at once).
  if (!loaded && lastItemCount() === 0) return afterFirstScreen(load);
  load();
  return () => undefined;
}

export { outboxStore, useOutbox, waitingItemOfTask, waitingTaskIds, type OutboxSnapshot } from './store';
export { kindLabels, stateLabels, type EnqueueInput, type OutboxCounts, type OutboxItem, type OutboxKind, type OutboxState } from './types';
export type { DrainReport } from './engine';
export { OutboxUnavailableError, type SendOutcome } from './send';
