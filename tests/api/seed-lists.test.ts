import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState } from '../../domain/appointments';
import { isMainlandIdNumber } from '../../domain/identity';
import { carListCreate, personListCreate } from '../../domain/schemas/black-white-list';
import { inForce } from '../../domain/registers';
import { dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { BLACK_PLATE } from '../../server/seed/seed-appointments';
import { seedDemoLists } from '../../server/seed/seed-lists';
import { InstanceState } from '../../server/workflow/engine';
import { Client, dialects, startServer, type TestServer } from './harness';

type Task = { process_task_id: number; ref_id: number };
const TABLES = ['car_black_white_list', 'person_black_white_list'] as const;

/** The demo black/white lists (server/seed/seed-lists.ts): filed by the lead, moved by the engine, in every state of spec 001 §4. */
for (const dialect of await dialects()) {
  describe(`demo black/white lists on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let today = '';
    let leadId = 0,
      squadId = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      const users = await ctx.db.selectFrom('sys_user').select(['user_id', 'account']).where('account', 'in', ['lead', 'squad']).execute();
      leadId = users.find((u) => u.account === 'lead')!.user_id;
      squadId = users.find((u) => u.account === 'squad')!.user_id;
    });
    afterAll(async () => server?.close());

    const rows = (table: (typeof TABLES)[number]) => ctx.db.selectFrom(table).selectAll().where('deleted', '=', 0).orderBy('id').execute();

    it('seeds vehicle and person entries in every state, filed by the lead, black and white ones in force', async () => {
      for (const table of TABLES) {
        const list = await rows(table);
        expect(new Set(list.map((r) => r.status)), table).toEqual(new Set([0, 1, 2, 3, 4]));
        expect(
          list.every((r) => r.create_user_id === leadId && r.in_reason !== ''),
          table,
        ).toBe(true);
        // Only drafts have no process.
        expect(
          list.every((r) => (r.status === AppState.DRAFT) === (r.process_instance_id === null)),
          table,
        ).toBe(true);
        const live = list.filter((r) => inForce(r, today));
        expect(
          live.some((r) => r.type === 1),
          table,
        ).toBe(true);
        expect(
          live.some((r) => r.type === 2),
          table,
        ).toBe(true);
      }
    });

    it('keeps every entry valid for the form', async () => {
      for (const r of await rows('car_black_white_list')) expect(carListCreate.safeParse(r).success, r.license_plate).toBe(true);
      for (const r of await rows('person_black_white_list')) {
        expect(personListCreate.safeParse(r).success, r.name).toBe(true);
        expect(isMainlandIdNumber(r.idcard), r.idcard).toBe(true);
      }
    });

    it('lists the demo appointments’ black plate in force, approved by the squad, so its draft is saved flagged', async () => {
      const entries = (await rows('car_black_white_list')).filter((r) => r.license_plate === BLACK_PLATE);
      expect(entries).toHaveLength(1);
      const e = entries[0]!;
      expect(e).toMatchObject({ type: 1, status: AppState.APPROVED, in_reason: '多次在厂区内违规停放且拒不配合安保检查' });
      expect(inForce(e, today)).toBe(true);
      expect(e.start_time!.slice(0, 10) <= today).toBe(true);
      const decisions = await ctx.db.selectFrom('process_task').select(['user_id', 'result', 'state']).where('process_instance_id', '=', e.process_instance_id!).execute();
      expect(decisions).toEqual([{ user_id: squadId, result: 1, state: 1 }]);
      const drafts = await ctx.db.selectFrom('car_application').select(['state', 'in_black_list']).where('license_plate', '=', BLACK_PLATE).execute();
      expect(drafts).toEqual([{ state: AppState.DRAFT, in_black_list: 1 }]);
    });

    it('revokes as the revoke route does, with the reason, and leaves the entries under review in the squad’s queues', async () => {
      const squad = await new Client(server).as('squad');
      for (const [table, base] of [
        ['car_black_white_list', '/carBlackWhiteList'],
        ['person_black_white_list', '/personBlackWhiteList'],
      ] as const) {
        const list = await rows(table);
        for (const r of list.filter((x) => x.status === AppState.REVOKED)) {
          expect(r.revoke_reason).not.toBe('');
          const inst = await ctx.db.selectFrom('process_instance').select('state').where('process_instance_id', '=', r.process_instance_id!).executeTakeFirstOrThrow();
          expect(inst.state).toBe(InstanceState.REVOKED);
        }
        const page = await squad.post<{ list: Task[] }>(`${base}/task/page`, { size: 100, pn: 1 });
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        const waiting = list.filter((x) => x.status === AppState.REVIEW).map((x) => x.id);
        expect(page.body.data.list.map((t) => t.ref_id)).toEqual(expect.arrayContaining(waiting));
      }
    });

    it('runs once', async () => {
      const count = async () =>
        Promise.all(
          TABLES.map(async (t) =>
            Number(
              (
                await ctx.db
                  .selectFrom(t)
                  .select((eb) => eb.fn.countAll<number>().as('n'))
                  .executeTakeFirstOrThrow()
              ).n,
            ),
          ),
        );
      const before = await count();
      await seedDemoLists(ctx);
      expect(await count()).toEqual(before);
    });
  });
}
