import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransportListRow, WaybillOption } from '../../domain/schemas/transport-list';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { rgbPng } from '../../server/seed/seed-appointments';
import { carApplicationBody, idNumber, waybillBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, unknown>;
type Task = { process_task_id: number; ref_id: number; approval_status: number; transportList?: TransportListRow & { create_user_name?: string } };
type Page<T> = { list: T[]; total: number };
type Errors = { errors: Array<{ field: string; message: string }> };

for (const dialect of await dialects()) {
  describe(`transport waybills on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let contact: Client, portcontact: Client, hazard: Client, squad: Client, lead: Client, patrol: Client;
    let today = '';
    let annex = '';
    let portAnnex = '';
    let seq = 0;
    const model: Record<string, number> = {};
    const depart: Record<string, number> = {};

    const upload = async (c: Client) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(rgbPng(2, 2, () => [250, 250, 250]))], { type: 'image/png' }), 'waybill.png');
      const r = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
      return ((await r.json()) as { data: { name: string } }).data.name;
    };
    const readFile = (c: Client, name: string) => fetch(`${server.base}/api/file/${name}`, { headers: { authorization: `Bearer ${c.token}` } }).then((r) => r.status);

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      [contact, portcontact, hazard, squad, lead, patrol] = await Promise.all(['contact', 'portcontact', 'hazard', 'squad', 'lead', 'patrol'].map((a) => new Client(server).as(a)));
      annex = await upload(contact);
      portAnnex = await upload(portcontact);
    });
    afterAll(async () => server?.close());

    const plate = () => `粤K${String(++seq).padStart(5, '0')}`;
    const body = (o: Row = {}, file = annex): Row => ({
      ...waybillBody({ today, list_number: `44130020260000${String(seq).padStart(4, '0')}`, license_plate: plate(), annex: file }),
      ...o,
    });

    async function create(o: Row = {}, who = contact, file = annex): Promise<number> {
      const r = await who.post<{ id: number }>('/transportList/save', body(o, file));
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '创建成功！' });
      return r.body.data.id;
    }
    async function submitted(o: Row = {}, who = contact, file = annex): Promise<number> {
      const id = await create(o, who, file);
      expect((await who.post('/transportList/push', { id })).body.msg).toBe('提交成功！');
      return id;
    }
    const row = (id: number) => ctx.db.selectFrom('transport_list').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    async function taskOf(who: Client, id: number): Promise<Task | undefined> {
      const page = await who.post<Page<Task>>('/transportList/taskPage', { size: 100, pn: 1 });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      return page.body.data.list.find((t) => t.ref_id === id);
    }
    async function decide(who: Client, ids: number[], result = 1, remark = '审批通过。') {
      const tasks = await Promise.all(ids.map((id) => taskOf(who, id)));
      expect(tasks.every(Boolean), `tasks of ${ids.join(',')}`).toBe(true);
      return who.post('/transportList/check', { taskIds: tasks.map((t) => t!.process_task_id), result, remark });
    }
    async function approved(o: Row = {}, who = contact, file = annex): Promise<number> {
      const id = await submitted(o, who, file);
      expect((await decide(hazard, [id])).body.msg).toBe('审核成功！');
      expect((await decide(squad, [id])).body.msg).toBe('审核成功！');
      expect((await row(id)).state).toBe(2);
      return id;
    }

    it("seeds the demo contact's waybills in every state, the pending ones in the hazmat and squad queues", async () => {
      const seeded = await ctx.db
        .selectFrom('transport_list')
        .select(['id', 'license_plate', 'state', 'application_number'])
        .where('license_plate', 'like', '粤L7W3%')
        .orderBy('license_plate')
        .execute();
      expect(seeded.map((r) => r.state)).toEqual([0, 1, 1, 2, 2, 3]);
      expect(seeded.every((r) => /^TL\d{14}$/.test(r.application_number ?? ''))).toBe(true);
      expect(await taskOf(hazard, seeded[1]!.id)).toBeTruthy();
      expect(await taskOf(squad, seeded[2]!.id)).toBeTruthy();
      expect((await contact.post<WaybillOption[]>('/transportList/approvedOptions', {})).body.data.map((o) => o.license_plate)).toEqual(['粤L7W304', '粤L7W305']);
    });

    it('checks every field with a message naming it; the trailer, its licence and the tank are optional, the unit is tonnes', async () => {
      const cases: Array<[Row, string, string]> = [
        [{ transport_type: 3 }, 'transport_type', '请选择运输类型'],
        [{ list_number: '' }, 'list_number', '请输入全国运单编号'],
        [{ cargo_name: undefined }, 'cargo_name', '请输入货物名称'],
        [{ cargo_quantity: '' }, 'cargo_quantity', '请输入货物数量'],
        [{ cargo_quantity: 0 }, 'cargo_quantity', '货物数量必须大于0'],
        [{ cargo_quantity: 'abc' }, 'cargo_quantity', '货物数量必须是数字'],
        [{ unified_social_credit_code: '9144' }, 'unified_social_credit_code', '统一社会信用代码格式不正确'],
        [{ license_plate: 'ABC' }, 'license_plate', '车牌号格式不正确'],
        [{ license_plate_color: 99 }, 'license_plate_color', '请选择车牌颜色'],
        [{ trailer_license: '挂车' }, 'trailer_license', '挂车号牌格式不正确'],
        [{ tank_volume: -2 }, 'tank_volume', '罐体容积必须大于0'],
        [{ driver_phone: '12345' }, 'driver_phone', '驾驶员电话格式不正确'],
        [{ shipper_phone: '' }, 'shipper_phone', '请输入托运人电话'],
        [{ loader: '' }, 'loader', '请输入装货人'],
        [{ shipment_date: '2026-02-30' }, 'shipment_date', '起运日期格式不正确'],
        [{ shipment_addr: '' }, 'shipment_addr', '请输入起运地'],
        [{ destination: 'x'.repeat(101) }, 'destination', '目的地：不能超过100个文字'],
        [{ annex: '' }, 'annex', '请上传附件'],
      ];
      for (const [patch, field, msg] of cases) {
        const r = await contact.post('/transportList/save', body(patch));
        expect(r.status, msg).toBe(400);
        expect(r.body.msg).toBe(msg);
        expect((r.body.data as Errors).errors[0]!.field).toBe(field);
      }
      const id = await create({ trailer_license: '', trailer_transport_license: null, tank_volume: undefined, cargo_unit: '' });
      const saved = await contact.get<TransportListRow>(`/transportList/detail?id=${id}`);
      expect(saved.body.data).toMatchObject({
        trailer_license: '',
        trailer_transport_license: '',
        tank_volume: null,
        cargo_unit: '吨',
        cargo_quantity: 28.5,
        unified_social_credit_code: '91441300MA4W8K2L5T',
        state: 0,
      });
      expect(saved.body.data.application_number).toMatch(new RegExp(`^TL${today.replace(/-/g, '')}\\d{6}$`));
      // Someone else's upload cannot be put on a waybill.
      const refused = await contact.post('/transportList/save', body({ annex: portAnnex }));
      expect(refused.status).toBe(400);
      expect(refused.body.msg).toContain('不存在或无权使用');
    });

    it('walks a waybill from draft through the hazardous-goods department to the squad', async () => {
      const id = await create();
      expect((await contact.post('/transportList/checkProcessInfo', { id })).status).toBe(409);
      expect((await contact.post('/transportList/push', { id })).body.msg).toBe('提交成功！');
      expect((await row(id)).state).toBe(1);
      expect((await contact.post('/transportList/edit', { ...body(), id })).status).toBe(409);
      expect((await contact.post('/transportList/delete', { id })).status).toBe(409);
      expect((await contact.post('/transportList/push', { id })).status).toBe(409);

      // The hazardous-goods department decides first; the squad sees nothing yet.
      expect(await taskOf(squad, id)).toBeUndefined();
      const first = await taskOf(hazard, id);
      expect(first).toMatchObject({ approval_status: 1, transportList: { id, cargo_name: '乙二醇', create_user_name: '王芳' } });
      // The filer holds no check code.
      expect((await contact.post('/transportList/check', { taskIds: [first!.process_task_id], result: 1, remark: '' })).status).toBe(403);
      expect((await decide(hazard, [id])).body.msg).toBe('审核成功！');
      expect((await row(id)).state).toBe(1);
      expect((await hazard.post('/transportList/check', { taskIds: [first!.process_task_id], result: 1, remark: '' })).status).toBe(409);
      expect((await decide(squad, [id])).body.msg).toBe('审核成功！');
      expect((await row(id)).state).toBe(2);

      const info = await contact.post<{ processTaskList: Array<{ result: number }> }>('/transportList/checkProcessInfo', { id });
      expect(info.body.data.processTaskList.map((t) => t.result)).toEqual([1, 1]);
      const note = await ctx.db.selectFrom('notification').select(['title', 'url']).where('title', '=', '运单已通过').orderBy('notification_id', 'desc').executeTakeFirst();
      expect(note?.url).toBe(`/vehicles/transport-history?open=${id}`);
      // The approvers read the annex through the waybill; nobody else does.
      expect(await readFile(hazard, annex)).toBe(200);
      expect(await readFile(squad, annex)).toBe(200);
      expect(await readFile(lead, annex)).toBe(404);
    });

    it('lets the hazardous-goods department approve several waybills in one check', async () => {
      const ids = [await submitted(), await submitted(), await submitted()];
      const r = await decide(hazard, ids);
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '审核成功！' });
      for (const id of ids) {
        expect((await row(id)).state).toBe(1);
        expect(await taskOf(hazard, id)).toBeUndefined();
        expect(await taskOf(squad, id)).toBeTruthy();
      }
      expect((await decide(squad, ids)).body.msg).toBe('审核成功！');
      for (const id of ids) expect((await row(id)).state).toBe(2);
    });

    it('needs an opinion to reject; an edit of the rejected waybill makes it a draft again', async () => {
      const id = await submitted();
      const bare = await decide(hazard, [id], 2, '');
      expect(bare.status).toBe(400);
      expect(bare.body.msg).toBe('请输入审批意见');
      expect((await decide(hazard, [id], 2, '驾驶员从业资格证已过期')).body.msg).toBe('审核成功！');
      expect((await row(id)).state).toBe(3);
      expect(await taskOf(squad, id)).toBeUndefined();
      expect((await contact.post('/transportList/edit', { ...body({ driver_qualification_certificate: '4413002024009999' }), id })).body.msg).toBe('编辑成功！');
      expect(await row(id)).toMatchObject({ state: 0, process_instance_id: null, driver_qualification_certificate: '4413002024009999' });
    });

    it('revokes with a reason from the own history and from the all history, each with its own code', async () => {
      const mine = await submitted();
      expect((await contact.post('/transportList/revoke', { id: mine, reason: '' })).body.msg).toBe('请输入撤销理由');
      expect((await contact.post('/transportList/revoke', { id: mine, reason: '车辆临时检修' })).body.msg).toBe('撤销审核成功！');
      expect(await row(mine)).toMatchObject({ state: 4, revoke_reason: '车辆临时检修' });
      expect(await taskOf(hazard, mine)).toBeUndefined();
      expect((await contact.post('/transportList/revoke', { id: mine, reason: '再次' })).status).toBe(409);

      const done = await approved();
      // The squad revokes from the all history; the filer's revoke path is not theirs, nor the squad's path the filer's.
      expect((await squad.post('/transportList/revoke', { id: done, reason: '核查' })).status).toBe(403);
      expect((await contact.post('/transportList/revokeForHis', { id: done, reason: '核查' })).status).toBe(403);
      expect((await hazard.post('/transportList/revokeForHis', { id: done, reason: '核查' })).status).toBe(403);
      expect((await squad.post('/transportList/revokeForHis', { id: done, reason: ' ' })).status).toBe(400);
      expect((await squad.post('/transportList/revokeForHis', { id: done, reason: '承运企业资质被暂停' })).body.msg).toBe('撤销审核成功！');
      expect(await row(done)).toMatchObject({ state: 4, revoke_reason: '承运企业资质被暂停' });
    });

    it("keeps a waybill its filer's: another contact can neither read, change, submit, revoke nor delete it", async () => {
      const draft = await create();
      const live = await submitted();
      for (const [path, b] of [
        ['/transportList/edit', { ...body({}, portAnnex), id: draft }],
        ['/transportList/delete', { id: draft }],
        ['/transportList/push', { id: draft }],
        ['/transportList/get', { id: draft }],
        ['/transportList/revoke', { id: live, reason: '不是我的' }],
        ['/transportList/checkProcessInfo', { id: live }],
      ] as const) {
        expect((await portcontact.post(path, b)).status, path).toBe(404);
      }
      expect((await portcontact.get(`/transportList/detail?id=${draft}`)).status).toBe(404);
      const theirs = await create({}, portcontact, portAnnex);
      const own = await contact.post<Page<TransportListRow>>('/transportList/history', { size: 100, pn: 1 });
      expect(own.body.data.list.some((r) => r.id === draft)).toBe(true);
      expect(own.body.data.list.some((r) => r.id === theirs)).toBe(false);
      expect(own.body.data.list.every((r) => r.create_user_id === own.body.data.list[0]!.create_user_id)).toBe(true);
      // The filer deletes the own draft; it is gone from every read.
      expect((await contact.post('/transportList/delete', { id: draft })).body.msg).toBe('删除成功！');
      expect((await contact.get(`/transportList/detail?id=${draft}`)).status).toBe(404);
    });

    it('shows the all history to the squad with the filters; others get 403, or 404 on a row', async () => {
      const p = plate();
      const mine = await submitted({ license_plate: p, transport_type: 1 });
      const theirs = await create({ shipment_date: addDays(today, 20) }, portcontact, portAnnex);
      expect((await portcontact.post('/transportList/push', { id: theirs })).body.msg).toBe('提交成功！');
      // A draft stays its filer's: the all history shows what entered approval.
      const draft = await create({ shipment_date: addDays(today, 20) }, portcontact, portAnnex);
      const list = async (q: Row) => {
        const r = await squad.post<Page<TransportListRow & { create_user_name: string }>>('/transportList/list', { size: 100, pn: 1, ...q });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.data;
      };
      const all = await list({});
      expect(all.list.map((r) => r.id)).toEqual(expect.arrayContaining([mine, theirs]));
      expect(all.list.map((r) => r.id)).not.toContain(draft);
      expect(all.list.find((r) => r.id === theirs)?.create_user_name).toBe('黄磊');
      expect((await list({ license_plate: p })).list.map((r) => r.id)).toEqual([mine]);
      expect((await list({ license_plate: p, transport_type: 2 })).total).toBe(0);
      expect((await list({ license_plate: p, state: 1 })).total).toBe(1);
      expect((await list({ license_plate: p, state: -1, transport_type: -1 })).total).toBe(1);
      expect((await list({ shipment_begin: addDays(today, 19), shipment_end: addDays(today, 21) })).list.map((r) => r.id)).toContain(theirs);
      expect((await list({ shipment_begin: addDays(today, 19), shipment_end: addDays(today, 21) })).list.map((r) => r.id)).not.toContain(mine);
      expect((await squad.post('/transportList/list', { size: 10, pn: 1, shipment_begin: '2026-13-01' })).status).toBe(400);

      for (const c of [contact, hazard, lead, patrol]) expect((await c.post('/transportList/list', { size: 10, pn: 1 })).status).toBe(403);
      for (const c of [squad, hazard, lead]) expect((await c.post('/transportList/history', { size: 10, pn: 1 })).status).toBe(403);
      expect((await squad.get(`/transportList/detail?id=${theirs}`)).status).toBe(200);
      expect((await hazard.get(`/transportList/detail?id=${mine}`)).status).toBe(200);
      for (const c of [lead, patrol]) expect((await c.get(`/transportList/detail?id=${mine}`)).status).toBe(404);
      expect((await squad.get('/transportList/detail?id=99999999')).status).toBe(404);
    });

    it("offers the caller's own approved waybills, newest first, as cargo_info an appointment accepts", async () => {
      const draft = await create();
      const older = await approved({ transport_type: 1 });
      const newer = await approved({ trailer_license: '', trailer_transport_license: '', tank_volume: '' });
      const theirs = await approved({}, portcontact, portAnnex);
      const mine = await contact.post<WaybillOption[]>('/transportList/approvedOptions', {});
      expect(mine.status, JSON.stringify(mine.body)).toBe(200);
      const ids = mine.body.data.map((o) => o.id);
      expect(ids.indexOf(newer)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(newer)).toBeLessThan(ids.indexOf(older));
      expect(ids).not.toContain(draft);
      expect(ids).not.toContain(theirs);
      // Only approved ones of the caller, whatever the demo seeded besides.
      const rows = await ctx.db.selectFrom('transport_list').select(['id', 'state', 'create_user_id']).where('id', 'in', ids).execute();
      expect(new Set(rows.map((r) => `${r.state}/${r.create_user_id}`)).size).toBe(1);
      expect(rows.every((r) => r.state === 2)).toBe(true);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));

      const option = mine.body.data.find((o) => o.id === older)!;
      expect(option.cargo_info).toMatchObject({
        cargo_name: '乙二醇',
        cargo_quantity: 28.5,
        cargo_unit: '吨',
        license_plate_color: '黄色',
        trailer_license: '粤K1234挂',
        trailer_trasport_license: '粤交运管惠字441300009号',
        tank_volume: 30,
        annex,
      });
      expect((await portcontact.post<WaybillOption[]>('/transportList/approvedOptions', {})).body.data.map((o) => o.id)).toEqual([theirs]);
      const byPlate = await contact.post<WaybillOption[]>('/transportList/approvedOptions', { license_plate: option.license_plate });
      expect(byPlate.body.data.map((o) => o.id)).toEqual([older]);

      // A hazardous load on an appointment takes the cargo_info as it comes, annex included.
      const booking = await contact.post('/v2/carApplications/save', {
        ...carApplicationBody({ today, license_plate: option.license_plate, applicant_idcard: idNumber(seq, '05'), vehicle_type_id: model['普通货车']!, interviewee_depart_id: depart.CNOOC_SHELL! }),
        cargo_type: 1,
        cargo_name: option.cargo_name,
        cargo_info: option.cargo_info,
      });
      expect(booking.body, JSON.stringify(booking.body)).toMatchObject({ success: true });
    });
  });
}
