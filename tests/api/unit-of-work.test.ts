import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../domain/errors';
import { CLAIM_LEASE_MS, jsonFingerprint } from '../../server/core/idempotency';
import { carApplicationBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * A decision is one unit of work (server/core/unit-of-work.ts, issue 28): the
 * tasks, the Idempotency-Key with its answer and the operation log's entry
 * commit together, in one write transaction.
 */

const CHECK = '/carApplications/task/check';

for (const dialect of await dialects()) {
  describe(`decisions as one unit of work (${dialect})`, () => {
    let server: TestServer;
    let contact: Client;
    let reviewer: Client;
    let reviewerId = 0;
    let seq = 0;
    let today = '';
    let modelId = 0;
    let departId = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      contact = await new Client(server).as('contact');
      reviewer = await new Client(server).as('reviewer');
      const { db } = server.app.ctx;
      reviewerId = (await db.selectFrom('sys_user').select('user_id').where('account', '=', 'reviewer').executeTakeFirstOrThrow()).user_id;
      modelId = (await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
      departId = (await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      today = server.app.ctx.time().slice(0, 10);
    });
    afterAll(async () => server?.close());

    /** A submitted vehicle application; answers the reviewer's pending task on it. */
    async function newTask(): Promise<{ taskId: number; carId: number }> {
      const plate = `粤U${String(++seq).padStart(4, '0')}${dialect === 'sqlite' ? 'S' : 'P'}`;
      const saved = await contact.post<{ id: number }>(
        '/v2/carApplications/save',
        carApplicationBody({ today, license_plate: plate, applicant_idcard: '441302199001011231', vehicle_type_id: modelId, interviewee_depart_id: departId }),
      );
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const carId = saved.body.data.id;
      expect((await contact.post('/carApplications/push', { id: carId })).body).toMatchObject({ success: true });
      const task = await server.app.ctx.db
        .selectFrom('process_task')
        .select('process_task_id')
        .where('ref_id', '=', carId)
        .where('process_type', '=', 2)
        .where('user_id', '=', reviewerId)
        .where('state', '=', 0)
        .executeTakeFirstOrThrow();
      return { taskId: task.process_task_id, carId };
    }

    /** The transactions this process commits on PostgreSQL while fn runs, and the writes it autocommits outside them. */
    async function writesDuring<T>(fn: () => Promise<T>): Promise<{ result: T; writes: { commits: number; alone: string[] } }> {
      const writes = { commits: 0, alone: [] as string[] };
      const original = pg.Client.prototype.query;
      let open = 0;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const text = (typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '')).trim().toLowerCase();
        if (text.startsWith('begin')) open++;
        else if (text === 'commit') {
          open--;
          writes.commits++;
        } else if (text === 'rollback') open--;
        // The push dispatcher's sweep every 30 s is no part of the call (the rows a decision writes are settled: see the test).
        else if (open === 0 && /^(insert|update|delete)\b/.test(text) && !text.includes('"push_lease"')) writes.alone.push(text.slice(0, 60));
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof original;
      try {
        return { result: await fn(), writes };
      } finally {
        pg.Client.prototype.query = original;
      }
    }

    async function send(key: string | null, taskIds: string) {
      const res = await fetch(`${server.base}/api${CHECK}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${reviewer.token}`, ...(key ? { 'idempotency-key': key } : {}) },
        body: JSON.stringify({ taskIds, result: 1, remark: '同意' }),
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as { success: boolean; code: number; msg: string; data: unknown } };
    }
    const keyRow = (key: string) => server.app.ctx.db.selectFrom('idempotency_key').selectAll().where('user_id', '=', reviewerId).where('idem_key', '=', key).executeTakeFirst();
    const logCount = async () =>
      Number(
        (
          await server.app.ctx.db
            .selectFrom('sys_operation_log')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('api', '=', `/api${CHECK}`)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const taskState = async (id: number) => (await server.app.ctx.db.selectFrom('process_task').select('state').where('process_task_id', '=', id).executeTakeFirstOrThrow()).state;

    it('commits the decision, its key with the answer and its log entry together, and replays without acting again', async () => {
      const { taskId } = await newTask();
      const key = randomUUID();
      const logsBefore = await logCount();
      // The reviewer's session is renewed (one write) at most once a minute, on some call: this one, not the decision.
      await reviewer.get('/notifications/unreadCount');
      const { result: first, writes } = await writesDuring(() => send(key, String(taskId)));
      expect(first).toMatchObject({ status: 200, replayed: null, body: { success: true, msg: '审核成功！', data: { done: [taskId] } } });
      // On PostgreSQL each statement is seen: one transaction, and no write of its own beside it.
      if (dialect === 'postgres') expect(writes).toEqual({ commits: 1, alone: [] });
      // Nobody it told has a push device: its notifications are written settled, with nothing left for the dispatcher.
      const told = await server.app.ctx.db.selectFrom('notification').select('push_state').where('tag', 'like', '%task-%').orderBy('notification_id', 'desc').limit(1).execute();
      expect(told.map((n) => n.push_state)).toEqual([1]);
      expect(await taskState(taskId)).toBe(1);
      expect(await keyRow(key)).toMatchObject({ state: 'done', http_status: 200 });
      expect(JSON.parse((await keyRow(key))!.response!)).toEqual(first.body);
      expect(await logCount()).toBe(logsBefore + 1);

      const again = await send(key, String(taskId));
      expect(again).toMatchObject({ status: 200, replayed: 'true' });
      expect(again.body).toEqual(first.body);
      expect(await logCount()).toBe(logsBefore + 1);
      // The same key for another task is another request: refused, not replayed.
      const other = await newTask();
      expect(await send(key, String(other.taskId))).toMatchObject({ status: 422, body: { code: ErrorCode.IDEMPOTENCY_MISMATCH } });
      expect(await taskState(other.taskId)).toBe(0);
    });

    it('takes over the key of a request that died before committing, and decides once', async () => {
      const { taskId } = await newTask();
      const key = randomUUID();
      const body = { taskIds: String(taskId), result: 1, remark: '同意' };
      const old = server.app.ctx.now() - CLAIM_LEASE_MS - 1000;
      await server.app.ctx.db
        .insertInto('idempotency_key')
        .values({
          user_id: reviewerId,
          idem_key: key,
          route: `POST /api${CHECK}`,
          body_hash: jsonFingerprint(body, {}),
          state: 'claimed',
          owner: 'died',
          http_status: null,
          response: null,
          created_at: old,
          updated_at: old,
        })
        .execute();
      const r = await send(key, String(taskId));
      expect(r).toMatchObject({ status: 200, replayed: null, body: { success: true, data: { done: [taskId] } } });
      expect(await taskState(taskId)).toBe(1);
      expect(await keyRow(key)).toMatchObject({ state: 'done', http_status: 200 });
      expect(await send(key, String(taskId))).toMatchObject({ status: 200, replayed: 'true', body: r.body });
    });

    it('keeps the answer of a refused decision for its replay, and logs it as failed', async () => {
      const { taskId } = await newTask();
      expect((await send(null, String(taskId))).status).toBe(200);
      const key = randomUUID();
      const refused = await send(key, String(taskId));
      expect(refused.status).toBe(409);
      expect(refused.body.msg).toContain('不能重复审核');
      expect(await keyRow(key)).toMatchObject({ state: 'done', http_status: 409 });
      const log = await server.app.ctx.db.selectFrom('sys_operation_log').select('result').where('api', '=', `/api${CHECK}`).orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(log.result).toBe(0);
      expect(await send(key, String(taskId))).toMatchObject({ status: 409, replayed: 'true', body: refused.body });
    });

    it('decides each task once when the same key arrives five times at once (10 keys)', async () => {
      const tasks = await Promise.all(Array.from({ length: 10 }, () => newTask()));
      const keys = tasks.map(() => randomUUID());
      const logsBefore = await logCount();
      const results = await Promise.all(tasks.flatMap((t, i) => Array.from({ length: 5 }, () => send(keys[i]!, String(t.taskId)).then((r) => ({ i, ...r })))));
      for (const r of results) {
        const fine = (r.status === 200 && r.body.success) || (r.status === 409 && r.body.code === ErrorCode.IDEMPOTENCY_IN_PROGRESS);
        expect(fine, JSON.stringify(r)).toBe(true);
      }
      const originals = results.filter((r) => r.status === 200 && r.replayed === null);
      expect(originals.map((r) => r.i).sort((a, b) => a - b)).toEqual(tasks.map((_, i) => i));
      expect(await logCount()).toBe(logsBefore + 10);
      for (const [i, t] of tasks.entries()) {
        expect(await taskState(t.taskId)).toBe(1);
        expect(await send(keys[i]!, String(t.taskId))).toMatchObject({ status: 200, replayed: 'true', body: { success: true } });
      }
    });

    it('commits the tasks of a batch that succeed when one fails, and keeps the batch answer for the key', async () => {
      const [a, b, c] = await Promise.all([newTask(), newTask(), newTask()]);
      expect((await send(null, String(b!.taskId))).status).toBe(200);
      const key = randomUUID();
      const r = await send(key, `${a!.taskId},${b!.taskId},${c!.taskId}`);
      expect(r.status).toBe(409);
      expect(r.body.msg).toMatch(/^2 条审核成功，1 条未处理：/);
      expect(r.body.data).toMatchObject({ done: [a!.taskId, c!.taskId], failed: [{ taskId: b!.taskId }] });
      expect([await taskState(a!.taskId), await taskState(c!.taskId)]).toEqual([1, 1]);
      expect(await keyRow(key)).toMatchObject({ state: 'done', http_status: 409 });
      expect(await send(key, `${a!.taskId},${b!.taskId},${c!.taskId}`)).toMatchObject({ status: 409, replayed: 'true', body: r.body });
    });

    it('rolls the whole call back when its one task fails after writing', async () => {
      const { taskId, carId } = await newTask();
      const { db } = server.app.ctx;
      // The next node's role is switched off: the approval settles the task, then finds nobody to hand the next node to.
      const task = await db.selectFrom('process_task').select(['process_instance_id', 'sort']).where('process_task_id', '=', taskId).executeTakeFirstOrThrow();
      const next = await db
        .selectFrom('process_instance_node')
        .select('role_id')
        .where('process_instance_id', '=', task.process_instance_id)
        .where('sort', '>', task.sort)
        .orderBy('sort')
        .executeTakeFirstOrThrow();
      await db.updateTable('sys_role').set({ status: 0 }).where('role_id', '=', next.role_id).execute();
      try {
        const logsBefore = await logCount();
        const key = randomUUID();
        const r = await send(key, String(taskId));
        expect(r.status).toBe(409);
        expect(r.body.msg).toContain('没有可用的审核人');
        expect(await taskState(taskId)).toBe(0);
        expect((await db.selectFrom('car_application').select('state').where('car_application_id', '=', carId).executeTakeFirstOrThrow()).state).toBe(1);
        // Nothing of the call committed, so its refusal is logged and kept for the key on their own.
        expect(await logCount()).toBe(logsBefore + 1);
        expect(await keyRow(key)).toMatchObject({ state: 'done', http_status: 409 });
      } finally {
        await db.updateTable('sys_role').set({ status: 1 }).where('role_id', '=', next.role_id).execute();
      }
      expect((await send(null, String(taskId))).status).toBe(200);
    });
  });
}
