import { BACKOFF, backoffDelay } from '../../../domain/backoff';
import { fileApi } from '../../../domain/schemas/files';
import type { OutboxDb } from './db';
import { itemsOfUser, outboxItems } from './items';
import { postOnce, type Reply } from './transport';
import { OUTBOX_KINDS, type EnqueueInput, type OutboxItem } from './types';

/**
 * The outbox's rules, free of browser globals so the unit tests drive them
 * with fake-indexeddb and a fake fetch. ./runtime wires the browser in.
 */
export interface OutboxDeps {
  db: OutboxDb;
  /** The signed-in token, read before every send. */
  token: () => string | null;
  /** The user whose items may be sent with token(); null while that is not known. */
  userId: () => number | null;
  /** A 401 while draining: the session is over; items are kept for after the next sign-in. */
  onUnauthorized: () => void;
  fetch?: typeof fetch;
  /** Prefix of every API path. */
  apiBase?: string;
  /** navigator.onLine; a drain does not start (and a network error costs no attempt) while it is false. */
  isOnline?: () => boolean;
  now?: () => number;
  /** One drain at a time across tabs (navigator.locks); runs fn directly when absent. */
  withLock?: <T>(fn: () => Promise<T>) => Promise<T>;
  newId?: () => string;
  /** After a passing failure: wake the page when the connection returns (Background Sync). */
  requestSync?: () => void;
}

export type DrainStop = 'no-user' | 'offline' | 'unauthorized';

export interface DrainReport {
  /** Items this pass tried to send. */
  tried: number;
  stoppedBy?: DrainStop;
}

/** Done items are kept this long (the screen's 最近已发送), then pruned. */
export const DONE_KEEP_MS = 24 * 3600_000;
const CALL_TIMEOUT_MS = 30_000;
// A 10 MB photo over a weak mobile link takes far longer than a JSON call.
const UPLOAD_TIMEOUT_MS = 5 * 60_000;

/** RFC 4122 v4; crypto.randomUUID exists only in secure contexts, and a park LAN may serve plain http. */
export function uuid(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The Idempotency-Key of one photo upload: stable per item, field and index, so a replay stores it once. */
export const photoKey = (itemId: string, field: string, index: number) => `${itemId}.${field}.${index}`;

/** body[field] = names already there, then the uploaded ones, joined with ';' (the spec's file fields). */
export function composeBody(item: Pick<OutboxItem, 'body' | 'photos' | 'uploaded'>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...item.body };
  for (const field of Object.keys(item.photos ?? {})) {
    const before = typeof body[field] === 'string' ? (body[field] as string).split(';').filter(Boolean) : [];
    const added = (item.uploaded?.[field] ?? []).filter((n): n is string => !!n);
    body[field] = [...before, ...added].join(';');
  }
  return body;
}

