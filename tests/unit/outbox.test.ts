import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKOFF } from '../../domain/backoff';
import { ErrorCode } from '../../domain/errors';
import { OutboxDb } from '../../src/lib/outbox/db';
import { composeBody, createOutboxEngine, DONE_KEEP_MS, photoKey, type OutboxDeps } from '../../src/lib/outbox/engine';
import { countsOf, waitingTaskIds } from '../../src/lib/outbox/store';
import type { OutboxItem } from '../../src/lib/outbox/types';

/** One request as the fake server saw it. */
interface Seen {
  url: string;
  key: string | null;
  auth: string | null;
  json?: Record<string, unknown>;
  file?: { name: string; text: string };
}

type Answer = Response | 'network' | 'timeout';
type Handler = (req: Seen, nth: number) => Answer | Promise<Answer>;

const ok = (data: unknown = null) => new Response(JSON.stringify({ success: true, code: ErrorCode.OK, msg: '操作成功', message: '操作成功', data }), { status: 200 });
const failure = (status: number, code: number, msg: string) => new Response(JSON.stringify({ success: false, code, msg, message: msg, data: null }), { status });

/** A stand-in for the API: records every request and answers by path; unknown paths answer 200 with no data. */
function fakeServer(routes: Record<string, Handler> = {}) {
  const seen: Seen[] = [];
  const counts = new Map<string, number>();
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input).replace(/^\/api/, '');
    const headers = new Headers(init?.headers);
    const req: Seen = { url, key: headers.get('Idempotency-Key'), auth: headers.get('Authorization') };
    if (init?.body instanceof FormData) {
      const f = init.body.get('file') as File;
      req.file = { name: f.name, text: await f.text() };
    } else if (typeof init?.body === 'string') {
      req.json = JSON.parse(init.body) as Record<string, unknown>;
    }
    seen.push(req);
    const nth = (counts.get(url) ?? 0) + 1;
    counts.set(url, nth);
    const answer = await (routes[url] ?? (() => ok()))(req, nth);
    if (answer === 'network') throw new TypeError('Failed to fetch');
    if (answer === 'timeout') throw Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    return answer;
  }) as typeof globalThis.fetch;
  return { fetch, seen, calls: (url: string) => seen.filter((s) => s.url === url) };
}

let dbSeq = 0;
const opened: OutboxDb[] = [];

/** A fresh database, a session of user 7 and a clock that only moves when told. */
function setup(over: Partial<OutboxDeps> & { name?: string; server?: ReturnType<typeof fakeServer> } = {}) {
  const name = over.name ?? `outbox-test-${++dbSeq}`;
  const db = new OutboxDb(name);
  opened.push(db);
  const server = over.server ?? fakeServer();
  const env = { token: 'token-a' as string | null, userId: 7 as number | null, online: true, now: 1_000_000, unauthorized: 0 };
  let ids = 0;
  const engine = createOutboxEngine({
    db,
    fetch: server.fetch,
    token: () => env.token,
    userId: () => env.userId,
    isOnline: () => env.online,
    now: () => env.now,
    onUnauthorized: () => {
      env.unauthorized += 1;
    },
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
    ...over,
  });
  return { db, engine, server, env, name };
}

const approval = (n: number, extra: Partial<Parameters<ReturnType<typeof createOutboxEngine>['enqueue']>[0]> = {}) => ({
  kind: 'approval' as const,
  url: '/carApplications/task/check',
  body: { taskIds: String(n), result: 1, remark: '同意' },
  title: `审核 粤L1234${n} 同意`,
  meta: { taskIds: [n] },
  ...extra,
});

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

