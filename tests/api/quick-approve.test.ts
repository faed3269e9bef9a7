import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskResult, TaskState } from '../../domain/appointments';
import { ErrorCode } from '../../domain/errors';
import type { AppContext } from '../../server/core/context';
import { derivedKey } from '../../server/core/crypto';
import { approveGrants, quickApproveKey, readQuickApprove, signQuickApprove } from '../../server/modules/quick-approve';
import { decide } from '../../server/workflow/engine';
import { carApplicationBody, idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * 同意 from a new task's notification (docs/approvals.md): POST
 * /api/approvalTask/quickApprove with the push's signed token, no session.
 * It decides once (a repeat under the same Idempotency-Key answers the same),
 * refuses an expired or tampered token and a token for another task, and a
 * task someone else settled first answers the engine's 409.
 */
for (const dialect of await dialects()) {
  describe(`通知中同意 (${dialect})`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let contact: Client;
    let key: Buffer;
    const ids: Record<string, number> = {};
    const depart: Record<string, number> = {};
    const role: Record<string, number> = {};
    let seq = 0;
    const DAY = 24 * 3600_000;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      key = quickApproveKey(ctx.keys);
      contact = await new Client(server).as('contact');
      for (const u of await ctx.db.selectFrom('sys_user').select(['user_id', 'account']).execute()) ids[u.account] = u.user_id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      for (const r of await ctx.db.selectFrom('sys_role').select(['role_id', 'code']).execute()) role[r.code] = r.role_id;
    });
    afterAll(async () => server?.close());

    /** A reviewer of the contact's enterprise, made before the appointment so the first node names them too. */
    async function newReviewer(name: string): Promise<number> {
      const now = ctx.time();
      const account = `${name}${++seq}${dialect}`;
      const { user_id } = await ctx.db
        .insertInto('sys_user')
        .values({
          user_name: name,
          account,
          password_hash: 'x',
          gender: 0,
          phone: '13911113333',
          depart_id: depart.CNOOC_SHELL!,
          status: 1,
          uuid: account,
          create_user_id: null,
          create_time: now,
          update_time: now,
        })
        .returning('user_id')
        .executeTakeFirstOrThrow();
      await ctx.db.insertInto('sys_user_role').values({ user_id, role_id: role.enterprise_reviewer! }).execute();
      return user_id;
    }

    /** The contact's vehicle appointment, submitted: its id, plate and each first-node task by user. */
    async function submitCar(): Promise<{ id: number; plate: string; number: string; taskOf: (userId: number) => Promise<number> }> {
      const vehicleType = (await ctx.db.selectFrom('vehicle_type').select('id').where('deleted', '=', 0).orderBy('id').executeTakeFirstOrThrow()).id;
      const plate = `粤Q${String(++seq).padStart(4, '0')}${dialect === 'sqlite' ? 'S' : 'G'}`;
      const saved = await contact.post<{ id: number }>(
        '/carApplications/save',
        carApplicationBody({ today: ctx.time().slice(0, 10), license_plate: plate, applicant_idcard: idNumber(seq, '04'), vehicle_type_id: vehicleType, interviewee_depart_id: depart.CNOOC_SHELL! }),
      );
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = saved.body.data.id;
      expect((await contact.post('/carApplications/push', { id })).body).toMatchObject({ success: true });
      const row = await ctx.db.selectFrom('car_application').select(['process_instance_id', 'application_number']).where('car_application_id', '=', id).executeTakeFirstOrThrow();
      const taskOf = async (userId: number) =>
        (
          await ctx.db
            .selectFrom('process_task')
            .select('process_task_id')
            .where('process_instance_id', '=', row.process_instance_id!)
            .where('user_id', '=', userId)
            .where('state', '=', TaskState.PENDING)
            .executeTakeFirstOrThrow()
        ).process_task_id;
      return { id, plate, number: row.application_number, taskOf };
    }

    const token = (taskId: number, userId: number, expiresAt = Date.now() + DAY) => signQuickApprove(key, { taskId, userId, expiresAt });

    /** The call as the service worker makes it: no session, an Idempotency-Key. */
    async function quickApprove(body: Record<string, unknown>, idemKey?: string) {
      const res = await fetch(`${server.base}/api/approvalTask/quickApprove`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(idemKey ? { 'idempotency-key': idemKey } : {}) },
        body: JSON.stringify(body),
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as { success: boolean; code: number; msg: string; data: unknown } };
    }

    const taskRow = (taskId: number) => ctx.db.selectFrom('process_task').select(['state', 'result', 'remark']).where('process_task_id', '=', taskId).executeTakeFirstOrThrow();
    const decisionsBy = async (userId: number, instanceOfTask: number) =>
      Number(
        (
          await ctx.db
            .selectFrom('process_task as t')
            .innerJoin('process_task as mine', 'mine.process_instance_id', 't.process_instance_id')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('mine.process_task_id', '=', instanceOfTask)
            .where('t.user_id', '=', userId)
            .where('t.state', '=', TaskState.DONE)
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('approves with a valid token once: a repeat with the same Idempotency-Key answers the same and decides nothing twice', async () => {
      const car = await submitCar();
      const task = await car.taskOf(ids.reviewer!);
      const body = { taskId: task, token: token(task, ids.reviewer!) };
      const first = await quickApprove(body, `quick-${dialect}-1`);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body).toMatchObject({ success: true, code: ErrorCode.OK, msg: '已同意', data: { done: [task], name: `${car.plate}（${car.number}）` } });
      expect(await taskRow(task)).toMatchObject({ state: TaskState.DONE, result: TaskResult.APPROVE, remark: '同意' });
      // The application went on to its next node, as the queue's check moves it.
      const next = await ctx.db
        .selectFrom('process_task as t')
        .innerJoin('process_task as mine', 'mine.process_instance_id', 't.process_instance_id')
        .select('t.process_task_id')
        .where('mine.process_task_id', '=', task)
        .where('t.state', '=', TaskState.PENDING)
        .execute();
      expect(next.length).toBeGreaterThan(0);

      const again = await quickApprove(body, `quick-${dialect}-1`);
      expect(again.status).toBe(200);
      expect(again.replayed).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await decisionsBy(ids.reviewer!, task)).toBe(1);
      // One operation-log entry, as the reviewer, and the token is not in it.
      const logs = await ctx.db.selectFrom('sys_operation_log').select(['user_id', 'params', 'result']).where('operation', '=', '通知中同意审批').where('params', 'like', `%${task}%`).execute();
      expect(logs).toEqual([expect.objectContaining({ user_id: ids.reviewer, result: 1 })]);
      expect(logs[0]!.params).not.toContain(body.token);

      // Another send (a new key) of the same decision is the engine's 409: still one decision.
      const other = await quickApprove(body, `quick-${dialect}-2`);
      expect(other.status).toBe(409);
      expect(other.body.msg).toContain('不能重复审核');
      expect(await decisionsBy(ids.reviewer!, task)).toBe(1);
    });

    it('refuses an expired or tampered token with a Chinese message, and decides nothing', async () => {
      const car = await submitCar();
      const task = await car.taskOf(ids.reviewer!);
      const good = token(task, ids.reviewer!);
      const [taskPart, userPart, expPart, mac] = good.split('.');

      const expired = await quickApprove({ taskId: task, token: token(task, ids.reviewer!, Date.now() - 1000) });
      expect(expired.status).toBe(401);
      expect(expired.body).toMatchObject({ success: false, code: ErrorCode.UNAUTHENTICATED, msg: '通知中的审批凭证已过期（24小时内有效），请打开应用审核' });

      const invalid = '通知中的审批凭证无效，请打开应用审核';
      const tampered = [
        // another character of the signature
        `${taskPart}.${userPart}.${expPart}.${mac!.startsWith('A') ? 'B' : 'A'}${mac!.slice(1)}`,
        // a later expiry under the old signature
        `${taskPart}.${userPart}.${Number(expPart) + 3600}.${mac}`,
        // another user under the old signature
        `${taskPart}.${ids.squad}.${expPart}.${mac}`,
        // signed with a key of another purpose
        `${taskPart}.${userPart}.${expPart}.${signQuickApprove(derivedKey(ctx.keys, 'file-access'), { taskId: task, userId: ids.reviewer!, expiresAt: Number(expPart) * 1000 }).split('.')[3]}`,
        'not-a-token',
      ];
      for (const t of tampered) {
        const r = await quickApprove({ taskId: task, token: t });
        expect(r.status, t).toBe(401);
        expect(r.body).toMatchObject({ success: false, code: ErrorCode.UNAUTHENTICATED, msg: invalid });
      }
      const missing = await quickApprove({ taskId: task });
      expect(missing.status).toBe(400);
      expect(missing.body.msg).toContain('缺少审批凭证');
      expect(await taskRow(task)).toMatchObject({ state: TaskState.PENDING });
      // The good one still works afterwards.
      expect((await quickApprove({ taskId: task, token: good })).status).toBe(200);
    });

    it('refuses a token for someone else’s task, and a user no longer enabled or no longer holding the check code', async () => {
      const colleague = await newReviewer('周九');
      const car = await submitCar();
      const mine = await car.taskOf(ids.reviewer!);
      const theirs = await car.taskOf(colleague);

      // My token, sent for the colleague's task.
      const swapped = await quickApprove({ taskId: theirs, token: token(mine, ids.reviewer!) });
      expect(swapped.status).toBe(403);
      expect(swapped.body).toMatchObject({ success: false, code: ErrorCode.FORBIDDEN, msg: '审批凭证与审批任务不符，请打开应用审核' });
      // A correctly signed token that names me for the colleague's task (never issued): the task is not mine.
      const notMine = await quickApprove({ taskId: theirs, token: token(theirs, ids.reviewer!) });
      expect(notMine.status).toBe(404);
      expect(notMine.body.msg).toBe(`审批任务${theirs}不存在或不属于您`);
      expect(await taskRow(theirs)).toMatchObject({ state: TaskState.PENDING });
      expect(await taskRow(mine)).toMatchObject({ state: TaskState.PENDING });

      // The colleague loses the reviewer role (keeps another one): the code the queue's check needs is named.
      await ctx.db.deleteFrom('sys_user_role').where('user_id', '=', colleague).execute();
      await ctx.db.insertInto('sys_user_role').values({ user_id: colleague, role_id: role.enterprise_contact! }).execute();
      const noCode = await quickApprove({ taskId: theirs, token: token(theirs, colleague) });
      expect(noCode.status).toBe(403);
      expect(noCode.body).toMatchObject({ code: ErrorCode.FORBIDDEN });
      expect(noCode.body.msg).toContain('carApplyApproval:check');

      // Disabled: refused before anything is read of the task.
      await ctx.db.updateTable('sys_user').set({ status: 0 }).where('user_id', '=', colleague).execute();
      const disabled = await quickApprove({ taskId: theirs, token: token(theirs, colleague) });
      expect(disabled.status).toBe(403);
      expect(disabled.body).toMatchObject({ code: ErrorCode.ACCOUNT_DISABLED, msg: '账号已停用，不能在通知中审批' });
      expect(await taskRow(theirs)).toMatchObject({ state: TaskState.PENDING });
    });

    it('answers 409 with the engine’s message for a task someone else already decided', async () => {
      const colleague = await newReviewer('吴十');
      const car = await submitCar();
      const mine = await car.taskOf(ids.reviewer!);
      const theirs = await car.taskOf(colleague);
      await ctx.db.transaction().execute((trx) => decide(trx, ctx, { taskId: theirs, userId: colleague, result: TaskResult.APPROVE, remark: '同意' }));
      const r = await quickApprove({ taskId: mine, token: token(mine, ids.reviewer!) }, `quick-${dialect}-late`);
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ success: false, code: ErrorCode.STATE_CONFLICT });
      expect(r.body.msg).toMatch(/^该任务已关闭（同节点其他审核人已审核），无需再审核$|不能重复审核/);
      // The refusal is the key's answer too.
      const again = await quickApprove({ taskId: mine, token: token(mine, ids.reviewer!) }, `quick-${dialect}-late`);
      expect(again.status).toBe(409);
      expect(again.body.msg).toBe(r.body.msg);
    });

    it('gives a new task’s push the grant the service worker needs, and none for a task no longer pending', async () => {
      const car = await submitCar();
      const task = await car.taskOf(ids.reviewer!);
      const grantOf = approveGrants(ctx);
      const until = Date.now() + DAY;
      const grant = await grantOf({ user_id: ids.reviewer!, tag: `task-${task}` }, until);
      expect(grant).toEqual({
        taskId: task,
        token: expect.any(String),
        userId: ids.reviewer,
        queue: 'car_task',
        checkPath: '/carApplications/task/check',
        refId: car.id,
        name: `${car.plate}（${car.number}）`,
      });
      expect(readQuickApprove(key, grant!.token)).toEqual({ taskId: task, userId: ids.reviewer, expiresAt: Math.floor(until / 1000) * 1000 });
      // Another user's row for that task, or another tag, gets none.
      expect(await grantOf({ user_id: ids.squad!, tag: `task-${task}` }, until)).toBeNull();
      expect(await grantOf({ user_id: ids.reviewer!, tag: `application-car-${car.id}` }, until)).toBeNull();
      expect((await quickApprove({ taskId: task, token: grant!.token })).status).toBe(200);
      expect(await grantOf({ user_id: ids.reviewer!, tag: `task-${task}` }, until)).toBeNull();
    });
  });
}
