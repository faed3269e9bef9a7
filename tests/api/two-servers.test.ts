import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDeadlines } from '../../server/workflow/deadlines';
import { AutoAction } from '../../domain/approval-deadline';
import { NotificationKind, type PushPayload } from '../../domain/notifications';
import { TaskResult, TaskState } from '../../domain/appointments';
import { notify, signalNotified } from '../../server/core/notify';
import { carApplicationBody } from './fixtures';
import { EventStream } from './event-stream';
import { Client, dialects, startSecondServer, startServer, type TestServer } from './harness';
import { decryptPush, PushServiceStandIn } from './push-service';

/**
 * Issue 9 item 10: two server processes on one PostgreSQL database, reached
 * on two ports with nothing in front. Whatever one server does must hold for
 * both: an Idempotency-Key acts once, the overtime timer approves each task
 * once, a notification made on one reaches a stream held by the other, a push
 * goes out once, and the sign-in limits count across servers.
 */

const covered = await dialects();
if (!covered.includes('postgres')) console.warn('[two-servers] PostgreSQL unreachable: the two-server suite is SKIPPED (several servers need a shared PostgreSQL).');

// Two servers inside one test process cannot share an SQLite file: one would wait for the other's write lock
// synchronously, on the very thread the other needs to finish. Several processes on one file are covered by
// web-concurrency.test.ts (WEB_CONCURRENCY), which starts the real entry point.
describe.skip('two servers on one database (sqlite): skipped, in one process they would block each other; see web-concurrency.test.ts', () => {
  it('n/a', () => undefined);
});

/** GET /api/notifications/stream as the PWA reads it, on one server. */
async function openStream(base: string, token: string) {
  const stream = await new EventStream().open(base, token);
  expect(stream.status).toBe(200);
  return stream;
}

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