describe('outbox: enqueue and drain', () => {
  it('stores items as pending for the signed-in user and sends them in the order they were made', async () => {
    const { engine, server, env } = setup();
    const items: OutboxItem[] = [];
    for (const n of [1, 2, 3]) {
      items.push(await engine.enqueue(approval(n)));
      env.now += 10;
    }
    expect(items.map((i) => [i.state, i.userId, i.attempts])).toEqual([
      ['pending', 7, 0],
      ['pending', 7, 0],
      ['pending', 7, 0],
    ]);
    expect(await engine.drain()).toEqual({ tried: 3 });
    expect(server.seen.map((s) => s.json?.taskIds)).toEqual(['1', '2', '3']);
    expect(server.seen.map((s) => s.key)).toEqual(items.map((i) => i.id));
    expect(server.seen.every((s) => s.auth === 'Bearer token-a')).toBe(true);
    expect((await engine.list(7)).map((i) => i.state)).toEqual(['done', 'done', 'done']);
    // A second pass finds nothing to send.
    expect(await engine.drain()).toEqual({ tried: 0 });
    expect(server.seen).toHaveLength(3);
  });

  it('keeps the reply on the item and refuses to enqueue without a signed-in user', async () => {
    const server = fakeServer({ '/carApplications/task/check': () => ok({ done: [1], failed: [] }) });
    const { engine, env } = setup({ server });
    const item = await engine.enqueue(approval(1));
    await engine.drain();
    expect((await engine.get(item.id))?.result).toEqual({ done: [1], failed: [] });
    env.userId = null;
    await expect(engine.enqueue(approval(2))).rejects.toThrow('请先登录');
    await expect(engine.enqueue({ ...approval(2), kind: 'nonsense' as 'approval' })).rejects.toThrow();
  });

  it('sends the same Idempotency-Key and the same body on every retry', async () => {
    const server = fakeServer({
      '/carApplications/task/check': (_r, nth) => (nth === 1 ? 'network' : nth === 2 ? failure(500, ErrorCode.INTERNAL, '服务器内部错误，请稍后重试') : nth === 3 ? 'timeout' : ok()),
    });
    const { engine, env } = setup({ server });
    const item = await engine.enqueue(approval(5));
    for (let i = 0; i < 4; i++) {
      const before = await engine.get(item.id);
      env.now = Math.max(env.now, before!.nextAttemptAt);
      await engine.drain();
    }
    const tries = server.calls('/carApplications/task/check');
    expect(tries).toHaveLength(4);
    expect(new Set(tries.map((t) => t.key))).toEqual(new Set([item.id]));
    expect(new Set(tries.map((t) => JSON.stringify(t.json))).size).toBe(1);
    const after = await engine.get(item.id);
    expect(after?.state).toBe('done');
    expect(after?.attempts).toBe(3);
    expect(after?.error).toBeUndefined();
  });

  it('uploads photos once each (under their own keys), then sends the call with the names appended', async () => {
    let uploads = 0;
    const server = fakeServer({
      // The second photo's first try fails on the way; every other upload answers a fresh name.
      '/file/upload': (req, nth) => (req.key?.endsWith('.photo.1') && nth === 2 ? 'network' : ok({ name: `stored-${++uploads}.jpg` })),
      '/label/vehicle/label': () => ok(),
    });
    const { engine, env } = setup({ server });
    const photos = { photo: [new Blob(['first'], { type: 'image/jpeg' }), new Blob(['second'], { type: 'image/jpeg' })], extra_photo: [new Blob(['third'], { type: 'image/png' })] };
    const item = await engine.enqueue({ kind: 'flag', url: '/label/vehicle/label', body: { car_application_ids: '3,4', photo: 'already.jpg', remark: '车况异常' }, title: '标记 粤L12345', photos });

    await engine.drain();
    let now = await engine.get(item.id);
    expect(now?.state).toBe('pending');
    expect(now?.attempts).toBe(1);
    expect(now?.error).toMatch(/^照片上传失败：/);
    expect(now?.uploaded).toEqual({ photo: ['stored-1.jpg'] });
    expect(server.calls('/label/vehicle/label')).toHaveLength(0);

    env.now = now!.nextAttemptAt;
    await engine.drain();
    now = await engine.get(item.id);
    expect(now?.state).toBe('done');
    const ups = server.calls('/file/upload');
    // photo 0 once, photo 1 twice (the failed try and its retry, same key), extra_photo 0 once.
    expect(ups.map((u) => [u.key, u.file?.text])).toEqual([
      [photoKey(item.id, 'photo', 0), 'first'],
      [photoKey(item.id, 'photo', 1), 'second'],
      [photoKey(item.id, 'photo', 1), 'second'],
      [photoKey(item.id, 'extra_photo', 0), 'third'],
    ]);
    const call = server.calls('/label/vehicle/label');
    expect(call).toHaveLength(1);
    expect(call[0]!.key).toBe(item.id);
    expect(call[0]!.json).toEqual({ car_application_ids: '3,4', photo: 'already.jpg;stored-1.jpg;stored-2.jpg', remark: '车况异常', extra_photo: 'stored-3.jpg' });
    // The stored body stays as given: the names live beside it.
    expect(now?.body.photo).toBe('already.jpg');
  });

  it('does not upload again when the call after the uploads must be retried', async () => {
    const server = fakeServer({ '/file/upload': (_r, nth) => ok({ name: `n${nth}.jpg` }), '/label/vehicle/label': (_r, nth) => (nth === 1 ? failure(503, ErrorCode.INTERNAL, '服务暂不可用') : ok()) });
    const { engine, env } = setup({ server });
    const item = await engine.enqueue({ kind: 'flag', url: '/label/vehicle/label', body: {}, title: '标记', photos: { photo: [new Blob(['a']), new Blob(['b'])] } });
    await engine.drain();
    env.now = (await engine.get(item.id))!.nextAttemptAt;
    await engine.drain();
    expect(server.calls('/file/upload')).toHaveLength(2);
    expect(server.calls('/label/vehicle/label').map((c) => c.json?.photo)).toEqual(['n1.jpg;n2.jpg', 'n1.jpg;n2.jpg']);
    expect((await engine.get(item.id))?.state).toBe('done');
  });
});

