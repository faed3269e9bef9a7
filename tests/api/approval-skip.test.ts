import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessType, TaskResult, TaskState } from '../../domain/appointments';
import { ProcessEventKind, SKIP_REMARK, SYSTEM_ACTOR } from '../../domain/approval-events';
import type { AppContext } from '../../server/core/context';
import { decide, processInfo, startInstance } from '../../server/workflow/engine';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * 相同审核人自动通过 (docs/approvals.md) on each dialect: with the definition's
 * setting on (the default), a node whose approver just approved the node
 * before passes by itself, recorded as 系统; with it off, the approver decides
 * again. Configured through the API as an administrator would.
 */
for (const dialect of await dialects()) {
  describe(`相同审核人自动通过 (${dialect})`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client;
    let definitionId = 0;
    const ids: Record<string, number> = {};
    let seq = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      admin = await new Client(server).as('admin');
      for (const u of await ctx.db.selectFrom('sys_user').select(['user_id', 'account']).execute()) ids[u.account] = u.user_id;
      const squadRole = (await ctx.db.selectFrom('sys_role').select('role_id').where('code', '=', 'squad_reviewer').executeTakeFirstOrThrow()).role_id;
      const squad = (await ctx.db.selectFrom('sys_department').select('depart_id').where('code', '=', 'SQUAD').executeTakeFirstOrThrow()).depart_id;
      const node = async (name: string) => {
        const r = await admin.post<{ process_node_id: number }>('/v2/processNode/save', { name, roleId: squadRole, departIds: [squad], companyCheck: 0, countersign: 0, deadlineValue: 0 });
        expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
        return r.body.data.process_node_id;
      };
      const first = await node('大队初审');
      const second = await node('大队复审');
      const def = await admin.post<{ process_definition_id: number }>('/v2/processDefinition/save', { name: '大队两级审核', processNodeIds: [first, second] });
      expect(def.body, JSON.stringify(def.body)).toMatchObject({ success: true });
      definitionId = def.body.data.process_definition_id;
      const bus = await ctx.db.selectFrom('process').select(['process_id', 'name']).where('type', '=', ProcessType.BUS).where('deleted', '=', 0).executeTakeFirstOrThrow();
      expect((await admin.post('/process/update', { processId: bus.process_id, name: bus.name, type: ProcessType.BUS, processDefinitionId: definitionId })).body).toMatchObject({ success: true });
    });
    afterAll(async () => server?.close());

    /** A bus visit filed by the contact and submitted on the engine: answers its instance. */
    async function submitBus(): Promise<number> {
      const now = ctx.time();
      const depart = (await ctx.db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      const { car_application_id } = await ctx.db
        .insertInto('car_application')
        .values({
          application_number: `S${dialect}${Date.now()}${++seq}`,
          process_type: ProcessType.BUS,
          license_plate: '粤L54321',
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
          visitor_content: '接送',
          visitor_begin_time: '2026-12-01 00:00:00',
          visitor_end_time: '2026-12-02 23:59:59',
          interviewee_name: '李强',
          interviewee_phone: '13800000003',
          interviewee_depart_id: depart,
          create_user_id: ids.contact!,
          create_time: now,
          update_time: now,
        })
        .returning('car_application_id')
        .executeTakeFirstOrThrow();
      return ctx.db.transaction().execute((trx) => startInstance(trx, ctx, { processType: ProcessType.BUS, refId: car_application_id, applicantUserId: ids.contact!, intervieweeDepartId: depart }));
    }
    const pendingOf = (instance: number) =>
      ctx.db.selectFrom('process_task').select(['process_task_id', 'user_id', 'sort']).where('process_instance_id', '=', instance).where('state', '=', TaskState.PENDING).execute();
    const approve = (taskId: number) => ctx.db.transaction().execute((trx) => decide(trx, ctx, { taskId, userId: ids.squad!, result: TaskResult.APPROVE, remark: '同意' }));

    it('passes the next node by itself for the approver of the one before, recorded as 系统', async () => {
      const instance = await submitBus();
      const [task] = await pendingOf(instance);
      expect(task).toMatchObject({ user_id: ids.squad, sort: 1 });
      expect(await approve(task!.process_task_id)).toBe('approved');
      const info = await processInfo(ctx.db, instance);
      expect(info.processTaskList.map((t) => [t.processDefinitionNode.name, t.user.user_name, t.remark])).toEqual([
        ['大队初审', '陈刚', '同意'],
        ['大队复审', SYSTEM_ACTOR, SKIP_REMARK],
      ]);
      expect(info.processEventList).toEqual([expect.objectContaining({ kind: ProcessEventKind.SKIP, user_name: SYSTEM_ACTOR, sort: 2, text: '同一审核人已审核通过“大队初审”，本节点自动通过' })]);
    });

    it('asks the approver again with the setting off', async () => {
      const def = (await admin.post<Array<{ process_definition_id: number; skip_repeat: number; name: string }>>('/processDefinition/all', {})).body.data.find(
        (d) => d.process_definition_id === definitionId,
      )!;
      expect(def.skip_repeat).toBe(1);
      expect((await admin.post('/processDefinition/update', { processDefinitionId: definitionId, name: def.name, skipRepeat: 0 })).body).toMatchObject({ success: true });
      const instance = await submitBus();
      const [task] = await pendingOf(instance);
      expect(await approve(task!.process_task_id)).toBe('advanced');
      expect(await pendingOf(instance)).toEqual([expect.objectContaining({ user_id: ids.squad, sort: 2 })]);
      expect((await admin.post('/processDefinition/update', { processDefinitionId: definitionId, name: def.name, skipRepeat: 2 })).status).toBe(400);
    });
  });
}
