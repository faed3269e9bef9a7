import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState, appointmentCodes, type AppointmentKind } from '../../domain/appointments';
import { allPermissionCodes, type MenuNode } from '../../domain/permissions';
import { dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { contactRoles } from '../../server/db/migrations/008-contact-roles';
import { carApplicationBody, idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type Reply, type TestServer } from './harness';

type Row = Record<string, any>;
type Page = { list: Row[]; total: number };
type Info = { permissions: string[]; menus: MenuNode[]; roleNames: string[] };

const K = {
  car: { p: '/carApplications', key: 'car_application_id', table: 'car_application', noun: '车辆预约', returnKey: 'carApplicationId' },
  person: { p: '/personApplications', key: 'person_application_id', table: 'person_application', noun: '人员预约', returnKey: 'personApplicationId' },
} as const;
const kindNames: AppointmentKind[] = ['car', 'person'];
const menuCodes = (menus: MenuNode[]): string[] => menus.flatMap((m) => [m.code, ...menuCodes(m.children ?? [])]);

/**
 * README's "Demo accounts" table, row by row, through the HTTP API on each
 * dialect over the seeded demo park: what each role sees and does, and what
 * it must not reach. The rule at the heart of it (issue 9, item 7): a contact
 * handles the appointments the contact filed; reading and revoking visits
 * that others filed belongs to the visited enterprise's reviewer (department
 * history, its branch) and the squad (all-history).
 */
for (const dialect of await dialects()) {
  describe(`role matrix (${dialect})`, () => {
    let server: TestServer;
    let ctx: AppContext;
    const as: Record<string, Client> = {};
    const ids: Record<string, number> = {};
    const depart: Record<string, number> = {};
    const car: Record<string, Row> = {};
    const person: Record<string, Row> = {};
    /** Submitted applications that visit 惠州港务 instead of 中海壳牌, filed by portcontact. */
    const elsewhere: Record<AppointmentKind, number> = { car: 0, person: 0 };
    let today = '';

    const stateOf = async (kind: AppointmentKind, id: number) =>
      (
        (await ctx.db
          .selectFrom(K[kind].table as 'car_application')
          .select('state')
          .where(K[kind].key as 'car_application_id', '=', id)
          .executeTakeFirstOrThrow()) as { state: number }
      ).state;
    const idOf = (kind: AppointmentKind, r: Row) => r[K[kind].key] as number;
    const expectStatus = (r: Reply, status: number, what: string) => expect(r.status, `${what}: ${JSON.stringify(r.body)}`).toBe(status);
    const expect403 = (r: Reply, code: string, what: string) => {
      expectStatus(r, 403, what);
      expect(r.body.msg, what).toContain(code);
    };
    const expect404 = (r: Reply, kind: AppointmentKind, what: string) => {
      expectStatus(r, 404, what);
      expect(r.body.msg, what).toBe(`${K[kind].noun}不存在或已被删除`);
    };
    /** Status of a call whose answer may be a file (exports), with the body read. */
    const rawStatus = async (who: Client, url: string, body: unknown) => {
      const res = await fetch(`${server.base}/api${url}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${who.token}` }, body: JSON.stringify(body) });
      await res.arrayBuffer();
      return res.status;
    };
    const info = async (who: Client) => (await who.get<Info>('/user/info')).body.data;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      for (const u of await ctx.db.selectFrom('sys_user').select(['user_id', 'account']).execute()) ids[u.account] = u.user_id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      for (const r of await ctx.db.selectFrom('car_application').selectAll().execute()) car[r.license_plate] = r;
      for (const r of await ctx.db.selectFrom('person_application').selectAll().execute()) person[r.visitor_name] = r;
      const accounts = ['admin', 'contact', 'portcontact', 'reviewer', 'squad', 'hazard', 'patrol', 'lead', 'auditor', 'norole'];
      const clients = await Promise.all(accounts.map((a) => new Client(server).as(a)));
      accounts.forEach((a, i) => (as[a] = clients[i]!));

      // Visits to another enterprise: 惠州港务 gets a reviewer so that portcontact can submit there.
      const role = await ctx.db.selectFrom('sys_role').select('role_id').where('code', '=', 'enterprise_reviewer').where('deleted', '=', 0).executeTakeFirstOrThrow();
      const now = ctx.time();
      const { user_id } = await ctx.db
        .insertInto('sys_user')
        .values({
          user_name: '港务审核员',
          account: 'matrix_port_reviewer',
          password_hash: 'x',
          gender: 0,
          phone: '13911114444',
          depart_id: depart.HZ_PORT!,
          status: 1,
          uuid: `matrix_port_reviewer_${dialect}`,
          create_user_id: null,
          create_time: now,
          update_time: now,
        })
        .returning('user_id')
        .executeTakeFirstOrThrow();
      await ctx.db.insertInto('sys_user_role').values({ user_id, role_id: role.role_id }).execute();
      const model = await ctx.db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow();
      const bodies: Record<AppointmentKind, Row> = {
        car: {
          ...carApplicationBody({ today, license_plate: '粤A90001', applicant_idcard: idNumber(901), vehicle_type_id: model.id, interviewee_depart_id: depart.HZ_PORT! }),
          interviewee_name: '港务审核员',
          interviewee_phone: '13911114444',
        },
        person: {
          ...personApplicationBody({ today, visitor_idcard: idNumber(902), interviewee_depart_id: depart.HZ_PORT! }),
          visitor_name: '港务访客',
          visit_area: 2,
          interviewee_name: '港务审核员',
          interviewee_phone: '13911114444',
        },
      };
      for (const kind of kindNames) {
        const saved = await as.portcontact!.post<{ id: number }>(`/v2${K[kind].p}/save`, bodies[kind]);
        expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
        elsewhere[kind] = saved.body.data.id;
        expect((await as.portcontact!.post(`${K[kind].p}/push`, { id: elsewhere[kind] })).body).toMatchObject({ success: true, msg: '提交成功！' });
      }

      // The squad's final approval of portcontact's person visit waiting there (徐海): an approved application another contact filed.
      const finals = await as.squad!.post<Page>('/personApplications/shdd_final/taskPage', { size: 100 });
      const task = finals.body.data.list.find((t) => t.ref_id === person['徐海']!.person_application_id);
      expect(task, JSON.stringify(finals.body)).toBeTruthy();
      const checked = await as.squad!.post('/personApplications/shdd_final/taskCheck', { taskIds: [task!.process_task_id], result: 1, remark: '同意' });
      expect(checked.body, JSON.stringify(checked.body)).toMatchObject({ success: true });
      person['徐海'] = { ...person['徐海'], state: await stateOf('person', person['徐海']!.person_application_id) };
    });
    afterAll(async () => server?.close());

    it('seeds what these tests read', () => {
      const by = (r: Row) => r.create_user_id;
      expect(car['粤LD1208']).toMatchObject({ state: AppState.REVIEW, create_user_id: ids.contact, interviewee_depart_id: depart.CNOOC_SHELL });
      expect(car['粤LU1856']).toMatchObject({ state: AppState.APPROVED, create_user_id: ids.contact });
      expect(car['粤L3K5Q8']).toMatchObject({ state: AppState.DRAFT, create_user_id: ids.contact });
      // The four of portcontact's vehicle visits to 中海壳牌 that a history revoke could reach (states 1 and 2).
      for (const plate of ['粤LX4915', '粤LG1573', '粤LC9450', '粤LE0386']) {
        expect(by(car[plate]!), plate).toBe(ids.portcontact);
        expect(car[plate]!.interviewee_depart_id, plate).toBe(depart.CNOOC_SHELL);
        expect([AppState.REVIEW, AppState.APPROVED], plate).toContain(car[plate]!.state);
      }
      expect(car['粤LC9450']!.state).toBe(AppState.APPROVED);
      expect(car['粤LW3370']).toMatchObject({ state: AppState.DRAFT, create_user_id: ids.portcontact });
      expect(person['杨洋']).toMatchObject({ state: AppState.REVIEW, create_user_id: ids.portcontact, interviewee_depart_id: depart.CNOOC_SHELL });
      expect(person['徐海']).toMatchObject({ state: AppState.APPROVED, create_user_id: ids.portcontact });
      expect(person['黄俊']).toMatchObject({ state: AppState.REVIEW, create_user_id: ids.contact });
      expect(person['周明远']).toMatchObject({ state: AppState.APPROVED, create_user_id: ids.contact });
    });

    // ------------------------------------------------------------------ contact, portcontact

    it('contact: lists, reads, follows and gets the pass of the appointments the contact filed, drafts included', async () => {
      for (const kind of kindNames) {
        const { p } = K[kind];
        const list = await as.contact!.post<Page>(`${p}/list`, { size: 1000 });
        expectStatus(list, 200, `${kind} own list`);
        expect(list.body.data.list.length).toBeGreaterThan(0);
        expect(list.body.data.list.every((r) => r.create_user_id === ids.contact)).toBe(true);
        const states = new Set(list.body.data.list.map((r) => r.state));
        for (const state of [AppState.DRAFT, AppState.REVIEW, AppState.APPROVED, AppState.REJECTED]) expect(states.has(state), `${kind} state ${state}`).toBe(true);
        const mine = kind === 'car' ? car['粤LU1856']! : person['周明远']!;
        expectStatus(await as.contact!.get(`${p}/detail?id=${idOf(kind, mine)}`), 200, `${kind} own detail`);
        expectStatus(await as.contact!.post(`/v2${p}/check/process/info`, { id: idOf(kind, mine) }), 200, `${kind} own process`);
        expectStatus(await as.contact!.get(`${p}/pass?id=${idOf(kind, mine)}`), 200, `${kind} own pass`);
      }
      expectStatus(await as.contact!.post('/carApplications/get', { id: car['粤L3K5Q8']!.car_application_id }), 200, 'own draft for edit');
    });

    it('contact: holds no history code, and its menu has its own lists but no history screens', async () => {
      const { permissions, menus } = await info(as.contact!);
      for (const kind of kindNames) {
        const c = appointmentCodes[kind];
        for (const code of [c.list, c.add, c.edit, c.delete, c.commit, c.revoke]) expect(permissions, code).toContain(code);
        for (const code of [c.historyList, c.historyRevoke, c.allList, c.allExport, c.allRevoke]) expect(permissions, code).not.toContain(code);
      }
      const shown = menuCodes(menus);
      expect(shown).toEqual(expect.arrayContaining(['menu:personApply', 'menu:carApply']));
      for (const m of ['menu:personApplyHistory', 'menu:carApplyHistory', 'menu:allPersonApplyHistory', 'menu:allCarApplyHistory']) expect(shown, m).not.toContain(m);
    });

    it('contact: 403 on every history list, detail and revoke', async () => {
      for (const kind of kindNames) {
        const { p, returnKey } = K[kind];
        const c = appointmentCodes[kind];
        const own = idOf(kind, kind === 'car' ? car['粤LD1208']! : person['黄俊']!);
        expect403(await as.contact!.post(`${p}/history/list`, {}), c.historyList, `${kind} history list`);
        expect403(await as.contact!.get(`${p}/history/detail?id=${own}`), c.historyList, `${kind} history detail`);
        expect403(await as.contact!.post(`${p}/revokeForHis`, { id: own, reason: '测试' }), c.historyRevoke, `${kind} revokeForHis`);
        expect403(await as.contact!.post(`${p}/all/history/list`, {}), c.allList, `${kind} all-history list`);
        expect403(await as.contact!.get(`${p}/all/history/detail?id=${own}`), c.allList, `${kind} all-history detail`);
        expect403(await as.contact!.post(`${p}/revokeForAllHis`, { id: own, reason: '测试' }), c.allRevoke, `${kind} revokeForAllHis`);
        expect403(await as.contact!.post(`${p}/return`, { [returnKey]: own, remark: '测试' }), c.allRevoke, `${kind} reject`);
        expect(await stateOf(kind, own)).toBe(AppState.REVIEW);
      }
      expect403(await as.contact!.post('/carApplications/task/page', {}), 'carApplyApproval:list', 'vehicle queue');
      expect403(await as.contact!.post('/personApplications/task/page', {}), 'personAppyApproval:list', 'person queue');
    });

    it('contact: portcontact’s visits to 中海壳牌 read as absent: no detail, pass, process, edit or revoke', async () => {
      for (const kind of kindNames) {
        const { p } = K[kind];
        const theirs = kind === 'car' ? ['粤LX4915', '粤LG1573', '粤LC9450', '粤LE0386'].map((pl) => car[pl]!) : [person['杨洋']!, person['徐海']!];
        for (const row of theirs) {
          const id = idOf(kind, row);
          const before = await stateOf(kind, id);
          expect404(await as.contact!.get(`${p}/detail?id=${id}`), kind, `${kind} detail of ${row.application_number}`);
          expect404(await as.contact!.get(`${p}/pass?id=${id}`), kind, `${kind} pass of ${row.application_number}`);
          expect404(await as.contact!.post(`/v2${p}/check/process/info`, { id }), kind, `${kind} process of ${row.application_number}`);
          expect404(await as.contact!.post(`${p}/get`, { id }), kind, `${kind} get of ${row.application_number}`);
          expect404(await as.contact!.post(`${p}/revoke`, { id, reason: '测试' }), kind, `${kind} revoke of ${row.application_number}`);
          expect403(await as.contact!.post(`${p}/revokeForHis`, { id, reason: '测试' }), appointmentCodes[kind].historyRevoke, `${kind} revokeForHis of ${row.application_number}`);
          expect(await stateOf(kind, id)).toBe(before);
        }
        const list = await as.contact!.post<Page>(`${p}/list`, { size: 1000 });
        const seen = new Set(list.body.data.list.map((r) => idOf(kind, r)));
        for (const row of theirs) expect(seen.has(idOf(kind, row))).toBe(false);
      }
    });

    it('contact: revokes an appointment the contact filed', async () => {
      for (const kind of kindNames) {
        const { p } = K[kind];
        const id = idOf(kind, kind === 'car' ? car['粤LD1208']! : person['黄俊']!);
        const r = await as.contact!.post(`${p}/revoke`, { id, reason: '行程取消' });
        expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '撤销审核成功！' });
        expect(await stateOf(kind, id)).toBe(AppState.REVOKED);
      }
    });

    it('portcontact: the same for the appointments the port contact filed, and nothing of contact’s', async () => {
      const { permissions } = await info(as.portcontact!);
      expect(permissions).not.toContain('carApplyHistory:list');
      expect(permissions).not.toContain('personApplyHistory:list');
      for (const kind of kindNames) {
        const { p } = K[kind];
        const list = await as.portcontact!.post<Page>(`${p}/list`, { size: 1000 });
        expectStatus(list, 200, `${kind} own list`);
        expect(list.body.data.list.length).toBeGreaterThan(0);
        expect(list.body.data.list.every((r) => r.create_user_id === ids.portcontact)).toBe(true);
        expect(list.body.data.list.map((r) => idOf(kind, r))).toContain(elsewhere[kind]);
        expect403(await as.portcontact!.post(`${p}/history/list`, {}), appointmentCodes[kind].historyList, `${kind} history list`);
        const contacts = idOf(kind, kind === 'car' ? car['粤LU1856']! : person['周明远']!);
        expect404(await as.portcontact!.get(`${p}/detail?id=${contacts}`), kind, `${kind} contact's detail`);
        expect404(await as.portcontact!.get(`${p}/pass?id=${contacts}`), kind, `${kind} contact's pass`);
      }
      expectStatus(await as.portcontact!.get(`/carApplications/pass?id=${car['粤LC9450']!.car_application_id}`), 200, 'own car pass');
      expectStatus(await as.portcontact!.get(`/personApplications/pass?id=${person['徐海']!.person_application_id}`), 200, 'own person pass');
    });

    // ------------------------------------------------------------------ reviewer

    it('reviewer: department history of visits to 中海壳牌, whoever filed them, submitted ones only', async () => {
      const { permissions, menus } = await info(as.reviewer!);
      expect(menuCodes(menus)).toEqual(expect.arrayContaining(['menu:personApplyHistory', 'menu:carApplyHistory']));
      for (const kind of kindNames) {
        const { p } = K[kind];
        const c = appointmentCodes[kind];
        expect(permissions).toEqual(expect.arrayContaining([c.historyList, c.historyRevoke]));
        const history = await as.reviewer!.post<Page>(`${p}/history/list`, { size: 1000 });
        expectStatus(history, 200, `${kind} history list`);
        const rows = history.body.data.list;
        expect(rows.every((r) => r.interviewee_depart_id === depart.CNOOC_SHELL && r.state !== AppState.DRAFT)).toBe(true);
        expect(new Set(rows.map((r) => r.create_user_id))).toEqual(new Set([ids.contact, ids.portcontact]));
        const seen = rows.map((r) => idOf(kind, r));
        expect(seen).not.toContain(elsewhere[kind]);
        expect(seen).not.toContain(idOf(kind, kind === 'car' ? car['粤LW3370']! : person['蔡志伟']!));

        const theirs = idOf(kind, kind === 'car' ? car['粤LC9450']! : person['徐海']!);
        expect(seen).toContain(theirs);
        expectStatus(await as.reviewer!.get(`${p}/history/detail?id=${theirs}`), 200, `${kind} history detail of portcontact's`);
        expectStatus(await as.reviewer!.get(`${p}/pass?id=${theirs}`), 200, `${kind} pass of portcontact's`);
        expectStatus(await as.reviewer!.post(`/v2${p}/check/process/info`, { id: theirs }), 200, `${kind} process of portcontact's`);
      }
    });

    it('reviewer: not visits to another enterprise, not drafts, not the own lists or all-history', async () => {
      for (const kind of kindNames) {
        const { p, returnKey } = K[kind];
        const c = appointmentCodes[kind];
        const other = elsewhere[kind];
        expect404(await as.reviewer!.get(`${p}/history/detail?id=${other}`), kind, `${kind} history detail elsewhere`);
        expect404(await as.reviewer!.get(`${p}/pass?id=${other}`), kind, `${kind} pass elsewhere`);
        expect404(await as.reviewer!.post(`/v2${p}/check/process/info`, { id: other }), kind, `${kind} process elsewhere`);
        expect404(await as.reviewer!.post(`${p}/revokeForHis`, { id: other, reason: '测试' }), kind, `${kind} revokeForHis elsewhere`);
        expect(await stateOf(kind, other)).toBe(AppState.REVIEW);
        const draft = idOf(kind, kind === 'car' ? car['粤LW3370']! : person['蔡志伟']!);
        expect404(await as.reviewer!.get(`${p}/history/detail?id=${draft}`), kind, `${kind} history detail of a draft`);
        expect404(await as.reviewer!.post(`${p}/revokeForHis`, { id: draft, reason: '测试' }), kind, `${kind} revokeForHis of a draft`);
        expect403(await as.reviewer!.post(`${p}/list`, {}), c.list, `${kind} own list`);
        expect403(await as.reviewer!.post(`/v2${p}/save`, {}), c.add, `${kind} save`);
        expect403(await as.reviewer!.post(`${p}/all/history/list`, {}), c.allList, `${kind} all-history list`);
        expect403(await as.reviewer!.post(`${p}/revokeForAllHis`, { id: other, reason: '测试' }), c.allRevoke, `${kind} revokeForAllHis`);
        expect403(await as.reviewer!.post(`${p}/return`, { [returnKey]: other, remark: '测试' }), c.allRevoke, `${kind} reject`);
      }
    });

    it('reviewer: first-approval queues of visits to 中海壳牌, no final queues', async () => {
      const pending = await as.reviewer!.get<Array<{ queue: string }>>('/approval/pending');
      expectStatus(pending, 200, 'pending');
      for (const path of ['/carApplications/task/page', '/personApplications/task/page']) {
        const page = await as.reviewer!.post<Page>(path, { size: 100 });
        expectStatus(page, 200, path);
        expect(page.body.data.total, path).toBeGreaterThan(0);
      }
      for (const path of ['/carApplications/zxzxc_task/page', '/carApplications/bus_task/page', '/carApplications/chemicals_task/page']) expectStatus(await as.reviewer!.post(path, {}), 200, path);
      // Amend visit date: on an application waiting in the reviewer's queue.
      const mine = (await as.reviewer!.post<Page>('/carApplications/task/page', { size: 100 })).body.data.list[0]!;
      const app = await ctx.db.selectFrom('car_application').select(['car_application_id', 'process_instance_id']).where('car_application_id', '=', mine.ref_id).executeTakeFirstOrThrow();
      const amend = { car_application_id: app.car_application_id, process_instance_id: app.process_instance_id };
      expect((await as.reviewer!.post('/carApplications/canAmend', amend)).body.data).toBe(true);
      expect((await as.contact!.post('/carApplications/canAmend', amend)).body.data).toBe(false);
      expect403(await as.reviewer!.post('/carApplications/shdd_final/taskPage', {}), 'carShddFinalCheck:check', 'car final');
      expect403(await as.reviewer!.post('/personApplications/shdd_final/taskPage', {}), 'personShddFinalCheck:check', 'person final');
    });

    it('reviewer: revokes from department history a visit to 中海壳牌 that portcontact filed', async () => {
      for (const kind of kindNames) {
        const { p } = K[kind];
        const id = idOf(kind, kind === 'car' ? car['粤LX4915']! : person['杨洋']!);
        expect(await stateOf(kind, id)).toBe(AppState.REVIEW);
        const r = await as.reviewer!.post(`${p}/revokeForHis`, { id, reason: '被访企业取消接待' });
        expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '撤销审核成功！' });
        expect(await stateOf(kind, id)).toBe(AppState.REVOKED);
      }
    });

    // ------------------------------------------------------------------ squad

    it('squad: all-history of every visit (drafts and other enterprises included), final queues, reject, resume, revoke, export', async () => {
      for (const kind of kindNames) {
        const { p, returnKey } = K[kind];
        const all = await as.squad!.post<Page>(`${p}/all/history/list`, { size: 1000 });
        expectStatus(all, 200, `${kind} all-history`);
        const seen = all.body.data.list.map((r) => idOf(kind, r));
        const draft = idOf(kind, kind === 'car' ? car['粤LW3370']! : person['蔡志伟']!);
        expect(seen).toEqual(expect.arrayContaining([elsewhere[kind], draft]));
        expect(new Set(all.body.data.list.map((r) => r.interviewee_depart_id))).toEqual(new Set([depart.CNOOC_SHELL, depart.HZ_PORT]));
        expectStatus(await as.squad!.get(`${p}/all/history/detail?id=${elsewhere[kind]}`), 200, `${kind} all-history detail elsewhere`);
        expectStatus(await as.squad!.get(`${p}/pass?id=${idOf(kind, kind === 'car' ? car['粤LU1856']! : person['周明远']!)}`), 200, `${kind} pass`);
        expect(await rawStatus(as.squad!, `${p}/all/history/export`, { visit_area: 2 })).toBe(200);

        // Reject and resume the visit elsewhere, then revoke it from the all-history screen.
        expect((await as.squad!.post(`${p}/return`, { [returnKey]: elsewhere[kind], remark: '资料不全' })).body).toMatchObject({ success: true });
        expect(await stateOf(kind, elsewhere[kind])).toBe(AppState.REJECTED);
        expect((await as.squad!.post(`${p}/returnSubmit`, { [returnKey]: elsewhere[kind] })).body).toMatchObject({ success: true });
        expect(await stateOf(kind, elsewhere[kind])).toBe(AppState.REVIEW);
        expect((await as.squad!.post(`${p}/revokeForAllHis`, { id: elsewhere[kind], reason: '安全检查不合格' })).body).toMatchObject({ success: true });
        expect(await stateOf(kind, elsewhere[kind])).toBe(AppState.REVOKED);

        // No department history and no own lists.
        expect403(await as.squad!.post(`${p}/history/list`, {}), appointmentCodes[kind].historyList, `${kind} history list`);
        expect403(await as.squad!.post(`${p}/list`, {}), appointmentCodes[kind].list, `${kind} own list`);
      }
      for (const path of ['/carApplications/shdd_final/taskPage', '/carApplications/task/page', '/carApplications/chemicals_task/page', '/personApplications/task/page']) {
        expectStatus(await as.squad!.post(path, {}), 200, path);
      }
      const flagged = await as.squad!.post('/label/vehicle/label', { car_application_ids: [elsewhere.car], color_id: 2, label_type_id: 1, alarm_id: 3, remark: '证件与车辆不符', photo: '' });
      expect(flagged.body, JSON.stringify(flagged.body)).toMatchObject({ success: true });
      const final = await as.squad!.post<Page>('/carApplications/shdd_final/taskPage', { size: 100 });
      expect(final.body.data.total).toBeGreaterThan(0);
    });

    it('squad: reads both black/white lists from their menus (README), but files no entry', async () => {
      const shown = menuCodes((await info(as.squad!)).menus);
      for (const [base, code, add] of [
        ['/carBlackWhiteList', 'menu:carList', 'carList:add'],
        ['/personBlackWhiteList', 'menu:personList', 'personList:add'],
      ] as const) {
        expect(shown, code).toContain(code);
        const listed = await as.squad!.post<Page>(`${base}/list`, { size: 1000 });
        expectStatus(listed, 200, `${base} list`);
        // Drafts stay the keepers' (issue 23): the squad lists what entered approval.
        expect(listed.body.data.list.map((r) => r.status)).not.toContain(0);
        expect403(await as.squad!.post(`${base}/save`, {}), add, `${base} save`);
      }
    });

    // ------------------------------------------------------------------ hazard

    it('hazard: its own three queues with rows, vehicle all-history read only with passes, nothing of persons', async () => {
      for (const path of ['/carApplications/chemicals_task/page', '/carApplications/zxzxc_task/page', '/carApplications/bus_task/page']) {
        const page = await as.hazard!.post<Page>(path, { size: 100 });
        expectStatus(page, 200, path);
        expect(page.body.data.total, path).toBeGreaterThan(0);
      }
      expect403(await as.hazard!.post('/carApplications/task/page', {}), 'carApplyApproval:list', 'general queue');
      expect403(await as.hazard!.post('/carApplications/shdd_final/taskPage', {}), 'carShddFinalCheck:check', 'car final');
      expect403(await as.hazard!.post('/personApplications/task/page', {}), 'personAppyApproval:list', 'person queue');
      expectStatus(await as.hazard!.post('/carApplications/all/history/list', {}), 200, 'car all-history');
      expect403(await as.hazard!.post('/carApplications/revokeForAllHis', { id: car['粤LU1856']!.car_application_id, reason: '测试' }), 'carApplyAllHis:revoke', 'car revokeForAllHis');
      expect403(await as.hazard!.post('/label/vehicle/label', {}), 'allCarApplyHistory:label', 'flag');
      expect403(await as.hazard!.post('/personApplications/all/history/list', {}), 'allPersonApplyHistory:list', 'person all-history');
      expect403(await as.hazard!.post('/carApplications/history/list', {}), 'carApplyHistory:list', 'car history');
      expect404(await as.hazard!.get(`/personApplications/pass?id=${person['周明远']!.person_application_id}`), 'person', 'person pass');
      expectStatus(await as.hazard!.get(`/carApplications/pass?id=${car['粤LC9450']!.car_application_id}`), 200, 'vehicle pass');
      expect403(await as.hazard!.post('/carApplications/all/history/export', {}), 'allCarApplyHistory:export', 'car export');
      expect403(await as.hazard!.get('/pass/lookup?license_plate=粤LU1856'), 'carMark:list', 'scan lookup');
    });

    // ------------------------------------------------------------------ patrol, lead

    it('patrol: scan lookup, vehicle all-history with passes and flags; no person history, queues or applications', async () => {
      expectStatus(await as.patrol!.get(`/pass/lookup?license_plate=${encodeURIComponent('粤LU1856')}`), 200, 'scan lookup');
      expectStatus(await as.patrol!.post('/carApplications/all/history/list', {}), 200, 'car all-history');
      const flagged = await as.patrol!.post('/label/vehicle/label', {
        car_application_ids: [car['粤LC9450']!.car_application_id],
        color_id: 2,
        label_type_id: 1,
        alarm_id: 3,
        remark: '未按规定路线行驶',
        photo: '',
      });
      expect(flagged.body, JSON.stringify(flagged.body)).toMatchObject({ success: true });
      expectStatus(await as.patrol!.get(`/carApplications/pass?id=${car['粤LC9450']!.car_application_id}`), 200, 'vehicle pass');
      expect404(await as.patrol!.get(`/personApplications/pass?id=${person['周明远']!.person_application_id}`), 'person', 'person pass');
      expect403(await as.patrol!.post('/personApplications/all/history/list', {}), 'allPersonApplyHistory:list', 'person all-history');
      expect403(await as.patrol!.post('/carApplications/all/history/export', {}), 'allCarApplyHistory:export', 'car export');
      expect403(await as.patrol!.post('/carApplications/revokeForAllHis', { id: car['粤LU1856']!.car_application_id, reason: '测试' }), 'carApplyAllHis:revoke', 'car revokeForAllHis');
      expect403(await as.patrol!.post('/carApplications/task/page', {}), 'carApplyApproval:list', 'general queue');
      expect403(await as.patrol!.post('/carApplications/list', {}), 'carApply:list', 'own list');
      expect403(await as.patrol!.post('/user/page', {}), 'user:list', 'users');
    });

    it('lead: scan lookup, vehicle and person all-history with passes, flags; no exports, revokes, rejects or queues', async () => {
      expectStatus(await as.lead!.get(`/pass/lookup?license_plate=${encodeURIComponent('粤LU1856')}`), 200, 'scan lookup');
      expectStatus(await as.lead!.post('/carApplications/all/history/list', {}), 200, 'car all-history');
      expectStatus(await as.lead!.post('/personApplications/all/history/list', {}), 200, 'person all-history');
      const flagged = await as.lead!.post('/label/vehicle/label', {
        car_application_ids: [car['粤LC9450']!.car_application_id],
        color_id: 2,
        label_type_id: 1,
        alarm_id: 3,
        remark: '夜间滞留厂区',
        photo: '',
      });
      expect(flagged.body, JSON.stringify(flagged.body)).toMatchObject({ success: true });
      expect403(await as.lead!.post('/carApplications/all/history/export', {}), 'allCarApplyHistory:export', 'car export');
      expect403(await as.lead!.post('/personApplications/revokeForAllHis', { id: person['周明远']!.person_application_id, reason: '测试' }), 'personApplyAllHis:revoke', 'person revokeForAllHis');
      expect403(await as.lead!.post('/carApplications/return', { carApplicationId: car['粤LG1573']!.car_application_id, remark: '测试' }), 'carApplyAllHis:revoke', 'car reject');
      expectStatus(await as.lead!.get(`/personApplications/pass?id=${person['周明远']!.person_application_id}`), 200, 'person pass');
      expect403(await as.lead!.post('/carApplications/shdd_final/taskPage', {}), 'carShddFinalCheck:check', 'car final');
      expect403(await as.lead!.post('/personApplications/history/list', {}), 'personApplyHistory:list', 'person history');
    });

    // ------------------------------------------------------------------ auditor, norole, admin

    it('auditor: users, vehicle and person all-history with passes and exports, read only', async () => {
      expectStatus(await as.auditor!.post('/user/page', { size: 10, pn: 1 }), 200, 'users');
      for (const kind of kindNames) {
        const { p } = K[kind];
        expectStatus(await as.auditor!.post(`${p}/all/history/list`, {}), 200, `${kind} all-history`);
        expect(await rawStatus(as.auditor!, `${p}/all/history/export`, { visit_area: 1 })).toBe(200);
        expect403(await as.auditor!.post(`${p}/revokeForAllHis`, { id: 1, reason: '测试' }), appointmentCodes[kind].allRevoke, `${kind} revokeForAllHis`);
        expect403(await as.auditor!.post(`${p}/history/list`, {}), appointmentCodes[kind].historyList, `${kind} history`);
        expect403(await as.auditor!.post(`${p}/list`, {}), appointmentCodes[kind].list, `${kind} own list`);
      }
      expectStatus(await as.auditor!.get(`/carApplications/pass?id=${car['粤LC9450']!.car_application_id}`), 200, 'vehicle pass');
      expect403(await as.auditor!.post('/label/vehicle/label', {}), 'allCarApplyHistory:label', 'flag');
      expect403(await as.auditor!.post('/user/save', {}), 'user:add', 'add user');
      expect403(await as.auditor!.get('/pass/lookup?license_plate=粤LU1856'), 'carMark:list', 'scan lookup');
      expect403(await as.auditor!.post('/carApplications/task/page', {}), 'carApplyApproval:list', 'queue');
    });

    it('norole: signs in with no codes and no menu; every role route answers 403', async () => {
      const r = await as.norole!.get<Info>('/user/info');
      expectStatus(r, 200, 'info');
      expect(r.body.data.permissions).toEqual([]);
      expect(r.body.data.menus).toEqual([]);
      for (const call of [
        () => as.norole!.post('/carApplications/list', {}),
        () => as.norole!.get(`/carApplications/pass?id=${car['粤LU1856']!.car_application_id}`),
        () => as.norole!.post('/v2/personApplications/check/process/info', { id: person['周明远']!.person_application_id }),
        () => as.norole!.get('/approval/pending'),
        () => as.norole!.post('/depart/all', {}),
      ]) {
        expectStatus(await call(), 403, 'no role');
      }
    });

    it('admin: every code; reads and acts on every visit through the all-history screens', async () => {
      const { permissions } = await info(as.admin!);
      expect([...permissions].sort()).toEqual([...allPermissionCodes].sort());
      for (const kind of kindNames) {
        const { p } = K[kind];
        expectStatus(await as.admin!.get(`${p}/all/history/detail?id=${idOf(kind, kind === 'car' ? car['粤LC9450']! : person['徐海']!)}`), 200, `${kind} all-history detail`);
        // Its own list is its own (none), its department history that of 园区信息中心 (none visit it).
        expect((await as.admin!.post<Page>(`${p}/list`, {})).body.data.total).toBe(0);
        expect((await as.admin!.post<Page>(`${p}/history/list`, {})).body.data.total).toBe(0);
      }
      expectStatus(await as.admin!.post('/user/page', { size: 10, pn: 1 }), 200, 'users');
      // Every queue opens, empty: no approval node names the admin role.
      for (const path of ['/carApplications/task/page', '/carApplications/shdd_final/taskPage', '/personApplications/task/page']) {
        const page = await as.admin!.post<Page>(path, {});
        expectStatus(page, 200, path);
        expect(page.body.data.total, path).toBe(0);
      }
      expectStatus(await as.admin!.get(`/pass/lookup?license_plate=${encodeURIComponent('粤LU1856')}`), 200, 'scan lookup');
    });

    // ------------------------------------------------------------------ databases seeded before the rule

    it('migration 008 takes the history codes from a contact role seeded the old way and gives the reviewer the history revoke', async () => {
      const roleId = async (code: string) => (await ctx.db.selectFrom('sys_role').select('role_id').where('code', '=', code).where('deleted', '=', 0).executeTakeFirstOrThrow()).role_id;
      const permissionIds = async (codes: string[]) => (await ctx.db.selectFrom('sys_permission').select('permission_id').where('code', 'in', codes).execute()).map((r) => r.permission_id);
      const contactRole = await roleId('enterprise_contact');
      const reviewerRole = await roleId('enterprise_reviewer');
      // The old seed: the contact held department history (list and revoke, with the menus); the reviewer the lists only.
      const old = await permissionIds(['menu:personApplyHistory', 'personApplyHistory:list', 'personApplyHis:revoke', 'menu:carApplyHistory', 'carApplyHistory:list', 'carApplyHis:revoke']);
      await ctx.db
        .insertInto('sys_role_permission')
        .values(old.map((permission_id) => ({ role_id: contactRole, permission_id })))
        .execute();
      await ctx.db
        .deleteFrom('sys_role_permission')
        .where('role_id', '=', reviewerRole)
        .where('permission_id', 'in', await permissionIds(['personApplyHis:revoke', 'carApplyHis:revoke']))
        .execute();
      // The attack works on such a database.
      const theirs = car['粤LE0386']!.car_application_id;
      expectStatus(await as.contact!.get(`/carApplications/history/detail?id=${theirs}`), 200, 'old contact reads portcontact’s visit');
      expect(await info(as.reviewer!)).toMatchObject({ permissions: expect.not.arrayContaining(['carApplyHis:revoke']) });

      await contactRoles().up(ctx.db);
      const contact = await info(as.contact!);
      for (const code of ['personApplyHistory:list', 'personApplyHis:revoke', 'carApplyHistory:list', 'carApplyHis:revoke', 'menu:carApplyHistory'])
        expect(contact.permissions, code).not.toContain(code);
      expect(contact.permissions).toEqual(expect.arrayContaining(['carApply:list', 'personApply:revoke']));
      expect403(await as.contact!.get(`/carApplications/history/detail?id=${theirs}`), 'carApplyHistory:list', 'history detail after the migration');
      expect404(await as.contact!.get(`/carApplications/pass?id=${theirs}`), 'car', 'pass after the migration');
      expect((await info(as.reviewer!)).permissions).toEqual(expect.arrayContaining(['personApplyHistory:list', 'personApplyHis:revoke', 'carApplyHistory:list', 'carApplyHis:revoke']));
      // Run again (a second server starting on the same database finds it done): nothing changes.
      await contactRoles().up(ctx.db);
      expect((await info(as.contact!)).permissions).toEqual(contact.permissions);
    });
  });
}
