import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState, OVERTIME_REMARK, ProcessType, TaskResult } from '../../domain/appointments';
import type { AppContext } from '../../server/core/context';
import { AppError } from '../../server/core/errors';
import { decide, processInfo, rejectInstance, resumeInstance, revokeInstance, startInstance, type Decision } from '../../server/workflow/engine';
import { runDeadlines } from '../../server/workflow/deadlines';
import { dialects, startServer, type TestServer } from './harness';

/** The approval engine against a real database on each dialect, with the seeded demo park and its processes. */
for (const dialect of await dialects()) {
  describe(`approval engine (${dialect})`, () => {
    let server: TestServer;
    let ctx: AppContext;
    const ids: Record<string, number> = {};
    const depart: Record<string, number> = {};

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      for (const u of await ctx.db.selectFrom('sys_user').select(['user_id', 'account']).execute()) ids[u.account] = u.user_id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
    });
    afterAll(async () => server?.close());

    let seq = 0;
    async function carApplication(processType: number, applicant = ids.contact!, visited = depart.CNOOC_SHELL!) {
      const now = ctx.time();
      const row = await ctx.db
        .insertInto('car_application')
        .values({
          application_number: `T${dialect}${Date.now()}${++seq}`,
          process_type: processType,
          license_plate: '粤L12345',
          license_plate_color: 2,
          vehicle_type_id: 1,
          applicant_name: '测试',
          applicant_idcard: '440102199001011234',
          applicant_gender: 0,
          applicant_phone: '13900000000',
          visitor_idcard_type: 1,
          visit_area: 1,
          visitor_type: 3,
          visitor_company: '测试公司',
          visitor_content: '送货',
          visitor_begin_time: '2026-12-01 00:00:00',
          visitor_end_time: '2026-12-02 23:59:59',
          interviewee_name: '李强',
          interviewee_phone: '13800000003',
          interviewee_depart_id: visited,
          create_user_id: applicant,
          create_time: now,
          update_time: now,
        })
        .returning('car_application_id')
        .executeTakeFirstOrThrow();
      return row.car_application_id;
    }
    const submit = (refId: number, processType: number, applicant = ids.contact!, visited = depart.CNOOC_SHELL!) =>
      ctx.db.transaction().execute((trx) => startInstance(trx, ctx, { processType, refId, applicantUserId: applicant, intervieweeDepartId: visited }));
    const act = (d: Decision) => ctx.db.transaction().execute((trx) => decide(trx, ctx, d));
    const pending = (instanceId: number) =>
      ctx.db
        .selectFrom('process_task')
        .select(['process_task_id', 'user_id', 'queue', 'sort'])
        .where('process_instance_id', '=', instanceId)
        .where('state', '=', 0)
        .orderBy('process_task_id')
        .execute();
    const carState = async (id: number) => (await ctx.db.selectFrom('car_application').select('state').where('car_application_id', '=', id).executeTakeFirstOrThrow()).state;
    const approve = (taskId: number, userId: number) => act({ taskId, userId, result: TaskResult.APPROVE, remark: '同意' });

    async function addReviewer(account: string) {
      const role = await ctx.db.selectFrom('sys_role').select('role_id').where('code', '=', 'enterprise_reviewer').executeTakeFirstOrThrow();
      const now = ctx.time();
      const { user_id } = await ctx.db
        .insertInto('sys_user')
        .values({
          user_name: account,
          account,
          password_hash: 'x',
          gender: 0,
          phone: '13911112222',
          depart_id: depart.CNOOC_SHELL!,
          status: 1,
          uuid: account,
          create_user_id: null,
          create_time: now,
          update_time: now,
        })
        .returning('user_id')
        .executeTakeFirstOrThrow();
      await ctx.db.insertInto('sys_user_role').values({ user_id, role_id: role.role_id }).execute();
      return user_id;
    }
    const disable = (userId: number) => ctx.db.updateTable('sys_user').set({ status: 0 }).where('user_id', '=', userId).execute();

    it('walks a general vehicle appointment: visited enterprise in the general queue, then the squad in the final queue', async () => {
      const car = await carApplication(ProcessType.CAR);
      const inst = await submit(car, ProcessType.CAR);
      expect(await carState(car)).toBe(AppState.REVIEW);
      const [first] = await pending(inst);
      expect(first).toMatchObject({ user_id: ids.reviewer, queue: 'car_task', sort: 1 });
      expect(await approve(first!.process_task_id, ids.reviewer!)).toBe('advanced');
      const [final] = await pending(inst);
      expect(final).toMatchObject({ user_id: ids.squad, queue: 'car_final', sort: 2 });
      expect(await approve(final!.process_task_id, ids.squad!)).toBe('approved');
      expect(await carState(car)).toBe(AppState.APPROVED);
      const info = await processInfo(ctx.db, inst);
      expect(info.processInstance.create_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(info.processTaskList.map((t) => [t.processDefinitionNode.name, t.user.user_name, t.depart.name, t.state, t.result])).toEqual([
        ['被访企业审核', '李强', '中海壳牌石油化工有限公司', 1, 1],
        ['石化大队终审', '陈刚', '石化大队', 1, 1],
      ]);
    });

    it('sends a hazardous vehicle through the hazardous queue twice and then the final queue', async () => {
      const car = await carApplication(ProcessType.CHEMICALS);
      const inst = await submit(car, ProcessType.CHEMICALS);
      const queues: Array<string | null> = [];
      for (const who of ['reviewer', 'hazard', 'squad']) {
        const [t] = await pending(inst);
        queues.push(t!.queue);
        await approve(t!.process_task_id, ids[who]!);
      }
      expect(queues).toEqual(['car_chemicals', 'car_chemicals', 'car_final']);
      expect(await carState(car)).toBe(AppState.APPROVED);
    });

    it('any-one node: the first decision settles the node and closes the other candidates’ tasks', async () => {
      const second = await addReviewer(`rev_any_${dialect}`);
      try {
        const car = await carApplication(ProcessType.CAR);
        const inst = await submit(car, ProcessType.CAR);
        const tasks = await pending(inst);
        expect(tasks.map((t) => t.user_id).sort()).toEqual([ids.reviewer, second].sort());
        const mine = tasks.find((t) => t.user_id === second)!;
        const theirs = tasks.find((t) => t.user_id === ids.reviewer)!;
        expect(await approve(mine.process_task_id, second)).toBe('advanced');
        await expect(approve(theirs.process_task_id, ids.reviewer!)).rejects.toMatchObject({ status: 409, message: expect.stringContaining('已关闭') });
        expect((await pending(inst)).map((t) => t.queue)).toEqual(['car_final']);
      } finally {
        await disable(second);
      }
    });

    it('countersign node: every candidate must approve before the next node', async () => {
      const second = await addReviewer(`rev_all_${dialect}`);
      await ctx.db.updateTable('process_node').set({ countersign: 1 }).where('name', '=', '被访企业审核').execute();
      try {
        const car = await carApplication(ProcessType.CAR);
        const inst = await submit(car, ProcessType.CAR);
        const tasks = await pending(inst);
        expect(tasks).toHaveLength(2);
        expect(await approve(tasks[0]!.process_task_id, tasks[0]!.user_id)).toBe('waiting');
        expect((await pending(inst)).map((t) => t.sort)).toEqual([1]);
        expect(await approve(tasks[1]!.process_task_id, tasks[1]!.user_id)).toBe('advanced');
        expect((await pending(inst)).map((t) => t.queue)).toEqual(['car_final']);
      } finally {
        await ctx.db.updateTable('process_node').set({ countersign: 0 }).where('name', '=', '被访企业审核').execute();
        await disable(second);
      }
    });

    it('a reject ends the instance (state 3); resume restarts at the node where it stopped', async () => {
      const car = await carApplication(ProcessType.HEAVY_DUMP);
      const inst = await submit(car, ProcessType.HEAVY_DUMP);
      await approve((await pending(inst))[0]!.process_task_id, ids.reviewer!);
      const [atHazard] = await pending(inst);
      expect(atHazard!.sort).toBe(2);
      expect(await act({ taskId: atHazard!.process_task_id, userId: ids.hazard!, result: TaskResult.REJECT, remark: '资料不全' })).toBe('rejected');
      expect(await carState(car)).toBe(AppState.REJECTED);
      expect(await pending(inst)).toEqual([]);
      await ctx.db.transaction().execute((trx) => resumeInstance(trx, ctx, inst));
      expect(await carState(car)).toBe(AppState.REVIEW);
      const [again] = await pending(inst);
      expect(again).toMatchObject({ sort: 2, user_id: ids.hazard, queue: 'car_zxzxc' });
    });

    it('revoke closes open tasks (state 4); resume continues from that node; reject from all-history is recorded', async () => {
      const car = await carApplication(ProcessType.BUS);
      const inst = await submit(car, ProcessType.BUS);
      await approve((await pending(inst))[0]!.process_task_id, ids.reviewer!);
      await ctx.db.transaction().execute((trx) => revokeInstance(trx, ctx, inst));
      expect(await carState(car)).toBe(AppState.REVOKED);
      expect(await pending(inst)).toEqual([]);
      await expect(ctx.db.transaction().execute((trx) => revokeInstance(trx, ctx, inst))).rejects.toMatchObject({ status: 409 });
      await ctx.db.transaction().execute((trx) => resumeInstance(trx, ctx, inst));
      expect((await pending(inst)).map((t) => [t.sort, t.queue])).toEqual([[2, 'car_bus']]);
      await ctx.db.transaction().execute((trx) => rejectInstance(trx, ctx, inst, { userId: ids.squad!, departId: depart.SQUAD! }, '车辆信息有误'));
      expect(await carState(car)).toBe(AppState.REJECTED);
      const info = await processInfo(ctx.db, inst);
      expect(info.processTaskList.at(-1)).toMatchObject({ result: 2, remark: '车辆信息有误', user: { user_name: '陈刚' } });
    });

    it('overtime auto review approves overdue tasks with the remark 超时自动通过, once', async () => {
      const now = ctx.time();
      const { person_application_id } = await ctx.db
        .insertInto('person_application')
        .values({
          application_number: `P${dialect}${Date.now()}`,
          visitor_name: '访客',
          visitor_gender: 0,
          visitor_phone: '13900000001',
          visitor_company: '访客公司',
          visitor_type: 4,
          visitor_idcard_type: 1,
          visitor_idcard: '440102199001011234',
          visit_content: '洽谈',
          visit_begin_time: '2026-12-01 00:00:00',
          visit_end_time: '2026-12-02 23:59:59',
          visit_area: 1,
          interviewee_name: '李强',
          interviewee_phone: '13800000003',
          interviewee_depart_id: depart.CNOOC_SHELL!,
          create_user_id: ids.contact!,
          create_time: now,
          update_time: now,
        })
        .returning('person_application_id')
        .executeTakeFirstOrThrow();
      const inst = await ctx.db
        .transaction()
        .execute((trx) => startInstance(trx, ctx, { processType: ProcessType.PERSON, refId: person_application_id, applicantUserId: ids.contact!, intervieweeDepartId: depart.CNOOC_SHELL! }));
      expect(await runDeadlines(ctx, ctx.now() + 23 * 3_600_000).then((r) => r.decided)).toBe(0);
      const later = ctx.now() + 25 * 3_600_000;
      // Two servers sharing the database run the timer at the same moment: the task is decided once.
      const [a, b] = await Promise.all([runDeadlines(ctx, later).then((r) => r.decided), runDeadlines(ctx, later).then((r) => r.decided)]);
      expect(a + b).toBeGreaterThanOrEqual(1);
      const info = await processInfo(ctx.db, inst);
      const first = info.processTaskList[0]!;
      expect(first).toMatchObject({ state: 1, result: 1, remark: OVERTIME_REMARK, auto: 1 });
      expect(info.processTaskList.filter((t) => t.remark === OVERTIME_REMARK)).toHaveLength(1);
      expect((await pending(inst)).map((t) => t.queue)).toEqual(['person_final']);
    });

    it('two decisions on one task at once: exactly one wins, the other hears what happened', async () => {
      const car = await carApplication(ProcessType.CAR);
      const inst = await submit(car, ProcessType.CAR);
      const [t] = await pending(inst);
      const results = await Promise.allSettled([
        act({ taskId: t!.process_task_id, userId: ids.reviewer!, result: TaskResult.APPROVE, remark: '同意' }),
        act({ taskId: t!.process_task_id, userId: ids.reviewer!, result: TaskResult.REJECT, remark: '不同意' }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toBeInstanceOf(AppError);
      expect(lost[0]!.reason).toMatchObject({ status: 409, message: expect.stringMatching(/已由李强于.*(审核通过|驳回)，不能重复审核/) });
      const decided = await ctx.db.selectFrom('process_task').select(['state', 'result']).where('process_task_id', '=', t!.process_task_id).executeTakeFirstOrThrow();
      expect(decided.state).toBe(1);
      expect(await carState(car)).toBe(decided.result === 1 ? AppState.REVIEW : AppState.REJECTED);
    });

    it('never passes a node silently: no candidate refuses the submit and names the node and department', async () => {
      const car = await carApplication(ProcessType.CAR, ids.contact!, depart.YUXIN!);
      await expect(submit(car, ProcessType.CAR, ids.contact!, depart.YUXIN!)).rejects.toMatchObject({
        status: 409,
        message: expect.stringContaining('审批节点“被访企业审核”在“惠州宇新化工有限责任公司”没有可用的审核人'),
      });
      expect(await carState(car)).toBe(AppState.DRAFT);
      expect(await ctx.db.selectFrom('process_instance').select('process_instance_id').where('ref_id', '=', car).where('process_type', '=', ProcessType.CAR).execute()).toEqual([]);
    });

    it('nobody approves their own application: the applicant is not a candidate', async () => {
      const car = await carApplication(ProcessType.CAR, ids.reviewer!);
      await expect(submit(car, ProcessType.CAR, ids.reviewer!)).rejects.toMatchObject({ status: 409 });
    });

    it('a task of someone else or of another queue is not found', async () => {
      const car = await carApplication(ProcessType.CAR);
      const inst = await submit(car, ProcessType.CAR);
      const [t] = await pending(inst);
      await expect(approve(t!.process_task_id, ids.squad!)).rejects.toMatchObject({ status: 404 });
      await expect(act({ taskId: t!.process_task_id, userId: ids.reviewer!, result: 1, remark: '', queues: ['car_final'] })).rejects.toMatchObject({ status: 404 });
    });
  });
}
