import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessEventKind } from '../../domain/approval-events';
import type { Page } from '../../domain/envelope';
import { NotificationKind } from '../../domain/notifications';
import type { TaskRow } from '../../domain/schemas/approval-task';
import { formatInZone } from '../../domain/time';
import { idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

const MINUTE = 60_000;

/**
 * 催办 (docs/approvals.md) on each dialect, driven by the server's clock: the
 * applicant's urge reaches the current approvers (notification, 已催办 N 次 on
 * their task, the process view), at most once per 30 minutes and 3 times a
 * park day, each refusal saying when; only the applicant's own application
 * under review, through each kind's own call.
 */
for (const dialect of await dialects()) {
  describe(`催办 (${dialect})`, () => {
    let server: TestServer;
    let contact: Client;
    let reviewer: Client;
    let clock = Date.parse('2031-04-01T01:00:00Z'); // 09:00 in the park
    let seq = 0;
    let reviewerId = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      const ctx = server.app.ctx;
      contact = await new Client(server).as('contact');
      reviewer = await new Client(server).as('reviewer');
      ctx.now = () => clock;
      ctx.time = () => formatInZone(clock);
      reviewerId = (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'reviewer').executeTakeFirstOrThrow()).user_id;
    });
    afterAll(async () => server?.close());

    async function submitPerson(): Promise<{ id: number; number: string }> {
      const depart = (await server.app.ctx.db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      const saved = await contact.post<{ id: number }>(
        '/personApplications/save',
        personApplicationBody({ today: server.app.ctx.time().slice(0, 10), visitor_idcard: idNumber(++seq, '05'), interviewee_depart_id: depart }),
      );
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = saved.body.data.id;
      expect((await contact.post('/personApplications/push', { id })).body).toMatchObject({ success: true });
      const row = await server.app.ctx.db.selectFrom('person_application').select('application_number').where('person_application_id', '=', id).executeTakeFirstOrThrow();
      return { id, number: row.application_number };
    }
    const urge = (id: number, as = contact) => as.post<{ times_today: number; approvers: string }>('/personApplications/urge', { id });
    const taskOf = async (number: string) =>
      (await reviewer.post<Page<TaskRow>>('/personApplications/task/page', { size: 50, pn: 1, application_number: number })).body.data.list.find(
        (t) => t.personApplication?.application_number === number,
      );

    it('tells the approvers, counts on their task, and allows the next urge only after 30 minutes and 3 times a day', async () => {
      const { id, number } = await submitPerson();
      const first = await urge(id);
      expect(first.body, JSON.stringify(first.body)).toMatchObject({ success: true, data: { times_today: 1, approvers: '李强' } });
      expect(await taskOf(number)).toMatchObject({ urged: 1 });
      const told = await server.app.ctx.db.selectFrom('notification').select(['title', 'body']).where('user_id', '=', reviewerId).where('kind', '=', NotificationKind.TASK_URGED).execute();
      expect(told).toEqual([{ title: '催办提醒', body: expect.stringContaining('王芳催您审核') }]);

      clock += 29 * MINUTE;
      const early = await urge(id);
      expect(early.status).toBe(429);
      expect(early.body).toMatchObject({ success: false, code: 1012, msg: '每30分钟只能催办一次，请于09:30后再试' });
      clock += MINUTE;
      expect((await urge(id)).body).toMatchObject({ success: true, data: { times_today: 2 } });
      clock += 30 * MINUTE;
      expect((await urge(id)).body).toMatchObject({ success: true, data: { times_today: 3 } });
      expect(await taskOf(number)).toMatchObject({ urged: 3 });
      clock += 60 * MINUTE;
      const fourth = await urge(id);
      expect(fourth.status).toBe(429);
      expect(fourth.body).toMatchObject({ msg: '每天最多催办3次，今日已催办3次，请明天再试' });
      // The next park day counts afresh.
      clock = Date.parse('2031-04-01T16:00:00Z'); // 00:00 on 04-02 in the park
      expect((await urge(id)).body).toMatchObject({ success: true, data: { times_today: 1 } });

      const info = await contact.post<{ processEventList: Array<{ kind: string; user_name: string; text: string }> }>('/v2/personApplications/check/process/info', { id });
      const urges = info.body.data.processEventList.filter((e) => e.kind === ProcessEventKind.URGE);
      expect(urges).toHaveLength(4);
      expect(urges[0]).toMatchObject({ user_name: '王芳', text: expect.stringContaining('催办李强审核') });
    });

    it('refuses what is not the caller’s own application under review', async () => {
      const { id } = await submitPerson();
      // Without the kind's revoke code: 403; another applicant's application reads as absent.
      expect((await urge(id, reviewer)).status).toBe(403);
      expect((await urge(id, await new Client(server).as('portcontact'))).status).toBe(404);
      expect((await urge(2_147_483_647)).status).toBe(404);
      expect((await urge(-1)).status).toBe(400);
      // A draft has no approvers to urge.
      const saved = await contact.post<{ id: number }>(
        '/personApplications/save',
        personApplicationBody({
          today: server.app.ctx.time().slice(0, 10),
          visitor_idcard: idNumber(++seq, '05'),
          interviewee_depart_id: (await server.app.ctx.db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id,
        }),
      );
      const draft = await urge(saved.body.data.id);
      expect(draft.status).toBe(409);
      expect(draft.body).toMatchObject({ msg: '当前状态为“草稿”，不能催办（仅“审核中”状态可以）' });
      // A register's own call: the lead's black-list entry under review.
      const lead = await new Client(server).as('lead');
      const entry = await lead.post<{ id: number }>('/carBlackWhiteList/save', {
        license_plate: `粤U${String(++seq).padStart(5, '0')}`,
        type: 1,
        in_reason: '测试催办',
        start_time: `${server.app.ctx.time().slice(0, 10)} 00:00:00`,
        end_time: '2031-12-31 23:59:59',
      });
      expect(entry.body, JSON.stringify(entry.body)).toMatchObject({ success: true });
      expect((await lead.post('/carBlackWhiteList/push', { id: entry.body.data.id })).body).toMatchObject({ success: true });
      const r = await lead.post('/carBlackWhiteList/urge', { id: entry.body.data.id });
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, data: { times_today: 1 } });
    });
  });
}