describe('outbox: backoff and outcomes', () => {
  it('follows the spec backoff (6 steps, 1000 ms ×2), then fails the item for a reconnect to revive', async () => {
    const server = fakeServer({ '/carApplications/task/check': () => failure(503, ErrorCode.INTERNAL, '服务暂不可用') });
    const { engine, env } = setup({ server });
    const item = await engine.enqueue(approval(1));
    const delays: number[] = [];
    for (;;) {
      const start = env.now;
      await engine.drain();
      const it = (await engine.get(item.id))!;
      if (it.state !== 'pending') break;
      delays.push(it.nextAttemptAt - start);
      // Not due yet: a pass leaves it alone.
      env.now = it.nextAttemptAt - 1;
      expect(await engine.drain()).toEqual({ tried: 0 });
      env.now = it.nextAttemptAt;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 32000]);
    expect(delays).toHaveLength(BACKOFF.steps);
    const failed = (await engine.get(item.id))!;
    expect(failed.state).toBe('failed');
    expect(failed.transient).toBe(true);
    expect(failed.attempts).toBe(BACKOFF.steps + 1);
    expect(failed.error).toBe('服务暂不可用（已重试 6 次）');
    expect(server.seen).toHaveLength(BACKOFF.steps + 1);
    // Failed items are not drained by themselves...
    await engine.drain();
    expect(server.seen).toHaveLength(BACKOFF.steps + 1);
    // ...but a reconnect starts them over.
    expect(await engine.reviveTransient(7)).toBe(1);
    expect((await engine.get(item.id))?.attempts).toBe(0);
    await engine.drain();
    expect(server.seen).toHaveLength(BACKOFF.steps + 2);
  });

  it('409: conflict with the server message in words; 409 "in progress" waits and asks again', async () => {
    const msg = '该审批任务已由其他人处理（同意），无需再次审核';
    const server = fakeServer({
      '/carApplications/task/check': (req) =>
        req.json?.taskIds === '1' ? failure(409, ErrorCode.STATE_CONFLICT, msg) : failure(409, ErrorCode.IDEMPOTENCY_IN_PROGRESS, '相同的请求正在处理中，请稍后重试'),
    });
    const { engine } = setup({ server });
    const a = await engine.enqueue(approval(1));
    const b = await engine.enqueue(approval(2));
    await engine.drain();
    expect(await engine.get(a.id)).toMatchObject({ state: 'conflict', error: msg, transient: false });
    expect(await engine.get(b.id)).toMatchObject({ state: 'pending', attempts: 1, error: '相同的请求正在处理中，请稍后重试' });
  });

  it('other 4xx fail the item with the message; the item can be retried or discarded', async () => {
    let allow = false;
    const server = fakeServer({ '/carApplications/task/check': () => (allow ? ok() : failure(400, ErrorCode.VALIDATION, '审批意见：请输入审批意见')) });
    const { engine } = setup({ server });
    const a = await engine.enqueue(approval(1));
    const b = await engine.enqueue(approval(2));
    await engine.drain();
    expect(await engine.get(a.id)).toMatchObject({ state: 'failed', error: '审批意见：请输入审批意见', transient: false, attempts: 0 });
    // A refusal is not revived by a reconnect: the person decides.
    expect(await engine.reviveTransient(7)).toBe(0);
    allow = true;
    await engine.retry(a.id);
    expect(await engine.discard(b.id)).toBe(true);
    await engine.drain();
    expect((await engine.get(a.id))?.state).toBe('done');
    expect(await engine.get(b.id)).toBeUndefined();
  });

  it('a 401 stops the drain, keeps every item as it was, and the same user drains them after signing in again', async () => {
    const server = fakeServer({ '/carApplications/task/check': (req) => (req.auth === 'Bearer token-a' ? failure(401, ErrorCode.UNAUTHENTICATED, '登录已过期，请重新登录') : ok()) });
    const { engine, env } = setup({ server });
    const items = [await engine.enqueue(approval(1)), await engine.enqueue(approval(2)), await engine.enqueue(approval(3))];
    const report = await engine.drain();
    expect(report.stoppedBy).toBe('unauthorized');
    expect(env.unauthorized).toBe(1);
    expect(server.seen).toHaveLength(1);
    for (const i of items) {
      const kept = await engine.get(i.id);
      expect(kept).toMatchObject({ state: 'pending', attempts: 0, nextAttemptAt: 0 });
      expect(kept?.error).toBeUndefined();
    }

    // Signed out: nothing is sent, nothing changes.
    env.token = null;
    expect(await engine.drain()).toEqual({ tried: 0, stoppedBy: 'no-user' });
    // The same person signs in again.
    env.token = 'token-b';
    await engine.drain();
    const sent = server.seen.slice(1);
    expect(sent.map((s) => [s.auth, s.key])).toEqual(items.map((i) => ['Bearer token-b', i.id]));
  });

  it('a 401 during a photo upload keeps the item and its photos', async () => {
    const server = fakeServer({ '/file/upload': () => failure(401, ErrorCode.UNAUTHENTICATED, '登录已过期，请重新登录') });
    const { engine, env } = setup({ server });
    const item = await engine.enqueue({ kind: 'flag', url: '/label/vehicle/label', body: {}, title: '标记', photos: { photo: [new Blob(['x'])] } });
    await engine.drain();
    expect(env.unauthorized).toBe(1);
    const kept = await engine.get(item.id);
    expect(kept).toMatchObject({ state: 'pending', attempts: 0 });
    expect(kept?.photos?.photo).toHaveLength(1);
  });
});

