import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../domain/errors';
import { NotificationKind, QUICK_APPROVE_PATH, TASK_ACTIONS, type PushPayload, type QuickApproveGrant } from '../../domain/notifications';
import { OutboxDb } from '../../src/lib/outbox/db';
import { createOutboxEngine } from '../../src/lib/outbox/engine';
import { outboxStore, waitingTaskIds } from '../../src/lib/outbox/store';
import type { OutboxItem } from '../../src/lib/outbox/types';
import { approvalOutboxItem, notificationOf, onNotificationClick, type ActionDeps, type NoticeOptions } from '../../sw/notification-actions';

/** The service worker's notification buttons (sw/notification-actions.ts), its I/O faked. */

const grant: QuickApproveGrant = {
  taskId: 41,
  token: '41.7.1767225600.' + 'A'.repeat(43),
  userId: 7,
  queue: 'car_task',
  checkPath: '/carApplications/task/check',
  refId: 12,
  name: '粤L12345（C20260101001）',
};
const url = '/approval/car?open=41';
const taskPush: PushPayload = {
  title: '新的审批任务',
  body: '车辆预约审核：粤L12345（C20260101001）待您审核',
  url,
  tag: 'task-41',
  kind: NotificationKind.TASK_ASSIGNED,
  actions: TASK_ACTIONS.map((a) => ({ ...a })),
  approve: grant,
};
const data = notificationOf(taskPush).options.data;

const envelope = (status: number, body: Record<string, unknown>) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const success = (name: string) => envelope(200, { success: true, code: ErrorCode.OK, msg: '已同意', message: '已同意', data: { done: [41], name } });
const refusal = (status: number, code: number, msg: string) => envelope(status, { success: false, code, msg, message: msg, data: null });

interface Sent {
  url: string;
  method: string;
  key: string | null;
  auth: string | null;
  json: Record<string, unknown> | null;
}

/** The worker's world: a fake network answering `answer`, and every notification, outbox write, sync and window opened. */
function world(answer: (req: Sent) => Response | 'network' = () => success(grant.name), over: Partial<ActionDeps> & { online?: boolean } = {}) {
  const sent: Sent[] = [];
  const shown: Array<{ title: string; options: NoticeOptions }> = [];
  const written: OutboxItem[] = [];
  const opened: string[] = [];
  let syncs = 0;
  let ids = 0;
  const deps: ActionDeps = {
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      const req: Sent = {
        url: String(input),
        method: init?.method ?? 'GET',
        key: headers.get('Idempotency-Key'),
        auth: headers.get('Authorization'),
        json: typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : null,
      };
      sent.push(req);
      const a = answer(req);
      if (a === 'network') throw new TypeError('Failed to fetch');
      return a;
    }) as typeof fetch,
    showNotification: async (title, options) => {
      shown.push({ title, options });
    },
    writeOutbox: async (item) => {
      written.push(item);
    },
    requestSync: () => {
      syncs += 1;
    },
    isOnline: () => over.online ?? true,
    open: async (u) => {
      opened.push(u);
    },
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
    now: () => 1_700_000_000_000,
    ...over,
  };
  return { deps, sent, shown, written, opened, syncs: () => syncs };
}

const opened: OutboxDb[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) {
    db.close();
    await db.delete();
  }
});

describe('the notification a push shows', () => {
  it('gives a new task 同意 and 查看, and keeps the grant for the click', () => {
    const { title, options } = notificationOf(taskPush);
    expect(title).toBe('新的审批任务');
    expect(options.actions).toEqual([
      { action: 'approve', title: '同意' },
      { action: 'view', title: '查看' },
    ]);
    expect(options.data).toEqual({ url, kind: 'task_assigned', approve: grant });
    expect(options.tag).toBe('task-41');
  });

  it('gives any other push no buttons', () => {
    const { options } = notificationOf({
      title: '预约已通过',
      body: '车辆预约 粤L12345 已审核通过',
      url: '/appointments/car?open=12',
      tag: 'application-car-12',
      kind: NotificationKind.APPLICATION_DECIDED,
    });
    expect(options.actions).toBeUndefined();
    expect(options.data).toEqual({ url: '/appointments/car?open=12', kind: 'application_decided' });
  });
});

