import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState, TaskResult, TaskState, type AppointmentKind } from '../../domain/appointments';
import { dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { departmentBranch } from '../../server/core/department-branch';
import { TOTAL_TTL_MS } from '../../server/core/paging';
import { carApplicationBody, idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, any>;

/**
 * Remembered totals (server/core/paging.ts `rememberedTotal`): the unfiltered
 * department history, all-history and user lists answer a total remembered
 * for a few seconds instead of counting every row on every page. The total
 * must still be right at once after any change made through this server, and
 * within TOTAL_TTL_MS after a change made behind its back (another server on
 * the same database, here a direct write).
 */
for (const dialect of await dialects()) {
  describe(`remembered totals (${dialect})`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let contact: Client, reviewer: Client, squad: Client, admin: Client;
    const depart: Record<string, number> = {};
    let model = 0;
    let reviewerBranch: number[] = [];
    let contactId = 0;
    let today = '';
    let seq = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      model = (await ctx.db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
      const r = await ctx.db.selectFrom('sys_user').select('depart_id').where('account', '=', 'reviewer').executeTakeFirstOrThrow();
      reviewerBranch = await departmentBranch(ctx.db, r.depart_id);
      contactId = (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'contact').executeTakeFirstOrThrow()).user_id;
      [contact, reviewer, squad, admin] = await Promise.all(['contact', 'reviewer', 'squad', 'admin'].map((a) => new Client(server).as(a)));
    });
    afterAll(async () => server?.close());

    const K = {
      car: {
        p: '/carApplications',
        table: 'car_application',
        key: 'car_application_id',
        body: (departId: number) =>
          carApplicationBody({ today, license_plate: `粤T${String(++seq).padStart(5, '0')}`, applicant_idcard: idNumber(++seq, '07'), vehicle_type_id: model, interviewee_depart_id: departId }),
      },
      person: {
        p: '/personApplications',
        table: 'person_application',
        key: 'person_application_id',
        body: (departId: number) => personApplicationBody({ today, visitor_idcard: idNumber(++seq, '07'), interviewee_depart_id: departId }),
      },
    } as const;

    const total = async (who: Client, url: string, body: Row = {}) => {
      const r = await who.post<{ total: number; list: Row[] }>(url, { size: 10, pn: 1, ...body });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data.total;
    };
    /** The same totals counted straight from the database. */
    const counted = async (kind: AppointmentKind, scope: 'history' | 'all' | 'own') => {
      let q = (ctx.db as any).selectFrom(K[kind].table).where('is_deleted', '=', 0);
      if (scope === 'own') q = q.where('create_user_id', '=', contactId);
      if (scope === 'history') q = q.where('interviewee_depart_id', 'in', reviewerBranch).where('state', '!=', AppState.DRAFT);
      return Number((await q.select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    };
    const stateOf = async (kind: AppointmentKind, id: number) =>
      ((await (ctx.db as any).selectFrom(K[kind].table).select('state').where(K[kind].key, '=', id).executeTakeFirstOrThrow()) as { state: number }).state;
    const ok = async (who: Client, url: string, body: Row) => {
      const r = await who.post<any>(url, body);
      expect(r.body, `${url} ${JSON.stringify(r.body)}`).toMatchObject({ success: true });
      return r.body.data;
    };

    for (const kind of ['car', 'person'] as const) {
      it(`${kind}: department history, all-history and own totals are right at once after create, submit, revoke, an edit back to draft and delete`, async () => {
        const { p } = K[kind];
        const history = () => total(reviewer, `${p}/history/list`);
        const all = () => total(squad, `${p}/all/history/list`);
        const own = () => total(contact, `${p}/list`);
        const expectTotals = async (h: number, a: number) => {
          expect(await history()).toBe(h);
          expect(await all()).toBe(a);
          expect(await own()).toBe(o0 + a - a0);
          expect(await counted(kind, 'history')).toBe(h);
          expect(await counted(kind, 'all')).toBe(a);
          expect(await counted(kind, 'own')).toBe(o0 + a - a0);
        };
        const h0 = await history();
        const a0 = await all();
        const o0 = await own();
        expect(h0).toBe(await counted(kind, 'history'));
        expect(a0).toBe(await counted(kind, 'all'));
        expect(o0).toBe(await counted(kind, 'own'));

        // A draft: in the all-history total, not yet in the department's history.
        const id = (await ok(contact, `/v2${p}/save`, K[kind].body(depart.CNOOC_SHELL!))).id as number;
        await expectTotals(h0, a0 + 1);
        // Submitted (state 0 → 1): the department's history counts it at once.
        await ok(contact, `${p}/push`, { id });
        await expectTotals(h0 + 1, a0 + 1);
        // Revoked (state 4) stays in the history.
        await ok(contact, `${p}/revoke`, { id, reason: '行程取消' });
        await expectTotals(h0 + 1, a0 + 1);
        // Edited to another department: the approval no longer applies, the application is a draft again and leaves this history.
        await ok(contact, `${p}/edit`, { ...K[kind].body(depart.YUXIN!), id });
        expect(await stateOf(kind, id)).toBe(AppState.DRAFT);
        await expectTotals(h0, a0 + 1);
        // Deleted: gone from the all-history total too.
        await ok(contact, `${p}/delete`, { id });
        await expectTotals(h0, a0);
        // Filters are counted exactly, never remembered.
        const filtered = { state: AppState.APPROVED };
        const before = await total(reviewer, `${p}/history/list`, filtered);
        await (ctx.db as any).updateTable(K[kind].table).set({ state: AppState.APPROVED }).where(K[kind].key, '=', id).execute();
        await (ctx.db as any).updateTable(K[kind].table).set({ is_deleted: 0, interviewee_depart_id: depart.CNOOC_SHELL }).where(K[kind].key, '=', id).execute();
        expect(await total(reviewer, `${p}/history/list`, filtered)).toBe(before + 1);
        // The unfiltered total, changed behind the server's back (as another server would), shows within the TTL.
        expect(await history()).toBe(h0);
        const seen = Date.now();
        let now = h0;
        while (now !== h0 + 1 && Date.now() - seen < TOTAL_TTL_MS + 2000) {
          await new Promise((r) => setTimeout(r, 250));
          now = await history();
        }
        expect(now).toBe(h0 + 1);
        expect(Date.now() - seen).toBeLessThan(TOTAL_TTL_MS + 1000);
      });
    }

    it('the approver queue total is right at once after a submit, a revoke and a decision; a date filter counts exactly', async () => {
      const reviewerId = (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'reviewer').executeTakeFirstOrThrow()).user_id;
      const queue = (body: Row = {}) => total(reviewer, '/carApplications/task/page', body);
      const counted = async () =>
        Number(
          (
            await ctx.db
              .selectFrom('process_task')
              .where('user_id', '=', reviewerId)
              .where('queue', '=', 'car_task')
              .where('state', '=', TaskState.PENDING)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const q0 = await queue();
      expect(q0).toBe(await counted());
      const submit = async () => {
        const id = (await ok(contact, '/v2/carApplications/save', K.car.body(depart.CNOOC_SHELL!))).id as number;
        await ok(contact, '/carApplications/push', { id });
        return id;
      };
      // A submit gives the reviewer a task: the remembered total of the queue counts it at once.
      const first = await submit();
      expect(await queue()).toBe(q0 + 1);
      await ok(contact, '/carApplications/revoke', { id: first, reason: '行程取消' });
      expect(await queue()).toBe(q0);
      await submit();
      expect(await queue()).toBe(q0 + 1);
      expect(await queue()).toBe(await counted());
      const page = await reviewer.post<{ list: Row[] }>('/carApplications/task/page', { size: 10, pn: 1 });
      const taskId = page.body.data.list[0]!.process_task_id as number;
      const dated = await queue({ begin_time: `${today} 00:00:00` });
      await ok(reviewer, '/carApplications/task/check', { taskIds: [taskId], result: TaskResult.APPROVE, remark: '' });
      expect(await queue()).toBe(q0);
      expect(await queue()).toBe(await counted());
      expect(await queue({ begin_time: `${today} 00:00:00` })).toBe(dated - 1);
    });

    it('the user list total is right at once after create, disable and delete, and a direct write shows within the TTL', async () => {
      const users = (body: Row = {}) => total(admin, '/user/page', body);
      const counted = async (status?: number) => {
        let q = ctx.db.selectFrom('sys_user').where('deleted', '=', 0);
        if (status !== undefined) q = q.where('status', '=', status);
        return Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      };
      const u0 = await users();
      expect(u0).toBe(await counted());
      const v = { userName: '计数用户', account: `total${Date.now().toString(36)}`, password: 'Passw0rdX', gender: 1, phone: '13912345678', departId: depart.CNOOC_SHELL };
      const { user_id } = await ok(admin, '/user/save', { content: await admin.encrypt(v) });
      expect(await users()).toBe(u0 + 1);
      expect(await users()).toBe(await counted());
      // Disabled: still a live user; the status filter counts exactly.
      const disabled = await users({ status: 0 });
      await ok(admin, '/user/update', { content: await admin.encrypt({ ...v, userId: user_id, password: '', status: 0 }) });
      expect(await users()).toBe(u0 + 1);
      expect(await users({ status: 0 })).toBe(disabled + 1);
      expect(await users({ status: 0 })).toBe(await counted(0));
      await ok(admin, '/user/delete', { userId: user_id });
      expect(await users()).toBe(u0);
      expect(await users()).toBe(await counted());

      // Behind the server's back: the remembered total holds until the TTL runs out, then the new count shows.
      await ctx.db.updateTable('sys_user').set({ deleted: 0 }).where('user_id', '=', user_id).execute();
      expect(await users()).toBe(u0);
      const seen = Date.now();
      let now = u0;
      while (now !== u0 + 1 && Date.now() - seen < TOTAL_TTL_MS + 2000) {
        await new Promise((r) => setTimeout(r, 250));
        now = await users();
      }
      expect(now).toBe(u0 + 1);
      expect(Date.now() - seen).toBeLessThan(TOTAL_TTL_MS + 1000);
      await ctx.db.updateTable('sys_user').set({ deleted: 1 }).where('user_id', '=', user_id).execute();
    });
  });
}
