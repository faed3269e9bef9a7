import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState, InstanceState, ProcessType, TaskState } from '../../domain/appointments';
import { AUTO_APPROVE_REMARK, AUTO_REJECT_REMARK, AutoAction, DeadlineUnit } from '../../domain/approval-deadline';
import { ProcessEventKind, SYSTEM_ACTOR, TaskOrigin } from '../../domain/approval-events';
import { NotificationKind } from '../../domain/notifications';
import { formatInZone } from '../../domain/time';
import { DayKind } from '../../domain/work-calendar';
import { startDeadlineJob } from '../../server/jobs/deadlines';
import { runDeadlines } from '../../server/workflow/deadlines';
import { processInfo, startInstance } from '../../server/workflow/engine';
import { Client, dialects, startSecondServer, startServer, type TestServer } from './harness';

const HOUR = 3_600_000;

/**
 * Node deadlines (docs/approvals.md) on each dialect, driven by the server's
 * clock: reminders, escalation and the automatic decision in their order, a
 * deadline in working days on the 工作日历, each step once with two servers,
 * and the timer armed for the exact moment.
 */
for (const dialect of await dialects()) {
  describe(`approval deadlines (${dialect})`, () => {
    let server: TestServer;
    let admin: Client;
    const ids: Record<string, number> = {};
    let nodeId = 0;
    let squadRole = 0;
    let hazardRole = 0;
    /** The server's clock, moved by the tests. */
    let clock = Date.now();

    beforeAll(async () => {
      server = await startServer(dialect);
      const ctx = server.app.ctx;
      ctx.now = () => clock;
      ctx.time = () => formatInZone(clock);
      admin = await new Client(server).as('admin');
      for (const u of await ctx.db.selectFrom('sys_user').select(['user_id', 'account']).execute()) ids[u.account] = u.user_id;
      const roles = new Map((await ctx.db.selectFrom('sys_role').select(['role_id', 'code']).execute()).map((r) => [r.code, r.role_id]));
      squadRole = roles.get('squad_reviewer')!;
      hazardRole = roles.get('hazard_reviewer')!;
      // The person process's first node: the visited enterprise's review.
      // The demo's own pending tasks stay out of these runs' counts.
      await ctx.db.updateTable('process_task').set({ next_at: null }).execute();
      nodeId = (await ctx.db.selectFrom('process_node').select('process_node_id').where('name', '=', '被访企业审核（24小时未审自动通过）').executeTakeFirstOrThrow()).process_node_id;
    });
    afterAll(async () => server?.close());

    const setNode = async (rule: Record<string, unknown>) => {
      const r = await admin.post('/v2/processNode/update', {
        processNodeId: nodeId,
        name: '被访企业审核（24小时未审自动通过）',
        roleId: (await server.app.ctx.db.selectFrom('sys_role').select('role_id').where('code', '=', 'enterprise_reviewer').executeTakeFirstOrThrow()).role_id,
        companyCheck: 1,
        countersign: 0,
        departIds: [],
        ...rule,
      });
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
    };

    let seq = 0;
    /** A person application submitted now by the enterprise contact, visiting 中海壳牌: answers its instance. */
    async function submitPerson(on: TestServer = server): Promise<{ instance: number; refId: number }> {
      const ctx = on.app.ctx;
      const now = ctx.time();
      const depart = (await ctx.db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      const { person_application_id } = await ctx.db
        .insertInto('person_application')
        .values({
          application_number: `D${dialect}${Date.now()}${++seq}`,
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
          interviewee_depart_id: depart,
          create_user_id: ids.contact!,
          create_time: now,
          update_time: now,
        })
        .returning('person_application_id')
        .executeTakeFirstOrThrow();
      const instance = await ctx.db
        .transaction()
        .execute((trx) => startInstance(trx, ctx, { processType: ProcessType.PERSON, refId: person_application_id, applicantUserId: ids.contact!, intervieweeDepartId: depart }));
      return { instance, refId: person_application_id };
    }
    const tasksOf = (instance: number) =>
      server.app.ctx.db
        .selectFrom('process_task')
        .select(['process_task_id', 'user_id', 'state', 'result', 'auto', 'origin', 'due_at', 'next_at', 'sort'])
        .where('process_instance_id', '=', instance)
        .orderBy('process_task_id')
        .execute();
    const remindersTo = async (userId: number, since: number) =>
      server.app.ctx.db.selectFrom('notification').select(['body', 'tag']).where('user_id', '=', userId).where('kind', '=', NotificationKind.TASK_REMINDED).where('created_at', '>=', since).execute();

    it('reminds at the deadline and each interval, escalates once, then decides by itself, each shown as 系统 with its rule', async () => {
      await setNode({ deadlineValue: 2, deadlineUnit: DeadlineUnit.HOURS, remindTimes: 2, remindInterval: 1, escalateRoleId: hazardRole, autoAction: AutoAction.REJECT });
      clock = Date.parse('2031-03-03T01:00:00Z'); // a Monday, 09:00 in the park
      const start = clock;
      const { instance, refId } = await submitPerson();
      const [own] = await tasksOf(instance);
      expect(own).toMatchObject({ user_id: ids.reviewer, due_at: start + 2 * HOUR, next_at: start + 2 * HOUR });

      expect(await runDeadlines(server.app.ctx, start + 2 * HOUR - 1)).toEqual({ reminded: 0, escalated: 0, decided: 0 });
      clock = start + 2 * HOUR;
      expect(await runDeadlines(server.app.ctx)).toEqual({ reminded: 1, escalated: 1, decided: 0 });
      // A second run at the same moment (another server, a timer firing twice) does nothing again.
      expect(await runDeadlines(server.app.ctx)).toEqual({ reminded: 0, escalated: 0, decided: 0 });
      expect(await remindersTo(ids.reviewer!, start)).toHaveLength(1);
      const sms = await server.app.ctx.db.selectFrom('outbox_message').select(['payload', 'state']).where('origin', '=', 'approval_remind').execute();
      expect(sms.some((m) => m.payload.includes('13800000003') && m.payload.includes('审批超时提醒'))).toBe(true);
      const joined = (await tasksOf(instance)).filter((t) => t.origin === TaskOrigin.ESCALATED);
      expect(joined.map((t) => t.user_id)).toEqual([ids.hazard]);
      expect(
        (
          await server.app.ctx.db
            .selectFrom('notification')
            .select('kind')
            .where('user_id', '=', ids.hazard!)
            .where('kind', '=', NotificationKind.TASK_ASSIGNED)
            .where('created_at', '>=', start)
            .execute()
        ).length,
      ).toBe(1);

      clock = start + 3 * HOUR;
      expect(await runDeadlines(server.app.ctx)).toEqual({ reminded: 1, escalated: 0, decided: 0 });
      expect((await remindersTo(ids.reviewer!, start)).map((n) => n.body)).toEqual([expect.stringContaining('第1次提醒'), expect.stringContaining('第2次提醒')]);
      // The last interval after the last reminder, then the system decides.
      expect(await runDeadlines(server.app.ctx, start + 4 * HOUR - 1)).toEqual({ reminded: 0, escalated: 0, decided: 0 });
      clock = start + 4 * HOUR;
      expect(await runDeadlines(server.app.ctx)).toEqual({ reminded: 0, escalated: 0, decided: 1 });

      const inst = await server.app.ctx.db.selectFrom('process_instance').select('state').where('process_instance_id', '=', instance).executeTakeFirstOrThrow();
      expect(inst.state).toBe(InstanceState.REJECTED);
      expect((await server.app.ctx.db.selectFrom('person_application').select('state').where('person_application_id', '=', refId).executeTakeFirstOrThrow()).state).toBe(AppState.REJECTED);
      const info = await processInfo(server.app.ctx.db, instance);
      expect(info.processTaskList.find((t) => t.auto === 1)).toMatchObject({ remark: AUTO_REJECT_REMARK, user: { user_name: SYSTEM_ACTOR } });
      expect(info.processEventList.map((e) => [e.kind, e.user_name])).toEqual([
        [ProcessEventKind.REMIND, SYSTEM_ACTOR],
        [ProcessEventKind.ESCALATE, SYSTEM_ACTOR],
        [ProcessEventKind.REMIND, SYSTEM_ACTOR],
        [ProcessEventKind.AUTO_DECIDE, SYSTEM_ACTOR],
      ]);
      expect(info.processEventList[1]!.text).toContain('危化品');
      expect(info.processEventList[3]!.text).toBe('审批时限2小时已到，已提醒2次，自动驳回');
      // Nothing is left for the timer.
      expect((await tasksOf(instance)).every((t) => t.state !== TaskState.PENDING && t.next_at === null)).toBe(true);
    });

    it('counts a deadline in working days on the 工作日历, and an escalated approver decides for the node', async () => {
      // Friday 2031-03-07 16:00; Monday 03-10 marked a holiday, so one working day ends on Tuesday 16:00.
      expect((await admin.post('/workCalendar/save', { start_date: '2031-03-10', end_date: '2031-03-10', kind: DayKind.HOLIDAY, name: '测试假日' })).body).toMatchObject({ success: true });
      await setNode({ deadlineValue: 1, deadlineUnit: DeadlineUnit.WORKING_DAYS, remindTimes: 0, escalateRoleId: squadRole, autoAction: AutoAction.NONE });
      clock = Date.parse('2031-03-07T08:00:00Z');
      const { instance } = await submitPerson();
      const due = Date.parse('2031-03-11T08:00:00Z');
      expect((await tasksOf(instance))[0]).toMatchObject({ due_at: due, next_at: due });
      expect(await runDeadlines(server.app.ctx, due - 1)).toEqual({ reminded: 0, escalated: 0, decided: 0 });
      clock = due;
      expect((await runDeadlines(server.app.ctx)).escalated).toBe(1);
      const squadTask = (await tasksOf(instance)).find((t) => t.origin === TaskOrigin.ESCALATED)!;
      expect(squadTask.user_id).toBe(ids.squad);
      // The squad's approval settles the visited enterprise's node: the enterprise reviewer's task closes.
      const squad = await new Client(server).as('squad');
      const r = await squad.post('/personApplications/task/check', { taskIds: String(squadTask.process_task_id) });
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
      const first = (await tasksOf(instance)).filter((t) => t.sort === squadTask.sort);
      expect(first.map((t) => t.state).sort()).toEqual([TaskState.DONE, TaskState.CLOSED]);
    });

    it('keeps the spec’s 超时自动审核 as a deadline in hours that approves', async () => {
      await setNode({ overtimeAutoCheck: 1, overtimeHours: 5 });
      const node = (await admin.post<Array<Record<string, unknown>>>('/processNode/all', {})).body.data.find((n) => n.process_node_id === nodeId)!;
      expect(node).toMatchObject({ overtime_auto_check: 1, overtime_hours: 5, deadline_value: 5, deadline_unit: 1, auto_action: 1, deadline_text: '5小时内审批，到期自动通过' });
      clock = Date.parse('2031-03-12T01:00:00Z');
      const { instance } = await submitPerson();
      clock += 5 * HOUR;
      expect((await runDeadlines(server.app.ctx)).decided).toBe(1);
      expect((await processInfo(server.app.ctx.db, instance)).processTaskList[0]).toMatchObject({ auto: 1, remark: AUTO_APPROVE_REMARK });
    });

    it('refuses a bad rule in Chinese, naming the field, and keeps the node as it was', async () => {
      await setNode({ deadlineValue: 3, deadlineUnit: DeadlineUnit.HOURS, remindTimes: 0, autoAction: AutoAction.APPROVE });
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ deadlineValue: 721, deadlineUnit: 1 }, 'deadlineValue', '审批时限范围为1-720小时'],
        [{ deadlineValue: 31, deadlineUnit: 2 }, 'deadlineValue', '审批时限范围为1-30个工作日'],
        [{ deadlineValue: 2, deadlineUnit: 3 }, 'deadlineUnit', '请选择时限单位'],
        [{ deadlineValue: 2, deadlineUnit: 1, remindTimes: 11, remindInterval: 1 }, 'remindTimes', '到期提醒次数范围为0-10次'],
        [{ deadlineValue: 2, deadlineUnit: 1, remindTimes: 2 }, 'remindInterval', '请输入提醒间隔'],
        [{ deadlineValue: 2, deadlineUnit: 1, remindTimes: 2, remindInterval: 169 }, 'remindInterval', '提醒间隔范围为1-168小时'],
        [{ deadlineValue: 2, deadlineUnit: 1, autoAction: 3 }, 'autoAction', '请选择到期自动处理方式'],
        [{ deadlineValue: 2, deadlineUnit: 1, escalateRoleId: 2147483647 }, 'escalateRoleId', '所选到期升级角色不存在或已被删除'],
      ];
      for (const [rule, field, message] of cases) {
        const r = await admin.post('/v2/processNode/update', { processNodeId: nodeId, name: 'x', roleId: squadRole, companyCheck: 1, countersign: 0, departIds: [], ...rule });
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body, JSON.stringify(rule)).toMatchObject({ success: false, msg: expect.stringContaining(message), data: { errors: [expect.objectContaining({ field, message })] } });
      }
      const node = (await admin.post<Array<Record<string, unknown>>>('/processNode/all', {})).body.data.find((n) => n.process_node_id === nodeId)!;
      expect(node).toMatchObject({ name: '被访企业审核（24小时未审自动通过）', deadline_value: 3, auto_action: 1 });
    });

    it('fires each step once with two servers, and the timer fires at the deadline itself, after a restart too', async () => {
      await setNode({ deadlineValue: 1, deadlineUnit: DeadlineUnit.HOURS, remindTimes: 1, remindInterval: 1, autoAction: AutoAction.APPROVE });
      clock = Date.parse('2031-03-13T01:00:00Z');
      const submitted = [];
      for (let i = 0; i < 6; i++) submitted.push(await submitPerson());
      const second = await startSecondServer(server);
      second.app.ctx.now = () => clock;
      second.app.ctx.time = () => formatInZone(clock);
      try {
        clock += HOUR;
        const runs = await Promise.all([runDeadlines(server.app.ctx, clock, 2), runDeadlines(second.app.ctx, clock, 2)]);
        expect(runs[0]!.reminded + runs[1]!.reminded).toBe(6);
        const tags = (await remindersTo(ids.reviewer!, clock)).map((n) => n.tag);
        expect(new Set(tags).size).toBe(6);
        expect(tags).toHaveLength(6);

        // The second server's timer, as after a restart: nothing in memory, the deadlines in the database.
        clock += HOUR - 300;
        const stop = startDeadlineJob(second.app, 3_600_000);
        try {
          await new Promise((r) => setTimeout(r, 150));
          const pendingNow = await server.app.ctx.db
            .selectFrom('process_task')
            .select('process_task_id')
            .where(
              'process_instance_id',
              'in',
              submitted.map((s) => s.instance),
            )
            .where('auto', '=', 1)
            .execute();
          expect(pendingNow).toHaveLength(0);
          // 300 ms later the deadline passes: the armed timer (not the hourly pass) decides all six.
          const t0 = Date.now();
          second.app.ctx.now = () => clock + (Date.now() - t0);
          second.app.ctx.time = () => formatInZone(clock + (Date.now() - t0));
          const waitUntil = Date.now() + 5_000;
          let decided = 0;
          while (Date.now() < waitUntil) {
            decided = (
              await server.app.ctx.db
                .selectFrom('process_task')
                .select('process_task_id')
                .where(
                  'process_instance_id',
                  'in',
                  submitted.map((s) => s.instance),
                )
                .where('auto', '=', 1)
                .execute()
            ).length;
            if (decided === 6) break;
            await new Promise((r) => setTimeout(r, 50));
          }
          expect(decided).toBe(6);
        } finally {
          stop();
        }
      } finally {
        await second.close();
      }
    });
  });
}