// Skipped only where no PostgreSQL is reachable (never in CI: dialects() fails there instead).
describe.skipIf(!covered.includes('postgres'))('two servers on one database (postgres)', () => {
  let a: TestServer;
  let b: TestServer;
  /** The same people signed in once, on server A; their tokens work on B because sessions live in the database. */
  const onA: Record<string, Client> = {};
  const onB: Record<string, Client> = {};
  let service: PushServiceStandIn;
  let today = '';
  let modelId = 0;
  let departId = 0;
  let seq = 0;

  beforeAll(async () => {
    service = await new PushServiceStandIn().start();
    a = await startServer('postgres');
    b = await startSecondServer(a);
    for (const who of ['contact', 'reviewer', 'squad']) {
      onA[who] = await new Client(a).as(who);
      onB[who] = new Client(b);
      onB[who]!.token = onA[who]!.token;
    }
    const { db } = a.app.ctx;
    modelId = (await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
    departId = (await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
    today = a.app.ctx.time().slice(0, 10);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await service?.stop();
  });

  const carBody = () =>
    carApplicationBody({ today, license_plate: `粤T${String(++seq).padStart(4, '0')}W`, applicant_idcard: '441302199001011231', vehicle_type_id: modelId, interviewee_depart_id: departId });
  const userId = async (account: string) => (await a.app.ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', account).executeTakeFirstOrThrow()).user_id;

  async function submitCar(via: Record<string, Client>) {
    const saved = await via.contact!.post<{ id: number }>('/v2/carApplications/save', carBody());
    expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
    const pushed = await via.contact!.post('/carApplications/push', { id: saved.body.data.id });
    expect(pushed.body, JSON.stringify(pushed.body)).toMatchObject({ success: true });
    const row = await a.app.ctx.db
      .selectFrom('car_application')
      .select(['application_number', 'license_plate', 'process_instance_id'])
      .where('car_application_id', '=', saved.body.data.id)
      .executeTakeFirstOrThrow();
    return { id: saved.body.data.id, number: row.application_number, plate: row.license_plate, instance: row.process_instance_id! };
  }

  it('acts once on one Idempotency-Key sent to both servers at the same time', async () => {
    const send = (server: TestServer, key: string, body: unknown) =>
      fetch(`${server.base}/api/v2/carApplications/save`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${onA.contact!.token}`, 'idempotency-key': key },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed') === 'true', body: (await r.json()) as { code: number; data: { id: number } | null } }));
    for (let round = 0; round < 15; round++) {
      const body = carBody();
      const key = `two-servers-${round}-${Date.now()}`;
      const answers = await Promise.all([send(a, key, body), send(b, key, body), send(a, key, body), send(b, key, body)]);
      const rows = await a.app.ctx.db.selectFrom('car_application').select('car_application_id').where('license_plate', '=', body.license_plate).execute();
      const where = `round ${round}: ${JSON.stringify(answers)}`;
      // One change, whichever server took the key.
      expect(rows, where).toHaveLength(1);
      const originals = answers.filter((r) => r.status === 200 && !r.replayed);
      expect(originals, where).toHaveLength(1);
      for (const r of answers) {
        if (r === originals[0]) continue;
        // The others either replay the first answer or are told it is still running.
        if (r.status === 200) expect(r, where).toMatchObject({ replayed: true, body: { data: { id: rows[0]!.car_application_id } } });
        else expect(r, where).toMatchObject({ status: 409, body: { code: 1008 } });
      }
      // Once finished, either server replays it.
      for (const s of [a, b]) expect(await send(s, key, body), where).toMatchObject({ status: 200, replayed: true, body: { data: { id: rows[0]!.car_application_id } } });
    }
  });

  it('auto-approves each overdue task exactly once with the overtime timer running on both servers', async () => {
    const cars = [];
    for (let i = 0; i < 12; i++) cars.push(await submitCar(i % 2 ? onB : onA));
    const { db } = a.app.ctx;
    const instances = cars.map((c) => c.instance);
    // Only these tasks are overdue, so the counts below are theirs alone.
    await db.updateTable('process_task').set({ due_at: null, next_at: null }).where('state', '=', TaskState.PENDING).where('process_instance_id', 'not in', instances).execute();
    // Their nodes approve at the deadline (the spec's 超时自动审核).
    await db.updateTable('process_instance_node').set({ deadline_value: 1, auto_action: AutoAction.APPROVE }).where('process_instance_id', 'in', instances).execute();
    const firstNode = await db
      .selectFrom('process_task')
      .select(['process_task_id', 'process_instance_id', 'sort'])
      .where('process_instance_id', 'in', instances)
      .where('state', '=', TaskState.PENDING)
      .execute();
    expect(firstNode.length).toBeGreaterThanOrEqual(cars.length);
    // Overdue as if the node's limit had passed an hour ago.
    await db
      .updateTable('process_task')
      .set({ due_at: Date.now() - 3600_000, next_at: Date.now() - 3600_000 })
      .where(
        'process_task_id',
        'in',
        firstNode.map((t) => t.process_task_id),
      )
      .execute();

    // Small pages, so that both servers walk the backlog page by page over the same rows.
    const drain = (server: TestServer) => runDeadlines(server.app.ctx, server.app.ctx.now(), 5).then((r) => r.decided);
    const counts = await Promise.all([drain(a), drain(b), drain(a), drain(b)]);
    // Each instance's first node was settled by exactly one automatic approval, wherever it ran.
    expect(
      counts.reduce((x, y) => x + y, 0),
      JSON.stringify(counts),
    ).toBe(cars.length);
    for (const car of cars) {
      const tasks = await db
        .selectFrom('process_task')
        .select(['process_task_id', 'sort', 'state', 'result', 'auto', 'user_id'])
        .where('process_instance_id', '=', car.instance)
        .orderBy('process_task_id')
        .execute();
      const first = tasks.filter((t) => t.sort === firstNode.find((f) => f.process_instance_id === car.instance)!.sort);
      expect(
        first.filter((t) => t.auto === 1 && t.result === TaskResult.APPROVE),
        JSON.stringify(tasks),
      ).toHaveLength(1);
      const next = tasks.filter((t) => !first.includes(t));
      // The next node was activated once: one task per candidate, none twice.
      expect(next.length, JSON.stringify(tasks)).toBeGreaterThan(0);
      expect(new Set(next.map((t) => t.user_id)).size, JSON.stringify(tasks)).toBe(next.length);
      expect(next.every((t) => t.state === TaskState.PENDING)).toBe(true);
    }
    // And the squad was told of each new task once.
    const squad = await userId('squad');
    const told = await db.selectFrom('notification').select('tag').where('user_id', '=', squad).where('kind', '=', NotificationKind.TASK_ASSIGNED).execute();
    const tags = told.map((t) => t.tag);
    expect(new Set(tags).size).toBe(tags.length);
  });

  it('walks past overdue tasks that cannot advance, so they never hide the ones behind them', async () => {
    const { db } = a.app.ctx;
    const reviewer = await userId('reviewer');
    const squad = await userId('squad');
    // Stuck: first-node tasks whose approval needs the squad's final node, while the squad is disabled below.
    const stuck = [];
    for (let i = 0; i < 4; i++) stuck.push(await submitCar(onA));
    // Free: tasks at the final node itself, which approve without a next node.
    const free = [];
    for (let i = 0; i < 3; i++) {
      const car = await submitCar(onB);
      const task = await db
        .selectFrom('process_task')
        .select('process_task_id')
        .where('process_instance_id', '=', car.instance)
        .where('user_id', '=', reviewer)
        .where('state', '=', TaskState.PENDING)
        .executeTakeFirstOrThrow();
      expect((await onA.reviewer!.post('/carApplications/task/check', { taskIds: String(task.process_task_id) })).body).toMatchObject({ success: true });
      free.push(car);
    }
    const pendingOf = (cars: Array<{ instance: number }>) =>
      db
        .selectFrom('process_task')
        .select('process_task_id')
        .where(
          'process_instance_id',
          'in',
          cars.map((c) => c.instance),
        )
        .where('state', '=', TaskState.PENDING);
    const stuckTasks = (await pendingOf(stuck).execute()).map((t) => t.process_task_id);
    const freeTasks = (await pendingOf(free).execute()).map((t) => t.process_task_id);
    await db.updateTable('process_task').set({ due_at: null, next_at: null }).where('state', '=', TaskState.PENDING).execute();
    await db
      .updateTable('process_instance_node')
      .set({ deadline_value: 1, auto_action: AutoAction.APPROVE })
      .where(
        'process_instance_id',
        'in',
        [...stuck, ...free].map((c) => c.instance),
      )
      .execute();
    // The stuck ones are the oldest: a run that looked only at its first page would see nothing else, every time.
    await db
      .updateTable('process_task')
      .set({ due_at: Date.now() - 7200_000, next_at: Date.now() - 7200_000 })
      .where('process_task_id', 'in', stuckTasks)
      .execute();
    await db
      .updateTable('process_task')
      .set({ due_at: Date.now() - 3600_000, next_at: Date.now() - 3600_000 })
      .where('process_task_id', 'in', freeTasks)
      .execute();
    await db.updateTable('sys_user').set({ status: 0 }).where('user_id', '=', squad).execute();
    try {
      const counts = await Promise.all([a, b].map((s) => runDeadlines(s.app.ctx, s.app.ctx.now(), stuckTasks.length).then((r) => r.decided)));
      expect(counts[0]! + counts[1]!, JSON.stringify(counts)).toBe(freeTasks.length);
      expect((await pendingOf(free).execute()).length).toBe(0);
      // The stuck ones stay pending for a person to see, untouched.
      expect((await pendingOf(stuck).execute()).map((t) => t.process_task_id).sort()).toEqual([...stuckTasks].sort());
    } finally {
      await db.updateTable('sys_user').set({ status: 1 }).where('user_id', '=', squad).execute();
      await db.updateTable('process_task').set({ due_at: null, next_at: null }).where('process_task_id', 'in', stuckTasks).execute();
    }
  });

  it('streams a notification created through server A to a stream held on server B', async () => {
    const stream = await openStream(b.base, onA.reviewer!.token!);
    try {
      await stream.next((e) => e.event === 'unread');
      const car = await submitCar(onA);
      const e = await stream.next((x) => x.event === 'notification' && JSON.stringify(x.data).includes(car.plate), 10_000);
      expect(e.data).toMatchObject({ kind: NotificationKind.TASK_ASSIGNED, title: '新的审批任务' });
    } finally {
      await stream.close();
    }
  });

  it('tells a stream on server B of read marks made through server A (the unread badge follows)', async () => {
    const stream = await openStream(b.base, onA.reviewer!.token!);
    try {
      await stream.next((e) => e.event === 'unread');
      const car = await submitCar(onA);
      const arrived = await stream.next((x) => x.event === 'notification' && JSON.stringify(x.data).includes(car.plate), 10_000);
      expect((arrived.data as { unread: number }).unread).toBeGreaterThan(0);
      expect((await onA.reviewer!.post('/notifications/readAll', {})).body).toMatchObject({ success: true, data: { count: 0 } });
      const from = stream.events.length;
      await stream.next((e) => stream.events.indexOf(e) >= from && e.event === 'unread' && (e.data as { count: number }).count === 0, 10_000);
    } finally {
      await stream.close();
    }
  });

  it('pushes each notification once with the dispatchers of both servers claiming at the same time', async () => {
    const { db } = a.app.ctx;
    // Whatever the demo seed and the cases above left waiting goes out first (to devices nobody subscribed).
    await waitFor('earlier notifications dispatched', async () => !(await db.selectFrom('notification').select('notification_id').where('push_state', '=', 0).executeTakeFirst()));
    const phone = service.subscription('two-servers-phone');
    expect((await onB.reviewer!.post('/push/subscribe', { endpoint: phone.endpoint, keys: phone.keys, device_label: '李强的手机' })).body).toMatchObject({ success: true });
    const reviewer = await userId('reviewer');
    const N = 160;
    const items = Array.from({ length: N }, (_, i) => ({
      userId: reviewer,
      kind: NotificationKind.TASK_ASSIGNED,
      title: '新的审批任务',
      body: `两台服务器推送 ${i}`,
      url: '/approval/car',
      tag: `two-servers-${i}`,
    }));
    // Committed on A, which wakes A's dispatcher; B is woken at the same moment, as its 30 s sweep would.
    await a.app.ctx.db.transaction().execute((trx) => notify(trx, a.app.ctx, items));
    signalNotified(b.app.ctx.db, [reviewer]);
    await waitFor('every row pushed', async () => !(await db.selectFrom('notification').select('notification_id').where('push_state', '=', 0).executeTakeFirst()), 30_000);

    const received = service.received.filter((p) => p.path === '/push/two-servers-phone');
    const seen = received.map((p) => (JSON.parse(decryptPush(phone, p.body)) as PushPayload).tag);
    const twice = seen.filter((t, i) => seen.indexOf(t) !== i);
    expect(twice, 'pushed more than once').toEqual([]);
    expect(new Set(seen)).toEqual(new Set(items.map((i) => i.tag)));
    const attempts = await db.selectFrom('notification').select(['push_state', 'push_attempts']).where('tag', 'like', 'two-servers-%').execute();
    expect(
      attempts.every((r) => r.push_state === 1 && r.push_attempts === 1),
      JSON.stringify(attempts.filter((r) => r.push_attempts !== 1)),
    ).toBe(true);
  });

  /*
   * Expected to FAIL until the database-backed sign-in counter lands (issue 9,
   * another change): server/core/rate-limit.ts counts in each process's memory,
   * so two servers each allow the limit.
   */
  it('counts sign-in code requests from one address across both servers (429 on the 4th)', async () => {
    const limits = { captchaPerAccount: 1000, captchaPerIp: 3, loginPerAccount: 1000, loginPerIp: 1000 };
    // Two more servers on the same database with low limits; the address is one of the documentation range, unused elsewhere.
    const c = await startSecondServer(a, { rateLimits: limits, trustProxy: '127.0.0.1' }, 'limits-c');
    const d = await startSecondServer(a, { rateLimits: limits, trustProxy: '127.0.0.1' }, 'limits-d');
    try {
      const address = `203.0.113.${(Date.now() % 250) + 1}`;
      const ask = async (server: TestServer) => {
        const client = new Client(server);
        return client.call('POST', '/user/captcha', { content: await client.encrypt({ account: 'contact' }) }, { 'x-forwarded-for': address });
      };
      const answers = [];
      for (const server of [c, d, c, d]) answers.push(await ask(server));
      expect(
        answers.slice(0, 3).map((r) => r.status),
        JSON.stringify(answers.map((r) => r.body)),
      ).toEqual([200, 200, 200]);
      expect(answers[3]!.status, JSON.stringify(answers[3]!.body)).toBe(429);
      expect(answers[3]!.body.code).toBe(1012);
    } finally {
      await d.close();
      await c.close();
    }
  });
});
