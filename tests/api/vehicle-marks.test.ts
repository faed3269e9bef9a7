import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VehicleMarkRow } from '../../domain/schemas/vehicle-mark';
import type { AppContext } from '../../server/core/context';
import { rgbPng } from '../../server/seed/seed-appointments';
import { Client, DEMO_PASSWORD, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, unknown>;
type Page = { list: VehicleMarkRow[]; total: number };
type Errors = { errors: Array<{ field: string; label: string; message: string }> };

const SIX = ['/label/vehicle/list', '/label/vehicle/detail', '/label/vehicle/save', '/v2/label/vehicle/edit', '/label/vehicle/cancel', '/label/vehicle/delete'];

for (const dialect of await dialects()) {
  describe(`vehicle marks on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let lead: Client, patrol: Client, squad: Client, auditor: Client, contact: Client, editor: Client;
    let seq = 0;
    const model: Record<string, number> = {};

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      [lead, patrol, squad, auditor, contact] = await Promise.all(['lead', 'patrol', 'squad', 'auditor', 'contact'].map((a) => new Client(server).as(a)));
      // A user who may add, edit, cancel and delete marks but not list them: the access switch leaves them their own rows only.
      const admin = await new Client(server).as('admin');
      const now = ctx.time();
      const role = await ctx.db
        .insertInto('sys_role')
        .values({ name: '标记编辑', code: 'mark_editor', remark: '', status: 1, create_time: now, update_time: now })
        .returning('role_id')
        .executeTakeFirstOrThrow();
      const perms = await ctx.db.selectFrom('sys_permission').select('permission_id').where('code', 'in', ['carMark:add', 'carMark:edit', 'carMark:delete']).execute();
      expect(perms).toHaveLength(3);
      await ctx.db
        .insertInto('sys_role_permission')
        .values(perms.map((p) => ({ role_id: role.role_id, permission_id: p.permission_id })))
        .execute();
      const created = await admin.post<{ user_id: number }>('/user/save', {
        content: await admin.encrypt({ userName: '标记编辑员', account: 'markeditor', password: DEMO_PASSWORD + 'm1', gender: 0, phone: '13900000031', departId: 1 }),
      });
      expect(created.body.success, JSON.stringify(created.body)).toBe(true);
      await admin.post('/user/bindRole', { userId: created.body.data.user_id, roleIds: [role.role_id] });
      editor = new Client(server);
      expect((await editor.login('markeditor', DEMO_PASSWORD + 'm1')).status).toBe(200);
    });
    afterAll(async () => server?.close());

    const plate = () => `粤K${String(++seq).padStart(5, '0')}`;
    const markBody = (o: Row = {}): Row => ({
      license_plate: plate(),
      vehicle_type_id: model['小型汽车'],
      visitor_company: '惠州标记测试物流有限公司',
      color_id: 1,
      label_type_id: 2,
      alarm_id: 1,
      remark: '闯卡未停车',
      photo: '',
      ...o,
    });

    async function upload(c: Client): Promise<string> {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(rgbPng(1, 1, () => [255, 0, 0]))], { type: 'image/png' }), 'site.png');
      const r = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
      return ((await r.json()) as { data: { name: string } }).data.name;
    }
    const readFile = (c: Client, name: string) => fetch(`${server.base}/api/file/${name}`, { headers: { authorization: `Bearer ${c.token}` } }).then((r) => r.status);

    async function save(body: Row, who = lead): Promise<number> {
      const r = await who.post<{ id: number }>('/label/vehicle/save', body);
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '创建成功！' });
      return r.body.data.id;
    }
    const detail = (id: number, who = lead) => who.post<VehicleMarkRow>('/label/vehicle/detail', { id });
    const list = async (q: Row, who = lead): Promise<Page> => {
      const r = await who.post<Page>('/label/vehicle/list', { size: 100, pn: 1, ...q });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    const expect400 = async (r: Promise<{ status: number; body: { msg: string; data: unknown } }>, field: string, msg: string) => {
      const res = await r;
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.msg).toBe(msg);
      expect((res.body.data as Errors).errors[0]!.field).toBe(field);
    };

    it('refuses each broken field of the marking form with its rule, naming the field', async () => {
      const nine = Array.from({ length: 9 }, (_, i) => `p${i}.jpg`).join(';');
      const cases: Array<[Row, string, string]> = [
        [{ license_plate: '' }, 'license_plate', '请输入车牌号'],
        [{ license_plate: 'ABC123' }, 'license_plate', '车牌号格式不正确'],
        [{ vehicle_type_id: 'x' }, 'vehicle_type_id', '请选择车型'],
        [{ vehicle_type_id: 999999 }, 'vehicle_type_id', '所选车型不存在或已被删除'],
        [{ visitor_company: '公'.repeat(61) }, 'visitor_company', '来访单位：不能超过60个文字'],
        [{ color_id: undefined }, 'color_id', '请选择标记颜色'],
        [{ color_id: 9 }, 'color_id', '请选择标记颜色'],
        [{ label_type_id: 0 }, 'label_type_id', '请选择标记类型'],
        [{ alarm_id: -1 }, 'alarm_id', '请选择报警方式'],
        [{ remark: '  ' }, 'remark', '请输入标记原因'],
        [{ remark: '因'.repeat(201) }, 'remark', '标记原因：不能超过200个文字'],
        [{ photo: `${nine};p9.jpg` }, 'photo', '现场照片：最多上传9张图片'],
        [{ photo: 'blob:http://x/1' }, 'photo', '现场照片：有照片尚未上传，请联网后重试'],
      ];
      for (const [patch, field, msg] of cases) await expect400(lead.post('/label/vehicle/save', markBody(patch)), field, msg);
      const id = await save(markBody());
      await expect400(lead.post('/v2/label/vehicle/edit', markBody()), 'id', '请提供标记ID');
      await expect400(lead.post('/v2/label/vehicle/edit', markBody({ id, remark: '' })), 'remark', '请输入标记原因');
      // Cancel (spec 001 §5): a reason '请输入取消理由' and 1 to 9 rectification photos.
      await expect400(lead.post('/label/vehicle/cancel', { id, cancel_reason: '', cancel_photo: 'a.jpg' }), 'cancel_reason', '请输入取消理由');
      await expect400(lead.post('/label/vehicle/cancel', { id, cancel_reason: '已整改' }), 'cancel_photo', '请上传整改照片');
      await expect400(lead.post('/label/vehicle/cancel', { id, cancel_reason: '已整改', cancel_photo: '' }), 'cancel_photo', '请上传整改照片');
      await expect400(lead.post('/label/vehicle/cancel', { id, cancel_reason: '已整改', cancel_photo: `${nine};p9.jpg` }), 'cancel_photo', '整改照片：最多上传9张图片');
      await expect400(lead.post('/label/vehicle/cancel', { cancel_reason: '已整改', cancel_photo: 'a.jpg' }), 'id', '请提供标记ID');
      await expect400(lead.post('/label/vehicle/detail', { id: 0 }), 'id', '标记ID不正确');
      await expect400(lead.post('/label/vehicle/list', { size: 10, pn: 0 }), 'pn', '页码从1开始');
      await expect400(lead.post('/label/vehicle/list', { size: 10, pn: 1, color_id: 'red' }), 'color_id', '标记颜色：筛选条件必须是整数');
      expect((await detail(id)).body.data.status).toBe(1);
    });

    it('adds, reads, edits, cancels with a reason and photos, then deletes a mark; edit and cancel only while active', async () => {
      const site = await upload(lead);
      const p = plate();
      const id = await save(markBody({ license_plate: p.toLowerCase().replace('K', 'k'), photo: site }));
      const d = (await detail(id)).body.data;
      expect(d).toMatchObject({
        license_plate: p,
        vehicle_type_name: '小型汽车',
        visitor_company: '惠州标记测试物流有限公司',
        color_id: 1,
        label_type_id: 2,
        alarm_id: 1,
        status: 1,
        car_application_id: null,
        application_number: null,
        create_user_name: '赵敏',
        photo: site,
      });
      expect(d.files).toEqual([{ url: site, type: 1 }]);

      // The register is the park's: the patrol (carMark:edit) edits the lead's mark; the model may be cleared.
      const edited = await patrol.post('/v2/label/vehicle/edit', markBody({ id, license_plate: p, vehicle_type_id: '', color_id: 3, remark: '占用消防通道', photo: site }));
      expect(edited.body, JSON.stringify(edited.body)).toMatchObject({ success: true, msg: '编辑成功！' });
      expect((await detail(id)).body.data).toMatchObject({ color_id: 3, remark: '占用消防通道', vehicle_type_id: null, vehicle_type_name: null, status: 1 });

      const rectified = [await upload(patrol), await upload(patrol)];
      const cancelled = await patrol.post('/label/vehicle/cancel', { id, cancel_reason: '已整改完毕', cancel_photo: rectified.join(';') });
      expect(cancelled.body, JSON.stringify(cancelled.body)).toMatchObject({ success: true, msg: '取消成功！' });
      const after = (await detail(id)).body.data;
      expect(after).toMatchObject({ status: 2, cancel_reason: '已整改完毕', cancel_photo: rectified.join(';') });
      expect(after.files).toEqual([{ url: site, type: 1 }, ...rectified.map((url) => ({ url, type: 2 }))]);
      // Whoever reads the mark reads its rectification photos; nobody else does.
      expect(await readFile(lead, rectified[0]!)).toBe(200);
      expect(await readFile(contact, rectified[0]!)).toBe(404);

      const again = await patrol.post('/label/vehicle/cancel', { id, cancel_reason: '再取消', cancel_photo: rectified[0] });
      expect(again.status).toBe(409);
      expect(again.body.msg).toBe('该标记已取消，不能重复取消');
      const late = await lead.post('/v2/label/vehicle/edit', markBody({ id, license_plate: p }));
      expect(late.status).toBe(409);
      expect(late.body.msg).toBe('该标记已取消，不能编辑');

      // Delete needs carMark:delete, which the patrol lacks; any state may be deleted.
      expect((await patrol.post('/label/vehicle/delete', { id })).status).toBe(403);
      expect((await lead.post('/label/vehicle/delete', { id })).body.msg).toBe('删除成功！');
      for (const [url, body] of [
        ['/label/vehicle/detail', { id }],
        ['/v2/label/vehicle/edit', markBody({ id })],
        ['/label/vehicle/cancel', { id, cancel_reason: '已整改', cancel_photo: rectified[0] }],
        ['/label/vehicle/delete', { id }],
      ] as const) {
        const r = await lead.post(url, body);
        expect(r.status, url).toBe(404);
        expect(r.body.msg).toBe('车辆标记不存在或已被删除');
      }
      expect((await list({ license_plate: p })).total).toBe(0);
    });

    it('replays a cancel sent again with its Idempotency-Key (the outbox) instead of refusing it as done', async () => {
      const id = await save(markBody());
      const photo = await upload(lead);
      const body = { id, cancel_reason: '现场已整改', cancel_photo: photo };
      const key = `mark-cancel-${dialect}-${id}`;
      const first = await lead.call('POST', '/label/vehicle/cancel', body, { 'idempotency-key': key });
      const replay = await lead.call('POST', '/label/vehicle/cancel', body, { 'idempotency-key': key });
      expect(first.body.msg).toBe('取消成功！');
      expect(replay.status).toBe(200);
      expect(replay.body.msg).toBe('取消成功！');
    });

    it('lists with the spec filters; -1 means all', async () => {
      const company = `筛选测试${dialect}物流有限公司`;
      const a = await save(markBody({ visitor_company: company, color_id: 1, label_type_id: 1, alarm_id: 1 }));
      const b = await save(markBody({ visitor_company: company, color_id: 2, label_type_id: 3, alarm_id: 2 }));
      const cPlate = plate();
      const c = await save(markBody({ license_plate: cPlate, visitor_company: company, color_id: 3, label_type_id: 3, alarm_id: 3 }), patrol);
      await lead.post('/label/vehicle/cancel', { id: b, cancel_reason: '已整改', cancel_photo: await upload(lead) });
      const ids = async (q: Row) => (await list({ visitor_company: `测试${dialect}物流`, ...q })).list.map((r) => r.id).sort((x, y) => x - y);
      expect(await ids({})).toEqual([a, b, c]);
      expect(await ids({ status: -1, color_id: -1, label_type_id: -1, alarm_id: -1 })).toEqual([a, b, c]);
      expect(await ids({ status: 1 })).toEqual([a, c]);
      expect(await ids({ status: 2 })).toEqual([b]);
      expect(await ids({ color_id: 2 })).toEqual([b]);
      expect(await ids({ label_type_id: 3 })).toEqual([b, c]);
      expect(await ids({ alarm_id: 3 })).toEqual([c]);
      expect(await ids({ license_plate: cPlate.slice(1) })).toEqual([c]);
      expect(await ids({ license_plate: '粤Z99999' })).toEqual([]);
      // Newest first, paged with '共 N 条'.
      const page = await lead.post<Page>('/label/vehicle/list', { size: 2, pn: 1, visitor_company: company });
      expect(page.body.data.total).toBe(3);
      expect(page.body.data.list.map((r) => r.id)).toEqual([c, b]);
      expect(page.body.data.list[0]).toMatchObject({ create_user_name: '张伟', vehicle_type_name: '小型汽车' });
    });

    it('shows the flags made from the vehicle all-history screen, and cancelling the last one unflags the appointment', async () => {
      const app = await ctx.db
        .selectFrom('car_application')
        .select(['car_application_id', 'application_number', 'license_plate', 'visitor_company'])
        .where('label_status', '=', 0)
        .where('is_deleted', '=', 0)
        .where('state', '!=', 0)
        .orderBy('car_application_id')
        .executeTakeFirstOrThrow();
      const photo = await upload(squad);
      const flagged = await squad.post('/label/vehicle/label', { car_application_ids: String(app.car_application_id), color_id: 1, label_type_id: 3, alarm_id: 2, remark: '车辆漏油', photo });
      expect(flagged.body.msg).toBe('标记成功');
      const flag = async () => await ctx.db.selectFrom('car_application').select(['label_status', 'label_remark']).where('car_application_id', '=', app.car_application_id).executeTakeFirstOrThrow();
      expect(await flag()).toEqual({ label_status: 1, label_remark: '车辆漏油' });

      const found = (await list({ license_plate: app.license_plate })).list.find((r) => r.car_application_id === app.car_application_id);
      expect(found).toMatchObject({
        application_number: app.application_number,
        visitor_company: app.visitor_company,
        color_id: 1,
        label_type_id: 3,
        alarm_id: 2,
        remark: '车辆漏油',
        status: 1,
        create_user_name: '陈刚',
        photo,
      });
      // The squad flags but keeps no marks screen.
      expect((await squad.post('/label/vehicle/list', { size: 10, pn: 1 })).status).toBe(403);

      // The flag's vehicle is the appointment's: its plate stays; the reason follows an edit.
      const moved = await lead.post('/v2/label/vehicle/edit', markBody({ id: found!.id, license_plate: '粤L00001', photo }));
      expect(moved.status).toBe(409);
      expect(moved.body.msg).toBe('该标记来自车辆预约，不能修改车牌号');
      const kept = await lead.post('/v2/label/vehicle/edit', markBody({ id: found!.id, license_plate: app.license_plate, visitor_company: app.visitor_company, remark: '车辆漏油（复核）', photo }));
      expect(kept.body.msg).toBe('编辑成功！');
      expect(await flag()).toEqual({ label_status: 1, label_remark: '车辆漏油（复核）' });

      const cancelled = await patrol.post('/label/vehicle/cancel', { id: found!.id, cancel_reason: '已清理', cancel_photo: await upload(patrol) });
      expect(cancelled.body.msg).toBe('取消成功！');
      expect(await flag()).toEqual({ label_status: 0, label_remark: '' });
      const remarks = await patrol.post<unknown[]>('/label/vehicle/queryRemark', { car_application_ids: String(app.car_application_id) });
      expect(remarks.body.data).toEqual([]);
    });

    it('deleting a flag leaves the appointment flagged by its other active flags only', async () => {
      const app = await ctx.db
        .selectFrom('car_application')
        .select(['car_application_id', 'license_plate'])
        .where('label_status', '=', 0)
        .where('is_deleted', '=', 0)
        .where('state', '!=', 0)
        .orderBy('car_application_id', 'desc')
        .executeTakeFirstOrThrow();
      for (const remark of ['第一次', '第二次'])
        await squad.post('/label/vehicle/label', { car_application_ids: String(app.car_application_id), color_id: 2, label_type_id: 1, alarm_id: 3, remark, photo: '' });
      const [second, first] = (await list({ license_plate: app.license_plate })).list.filter((r) => r.car_application_id === app.car_application_id);
      const flag = () => ctx.db.selectFrom('car_application').select(['label_status', 'label_remark']).where('car_application_id', '=', app.car_application_id).executeTakeFirstOrThrow();
      expect((await lead.post('/label/vehicle/delete', { id: second!.id })).body.msg).toBe('删除成功！');
      expect(await flag()).toEqual({ label_status: 1, label_remark: '第一次' });
      expect((await lead.post('/label/vehicle/delete', { id: first!.id })).body.msg).toBe('删除成功！');
      expect(await flag()).toEqual({ label_status: 0, label_remark: '' });
    });

    it('refuses callers without the codes (403) and answers rows they may not read as absent (404)', async () => {
      const id = await save(markBody(), patrol);
      for (const c of [auditor, contact]) {
        for (const url of SIX) {
          const r = await c.post(url, { id });
          expect(r.status, url).toBe(403);
          expect(r.body.code).toBe(1003);
        }
      }
      // The editor holds add, edit and delete but not the list: their own mark is theirs, the patrol's is absent.
      const own = await save(markBody(), editor);
      expect((await editor.post('/v2/label/vehicle/edit', markBody({ id: own, remark: '本人修改' }))).body.msg).toBe('编辑成功！');
      expect((await editor.post('/label/vehicle/list', { size: 10, pn: 1 })).status).toBe(403);
      const photo = await upload(editor);
      for (const [url, body] of [
        ['/v2/label/vehicle/edit', markBody({ id })],
        ['/label/vehicle/cancel', { id, cancel_reason: '已整改', cancel_photo: photo }],
        ['/label/vehicle/delete', { id }],
      ] as const) {
        const r = await editor.post(url, body);
        expect(r.status, url).toBe(404);
      }
      expect((await detail(id)).body.data.status).toBe(1);
      expect((await editor.post('/label/vehicle/cancel', { id: own, cancel_reason: '已整改', cancel_photo: photo })).body.msg).toBe('取消成功！');
      expect((await editor.post('/label/vehicle/delete', { id: own })).body.msg).toBe('删除成功！');
      expect((await lead.post('/label/vehicle/detail', { id: 99999999 })).status).toBe(404);
    });

    it("puts only the caller's own uploads on a mark; the mark's readers then read its photos", async () => {
      const others = await upload(squad);
      const refused = await lead.post('/label/vehicle/save', markBody({ photo: others }));
      expect(refused.status).toBe(400);
      expect(refused.body.msg).toContain('不存在或无权使用');
      const id = await save(markBody());
      const cancel = await lead.post('/label/vehicle/cancel', { id, cancel_reason: '已整改', cancel_photo: others });
      expect(cancel.status).toBe(400);
      expect(cancel.body.msg).toContain('不存在或无权使用');

      const photo = await upload(lead);
      expect(await readFile(patrol, photo)).toBe(404);
      await save(markBody({ photo }));
      expect(await readFile(patrol, photo)).toBe(200);
      expect(await readFile(contact, photo)).toBe(404);
    });
  });
}
