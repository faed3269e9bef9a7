import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VehicleRegistrationRow } from '../../domain/schemas/vehicle-registration';
import { addDays, addMonths, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { rgbPng } from '../../server/seed/seed-appointments';
import { carApplicationBody, idNumber, registrationBody } from './fixtures';
import { decide } from '../../server/workflow/engine';
import { Client, dialects, startServer, type Reply, type TestServer } from './harness';

type Row = Record<string, unknown>;
type Task = { process_task_id: number; process_instance_id: number; ref_id: number; state: number; approval_status: number; vehicleRegistration?: VehicleRegistrationRow };
type Errors = { errors: Array<{ field: string; message: string }> };

/** Vehicle registrations (车辆备案, spec 001) through the HTTP API on each dialect, with the seeded demo park. */
for (const dialect of await dialects()) {
  describe(`vehicle registrations on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let contact: Client, portcontact: Client, hazard: Client, squad: Client, reviewer: Client, patrol: Client;
    let today = '';
    let photo = '';
    let seq = 0;
    const depart: Record<string, number> = {};
    const model: Record<string, number> = {};

    const upload = async (c: Client) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(rgbPng(2, 2, () => [200, 180, 160]))], { type: 'image/png' }), 'doc.png');
      const r = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
      return ((await r.json()) as { data: { name: string } }).data.name;
    };

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      [contact, portcontact, hazard, squad, reviewer, patrol] = await Promise.all(['contact', 'portcontact', 'hazard', 'squad', 'reviewer', 'patrol'].map((a) => new Client(server).as(a)));
      photo = await upload(contact);
    });
    afterAll(async () => server?.close());

    const plate = () => `粤L${String(++seq).padStart(4, '0')}${dialect === 'sqlite' ? 'R' : 'Q'}`;
    const body = (o: Row = {}): Row => ({ ...registrationBody({ today, license_plate: plate(), photo }), ...o });
    const row = async (id: number) => ctx.db.selectFrom('vehicle_registration').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    /** The documents are the contact's uploads: another filer files without them. */
    const bodyOf = (who: Client, o: Row = {}) => body(who === contact ? o : { registry_img: '', business_license_img: '', ...o });
    async function create(o: Row = {}, who = contact): Promise<number> {
      const r = await who.post<{ id: number }>('/vehicleRegistration/save', bodyOf(who, o));
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '创建成功！' });
      return r.body.data.id;
    }
    async function taskOf(who: Client, id: number, filters: Row = {}): Promise<Task | undefined> {
      const page = await who.post<{ list: Task[]; total: number }>('/vehicleRegistration/task/page', { size: 100, pn: 1, ...filters });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      return page.body.data.list.find((t) => t.ref_id === id);
    }
    const check = (who: Client, t: Task, result = 1, remark = '审批通过。') => who.post('/vehicleRegistration/task/check', { taskIds: [t.process_task_id], result, remark });
    /** Filed, submitted and approved by the hazardous-goods department and the squad. */
    async function approved(o: Row = {}, who = contact): Promise<number> {
      const id = await create(o, who);
      expect((await who.post('/vehicleRegistration/push', { id })).body.msg).toBe('提交成功！');
      for (const approver of [hazard, squad]) expect((await check(approver, (await taskOf(approver, id))!)).body.msg).toBe('审核成功！');
      expect((await row(id)).state).toBe(2);
      return id;
    }
    const expect400 = (r: Reply, field: string, msg: string) => {
      expect(r.status, `${msg}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.msg).toBe(msg);
      expect((r.body.data as Errors).errors[0]!.field).toBe(field);
    };
    const names = (n: number) => Array.from({ length: n }, (_, i) => `doc${i}.png`).join(';');

    it('validates each field with its rule, the message naming the field', async () => {
      const cases: Array<[Row, string, string]> = [
        [{ license_plate: '' }, 'license_plate', '请输入车牌号'],
        [{ license_plate: 'ABC123' }, 'license_plate', '车牌号格式不正确'],
        [{ license_plate_color: 9 }, 'license_plate_color', '请选择车牌颜色'],
        [{ visit_area: 5 }, 'visit_area', '请选择备案园区'],
        [{ visitor_company: ' ' }, 'visitor_company', '请输入来访单位'],
        [{ phone: '' }, 'phone', '请输入手机号'],
        [{ phone: '0752123' }, 'phone', '手机号格式不正确'],
        [{ total_mass: undefined }, 'total_mass', '请输入总质量'],
        [{ total_mass: -1 }, 'total_mass', '总质量必须是不小于0的数字'],
        [{ begin_time: '' }, 'begin_time', '请选择备案开始时间'],
        [{ end_time: '2026-02-30' }, 'end_time', '备案结束时间格式不正确'],
        [{ begin_time: addDays(today, 5), end_time: addDays(today, 2) }, 'end_time', '备案结束时间不能早于备案开始时间'],
        // At most one year (DESIGN.md §7).
        [{ end_time: addDays(addMonths(today, 12), 1) }, 'end_time', '备案结束时间：备案有效期不能超过1年'],
        [{ begin_time: addDays(today, -20), end_time: addDays(today, -1) }, 'end_time', '备案结束时间不能早于今天'],
        // Spec 001 §5: 10 for the registry and the business licence, 300 for most documents, 30 for the GPS document.
        [{ registry_img: names(11) }, 'registry_img', '车辆登记证书：最多上传10张图片'],
        [{ business_license_img: names(11) }, 'business_license_img', '营业执照：最多上传10张图片'],
        [{ driver_info_img: names(301) }, 'driver_info_img', '驾驶员信息：最多上传300张图片'],
        [{ gps_instruction_img: names(31) }, 'gps_instruction_img', 'GPS安装说明：最多上传30张图片'],
        [{ company_road_transport_begin: addDays(today, 10), company_road_transport_end: today }, 'company_road_transport_end', '企业道路运输经营许可证有效期（止）：结束日期不能早于开始日期'],
        [{ tank_report_end: '2026-13-01' }, 'tank_report_end', '罐体检测报告有效期（止）格式不正确'],
        [{ tank_volume: 'abc' }, 'tank_volume', '罐体容积必须是不小于0的数字'],
      ];
      for (const [patch, field, msg] of cases) expect400(await contact.post('/vehicleRegistration/save', body(patch)), field, msg);

      // Plate colour, documents, permits and tank are optional; a plain date is the whole day.
      const id = await create({ license_plate_color: '', registry_img: '', business_license_img: '', begin_time: today, end_time: today });
      expect(await row(id)).toMatchObject({ license_plate_color: null, registry_img: '', tank_volume: null, begin_time: `${today} 00:00:00`, end_time: `${today} 23:59:59`, state: 0 });
      const full = await create({
        gps_instruction_img: photo,
        company_road_transport_number: '粤交运管许可惠字441300012345号',
        company_road_transport_begin: addDays(today, -10),
        company_road_transport_end: addDays(today, 700),
        tank_number: 'GT-01',
        tank_volume: '30.5',
        tank_medium_range: '液碱',
        tank_report_begin: `${addDays(today, -5)} 08:00:00`,
      });
      expect(await row(full)).toMatchObject({ tank_volume: 30.5, company_road_transport_end: addDays(today, 700), tank_report_begin: addDays(today, -5), tank_report_end: null });
      expect((await row(full)).application_number).toMatch(new RegExp(`^VR${today.replace(/-/g, '')}\\d{6}$`));

      // Someone else's upload cannot be put on a registration.
      const refused = await contact.post('/vehicleRegistration/save', body({ driving_permit_img: await upload(squad) }));
      expect(refused.status).toBe(400);
      expect(refused.body.msg).toContain('不存在或无权使用');
    });

    it('walks draft → submit → hazardous-goods department → squad to approved', async () => {
      const id = await create({ visit_area: 1 });
      expect((await contact.post('/v2/vehicleRegistration/check/process/info', { id })).status).toBe(409);
      expect((await contact.post('/vehicleRegistration/push', { id })).body.msg).toBe('提交成功！');
      const stored = await row(id);
      expect(stored.state).toBe(1);
      // Under review: neither edited nor deleted.
      expect((await contact.post('/vehicleRegistration/edit', { ...body(), id })).status).toBe(409);
      expect((await contact.post('/vehicleRegistration/delete', { id })).status).toBe(409);
      // Not in the squad's queue before the first node decides.
      expect(await taskOf(squad, id)).toBeUndefined();

      const first = (await taskOf(hazard, id, { license_plate: stored.license_plate }))!;
      expect(first).toMatchObject({ state: 0, approval_status: 1, vehicleRegistration: { id, license_plate: stored.license_plate, create_user_name: '王芳', createUser: { user_name: '王芳' } } });
      // The park filter: 1 (and 3, both) find a registration of the chemical zone; 2 does not.
      expect(await taskOf(hazard, id, { visit_area: 2 })).toBeUndefined();
      expect(await taskOf(hazard, id, { visit_area: 3 })).toBeTruthy();
      expect(await taskOf(hazard, id, { application_number: stored.application_number!, visitor_company: '测试运输' })).toBeTruthy();
      // The filer holds no check code.
      expect((await check(contact, first)).status).toBe(403);
      expect((await check(hazard, first)).body.msg).toBe('审核成功！');
      expect((await check(hazard, first)).status).toBe(409);
      expect((await row(id)).state).toBe(1);

      const last = (await taskOf(squad, id))!;
      expect((await check(squad, last)).body.msg).toBe('审核成功！');
      expect((await row(id)).state).toBe(2);
      const info = await contact.post<{ processTaskList: Array<{ result: number; user: { user_name: string } }> }>('/v2/vehicleRegistration/check/process/info', { id });
      expect(info.body.data.processTaskList.map((t) => [t.user.user_name, t.result])).toEqual([
        ['刘洋', 1],
        ['陈刚', 1],
      ]);
      const note = await ctx.db.selectFrom('notification').select(['title', 'url', 'user_id']).where('title', '=', '备案已通过').orderBy('notification_id', 'desc').executeTakeFirst();
      expect(note?.url).toBe(`/vehicles/registration?open=${id}`);
    });

    it('a rejection needs an opinion; an edit of the rejected registration makes it a draft again', async () => {
      const id = await create();
      await contact.post('/vehicleRegistration/push', { id });
      const t = (await taskOf(hazard, id))!;
      const bare = await check(hazard, t, 2, '');
      expect(bare.status).toBe(400);
      expect(bare.body.msg).toBe('请输入审批意见');
      expect((await check(hazard, t, 2, '道路运输证已过期')).body.msg).toBe('审核成功！');
      expect((await row(id)).state).toBe(3);
      expect(await taskOf(squad, id)).toBeUndefined();
      const again = await contact.post('/vehicleRegistration/edit', { ...body({ license_plate: (await row(id)).license_plate }), id });
      expect(again.body.msg).toBe('编辑成功！');
      expect(await row(id)).toMatchObject({ state: 0, process_instance_id: null });
    });

    it('revokes with a reason, from the filer’s list and from the history', async () => {
      const id = await approved();
      expect400(await contact.post('/vehicleRegistration/revoke', { id, reason: '' }), 'reason', '请输入撤销理由');
      expect((await contact.post('/vehicleRegistration/revoke', { id, reason: '车辆已转让' })).body.msg).toBe('撤销审核成功！');
      expect(await row(id)).toMatchObject({ state: 4, revoke_reason: '车辆已转让' });
      expect((await contact.post('/vehicleRegistration/revoke', { id, reason: '再次撤销' })).status).toBe(409);

      const other = await approved({}, portcontact);
      expect((await contact.post('/vehicleRegistration/history/revoke', { id: other, reason: '越权' })).status).toBe(403);
      expect((await squad.post('/vehicleRegistration/history/revoke', { id: other, reason: '证件不实' })).body.msg).toBe('撤销审核成功！');
      expect(await row(other)).toMatchObject({ state: 4, revoke_reason: '证件不实' });
      // Revoked: deleted by its filer.
      expect((await portcontact.post('/vehicleRegistration/delete', { id: other })).body.msg).toBe('删除成功！');
      expect((await squad.get(`/vehicleRegistration/history/detail?id=${other}`)).status).toBe(404);
    });

    it("edits, deletes, submits and lists only the filer's own registrations", async () => {
      const id = await create();
      const p = (await row(id)).license_plate;
      // Another contact's: absent for every filer action.
      expect((await portcontact.post('/vehicleRegistration/edit', { ...bodyOf(portcontact), id })).status).toBe(404);
      expect((await portcontact.post('/vehicleRegistration/delete', { id })).status).toBe(404);
      expect((await portcontact.post('/vehicleRegistration/push', { id })).status).toBe(404);
      expect((await portcontact.get(`/vehicleRegistration/detail?id=${id}`)).status).toBe(404);
      expect((await portcontact.post<{ total: number }>('/vehicleRegistration/list', { size: 10, pn: 1, license_plate: p })).body.data.total).toBe(0);
      const mine = await contact.post<{ list: VehicleRegistrationRow[]; total: number }>('/vehicleRegistration/list', { size: 10, pn: 1, license_plate: p });
      expect(mine.body.data.list.map((r) => r.id)).toEqual([id]);
      // The approvers read it once submitted (its detail is what the review shows), not as a draft (issue 23).
      expect((await hazard.get(`/vehicleRegistration/detail?id=${id}`)).status).toBe(404);
      // The filer edits and deletes a draft.
      expect((await contact.post('/vehicleRegistration/edit', { ...body({ license_plate: p, visitor_company: '惠州新名称运输有限公司' }), id })).body.msg).toBe('编辑成功！');
      expect((await row(id)).visitor_company).toBe('惠州新名称运输有限公司');
      expect((await contact.post('/vehicleRegistration/delete', { id })).body.msg).toBe('删除成功！');
      expect((await contact.get(`/vehicleRegistration/detail?id=${id}`)).status).toBe(404);
    });

    it('the history lists every registration of the park for the squad, with the spec filters; others get 403 or 404', async () => {
      const mine = await approved({ visit_area: 2, visitor_company: '惠州港区历史测试公司' });
      const theirs = await create({ visit_area: 3, visitor_company: '惠州港区历史测试公司' }, portcontact);
      expect((await portcontact.post('/vehicleRegistration/push', { id: theirs })).body.msg).toBe('提交成功！');
      // A draft stays its filer's: the history shows what entered approval.
      const draft = await create({ visit_area: 3, visitor_company: '惠州港区历史测试公司' }, portcontact);
      const history = async (q: Row) =>
        (await squad.post<{ list: VehicleRegistrationRow[]; total: number }>('/vehicleRegistration/history/list', { size: 50, pn: 1, visitor_company: '港区历史测试', ...q })).body.data;
      expect((await history({})).list.map((r) => r.id).sort()).toEqual([mine, theirs].sort());
      expect((await history({})).list.map((r) => r.id)).not.toContain(draft);
      expect((await history({ state: 2 })).list.map((r) => r.id)).toEqual([mine]);
      expect((await history({ state: -1, visit_area: 3 })).total).toBe(2);
      expect((await history({ visit_area: 2 })).total).toBe(2);
      expect((await history({ visit_area: 1 })).list.map((r) => r.id)).toEqual([theirs]);
      expect((await history({ application_number: (await row(mine)).application_number })).list.map((r) => r.id)).toEqual([mine]);
      // The time range finds the registrations whose validity overlaps it.
      expect((await history({ begin_time: addDays(today, 300), end_time: addDays(today, 310) })).total).toBe(0);
      expect((await history({ begin_time: addDays(today, 100), end_time: addDays(today, 110) })).total).toBe(2);
      expect((await squad.get<VehicleRegistrationRow>(`/vehicleRegistration/history/detail?id=${theirs}`)).body.data).toMatchObject({ id: theirs, create_user_name: '黄磊' });

      // The contact lists their own only; the history is not theirs.
      expect((await contact.post('/vehicleRegistration/history/list', { size: 10, pn: 1 })).status).toBe(403);
      expect((await contact.get(`/vehicleRegistration/history/detail?id=${mine}`)).status).toBe(403);
      expect((await reviewer.post('/vehicleRegistration/history/list', { size: 10, pn: 1 })).status).toBe(403);
      // Holding a role but no code of the register: a row reads as absent.
      expect((await patrol.get(`/vehicleRegistration/detail?id=${mine}`)).status).toBe(404);
      expect((await patrol.post('/vehicleRegistration/list', { size: 10, pn: 1 })).status).toBe(403);
      // The file of a registration is read by who reads the registration.
      const read = (c: Client) => fetch(`${server.base}/api/file/${photo}`, { headers: { authorization: `Bearer ${c.token}` } }).then((r) => r.status);
      expect(await read(squad)).toBe(200);
      expect(await read(patrol)).toBe(404);
    });

    it('lets the approver holding the task amend the validity while it is under review', async () => {
      const id = await create();
      await contact.post('/vehicleRegistration/push', { id });
      const instance = (await row(id)).process_instance_id!;
      const canAmend = async (who: Client, b: Row) => {
        const r = await who.post<boolean>('/vehicleRegistration/canAmend', b);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.data;
      };
      expect(await canAmend(hazard, { id, process_instance_id: instance })).toBe(true);
      // The original screen sends the registration's id as car_application_id.
      expect(await canAmend(hazard, { car_application_id: id, process_instance_id: instance })).toBe(true);
      expect(await canAmend(hazard, { id, process_instance_id: instance + 1000 })).toBe(false);
      expect(await canAmend(squad, { id, process_instance_id: instance })).toBe(false);
      expect(await canAmend(contact, { id, process_instance_id: instance })).toBe(false);
      expect(await canAmend(reviewer, { id, process_instance_id: instance })).toBe(false);
      expect400(await hazard.post('/vehicleRegistration/canAmend', { process_instance_id: instance }), 'id', '请提供备案ID');

      const amend = (who: Client, b: Row) => who.post('/vehicleRegistration/amend', { id, process_instance_id: instance, ...b });
      expect((await amend(contact, { begin_time: today, end_time: addDays(today, 30) })).status).toBe(403);
      expect((await amend(squad, { begin_time: today, end_time: addDays(today, 30) })).status).toBe(409);
      expect400(await amend(hazard, { begin_time: today, end_time: addDays(addMonths(today, 12), 1) }), 'end_time', '备案结束时间：备案有效期不能超过1年');
      expect400(await amend(hazard, { begin_time: addDays(today, -10), end_time: addDays(today, -1) }), 'end_time', '备案结束时间不能早于今天');
      expect((await amend(hazard, { begin_time: addDays(today, 1), end_time: addDays(today, 90) })).body.msg).toBe('编辑成功！');
      expect(await row(id)).toMatchObject({ begin_time: `${addDays(today, 1)} 00:00:00`, end_time: `${addDays(today, 90)} 23:59:59` });

      // Decided: the hazardous-goods department no longer holds a task; the squad now does.
      await check(hazard, (await taskOf(hazard, id))!);
      expect(await canAmend(hazard, { id, process_instance_id: instance })).toBe(false);
      expect(await canAmend(squad, { id, process_instance_id: instance })).toBe(true);
      await check(squad, (await taskOf(squad, id))!);
      expect(await canAmend(squad, { id, process_instance_id: instance })).toBe(false);
      expect((await amend(squad, { begin_time: today, end_time: addDays(today, 30) })).status).toBe(409);
    });

    it('refuses to submit a need_record vehicle without an approved registration covering the visit (DESIGN.md §7)', async () => {
      const p = plate();
      const visit = { begin: addDays(today, 4), end: addDays(today, 5) };
      const save = await contact.post<{ id: number }>('/v2/carApplications/save', {
        ...carApplicationBody({ today, license_plate: p, applicant_idcard: idNumber(++seq, '05'), vehicle_type_id: model['混凝土搅拌车']!, interviewee_depart_id: depart.CNOOC_SHELL! }),
        blind_video_photo: photo,
        register_record_photo: photo,
      });
      expect(save.body, JSON.stringify(save.body)).toMatchObject({ success: true });
      const appId = save.body.data.id;
      const push = () => contact.post('/carApplications/push', { id: appId });
      const refused = `车辆（${p}）未备案或备案不在来访日期内，不能提交`;

      // Not registered at all.
      let r = await push();
      expect(r.status).toBe(409);
      expect(r.body.msg).toBe(refused);
      // Registered, but ending the day before the visit ends.
      await approved({ license_plate: p, begin_time: today, end_time: visit.begin });
      expect((await push()).body.msg).toBe(refused);
      // Covering, but still under review.
      const pending = await create({ license_plate: p, begin_time: today, end_time: addDays(today, 60) });
      await contact.post('/vehicleRegistration/push', { id: pending });
      expect((await push()).body.msg).toBe(refused);
      // Another filer's approved registration of the plate counts too: the plate is registered.
      const covering = await approved({ license_plate: p, begin_time: visit.begin, end_time: visit.end }, portcontact);
      r = await push();
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '提交成功！' });

      // Resume checks it again: revoked application, revoked registration, and the squad's 继续审批 is refused.
      expect((await contact.post('/carApplications/revoke', { id: appId, reason: '改期' })).body.msg).toBe('撤销审核成功！');
      expect((await portcontact.post('/vehicleRegistration/revoke', { id: covering, reason: '备案信息有误' })).body.msg).toBe('撤销审核成功！');
      r = await squad.post('/carApplications/returnSubmit', { carApplicationId: appId });
      expect(r.status).toBe(409);
      expect(r.body.msg).toBe(refused);

      // A model without need_record is not asked for one.
      const small = await contact.post<{ id: number }>(
        '/v2/carApplications/save',
        carApplicationBody({ today, license_plate: plate(), applicant_idcard: idNumber(++seq, '05'), vehicle_type_id: model['小型汽车']!, interviewee_depart_id: depart.CNOOC_SHELL! }),
      );
      expect((await contact.post('/carApplications/push', { id: small.body.data.id })).body.msg).toBe('提交成功！');
    });

    it('checks the registration again when an approver amends or the filer delays the visit (DESIGN.md §7)', async () => {
      const p = plate();
      await approved({ license_plate: p, begin_time: today, end_time: addDays(today, 8) });
      const save = await contact.post<{ id: number }>('/v2/carApplications/save', {
        ...carApplicationBody({ today, license_plate: p, applicant_idcard: idNumber(++seq, '05'), vehicle_type_id: model['混凝土搅拌车']!, interviewee_depart_id: depart.CNOOC_SHELL! }),
        blind_video_photo: photo,
        register_record_photo: photo,
      });
      const id = save.body.data.id;
      expect((await contact.post('/carApplications/push', { id })).body.msg).toBe('提交成功！');
      const refused = `车辆（${p}）未备案或备案不在来访日期内，不能提交`;
      const app = () => ctx.db.selectFrom('car_application').selectAll().where('car_application_id', '=', id).executeTakeFirstOrThrow();
      const pending = () =>
        ctx.db
          .selectFrom('process_task as t')
          .innerJoin('sys_user as u', 'u.user_id', 't.user_id')
          .select(['t.process_task_id', 't.user_id', 'u.account'])
          .where('t.process_instance_id', '=', instance)
          .where('t.state', '=', 0)
          .orderBy('t.process_task_id')
          .executeTakeFirst();
      const instance = (await app()).process_instance_id!;

      // The approver of the first node moves the visit past the registration's end: refused, dates kept.
      const first = (await pending())!;
      const approver = await new Client(server).as(first.account);
      const amend = (b: string, e: string) => approver.post('/carApplications/amend', { car_application_id: id, process_instance_id: instance, visitor_begin_time: b, visitor_end_time: e });
      let r = await amend(addDays(today, 7), addDays(today, 9));
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.msg).toBe(refused);
      expect((await app()).visitor_end_time).toBe(`${addDays(today, 5)} 23:59:59`);
      expect((await amend(addDays(today, 6), addDays(today, 8))).body.msg).toBe('编辑成功！');

      // Approved; the filer's delay past the registration is refused as well, one inside it applies.
      for (let t = await pending(); t; t = await pending()) {
        const task = t;
        await ctx.db.transaction().execute((trx) => decide(trx, ctx, { taskId: task.process_task_id, userId: task.user_id, result: 1, remark: '同意' }));
      }
      expect((await app()).state).toBe(2);
      const delay = (b: string, e: string) => contact.post('/carApplications/delay', { id, visitor_begin_time: b, visitor_end_time: e, delay_reason: '工期延长' });
      r = await delay(addDays(today, 8), addDays(today, 10));
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.msg).toBe(refused);
      expect((await delay(addDays(today, 7), addDays(today, 8))).body.msg).toBe('延期申请成功！');
    });

    it('the demo seed registers its need_record vehicles before their appointments are submitted', async () => {
      const seeded = await ctx.db.selectFrom('vehicle_registration').select(['license_plate', 'state', 'end_time']).where('application_number', 'like', 'VR%').execute();
      expect([0, 1, 2, 3].every((s) => seeded.some((r) => r.state === s))).toBe(true);
      const byPlate = new Map(seeded.filter((r) => r.state === 2).map((r) => [r.license_plate, r]));
      const needing = await ctx.db
        .selectFrom('car_application as a')
        .innerJoin('vehicle_type as m', 'm.id', 'a.vehicle_type_id')
        .select(['a.license_plate', 'a.state', 'a.visitor_end_time'])
        .where('m.need_record', '=', 1)
        .where('a.state', '!=', 0)
        .execute();
      expect(needing.length).toBeGreaterThan(3);
      for (const a of needing) expect(byPlate.get(a.license_plate)?.end_time ?? '', a.license_plate).not.toBe('');
      // Registrations wait in each approver's queue.
      expect((await hazard.post<{ total: number }>('/vehicleRegistration/task/page', { size: 10, pn: 1 })).body.data.total).toBeGreaterThan(0);
      expect((await squad.post<{ total: number }>('/vehicleRegistration/task/page', { size: 10, pn: 1 })).body.data.total).toBeGreaterThan(0);
    });
  });
}
