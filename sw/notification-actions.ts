import { TaskResult } from '../domain/appointments';
import { ErrorCode } from '../domain/errors';
import { NotificationAction, QUICK_APPROVE_PATH, QUICK_APPROVE_REMARK, type PushPayload, type QuickApproveGrant } from '../domain/notifications';
import type { OutboxItem } from '../src/lib/outbox/types';

/**
 * A push's notification and what its buttons do (docs/approvals.md), free of
 * the worker's globals so the unit tests drive it: sw/sw.ts hands in fetch,
 * showNotification, the outbox write, Background Sync, navigator.onLine and
 * the window opener.
 *
 * - A tap on the body, or 查看: the task opens as it always did.
 * - 同意 (a new task only): POST /api/approvalTask/quickApprove with the
 *   push's signed token (no session here) under a fresh Idempotency-Key, then
 *   a second notification says what became of it: 已同意, 已被他人处理 (409,
 *   with the server's message), or why it could not be done.
 * - 同意 without a network (offline, no answer, a server that cannot answer
 *   now): the decision goes into the page's outbox exactly as the queue's
 *   review would put it (src/components/approval/review-modal.tsx), for the
 *   page to send later with its own session; a Background Sync 'outbox' is
 *   registered as the page registers it.
 */

/** What a notification keeps (its `data`). */
export interface NoticeData {
  url: string;
  kind?: string;
  approve?: QuickApproveGrant;
}

export type NoticeOptions = NotificationOptions & {
  data: NoticeData;
  tag?: string;
  renotify?: boolean;
  actions?: Array<{ action: string; title: string }>;
};

const ICON = '/icons/icon-192.png';
const APP_NAME = '园区出入管理系统';
/** How long 同意 waits for its answer before leaving the decision to the outbox (a worker is not kept alive for long). */
const ANSWER_WAIT_MS = 20_000;

/** The notification a push shows; a new task's carries 同意 and 查看 when its push brought the grant for them. */
export function notificationOf(payload: Partial<PushPayload>): { title: string; options: NoticeOptions } {
  const approve = payload.approve && payload.actions?.length ? payload.approve : undefined;
  return {
    title: payload.title ?? APP_NAME,
    options: {
      body: payload.body ?? '',
      icon: ICON,
      badge: ICON,
      data: { url: payload.url ?? '/', ...(payload.kind ? { kind: payload.kind } : {}), ...(approve ? { approve } : {}) },
      ...(payload.tag ? { tag: payload.tag, renotify: true } : {}),
      ...(approve ? { actions: payload.actions!.map((a) => ({ action: a.action, title: a.title })) } : {}),
    },
  };
}

/**
 * The outbox item of an approval made from a notification: what the queue's
 * review enqueues for one task with 同意 (kind, check path, body, title,
 * meta.taskIds, which the queue screens read to show it waiting), stored as
 * the outbox engine stores a new item (src/lib/outbox/engine.ts enqueue),
 * for the task's approver: only their session sends it.
 */
export function approvalOutboxItem(grant: QuickApproveGrant, id: string, now: number): OutboxItem {
  return {
    id,
    userId: grant.userId,
    kind: 'approval',
    url: grant.checkPath,
    body: { taskIds: String(grant.taskId), result: TaskResult.APPROVE, remark: QUICK_APPROVE_REMARK },
    title: `审核 ${grant.name} 同意`,
    meta: { taskIds: [grant.taskId], queue: grant.queue, refIds: [grant.refId] },
    state: 'pending',
    attempts: 0,
    nextAttemptAt: 0,
    createdAt: now,
    updatedAt: now,
  };
}

export interface ActionDeps {
  fetch: typeof fetch;
  showNotification(title: string, options: NoticeOptions): Promise<void>;
  /** Stores the item in the page's outbox (IndexedDB 'park-outbox'); throws when it cannot. */
  writeOutbox(item: OutboxItem): Promise<void>;
  /** Registers the Background Sync 'outbox' (the page drains when it fires). */
  requestSync(): Promise<void> | void;
  /** navigator.onLine */
  isOnline(): boolean;
  /** Opens (or focuses and moves) a window at this app path. */
  open(url: string): Promise<void>;
  newId(): string;
  now?: () => number;
  /** Prefix of every API path. */
  apiBase?: string;
}