describe('同意 from a new task’s notification', () => {
  it('decides once: one POST with an Idempotency-Key and the token, then a notification says it is done', async () => {
    const w = world(() => success(grant.name));
    expect(await onNotificationClick('approve', data, w.deps)).toBe('approved');
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0]).toMatchObject({ url: `/api${QUICK_APPROVE_PATH}`, method: 'POST', auth: null, json: { taskId: 41, token: grant.token } });
    expect(w.sent[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(w.shown).toHaveLength(1);
    expect(w.shown[0]!.title).toBe('已同意');
    expect(w.shown[0]!.options.body).toContain('粤L12345（C20260101001）');
    // It replaces the task's notification, and a tap still opens the task.
    expect(w.shown[0]!.options).toMatchObject({ tag: 'task-41', data: { url } });
    expect(w.written).toEqual([]);
    expect(w.opened).toEqual([]);
  });

  it('reports a task someone else decided first (409) as 已被他人处理 with the server’s message', async () => {
    const message = '该任务已由王五于2026-01-01 09:30:00审核通过，不能重复审核';
    const w = world(() => refusal(409, ErrorCode.STATE_CONFLICT, message));
    expect(await onNotificationClick('approve', data, w.deps)).toBe('conflict');
    expect(w.sent).toHaveLength(1);
    expect(w.shown.map((s) => [s.title, s.options.body])).toEqual([['已被他人处理', message]]);
    expect(w.written).toEqual([]);
  });

  it('says why a refused token cannot decide, and queues nothing', async () => {
    const w = world(() => refusal(401, ErrorCode.UNAUTHENTICATED, '通知中的审批凭证已过期（24小时内有效），请打开应用审核'));
    expect(await onNotificationClick('approve', data, w.deps)).toBe('refused');
    expect(w.shown[0]!.title).toBe('无法在通知中同意');
    expect(w.shown[0]!.options.body).toContain('已过期');
    expect(w.written).toEqual([]);
  });

  it('offline: leaves the decision in the page’s outbox, in the review’s format, and sends nothing', async () => {
    const w = world(() => success(grant.name), { online: false });
    expect(await onNotificationClick('approve', data, w.deps)).toBe('queued');
    expect(w.sent).toEqual([]);
    expect(w.syncs()).toBe(1);
    expect(w.written).toEqual([
      {
        id: '00000000-0000-4000-8000-000000000001',
        userId: 7,
        kind: 'approval',
        url: '/carApplications/task/check',
        body: { taskIds: '41', result: 1, remark: '同意' },
        title: '审核 粤L12345（C20260101001） 同意',
        meta: { taskIds: [41], queue: 'car_task', refIds: [12] },
        state: 'pending',
        attempts: 0,
        nextAttemptAt: 0,
        createdAt: 1_700_000_000_000,
        updatedAt: 1_700_000_000_000,
      },
    ]);
    expect(w.shown.map((s) => s.title)).toEqual(['同意待发送']);
  });

  it('the item is the one the page’s own outbox makes for that review, and the page sends it with its session', async () => {
    // What the queue's review enqueues for one task with 同意 (src/components/approval/review-modal.tsx), through the page's engine.
    const pageDb = new OutboxDb('sw-actions-page');
    opened.push(pageDb);
    const pageEngine = createOutboxEngine({ db: pageDb, token: () => 't', userId: () => 7, onUnauthorized: () => undefined, now: () => 1_700_000_000_000, newId: () => 'same-id' });
    const fromPage = await pageEngine.enqueue({
      kind: 'approval',
      url: grant.checkPath,
      body: { taskIds: '41', result: 1, remark: '同意' },
      title: '审核 粤L12345（C20260101001） 同意',
      meta: { taskIds: [41], queue: 'car_task', refIds: [12] },
    });
    expect(approvalOutboxItem(grant, 'same-id', 1_700_000_000_000)).toEqual(fromPage);

    // The worker writes into the page's database; the page's screens count it waiting and its drain sends it.
    const db = new OutboxDb('sw-actions-shared');
    opened.push(db);
    const w = world(() => 'network', { online: false, writeOutbox: async (item) => void (await db.items.add(item)) });
    expect(await onNotificationClick('approve', data, w.deps)).toBe('queued');
    const items = await db.items.toArray();
    outboxStore.setItems(7, items);
    expect([...waitingTaskIds()]).toEqual([41]);

    const seen: Array<{ url: string; key: string | null; auth: string | null; json: unknown }> = [];
    const page = createOutboxEngine({
      db,
      token: () => 'page-session',
      userId: () => 7,
      onUnauthorized: () => undefined,
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        const h = new Headers(init?.headers);
        seen.push({ url: String(input), key: h.get('Idempotency-Key'), auth: h.get('Authorization'), json: JSON.parse(String(init?.body)) });
        return success(grant.name);
      }) as typeof fetch,
    });
    expect(await page.drain()).toEqual({ tried: 1 });
    expect(seen).toEqual([{ url: '/api/carApplications/task/check', key: items[0]!.id, auth: 'Bearer page-session', json: { taskIds: '41', result: 1, remark: '同意' } }]);
    expect((await db.items.get(items[0]!.id))!.state).toBe('done');
  });

  it('online but no answer: the outbox takes it, as offline', async () => {
    const w = world(() => 'network');
    expect(await onNotificationClick('approve', data, w.deps)).toBe('queued');
    expect(w.sent).toHaveLength(1);
    expect(w.written).toHaveLength(1);
    expect(w.written[0]!.id).not.toBe(w.sent[0]!.key);
  });

  it('says so when the outbox cannot store it', async () => {
    const w = world(() => success(grant.name), {
      online: false,
      writeOutbox: async () => {
        throw new Error('QuotaExceededError');
      },
    });
    expect(await onNotificationClick('approve', data, w.deps)).toBe('failed');
    expect(w.syncs()).toBe(0);
    expect(w.shown[0]!.options.body).toContain('请打开应用审核');
  });
});

describe('查看 and a tap on the notification', () => {
  it.each(['view', ''])('action %j opens the task and decides nothing', async (action) => {
    const w = world();
    expect(await onNotificationClick(action, data, w.deps)).toBe('opened');
    expect(w.opened).toEqual([url]);
    expect(w.sent).toEqual([]);
    expect(w.shown).toEqual([]);
  });

  it('a notification without a grant opens its page even for approve', async () => {
    const w = world();
    expect(await onNotificationClick('approve', { url: '/workbench' }, w.deps)).toBe('opened');
    expect(w.opened).toEqual(['/workbench']);
    expect(w.sent).toEqual([]);
  });
});