describe('outbox: offline, users, tabs and restarts', () => {
  it('does not try while offline, and a network error seen while going offline costs no attempt', async () => {
    const { engine, server, env } = setup({
      server: fakeServer({
        '/carApplications/task/check': () => {
          env.online = false;
          return 'network';
        },
      }),
    });
    const item = await engine.enqueue(approval(1));
    env.online = false;
    expect(await engine.drain()).toEqual({ tried: 0, stoppedBy: 'offline' });
    expect(server.seen).toHaveLength(0);
    env.online = true;
    expect((await engine.drain()).stoppedBy).toBe('offline');
    expect(await engine.get(item.id)).toMatchObject({ state: 'pending', attempts: 0, nextAttemptAt: 0 });
  });

  it('survives closing and reopening the database, photos included', async () => {
    const first = setup();
    first.env.online = false;
    const item = await first.engine.enqueue({ ...approval(9), kind: 'flag', url: '/label/vehicle/label', photos: { photo: [new Blob(['kept as a blob'], { type: 'image/jpeg' })] } });
    first.db.close();

    const server = fakeServer({ '/file/upload': () => ok({ name: 'after-restart.jpg' }) });
    const second = setup({ name: first.name, server });
    const back = await second.engine.get(item.id);
    expect(back).toMatchObject({ id: item.id, state: 'pending', title: item.title, userId: 7 });
    await second.engine.drain();
    expect(server.calls('/file/upload')[0]?.file?.text).toBe('kept as a blob');
    expect(server.calls('/label/vehicle/label')[0]).toMatchObject({ key: item.id, json: { ...item.body, photo: 'after-restart.jpg' } });
    expect((await second.engine.get(item.id))?.state).toBe('done');
  });

  it("sends only the signed-in user's items, with that user's token", async () => {
    const { engine, server, env } = setup();
    const mine = await engine.enqueue(approval(1));
    env.userId = 8;
    env.token = 'token-of-8';
    const theirs = await engine.enqueue(approval(2));
    await engine.drain();
    expect(server.seen.map((s) => [s.key, s.auth])).toEqual([[theirs.id, 'Bearer token-of-8']]);
    expect((await engine.get(mine.id))?.state).toBe('pending');
    expect((await engine.list(7)).map((i) => i.id)).toEqual([mine.id]);
    expect((await engine.list(8)).map((i) => i.id)).toEqual([theirs.id]);
    // Items made by 7 are not touched by 8's 立即发送 or reconnect either.
    await engine.sendNow(8);
    await engine.reviveTransient(8);
    expect(await engine.get(mine.id)).toMatchObject({ state: 'pending', attempts: 0 });
  });

  /** A fake server whose check answers only when released, so passes overlap for as long as the test wants. */
  function gatedServer() {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const server = fakeServer({
      '/carApplications/task/check': async () => {
        await gate;
        return ok();
      },
    });
    return { server, release };
  }

  it('runs one pass at a time in a tab: concurrent drains send each item once', async () => {
    const { server, release } = gatedServer();
    const { engine } = setup({ server });
    for (const n of [1, 2, 3]) await engine.enqueue(approval(n));
    const passes = [engine.drain(), engine.drain(), engine.drain()];
    // Calls made while a pass waits share the one pass queued after it.
    expect(passes[1]).toBe(passes[2]);
    await new Promise((r) => setTimeout(r, 20));
    release();
    await Promise.all(passes);
    expect(server.seen.map((s) => s.json?.taskIds)).toEqual(['1', '2', '3']);
  });

  it('two tabs (two engines on one database) drain one at a time through the shared lock', async () => {
    const { server, release } = gatedServer();
    // What navigator.locks gives across tabs: one holder at a time, the others wait.
    let lock: Promise<unknown> = Promise.resolve();
    const withLock = <T>(fn: () => Promise<T>): Promise<T> => {
      const run = lock.then(fn);
      lock = run.catch(() => undefined);
      return run;
    };
    const tab1 = setup({ server, withLock });
    const tab2 = setup({ server, withLock, name: tab1.name });
    for (const n of [1, 2, 3]) await tab1.engine.enqueue(approval(n));
    const passes = [tab1.engine.drain(), tab2.engine.drain()];
    await new Promise((r) => setTimeout(r, 20));
    release();
    await Promise.all(passes);
    expect(server.seen.map((s) => s.json?.taskIds)).toEqual(['1', '2', '3']);
  });

  it('a pass resets items left sending by a closed tab, and prunes done items after a day', async () => {
    const { engine, db, env, server } = setup();
    const stuck = await engine.enqueue(approval(1));
    await db.items.update(stuck.id, { state: 'sending' });
    const old = await engine.enqueue(approval(2));
    await db.items.update(old.id, { state: 'done', doneAt: env.now - DONE_KEEP_MS - 1 });
    const recent = await engine.enqueue(approval(3));
    await db.items.update(recent.id, { state: 'done', doneAt: env.now - 1000 });
    await engine.drain();
    expect(server.seen.map((s) => s.key)).toEqual([stuck.id]);
    expect(await engine.get(old.id)).toBeUndefined();
    expect((await engine.get(recent.id))?.state).toBe('done');
  });

  it('立即发送 skips the backoff of waiting items and starts failed ones over', async () => {
    let fine = false;
    const server = fakeServer({
      '/carApplications/task/check': (req) => (fine ? ok() : req.json?.taskIds === '1' ? failure(502, ErrorCode.INTERNAL, '网关错误') : failure(403, ErrorCode.FORBIDDEN, '没有操作权限')),
    });
    const { engine } = setup({ server });
    const a = await engine.enqueue(approval(1));
    const b = await engine.enqueue(approval(2));
    await engine.drain();
    expect((await engine.get(a.id))?.nextAttemptAt).toBeGreaterThan(0);
    expect((await engine.get(b.id))?.state).toBe('failed');
    fine = true;
    await engine.sendNow(7);
    await engine.drain();
    expect((await engine.list(7)).map((i) => i.state)).toEqual(['done', 'done']);
  });
});