export function createOutboxEngine(deps: OutboxDeps) {
  const { db } = deps;
  const now = deps.now ?? Date.now;
  const isOnline = deps.isOnline ?? (() => true);
  const withLock = deps.withLock ?? ((fn) => fn());
  const apiBase = deps.apiBase ?? '/api';
  const doFetch: typeof fetch = (...a) => (deps.fetch ?? globalThis.fetch)(...a);

  const ofUser = (userId: number) => itemsOfUser(db, userId);

  async function enqueue(input: EnqueueInput): Promise<OutboxItem> {
    const userId = deps.userId();
    if (userId === null) throw new Error('请先登录');
    if (!OUTBOX_KINDS.includes(input.kind)) throw new Error(`未知的待发送操作类型：${String(input.kind)}`);
    if (!input.url.startsWith('/')) throw new Error(`待发送操作的接口路径须以 / 开头：${input.url}`);
    const at = now();
    const item: OutboxItem = {
      id: (deps.newId ?? uuid)(),
      userId,
      kind: input.kind,
      url: input.url,
      body: input.body,
      title: input.title,
      ...(input.photos && Object.keys(input.photos).length ? { photos: input.photos, uploaded: {} } : {}),
      ...(input.meta ? { meta: input.meta } : {}),
      state: 'pending',
      attempts: 0,
      nextAttemptAt: 0,
      createdAt: at,
      updatedAt: at,
    };
    await db.items.add(item);
    return item;
  }

  const request = (url: string, body: FormData | Record<string, unknown>, key: string, token: string, timeoutMs: number) => postOnce(doFetch, `${apiBase}${url}`, body, key, token, timeoutMs);

  type Outcome = 'done' | 'kept' | 'unauthorized' | 'offline';

  /** Records the reply of one try; answers whether the drain may go on. */
  async function settle(item: OutboxItem, reply: Exclude<Reply, { type: 'ok' }>, prefix = ''): Promise<Outcome> {
    const at = now();
    switch (reply.type) {
      case 'unauthorized':
        // Untouched: the same person's next session sends it as if nothing happened.
        await db.items.update(item.id, { state: 'pending' });
        return 'unauthorized';
      case 'conflict':
        await db.items.update(item.id, { state: 'conflict', error: prefix + reply.message, status: reply.status, updatedAt: at, transient: false });
        return 'kept';
      case 'refused':
        await db.items.update(item.id, { state: 'failed', error: prefix + reply.message, status: reply.status, updatedAt: at, transient: false });
        return 'kept';
      case 'network':
      case 'transient': {
        if (reply.type === 'network' && !isOnline()) {
          // The device says it is offline: not this item's fault, so no attempt is spent.
          await db.items.update(item.id, { state: 'pending' });
          return 'offline';
        }
        const attempts = item.attempts + 1;
        const delay = backoffDelay(attempts - 1);
        if (delay === undefined) {
          await db.items.update(item.id, { state: 'failed', attempts, error: `${prefix}${reply.message}（已重试 ${BACKOFF.steps} 次）`, status: reply.status, updatedAt: at, transient: true });
        } else {
          await db.items.update(item.id, { state: 'pending', attempts, nextAttemptAt: at + delay, error: prefix + reply.message, status: reply.status, updatedAt: at });
          deps.requestSync?.();
        }
        return 'kept';
      }
    }
  }

  /** Photos first (each once, its name saved at once), then the call itself; both under stable keys. */
  async function sendOne(item: OutboxItem, token: string): Promise<Outcome> {
    await db.items.update(item.id, { state: 'sending', updatedAt: now() });
    const uploaded: Record<string, Array<string | null>> = Object.fromEntries(Object.entries(item.uploaded ?? {}).map(([k, v]) => [k, [...v]]));
    for (const [field, blobs] of Object.entries(item.photos ?? {})) {
      const names = (uploaded[field] ??= []);
      for (let i = 0; i < blobs.length; i++) {
        if (names[i]) continue;
        const form = new FormData();
        const blob = blobs[i]!;
        form.append('file', blob, (blob as File).name || `${field}-${i + 1}.${(blob.type.split('/')[1] ?? 'jpg').replace('jpeg', 'jpg')}`);
        const reply = await request(fileApi.upload.path, form, photoKey(item.id, field, i), token, UPLOAD_TIMEOUT_MS);
        if (reply.type !== 'ok') return settle({ ...item, uploaded }, reply, '照片上传失败：');
        const name = (reply.data as { name?: unknown } | null)?.name;
        if (typeof name !== 'string' || !name) return settle({ ...item, uploaded }, { type: 'transient', message: '照片上传后未返回文件名', status: 200 }, '照片上传失败：');
        names[i] = name;
        await db.items.update(item.id, { uploaded });
      }
    }
    const reply = await request(item.url, composeBody({ ...item, uploaded }), item.id, token, CALL_TIMEOUT_MS);
    if (reply.type !== 'ok') return settle({ ...item, uploaded }, reply);
    const at = now();
    await db.items.update(item.id, { state: 'done', doneAt: at, updatedAt: at, error: undefined, status: undefined, result: reply.data, transient: false });
    return 'done';
  }

  async function pass(): Promise<DrainReport> {
    const user = deps.userId();
    if (user === null || !deps.token()) return { tried: 0, stoppedBy: 'no-user' };
    if (!isOnline()) return { tried: 0, stoppedBy: 'offline' };
    return withLock(async () => {
      // Inside the lock nobody else sends: a 'sending' item is left over from a tab that closed mid-send.
      await ofUser(user)
        .filter((i) => i.state === 'sending')
        .modify({ state: 'pending' });
      await db.items
        .where('doneAt')
        .below(now() - DONE_KEEP_MS)
        .delete();
      const tried = new Set<string>();
      for (;;) {
        const token = deps.token();
        // The session changed under the drain (sign-out, another account): what is left waits for its owner.
        if (!token || deps.userId() !== user) return { tried: tried.size, stoppedBy: 'no-user' as const };
        const at = now();
        const next = await ofUser(user)
          .filter((i) => i.state === 'pending' && i.nextAttemptAt <= at && !tried.has(i.id))
          .first();
        if (!next) return { tried: tried.size };
        tried.add(next.id);
        const outcome = await sendOne(next, token);
        if (outcome === 'unauthorized') {
          deps.onUnauthorized();
          return { tried: tried.size, stoppedBy: 'unauthorized' as const };
        }
        if (outcome === 'offline') return { tried: tried.size, stoppedBy: 'offline' as const };
      }
    });
  }

  // One pass runs at a time in this tab; calls during a pass share the one pass queued after it.
  let tail: Promise<unknown> = Promise.resolve();
  let queued: Promise<DrainReport> | null = null;
  function drain(): Promise<DrainReport> {
    if (queued) return queued;
    const p: Promise<DrainReport> = tail.then(() => {
      queued = null;
      return pass();
    });
    queued = p;
    tail = p.catch(() => undefined);
    return p;
  }

  return { enqueue, drain, ...outboxItems(db, now) };
}

export type OutboxEngine = ReturnType<typeof createOutboxEngine>;
