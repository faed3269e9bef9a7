import Dexie from 'dexie';
import { BACKOFF, backoffDelay } from '../../../domain/backoff';
import { ErrorCode } from '../../../domain/errors';
import { fileApi } from '../../../domain/schemas/files';
import type { OutboxDb } from './db';
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

const MSG_NETWORK = '网络连接失败，将自动重新发送';
const MSG_TIMEOUT = '请求超时，将自动重新发送';

type Reply =
  | { type: 'ok'; data: unknown }
  | { type: 'unauthorized' }
  | { type: 'conflict'; message: string; status: number }
  | { type: 'refused'; message: string; status: number }
  | { type: 'transient'; message: string; status: number }
  | { type: 'network'; message: string; status: 0 };

interface EnvelopeLike {
  success?: boolean;
  code?: number;
  msg?: string;
  message?: string;
  data?: unknown;
}

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

  const ofUser = (userId: number) => db.items.where('[userId+createdAt]').between([userId, Dexie.minKey], [userId, Dexie.maxKey]);

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

  async function request(url: string, body: FormData | Record<string, unknown>, key: string, token: string, timeoutMs: number): Promise<Reply> {
    const json = !(body instanceof FormData);
    let res: Response;
    try {
      res = await doFetch(`${apiBase}${url}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': key, ...(json ? { 'Content-Type': 'application/json' } : {}) },
        body: json ? JSON.stringify(body) : body,
        signal: typeof AbortSignal.timeout === 'function' ? AbortSignal.timeout(timeoutMs) : undefined,
      });
    } catch (err) {
      const timedOut = (err as { name?: string } | null)?.name === 'TimeoutError';
      return { type: 'network', message: timedOut ? MSG_TIMEOUT : MSG_NETWORK, status: 0 };
    }
    let env: EnvelopeLike | null = null;
    try {
      const parsed = (await res.json()) as unknown;
      if (parsed && typeof parsed === 'object') env = parsed as EnvelopeLike;
    } catch {
      // not JSON: a proxy's or captive portal's page; judged by the status below
    }
    if (res.status === 401) return { type: 'unauthorized' };
    if (res.ok && env?.success) return { type: 'ok', data: env.data ?? null };
    const message = env?.msg || env?.message || `服务器错误（${res.status}）`;
    const status = res.status;
    // The same key still running elsewhere (a lost reply's first try): wait and ask again, it answers the first answer.
    if (status === 409 && env?.code === ErrorCode.IDEMPOTENCY_IN_PROGRESS) return { type: 'transient', message, status };
    if (status === 409) return { type: 'conflict', message, status };
    if (res.ok) return { type: 'transient', message: env ? message : '服务器返回了无法识别的内容', status };
    if (status === 408 || status === 425 || status === 429 || status >= 500) return { type: 'transient', message, status };
    return { type: 'refused', message, status };
  }

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

  const get = (id: string) => db.items.get(id);

  /** Items of one user in the order they were made. */
  const list = (userId: number) => ofUser(userId).toArray();

  async function retry(id: string): Promise<void> {
    await db.items
      .where('id')
      .equals(id)
      .filter((i) => i.state === 'failed' || i.state === 'conflict' || i.state === 'pending')
      .modify({ state: 'pending', attempts: 0, nextAttemptAt: 0, transient: false, updatedAt: now() });
  }

  /** Drops an item that is not being sent right now; answers whether it was dropped. */
  async function discard(id: string): Promise<boolean> {
    return (
      (await db.items
        .where('id')
        .equals(id)
        .filter((i) => i.state !== 'sending')
        .delete()) > 0
    );
  }

  /** 立即发送: waiting items skip their backoff, failed ones start over. */
  async function sendNow(userId: number): Promise<void> {
    await ofUser(userId)
      .filter((i) => i.state === 'failed')
      .modify({ state: 'pending', attempts: 0, nextAttemptAt: 0, transient: false });
    await ofUser(userId)
      .filter((i) => i.state === 'pending')
      .modify({ nextAttemptAt: 0 });
  }

  /** A reconnect is news the failed-for-network items did not have: they start over. */
  async function reviveTransient(userId: number): Promise<number> {
    return ofUser(userId)
      .filter((i) => i.state === 'failed' && !!i.transient)
      .modify({ state: 'pending', attempts: 0, nextAttemptAt: 0, transient: false });
  }

  /** When the earliest backed-off item of a user is due, if any. */
  async function nextWakeAt(userId: number): Promise<number | null> {
    let at: number | null = null;
    await ofUser(userId)
      .filter((i) => i.state === 'pending')
      .each((i) => {
        if (at === null || i.nextAttemptAt < at) at = i.nextAttemptAt;
      });
    return at;
  }

  return { enqueue, drain, get, list, retry, discard, sendNow, reviveTransient, nextWakeAt };
}

export type OutboxEngine = ReturnType<typeof createOutboxEngine>;