describe('outbox: pure helpers', () => {
  it('composeBody appends uploaded names after those already in the field', () => {
    expect(composeBody({ body: { a: 1, photo: 'x.jpg;' }, photos: { photo: [new Blob([]), new Blob([])] }, uploaded: { photo: ['y.jpg', 'z.jpg'] } })).toEqual({ a: 1, photo: 'x.jpg;y.jpg;z.jpg' });
    expect(composeBody({ body: { a: 1 }, photos: { pic: [new Blob([])] }, uploaded: {} })).toEqual({ a: 1, pic: '' });
    expect(composeBody({ body: { a: 1 } })).toEqual({ a: 1 });
  });

  it('counts waiting (everything not done) and knows which tasks have a decision waiting', () => {
    const item = (state: OutboxItem['state'], taskIds: number[], kind: OutboxItem['kind'] = 'approval') =>
      ({ id: state + taskIds.join(), userId: 1, kind, url: '/x', body: {}, title: 't', state, attempts: 0, nextAttemptAt: 0, createdAt: 0, updatedAt: 0, meta: { taskIds } }) as OutboxItem;
    const items = [item('pending', [1]), item('sending', [2]), item('failed', [3]), item('conflict', [4]), item('done', [5]), item('pending', [6, 7], 'batchApproval'), item('pending', [8], 'flag')];
    expect(countsOf(items)).toEqual({ pending: 3, sending: 1, done: 1, conflict: 1, failed: 1, waiting: 6 });
    const waiting = items.filter((i) => i.state !== 'done');
    expect([...waitingTaskIds({ ready: true, userId: 1, waiting, recent: [], counts: countsOf(items), draining: false })].sort()).toEqual([1, 2, 3, 4, 6, 7]);
  });
});
