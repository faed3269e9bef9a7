import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState, InstanceState, TaskResult, TaskState } from '../../domain/appointments';
import { ProcessEventKind, TaskOrigin } from '../../domain/approval-events';
import { SignerMode } from '../../domain/schemas/task-actions';
import type { AppContext } from '../../server/core/context';
import { decide, processInfo } from '../../server/workflow/engine';
import { carApplicationBody, idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * 转交 and 加签 (docs/approvals.md) through HTTP on each dialect: who may be
 * chosen, what each mode does to the node, the process view's record of it,
 * and the refusals (a reason required, the wrong person, the applicant,
 * someone else's task, a task already settled).
 */
for (const dialect of await dialects()) {
  describe(`转交 and 加签 (${dialect})`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let contact: Client;
    let reviewer: Client;
    const ids: Record<string, number> = {};
    const depart: Record<string, number> = {};
    const role: Record<string, number> = {};
    let seq = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      contact = await new Client(server).as('contact');
      reviewer = await new Client(server).as('reviewer');
      for (const u of await ctx.db.selectFrom('sys_user').select(['user_id', 'account']).execute()) ids[u.account] = u.user_id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      for (const r of await ctx.db.selectFrom('sys_role').select(['role_id', 'code']).execute()) role[r.code] = r.role_id;
    });
    afterAll(async () => server?.close());

    /** A user holding `roleCode` in `departCode`, made now (so not a candidate of nodes already reached). */
    async function newUser(name: string, departCode: string, roleCode = 'enterprise_reviewer'): Promise<number> {
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
          depart_id: depart[departCode]!,
          status: 1,
          uuid: account,
          create_user_id: null,
          create_time: now,
          update_time: now,
        })
        .returning('user_id')
        .executeTakeFirstOrThrow();
      await ctx.db.insertInto('sys_user_role').values({ user_id, role_id: role[roleCode]! }).execute();
      return user_id;
    }

    /** The contact's vehicle appointment, submitted: answers its id, instance and the reviewer's task at the first node. */
    async function submitCar(): Promise<{ id: number; instance: number; task: number }> {
      const vehicleType = (await ctx.db.selectFrom('vehicle_type').select('id').where('deleted', '=', 0).orderBy('id').executeTakeFirstOrThrow()).id;
      const saved = await contact.post<{ id: number }>(
        '/carApplications/save',
        carApplicationBody({
          today: ctx.time().slice(0, 10),
          license_plate: `粤T${String(++seq).padStart(5, '0')}`,
          applicant_idcard: idNumber(seq, '03'),
          vehicle_type_id: vehicleType,
          interviewee_depart_id: depart.CNOOC_SHELL!,
        }),
      );
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = saved.body.data.id;
      expect((await contact.post('/carApplications/push', { id })).body).toMatchObject({ success: true });
      const instance = (await ctx.db.selectFrom('car_application').select('process_instance_id').where('car_application_id', '=', id).executeTakeFirstOrThrow()).process_instance_id!;
      const task = (
        await ctx.db
          .selectFrom('process_task')
          .select('process_task_id')
          .where('process_instance_id', '=', instance)
          .where('user_id', '=', ids.reviewer!)
          .where('state', '=', TaskState.PENDING)
          .executeTakeFirstOrThrow()
      ).process_task_id;
      return { id, instance, task };
    }
    const tasksOf = (instance: number) =>
      ctx.db
        .selectFrom('process_task')
        .select(['process_task_id', 'user_id', 'state', 'result', 'origin', 'sort', 'remark', 'required'])
        .where('process_instance_id', '=', instance)
        .orderBy('process_task_id')
        .execute();
    const approveAs = (taskId: number, userId: number, result: number = TaskResult.APPROVE) =>
      ctx.db.transaction().execute((trx) => decide(trx, ctx, { taskId, userId, result, remark: result === TaskResult.APPROVE ? '同意' : '不同意' }));
    const instanceState = async (instance: number) =>
      await ctx.db.selectFrom('process_instance').select(['state', 'current_sort']).where('process_instance_id', '=', instance).executeTakeFirstOrThrow();
    const events = async (instance: number) => (await processInfo(ctx.db, instance)).processEventList.map((e) => [e.kind, e.user_name, e.text]);

    it('hands a task to another holder of the node’s role in its department, with the reason shown in the process view', async () => {
      const { instance, task } = await submitCar();
      const colleague = await newUser('赵六', 'CNOOC_SHELL');
      const elsewhere = await newUser('钱七', 'HZ_PORT');
      const list = await reviewer.post<Array<{ user_id: number; user_name: string }>>('/approvalTask/candidates', { taskId: task, purpose: 'transfer' });
      expect(list.body.data.map((u) => u.user_id)).toEqual([colleague]);

      const refusals: Array<[Record<string, unknown>, number, string]> = [
        [{ userId: colleague, reason: ' ' }, 400, '请输入转交原因'],
        [{ userId: colleague, reason: '原'.repeat(201) }, 400, '转交原因不能超过200个字'],
        [{ userId: elsewhere, reason: '出差' }, 400, '所选人员不能接收此任务'],
        [{ userId: ids.squad, reason: '出差' }, 400, '所选人员不能接收此任务'],
        // Separation of duties: the applicant is never handed their own application.
        [{ userId: ids.contact, reason: '出差' }, 400, '所选人员不能接收此任务'],
        [{ userId: 2_147_483_648, reason: '出差' }, 400, '超出允许的范围'],
      ];
      for (const [body, status, msg] of refusals) {
        const r = await reviewer.post('/approvalTask/transfer', { taskId: task, ...body });
        expect(r.status, JSON.stringify(r.body)).toBe(status);
        expect(r.body.msg).toContain(msg);
      }
      // Someone else's task reads as absent.
      expect((await (await new Client(server).as('squad')).post('/approvalTask/transfer', { taskId: task, userId: colleague, reason: '出差' })).status).toBe(404);

      const done = await reviewer.post<{ process_task_id: number }>('/approvalTask/transfer', { taskId: task, userId: colleague, reason: '本周出差' });
      expect(done.body, JSON.stringify(done.body)).toMatchObject({ success: true, msg: '转交成功' });
      const tasks = await tasksOf(instance);
      expect(tasks.find((t) => t.process_task_id === task)).toMatchObject({ state: TaskState.CLOSED, remark: '已转交给赵六：本周出差' });
      expect(tasks.find((t) => t.user_id === colleague)).toMatchObject({ state: TaskState.PENDING, origin: TaskOrigin.TRANSFERRED });
      expect(await events(instance)).toEqual([[ProcessEventKind.TRANSFER, '李强', '李强转交给赵六：本周出差']]);
      // A second hand-over of the same task: it is no longer the reviewer's to give.
      expect((await reviewer.post('/approvalTask/transfer', { taskId: task, userId: colleague, reason: '再转' })).status).toBe(409);
      expect(await approveAs(done.body.data.process_task_id, colleague)).toBe('advanced');
      expect((await instanceState(instance)).current_sort).toBe(2);
    });

    it('adds a signer before: the signer decides first, then the task returns to the approver', async () => {
      const { instance, task } = await submitCar();
      const signer = await newUser('孙八', 'HZ_PORT');
      // A patrol cannot review vehicle appointments: not a signer.
      const wrong = await reviewer.post('/approvalTask/addSigner', { taskId: task, userId: ids.patrol, mode: SignerMode.BEFORE });
      expect(wrong.status).toBe(400);
      expect((await reviewer.post('/approvalTask/addSigner', { taskId: task, userId: signer, mode: 4 })).body).toMatchObject({ msg: expect.stringContaining('请选择加签方式') });
      expect((await reviewer.post('/approvalTask/addSigner', { taskId: task, userId: signer, mode: SignerMode.BEFORE, remark: '请先核实车辆' })).body).toMatchObject({ success: true });
      let tasks = await tasksOf(instance);
      expect(tasks.find((t) => t.process_task_id === task)!.state).toBe(TaskState.WAITING);
      const added = tasks.find((t) => t.user_id === signer)!;
      expect(added).toMatchObject({ state: TaskState.PENDING, origin: TaskOrigin.ADDED_BEFORE, required: 1 });
      // While waiting, the approver's own task cannot be decided.
      await expect(approveAs(task, ids.reviewer!)).rejects.toThrow();
      expect(await approveAs(added.process_task_id, signer)).toBe('waiting');
      tasks = await tasksOf(instance);
      expect(tasks.find((t) => t.process_task_id === task)!.state).toBe(TaskState.PENDING);
      expect((await instanceState(instance)).current_sort).toBe(1);
      // The approver is told the task is back, not that it is new.
      const told = await ctx.db
        .selectFrom('notification')
        .select(['title', 'body'])
        .where('user_id', '=', ids.reviewer!)
        .where('tag', '=', `task-${task}`)
        .orderBy('notification_id', 'desc')
        .executeTakeFirstOrThrow();
      expect(told).toMatchObject({ title: '加签人已审核', body: expect.stringContaining('已由加签人审核通过，请继续审核') });
      expect(await approveAs(task, ids.reviewer!)).toBe('advanced');
      expect(await events(instance)).toEqual([[ProcessEventKind.ADD_SIGNER, '李强', '前加签：先由孙八审核，通过后回到李强（请先核实车辆）']]);
    });

    it('adds a signer after and alongside: the node waits for the signer’s approval too', async () => {
      const after = await submitCar();
      const signer = await newUser('周九', 'HZ_PORT');
      expect((await reviewer.post('/approvalTask/addSigner', { taskId: after.task, userId: signer, mode: SignerMode.AFTER, remark: '同意，请周九复核' })).body).toMatchObject({ success: true });
      let tasks = await tasksOf(after.instance);
      expect(tasks.find((t) => t.process_task_id === after.task)).toMatchObject({ state: TaskState.DONE, result: TaskResult.APPROVE, remark: '同意，请周九复核' });
      const afterSigner = tasks.find((t) => t.user_id === signer)!;
      expect(afterSigner).toMatchObject({ state: TaskState.PENDING, origin: TaskOrigin.ADDED_AFTER });
      expect((await instanceState(after.instance)).current_sort).toBe(1);
      expect(await approveAs(afterSigner.process_task_id, signer)).toBe('advanced');

      const along = await submitCar();
      expect((await reviewer.post('/approvalTask/addSigner', { taskId: along.task, userId: signer, mode: SignerMode.ALONGSIDE })).body).toMatchObject({ success: true });
      tasks = await tasksOf(along.instance);
      const alongSigner = tasks.find((t) => t.user_id === signer)!;
      expect(tasks.find((t) => t.process_task_id === along.task)).toMatchObject({ state: TaskState.PENDING, required: 1 });
      expect(await approveAs(alongSigner.process_task_id, signer)).toBe('waiting');
      expect(await approveAs(along.task, ids.reviewer!)).toBe('advanced');
    });

    it('rejects the application when an added signer rejects, closing the task that waited', async () => {
      const { id, instance, task } = await submitCar();
      const signer = await newUser('吴十', 'HZ_PORT');
      await reviewer.post('/approvalTask/addSigner', { taskId: task, userId: signer, mode: SignerMode.BEFORE });
      const added = (await tasksOf(instance)).find((t) => t.user_id === signer)!;
      expect(await approveAs(added.process_task_id, signer, TaskResult.REJECT)).toBe('rejected');
      expect((await instanceState(instance)).state).toBe(InstanceState.REJECTED);
      expect((await tasksOf(instance)).find((t) => t.process_task_id === task)!.state).toBe(TaskState.CLOSED);
      expect((await ctx.db.selectFrom('car_application').select('state').where('car_application_id', '=', id).executeTakeFirstOrThrow()).state).toBe(AppState.REJECTED);
    });
  });
}