export type ClickOutcome = 'opened' | 'approved' | 'queued' | 'conflict' | 'refused' | 'failed';

interface EnvelopeLike {
  success?: boolean;
  code?: number;
  msg?: string;
  message?: string;
  data?: { name?: unknown } | null;
}

/** A notificationclick: 同意 decides, anything else (the body, 查看) opens the task. */
export async function onNotificationClick(action: string, data: unknown, deps: ActionDeps): Promise<ClickOutcome> {
  const notice = (data && typeof data === 'object' ? data : {}) as Partial<NoticeData>;
  const url = typeof notice.url === 'string' ? notice.url : '/';
  if (action !== NotificationAction.APPROVE || !notice.approve) {
    await deps.open(url);
    return 'opened';
  }
  return approve(notice.approve, url, deps);
}

async function approve(grant: QuickApproveGrant, url: string, deps: ActionDeps): Promise<ClickOutcome> {
  const tell = (title: string, body: string) => deps.showNotification(title, { body, icon: ICON, badge: ICON, tag: `task-${grant.taskId}`, data: { url } });
  if (!deps.isOnline()) return queue(grant, deps, tell);

  let res: Response;
  try {
    res = await deps.fetch(`${deps.apiBase ?? '/api'}${QUICK_APPROVE_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': deps.newId() },
      body: JSON.stringify({ taskId: grant.taskId, token: grant.token }),
      signal: typeof AbortSignal.timeout === 'function' ? AbortSignal.timeout(ANSWER_WAIT_MS) : undefined,
    });
  } catch {
    // No answer: the page's outbox sends it with its session once the network is back (a decision that did reach the server answers 409 there).
    return queue(grant, deps, tell);
  }
  let env: EnvelopeLike | null = null;
  try {
    const parsed = (await res.json()) as unknown;
    if (parsed && typeof parsed === 'object') env = parsed as EnvelopeLike;
  } catch {
    // not JSON: a proxy's page; judged by the status below
  }
  if (res.ok && env?.success) {
    const name = typeof env.data?.name === 'string' && env.data.name ? env.data.name : grant.name;
    await tell('已同意', `${name}：已提交审批意见“${QUICK_APPROVE_REMARK}”`);
    return 'approved';
  }
  const status = res.status;
  const message = env?.msg || env?.message || `服务器错误（${status}）`;
  // The same send still running on the server (a retry of a lost answer): its outcome shows in the app.
  if (status === 409 && env?.code === ErrorCode.IDEMPOTENCY_IN_PROGRESS) {
    await tell('同意正在处理', `${grant.name}：${message}`);
    return 'failed';
  }
  if (status === 409) {
    await tell('已被他人处理', message);
    return 'conflict';
  }
  // The server cannot answer now (down, a proxy's 502, overloaded): as for no network, the outbox tries again.
  if (!env || status >= 500 || status === 408 || status === 425 || status === 429) return queue(grant, deps, tell);
  // Refused for good: the token expired or was wrong, the code or the task is gone. The reviewer opens the task instead.
  await tell('无法在通知中同意', `${grant.name}：${message}`);
  return 'refused';
}

async function queue(grant: QuickApproveGrant, deps: ActionDeps, tell: (title: string, body: string) => Promise<void>): Promise<ClickOutcome> {
  try {
    await deps.writeOutbox(approvalOutboxItem(grant, deps.newId(), (deps.now ?? Date.now)()));
  } catch {
    await tell('同意未能保存', `${grant.name}：无法加入待发送队列，请打开应用审核`);
    return 'failed';
  }
  try {
    await deps.requestSync();
  } catch {
    // Background Sync is Chromium's only: elsewhere the app drains its outbox when it next starts or comes online.
  }
  await tell('同意待发送', `${grant.name}：已加入待发送队列，联网后打开应用即自动发送`);
  return 'queued';
}
