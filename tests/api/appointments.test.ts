import http from 'node:http';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState, ProcessType, TaskResult, stateAllows, stateConflictMessage, type AppointmentAction, type AppointmentKind } from '../../domain/appointments';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { readableBy } from '../../server/modules/appointments/service';
import { decide } from '../../server/workflow/engine';
import { carApplicationBody, idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type Reply, type TestServer } from './harness';

type Row = Record<string, any>;
type Page = { list: Row[]; total: number };

/** Person and vehicle applications through the HTTP API on each dialect, with the seeded demo park. */
for (const dialect of await dialects()) {
  describe(`appointments (${dialect})`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let contact: Client, portcontact: Client, reviewer: Client, squad: Client;
    const ids: Record<string, number> = {};
    const depart: Record<string, number> = {};
    const model: Record<string, number> = {};
    let today = '';
    let seq = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      for (const u of await ctx.db.selectFrom('sys_user').select(['user_id', 'account']).execute()) ids[u.account] = u.user_id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      [contact, portcontact, reviewer, squad] = await Promise.all(['contact', 'portcontact', 'reviewer', 'squad'].map((a) => new Client(server).as(a)));
    });
    afterAll(async () => server?.close());

    const plate = () => `粤A${String(++seq).padStart(5, '0')}`;
    const carBody = (o: Row = {}): Row => ({
      ...carApplicationBody({ today, license_plate: plate(), applicant_idcard: idNumber(++seq, '01'), vehicle_type_id: model['小型汽车']!, interviewee_depart_id: depart.CNOOC_SHELL! }),
      ...o,
    });
    const personBody = (o: Row = {}): Row => ({
      ...personApplicationBody({ today, visitor_idcard: idNumber(++seq, '01'), interviewee_depart_id: depart.CNOOC_SHELL! }),
      ...o,
    });

    const K = {
      car: {
        p: '/carApplications',
        key: 'car_application_id',
        table: 'car_application',
        body: carBody,
        begin: 'visitor_begin_time',
        end: 'visitor_end_time',
        returnKey: 'carApplicationId',
        prefix: 'CA',
      },
      person: {
        p: '/personApplications',
        key: 'person_application_id',
        table: 'person_application',
        body: personBody,
        begin: 'visit_begin_time',
        end: 'visit_end_time',
        returnKey: 'personApplicationId',
        prefix: 'PA',
      },
    } as const;
    const kindNames: AppointmentKind[] = ['car', 'person'];

    const row = async (kind: AppointmentKind, id: number): Promise<Row> =>
      (await ctx.db
        .selectFrom(K[kind].table as 'car_application')
        .selectAll()
        .where(K[kind].key as 'car_application_id', '=', id)
        .executeTakeFirstOrThrow()) as Row;

    async function create(kind: AppointmentKind, o: Row = {}, who = contact): Promise<number> {
      const r = await who.post<{ id: number }>(`/v2${K[kind].p}/save`, K[kind].body(o));
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '创建成功！' });
      return r.body.data.id;
    }
    const push = (kind: AppointmentKind, id: number, who = contact) => who.post(`${K[kind].p}/push`, { id });
    async function decideNext(kind: AppointmentKind, id: number, result: number = TaskResult.APPROVE, remark = '同意') {
      const r = await row(kind, id);
      const t = await ctx.db
        .selectFrom('process_task')
        .select(['process_task_id', 'user_id'])
        .where('process_instance_id', '=', r.process_instance_id)
        .where('state', '=', 0)
        .orderBy('process_task_id')
        .executeTakeFirstOrThrow();
      return ctx.db.transaction().execute((trx) => decide(trx, ctx, { taskId: t.process_task_id, userId: t.user_id, result, remark }));
    }
    /** A fresh application of the contact's in the given state, through the real paths. */
    async function inState(kind: AppointmentKind, state: number, o: Row = {}): Promise<number> {
      const id = await create(kind, o);
      if (state === AppState.DRAFT) return id;
      expect((await push(kind, id)).body.msg).toBe('提交成功！');
      if (state === AppState.APPROVED) while ((await decideNext(kind, id)) !== 'approved');
      if (state === AppState.REJECTED) await decideNext(kind, id, TaskResult.REJECT, '资料不全');
      if (state === AppState.REVOKED) expect((await contact.post(`${K[kind].p}/revoke`, { id, reason: '行程取消' })).body.msg).toBe('撤销审核成功！');
      expect((await row(kind, id)).state).toBe(state);
      return id;
    }
    const expect400 = (r: Reply, msg: string, field?: string) => {
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.msg).toBe(msg);
      if (field) expect((r.body.data as { errors: Row[] }).errors.map((e) => e.field)).toContain(field);
    };

    // ------------------------------------------------------------------ seed

    it('seeds demo applications in every state, with something in every queue of reviewer, hazard and squad', async () => {
      const cars = await ctx.db.selectFrom('car_application').select(['state', 'label_status', 'is_delayed', 'in_black_list', 'license_plate']).execute();
      const persons = await ctx.db.selectFrom('person_application').select(['state', 'is_delayed']).execute();
      expect(cars.length).toBeGreaterThanOrEqual(24);
      expect(persons.length).toBeGreaterThanOrEqual(16);
      for (const s of [0, 1, 2, 3, 4]) {
        expect(
          cars.some((c) => c.state === s),
          `car state ${s}`,
        ).toBe(true);
        expect(
          persons.some((c) => c.state === s),
          `person state ${s}`,
        ).toBe(true);
      }
      expect(cars.some((c) => c.label_status === 1 && c.state === AppState.APPROVED)).toBe(true);
      expect(cars.some((c) => c.is_delayed === 1)).toBe(true);
      expect(cars.some((c) => c.in_black_list === 1 && c.state === AppState.DRAFT)).toBe(true);
      const pendingQueues = await ctx.db
        .selectFrom('process_task as t')
        .innerJoin('sys_user as u', 'u.user_id', 't.user_id')
        .select(['u.account', 't.queue'])
        .distinct()
        .where('t.state', '=', 0)
        .execute();
      const has = (account: string, queue: string) => pendingQueues.some((q) => q.account === account && q.queue === queue);
      for (const q of ['car_task', 'car_zxzxc', 'car_bus', 'car_chemicals', 'person_task']) expect(has('reviewer', q), `reviewer ${q}`).toBe(true);
      for (const q of ['car_zxzxc', 'car_bus', 'car_chemicals']) expect(has('hazard', q), `hazard ${q}`).toBe(true);
      for (const q of ['car_final', 'person_final']) expect(has('squad', q), `squad ${q}`).toBe(true);
      const rejected = await ctx.db.selectFrom('process_task').select('remark').where('result', '=', TaskResult.REJECT).execute();
      expect(rejected.every((t) => t.remark.length > 2)).toBe(true);
      const marks = await ctx.db.selectFrom('vehicle_mark').select('car_application_id').execute();
      expect(marks.length).toBeGreaterThanOrEqual(1);
    });

    // ------------------------------------------------------------------ create, list, detail, get, edit

    for (const kind of kindNames) {
      it(`${kind}: creates, lists own newest first with names, details, fetches for edit and edits`, async () => {
        const { p, key, prefix } = K[kind];
        const first = await create(kind);
        // The unversioned path is the same handler.
        const r2 = await contact.post<{ id: number }>(`${p}/save`, K[kind].body({ visit_area: 2 }));
        expect(r2.body.msg).toBe('创建成功！');
        const second = r2.body.data.id;
        const stored = await row(kind, second);
        expect(stored.application_number).toBe(`${prefix}${today.replace(/-/g, '')}${String(second).padStart(6, '0')}`);
        expect(stored.state).toBe(AppState.DRAFT);

        const list = await contact.post<Page>(`${p}/list`, { size: 5, pn: 1 });
        expect(list.status).toBe(200);
        expect(list.body.data.list.map((r) => r[key]).slice(0, 2)).toEqual([second, first]);
        expect(list.body.data.list.every((r) => r.create_user_id === ids.contact)).toBe(true);
        expect(list.body.data.list[0]).toMatchObject({ interviewee_depart_name: '中海壳牌石油化工有限公司' });
        if (kind === 'car') expect(list.body.data.list[0]).toMatchObject({ vehicle_type_name: '小型汽车' });
        const total = list.body.data.total;
        expect(total).toBeGreaterThanOrEqual(2);
        // Filters of spec 000 §2 with the same count.
        const byArea = await contact.post<Page>(`${p}/list`, { visit_area: 2, state: -1 });
        expect(byArea.body.data.list.map((r) => r[key])).toContain(second);
        expect(byArea.body.data.list.every((r) => r.visit_area === 2)).toBe(true);
        expect(byArea.body.data.total).toBe(byArea.body.data.list.length);
        const byNumber = await contact.post<Page>(`${p}/list`, { application_number: stored.application_number.slice(-8).toLowerCase() });
        expect(byNumber.body.data.list.map((r) => r[key])).toEqual([second]);
        const byRange = await contact.post<Page>(`${p}/list`, { begin_time: addDays(today, 400), end_time: addDays(today, 401) });
        expect(byRange.body.data.total).toBe(0);
        if (kind === 'car') {
          const byPlate = await contact.post<Page>(`${p}/list`, { license_plate: stored.license_plate.slice(1).toLowerCase() });
          expect(byPlate.body.data.list.map((r) => r[key])).toEqual([second]);
        } else {
          const byIdcard = await contact.post<Page>(`${p}/list`, { visitor_idcard: stored.visitor_idcard });
          expect(byIdcard.body.data.list.map((r) => r[key])).toEqual([second]);
        }

        const detail = await contact.get<Row>(`${p}/detail?id=${first}`);
        expect(detail.status).toBe(200);
        expect(detail.body.data).toMatchObject({ [key]: first, interviewee_depart_name: '中海壳牌石油化工有限公司' });
        const got = await contact.post<Row>(`${p}/get`, { id: first });
        expect(got.body.data[key]).toBe(first);

        const edited = await contact.post(`/v2${p}/edit`, { ...K[kind].body({ visit_area: 3 }), [key]: first });
        expect(edited.body.msg).toBe('编辑成功！');
        expect((await row(kind, first)).visit_area).toBe(3);
        const unversioned = await contact.post(`${p}/edit`, { ...K[kind].body({ visit_area: 1 }), id: first });
        expect(unversioned.body.msg).toBe('编辑成功！');
        expect((await row(kind, first)).update_user_name).toBe('王芳');
      });
    }

    it('car: stores drivers, cargo and dump-truck files, strips cargo the model hides, derives the process type', async () => {
      const hazardous = await create('car', {
        vehicle_type_id: model['普通货车'],
        visitor_type: 3,
        cargo_type: 1,
        cargo_name: '液碱',
        car_load: 20,
        cargo_info: { cargo_name: '氢氧化钠溶液', cargo_quantity: 20, cargo_unit: '吨', enterprise: '惠州恒通危运', driver: '郑文斌', driver_phone: '13112345609' },
        carPersonList: [{ name: '郑文斌', idcard_type: 1, id_card: idNumber(++seq, '01'), gender: 0, phone: '13112345609', type: 1 }, { name: '' }],
      });
      const got = await contact.post<Row>('/carApplications/get', { id: hazardous });
      expect(got.body.data).toMatchObject({ process_type: ProcessType.CHEMICALS, cargo_type: 1, vehicle_type_name: '普通货车', cargo_info: { cargo_name: '氢氧化钠溶液', cargo_quantity: 20 } });
      expect(got.body.data.carPersonList).toHaveLength(1);
      expect(got.body.data.carPersonList[0]).toMatchObject({ name: '郑文斌', type: 1 });

      // 小型汽车 does not show cargo: what was sent is dropped, and the general process applies.
      const small = await create('car', { cargo_type: 1, cargo_name: '液碱', car_load: 3 });
      expect(await row('car', small)).toMatchObject({ cargo_type: null, cargo_name: '', car_load: null, cargo_info: null, process_type: ProcessType.CAR });

      const dump = await create('car', {
        vehicle_type_id: model['重型自卸货车'],
        visitor_type: 1,
        visitor_end_time: addDays(today, 20),
        blind_video_photo: 'a.png',
        register_record_photo: 'b.png',
        dump_truck_file: { driver_license: 'a.png', driving_license: 'a.png', compulsory_insurance: 'a.png', commercial_insurance: 'a.png', excess_insurance: 'a.png', commitment_letter: 'a.png' },
      });
      const d = (await contact.get<Row>(`/carApplications/detail?id=${dump}`)).body.data;
      expect(d.process_type).toBe(ProcessType.HEAVY_DUMP);
      expect(d.dump_truck_file).toMatchObject({ driver_license: 'a.png', monitor_return_receipt: '' });

      // Edit replaces the drivers.
      await contact.post('/v2/carApplications/edit', { ...carBody({ carPersonList: [{ name: '新司机', type: 1 }] }), car_application_id: hazardous });
      const after = (await contact.post<Row>('/carApplications/get', { id: hazardous })).body.data;
      expect(after.carPersonList.map((p: Row) => p.name)).toEqual(['新司机']);
      expect(after.process_type).toBe(ProcessType.CAR);
    });

    // ------------------------------------------------------------------ 400 messages of spec 000 §5

    it('person: refuses visit spans per visitor type and a start more than a month ahead', async () => {
      const save = (o: Row) => contact.post('/v2/personApplications/save', personBody(o));
      const at = (days: number) => addDays(addDays(today, 1), days);
      expect400(await save({ visitor_type: 4, visit_end_time: at(11) }), '来访结束时间：临时来访时间差不能超过10天', 'visit_end_time');
      expect400(await save({ visitor_type: 1, visit_end_time: at(366) }), '来访结束时间：业主来访时间差不能超过1年');
      expect400(await save({ visitor_type: 2, visit_end_time: at(181) }), '来访结束时间：服务商/建设单位来访时间差不能超过180天');
      expect400(await save({ visitor_type: 3, visit_end_time: at(181) }), '来访结束时间：服务商/建设单位来访时间差不能超过180天');
      expect((await save({ visitor_type: 2, visit_end_time: at(180) })).status).toBe(200);
      expect400(await save({ visit_begin_time: addDays(today, 40), visit_end_time: addDays(today, 41) }), '来访开始时间不能超过1个月', 'visit_begin_time');
      expect400(await save({ visitor_phone: '12345' }), '手机号格式不正确', 'visitor_phone');
      expect400(await save({ visitor_idcard: '440106199001011230' }), '证件号码：身份证号校验码不正确（第18位与前17位不符），请核对号码', 'visitor_idcard');
    });

    it('car import: names every error of a row at once, cells and the date rules together (issue 24)', async () => {
      const tpl = await fetch(`${server.base}/api/carApplications/template/getProprietor`, { headers: { authorization: `Bearer ${contact.token}` } });
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load((await tpl.arrayBuffer()) as ArrayBuffer);
      const ws = wb.worksheets[0]!;
      const headers = (ws.getRow(1).values as unknown[]).map((v) => String(v ?? '').replace(/^\*/, ''));
      const row: Record<string, string> = {
        车牌号: '粤L12',
        车牌颜色: '蓝色',
        车型: '小型汽车',
        申请人姓名: '周八',
        证件类型: '第二代居民身份证',
        证件号码: '441302199001011231',
        性别: '男',
        手机号: '12345',
        园区: '化工区',
        来访单位: '惠州示例工程有限公司',
        来访事由: '通勤',
        来访开始时间: addDays(today, -1),
        来访结束时间: addDays(today, -3),
        被访人姓名: '李强',
        被访人电话: '13800000003',
        被访部门: '中海壳牌石油化工有限公司',
      };
      ws.addRow(headers.map((h) => row[h] ?? ''));
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await wb.xlsx.writeBuffer())], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' }), 'import.xlsx');
      const up = await fetch(`${server.base}/api/carApplications/import/proprietor`, { method: 'POST', body: form, headers: { authorization: `Bearer ${contact.token}` } });
      const body = (await up.json()) as { data: { errors: string[] } };
      expect(up.status, JSON.stringify(body)).toBe(400);
      expect(body.data.errors).toEqual(
        expect.arrayContaining(['第3行 车牌号：车牌号格式不正确', '第3行 手机号：手机号格式不正确', '第3行 来访开始时间：来访开始时间须晚于后天', '第3行 来访结束时间：来访结束时间不能早于开始时间']),
      );
    });

    it('car: refuses by plate pattern, model rules, hazardous cargo and visit span, naming the field', async () => {
      const save = (o: Row) => contact.post('/v2/carApplications/save', carBody(o));
      expect400(await save({ license_plate: '粤L12' }), '车牌号格式不正确', 'license_plate');
      expect400(await save({ visitor_begin_time: addDays(today, 2), visitor_end_time: addDays(today, 3) }), '来访开始时间须晚于后天', 'visitor_begin_time');
      expect400(await save({ visitor_type: 3, visitor_end_time: addDays(today, 8) }), '来访结束时间：临时车辆来访时间不能超过3天');
      // Blind-video photo only where the model needs it.
      expect400(await save({ vehicle_type_id: model['中型客车'] }), '请上传盲区视频监控图片', 'blind_video_photo');
      expect((await save({ vehicle_type_id: model['中型客车'], blind_video_photo: 'v.png' })).status).toBe(200);
      // Dump trucks need their documents (the monitoring receipt is optional).
      const dump = { vehicle_type_id: model['重型自卸货车'], blind_video_photo: 'v.png', register_record_photo: 'r.png' };
      const noFiles = await save(dump);
      expect400(noFiles, '请上传驾驶证', 'dump_truck_file.driver_license');
      expect((noFiles.body.data as { errors: Row[] }).errors.map((e) => e.field)).not.toContain('dump_truck_file.monitor_return_receipt');
      // Hazardous cargo needs cargo_info.
      expect400(await save({ vehicle_type_id: model['普通货车'], cargo_type: 1 }), '请填写危险货物信息', 'cargo_info');
      expect400(
        await save({ vehicle_type_id: model['普通货车'], cargo_type: 1, cargo_info: { cargo_name: '液碱', cargo_quantity: 1, cargo_unit: '吨', enterprise: '某公司', driver_phone: '13100000000' } }),
        '请输入驾驶员姓名',
        'cargo_info.driver',
      );
      // Hazardous, dump and mixer models with type 1 or 2: under 3 months.
      const chem = { vehicle_type_id: model['混凝土搅拌车'], blind_video_photo: 'v.png', register_record_photo: 'r.png', visitor_type: 1 };
      const long = await save({ ...chem, visitor_end_time: addDays(addDays(today, 4), 100) });
      expect(long.status).toBe(400);
      expect((long.body.data as { errors: Row[] }).errors.map((e) => e.message)).toContain('来访时间不能超过3个月');
      expect400(await save({ vehicle_type_id: 99999 }), '车型不存在或已被删除', 'vehicle_type_id');
    });

    // ------------------------------------------------------------------ the state table of spec 000 §4

    for (const kind of kindNames) {
      it(`${kind}: every action refused in every state the table forbids, with 409 and the state message`, async () => {
        const { p, key, begin, end, returnKey } = K[kind];
        const calls: Array<[AppointmentAction, (id: number) => Promise<Reply>]> = [
          ['edit', (id) => contact.post(`/v2${p}/edit`, { ...K[kind].body(), [key]: id })],
          ['delete', (id) => contact.post(`${p}/delete`, { id })],
          ['submit', (id) => contact.post(`${p}/push`, { id })],
          ['revoke', (id) => contact.post(`${p}/revoke`, { id, reason: '测试撤销' })],
          ['delay', (id) => contact.post(`${p}/delay`, { id, [begin]: addDays(today, 4), [end]: addDays(today, 6), delay_reason: '测试延期' })],
          ['process', (id) => contact.post(`/v2${p}/check/process/info`, { id })],
          ['historyRevoke', (id) => reviewer.post(`${p}/revokeForHis`, { id, reason: '测试撤销' })],
          ['allRevoke', (id) => squad.post(`${p}/revokeForAllHis`, { id, reason: '测试撤销' })],
          ['reject', (id) => squad.post(`${p}/return`, { [returnKey]: id, remark: '测试驳回' })],
          ['resume', (id) => squad.post(`${p}/returnSubmit`, { [returnKey]: id })],
        ];
        for (const state of [0, 1, 2, 3, 4]) {
          const id = await inState(kind, state);
          for (const [action, call] of calls) {
            if (stateAllows(action, state)) continue;
            const r = await call(id);
            if (action === 'historyRevoke' && state === AppState.DRAFT) {
              // A draft is not in anybody's department history: it reads as absent.
              expect(r.status, `${action} in ${state}`).toBe(404);
              continue;
            }
            expect(r.status, `${action} in ${state}: ${JSON.stringify(r.body)}`).toBe(409);
            expect(r.body.msg).toBe(stateConflictMessage(action, state));
          }
          expect((await row(kind, id)).state).toBe(state);
        }
      });
    }

    // ------------------------------------------------------------------ success paths

    for (const kind of kindNames) {
      it(`${kind}: submit, process view, revoke with reason, delete, edit after reject keeps the state`, async () => {
        const { p, key } = K[kind];
        const id = await create(kind);
        expect((await contact.post(`/v2${p}/check/process/info`, { id })).status).toBe(409);
        const pushed = await push(kind, id);
        expect(pushed.body).toMatchObject({ success: true, msg: '提交成功！' });
        const stored = await row(kind, id);
        expect(stored.state).toBe(AppState.REVIEW);
        expect(stored.process_instance_id).toBeTruthy();
        const info = await contact.post<{ processInstance: Row; processTaskList: Row[] }>(`/v2${p}/check/process/info`, { id });
        expect(info.body.data.processInstance.process_instance_id).toBe(stored.process_instance_id);
        expect(info.body.data.processTaskList[0]).toMatchObject({ state: 0, user: { user_name: '李强' } });

        expect400(await contact.post(`${p}/revoke`, { id }), '请输入撤销理由', 'reason');
        const revoked = await contact.post(`${p}/revoke`, { id, reason: '行程取消' });
        expect(revoked.body.msg).toBe('撤销审核成功！');
        expect(await row(kind, id)).toMatchObject({ state: AppState.REVOKED, revoke_reason: '行程取消' });

        const deleted = await contact.post(`${p}/delete`, { id });
        expect(deleted.body.msg).toBe('删除成功！');
        expect((await row(kind, id)).is_deleted).toBe(1);
        expect((await contact.get(`${p}/detail?id=${id}`)).status).toBe(404);
        expect((await contact.post<Page>(`${p}/list`, { size: 100 })).body.data.list.map((r) => r[key])).not.toContain(id);

        // Edited after a rejection: still rejected until the approval is resumed.
        const rejected = await inState(kind, AppState.REJECTED);
        const instance = (await row(kind, rejected)).process_instance_id;
        expect((await contact.post(`/v2${p}/edit`, { ...K[kind].body({ interviewee_name: '李强' }), [key]: rejected })).body.msg).toBe('编辑成功！');
        expect(await row(kind, rejected)).toMatchObject({ state: AppState.REJECTED, process_instance_id: instance });
        // Visiting another department is another approval: back to draft.
        expect((await contact.post(`/v2${p}/edit`, { ...K[kind].body({ interviewee_depart_id: depart.YUXIN }), [key]: rejected })).status).toBe(200);
        expect(await row(kind, rejected)).toMatchObject({ state: AppState.DRAFT, process_instance_id: null });
      });

      it(`${kind}: delay of an approved application applies at once, within the rules`, async () => {
        const { p, begin, end } = K[kind];
        const id = await inState(kind, AppState.APPROVED);
        const body = (b: string, e: string) => ({ id, [begin]: b, [end]: e, delay_reason: '工期延长' });
        expect400(await contact.post(`${p}/delay`, body(today, today)), `来访结束时间：延期结束时间必须晚于今天`, end);
        expect400(await contact.post(`${p}/delay`, { id, [begin]: addDays(today, 1), [end]: addDays(today, 2) }), '请输入延期理由', 'delay_reason');
        // The visitor type's span limit still holds (temporary: 3 days for vehicles, 10 for persons).
        const tooLong = await contact.post(`${p}/delay`, body(addDays(today, 1), addDays(today, 30)));
        expect(tooLong.status).toBe(400);
        expect(tooLong.body.msg).toContain(kind === 'car' ? '临时车辆来访时间不能超过3天' : '临时来访时间差不能超过10天');
        const ok = await contact.post(`${p}/delay`, body(addDays(today, 1), addDays(today, 3)));
        expect(ok.body.msg).toBe('延期申请成功！');
        expect(await row(kind, id)).toMatchObject({
          state: AppState.APPROVED,
          is_delayed: 1,
          delay_reason: '工期延长',
          [begin]: `${addDays(today, 1)} 00:00:00`,
          [end]: `${addDays(today, 3)} 23:59:59`,
        });
        // The operation log is written once the reply is sent.
        let logged = 0;
        for (let i = 0; i < 50 && !logged; i++) {
          logged = (await ctx.db.selectFrom('sys_operation_log').select('operation').where('api', '=', `/api${p}/delay`).where('result', '=', 1).execute()).length;
          if (!logged) await new Promise((r) => setTimeout(r, 20));
        }
        expect(logged).toBeGreaterThanOrEqual(1);
        // Only the applicant delays.
        expect((await portcontact.post(`${p}/delay`, body(addDays(today, 1), addDays(today, 3)))).status).toBe(404);
        // The delayed filter finds it.
        const delayed = await contact.post<Page>(`${p}/list`, { is_delayed: 1 });
        expect(delayed.body.data.list.every((r) => r.is_delayed === 1)).toBe(true);
      });

      it(`${kind}: reject and resume from the all-history screen, revoke from both history screens`, async () => {
        const { p, returnKey } = K[kind];
        const id = await inState(kind, AppState.REVIEW);
        expect400(await squad.post(`${p}/return`, { [returnKey]: id }), '请输入审批意见', 'remark');
        const rejected = await squad.post(`${p}/return`, { [returnKey]: id, remark: '资料不实' });
        expect(rejected.body.msg).toBe('驳回成功');
        expect((await row(kind, id)).state).toBe(AppState.REJECTED);
        const info = await contact.post<{ processTaskList: Row[] }>(`/v2${p}/check/process/info`, { id });
        expect(info.body.data.processTaskList.at(-1)).toMatchObject({ result: TaskResult.REJECT, remark: '资料不实', user: { user_name: '陈刚' } });

        const resumed = await squad.post(`${p}/returnSubmit`, { [returnKey]: id });
        expect(resumed.body.msg).toBe('操作成功');
        expect((await row(kind, id)).state).toBe(AppState.REVIEW);
        const pending = await ctx.db
          .selectFrom('process_task')
          .select('user_id')
          .where('process_instance_id', '=', (await row(kind, id)).process_instance_id)
          .where('state', '=', 0)
          .execute();
        expect(pending.map((t) => t.user_id)).toEqual([ids.reviewer]);

        // The visited enterprise's reviewer holds the department-history revoke code.
        const byHistory = await reviewer.post(`${p}/revokeForHis`, { id, reason: '企业撤销' });
        expect(byHistory.body.msg).toBe('撤销审核成功！');
        expect(await row(kind, id)).toMatchObject({ state: AppState.REVOKED, revoke_reason: '企业撤销' });

        const approved = await inState(kind, AppState.APPROVED);
        const byAll = await squad.post(`${p}/revokeForAllHis`, { id: approved, reason: '安全检查不合格' });
        expect(byAll.body.msg).toBe('撤销审核成功！');
        expect(await row(kind, approved)).toMatchObject({ state: AppState.REVOKED, revoke_reason: '安全检查不合格' });
        // Contacts hold no all-history codes.
        expect((await contact.post(`${p}/revokeForAllHis`, { id: approved, reason: 'x' })).status).toBe(403);
      });
    }

    // ------------------------------------------------------------------ black lists

    it('refuses to submit a black-listed plate or person, re-checking the lists at submit time', async () => {
      const now = ctx.time();
      const listedPlate = plate();
      await ctx.db.insertInto('car_black_white_list').values({ license_plate: listedPlate, type: 1, status: 2, start_time: null, end_time: null, create_time: now, update_time: now }).execute();
      const car = await create('car', { license_plate: listedPlate });
      expect((await row('car', car)).in_black_list).toBe(1);
      const refused = await push('car', car);
      expect(refused.status).toBe(409);
      expect(refused.body.msg).toBe(`该车辆（${listedPlate}）在黑名单中，不能提交`);
      expect((await row('car', car)).state).toBe(AppState.DRAFT);

      // Listed after the draft was saved: the submit finds it and keeps the flag.
      const later = await create('car');
      const laterPlate = (await row('car', later)).license_plate;
      expect((await row('car', later)).in_black_list).toBe(0);
      await ctx.db
        .insertInto('car_black_white_list')
        .values({ license_plate: laterPlate, type: 1, status: 2, start_time: `${addDays(today, -1)} 00:00:00`, end_time: `${addDays(today, 30)} 23:59:59`, create_time: now, update_time: now })
        .execute();
      expect((await push('car', later)).status).toBe(409);
      expect((await row('car', later)).in_black_list).toBe(1);

      // An expired entry, a white-list entry and one not yet in effect do not block.
      const free = plate();
      await ctx.db
        .insertInto('car_black_white_list')
        .values([
          { license_plate: free, type: 1, status: 2, start_time: null, end_time: `${addDays(today, -1)} 23:59:59`, create_time: now, update_time: now },
          { license_plate: free, type: 2, status: 2, start_time: null, end_time: null, create_time: now, update_time: now },
          { license_plate: free, type: 1, status: 1, start_time: null, end_time: null, create_time: now, update_time: now },
        ])
        .execute();
      const ok = await create('car', { license_plate: free });
      expect((await push('car', ok)).body.msg).toBe('提交成功！');

      // The applicant's ID on a vehicle, and the visitor's ID on a person application.
      const idcard = idNumber(++seq, '01');
      await ctx.db.insertInto('person_black_white_list').values({ name: '黑名单人员', idcard, type: 1, status: 2, start_time: null, end_time: null, create_time: now, update_time: now }).execute();
      const byApplicant = await create('car', { applicant_idcard: idcard, applicant_name: '黑名单人员' });
      expect((await push('car', byApplicant)).body.msg).toBe(`该申请人（黑名单人员，证件号${idcard}）在黑名单中，不能提交`);
      const person = await create('person', { visitor_idcard: idcard, visitor_name: '黑名单人员' });
      const r = await push('person', person);
      expect(r.status).toBe(409);
      expect(r.body.msg).toBe(`该申请人（黑名单人员，证件号${idcard}）在黑名单中，不能提交`);
    });

    // ------------------------------------------------------------------ row-level access

    it('never reveals another applicant’s rows, and history is the caller’s department branch only', async () => {
      for (const kind of kindNames) {
        const { p, key } = K[kind];
        const id = await inState(kind, AppState.REVIEW);
        const draft = await create(kind);
        for (const r of [
          await portcontact.get(`${p}/detail?id=${id}`),
          await portcontact.post(`${p}/get`, { id }),
          await portcontact.post(`/v2${p}/edit`, { ...K[kind].body(), [key]: draft }),
          await portcontact.post(`${p}/delete`, { id: draft }),
          await portcontact.post(`${p}/push`, { id: draft }),
          await portcontact.post(`${p}/revoke`, { id, reason: 'x' }),
          await portcontact.post(`/v2${p}/check/process/info`, { id }),
        ]) {
          expect(r.status, JSON.stringify(r.body)).toBe(404);
        }
        expect((await portcontact.post<Page>(`${p}/list`, { size: 100 })).body.data.list.every((r) => r.create_user_id === ids.portcontact)).toBe(true);
        // The contact's own row stays untouched.
        expect((await row(kind, draft)).is_deleted).toBe(0);
      }

      // An application visiting the port (it needs a reviewer there to be submitted).
      const role = await ctx.db.selectFrom('sys_role').select('role_id').where('code', '=', 'enterprise_reviewer').executeTakeFirstOrThrow();
      const now = ctx.time();
      const { user_id } = await ctx.db
        .insertInto('sys_user')
        .values({
          user_name: '港务审核员',
          account: `port_reviewer_${dialect}`,
          password_hash: 'x',
          gender: 0,
          phone: '13911113333',
          depart_id: depart.HZ_PORT,
          status: 1,
          uuid: `port_reviewer_${dialect}`,
          create_user_id: null,
          create_time: now,
          update_time: now,
        })
        .returning('user_id')
        .executeTakeFirstOrThrow();
      await ctx.db.insertInto('sys_user_role').values({ user_id, role_id: role.role_id }).execute();
      for (const kind of kindNames) {
        const { p, key } = K[kind];
        const port = await create(kind, { interviewee_depart_id: depart.HZ_PORT }, portcontact);
        expect((await push(kind, port, portcontact)).body.msg).toBe('提交成功！');
        const mine = await inState(kind, AppState.REVIEW);
        const draft = await create(kind);
        const history = await reviewer.post<Page>(`${p}/history/list`, { size: 1000 });
        expect(history.status).toBe(200);
        const seen = history.body.data.list.map((r) => r[key]);
        expect(seen).toContain(mine);
        expect(seen).not.toContain(port);
        expect(seen).not.toContain(draft);
        expect(history.body.data.list.every((r) => r.interviewee_depart_id === depart.CNOOC_SHELL && r.state !== 0)).toBe(true);
        expect(history.body.data.total).toBe(history.body.data.list.length);
        expect((await reviewer.get(`${p}/history/detail?id=${mine}`)).status).toBe(200);
        expect((await reviewer.get(`${p}/history/detail?id=${port}`)).status).toBe(404);
        expect((await reviewer.get(`${p}/history/detail?id=${draft}`)).status).toBe(404);
        expect((await reviewer.post(`${p}/revokeForHis`, { id: port, reason: 'x' })).status).toBe(404);
        // Contacts hold no history codes: they handle the applications they filed.
        expect((await contact.post(`${p}/revokeForHis`, { id: mine, reason: 'x' })).status).toBe(403);
        expect((await contact.post(`${p}/history/list`, {})).status).toBe(403);
        // Reviewers hold no own-list code.
        expect((await reviewer.post(`${p}/list`, {})).status).toBe(403);
        // The squad sees everything in the all-history list.
        const all = await squad.post<Page>(`${p}/all/history/list`, { size: 1000 });
        expect(all.body.data.list.map((r) => r[key])).toEqual(expect.arrayContaining([port, mine]));
        expect((await squad.get(`${p}/all/history/detail?id=${port}`)).status).toBe(200);
      }

      // The one rule, deny by default: a task of the application's approval is enough, nothing else.
      const id = await inState('car', AppState.REVIEW);
      const r = await row('car', id);
      const stranger = { userId: ids.patrol!, account: 'patrol', userName: '张伟', departId: depart.HZ_PORT!, sessionId: 0, roleIds: [], roleNames: [], permissions: new Set<string>() };
      expect(await readableBy(ctx.db, stranger, 'car', r as never)).toBe(false);
      expect(await readableBy(ctx.db, { ...stranger, userId: ids.reviewer! }, 'car', r as never)).toBe(true);
      expect(await readableBy(ctx.db, { ...stranger, permissions: new Set(['carApplyHistory:list']) }, 'car', r as never)).toBe(false);
      expect(await readableBy(ctx.db, { ...stranger, departId: depart.ENTERPRISES!, permissions: new Set(['carApplyHistory:list']) }, 'car', r as never)).toBe(true);
      expect(await readableBy(ctx.db, { ...stranger, permissions: new Set(['allCarApplyHistory:list']) }, 'car', r as never)).toBe(true);
    });

    it('all-history rows carry the flag of a vehicle and filter by park', async () => {
      const flagged = await squad.post<Page>('/carApplications/all/history/list', { size: 1000 });
      expect(flagged.body.data.list[0]).toHaveProperty('label_status');
      expect(flagged.body.data.list[0]).toHaveProperty('label_remark');
      expect(flagged.body.data.list.some((r) => r.label_status === 1 && r.label_remark)).toBe(true);
      const port = await squad.post<Page>('/carApplications/all/history/list', { visit_area: 2, size: 100 });
      expect(port.body.data.list.every((r) => r.visit_area === 2)).toBe(true);
      const ids_ = flagged.body.data.list.map((r) => r.car_application_id);
      expect([...ids_].sort((a, b) => b - a)).toEqual(ids_);
    });

    // ------------------------------------------------------------------ export

    async function download(path: string, body: Row, token = squad.token!) {
      const res = await fetch(`${server.base}/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
      const workbook = new ExcelJS.Workbook();
      const buffer = Buffer.from(await res.arrayBuffer());
      if (res.status === 200) await workbook.xlsx.load(buffer as never);
      return { res, workbook, buffer };
    }
    const cells = (ws: ExcelJS.Worksheet, n: number) => (ws.getRow(n).values as unknown[]).slice(1);

    it('exports the all-history vehicles as a streamed xlsx with Chinese headers and labels', async () => {
      const id = await create('car', { visit_area: 1, license_plate_color: 1 });
      const stored = await row('car', id);
      const { res, workbook } = await download('/carApplications/all/history/export', { visit_area: 1 });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('spreadsheetml');
      const name = `车辆预约总记录_化工区_${today.replace(/-/g, '')}.xlsx`;
      expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent(name)}`);
      const ws = workbook.worksheets[0]!;
      const headers = cells(ws, 1);
      expect(headers.slice(0, 4)).toEqual(['预约单号', '车牌号', '车牌颜色', '车型']);
      expect(headers).toEqual(expect.arrayContaining(['审核状态', '被访部门', '是否标记', '标记原因']));
      const rows = Array.from({ length: ws.rowCount - 1 }, (_, i) => cells(ws, i + 2));
      const mine = rows.find((r) => r[0] === stored.application_number)!;
      expect(mine).toBeTruthy();
      const at = (h: string) => mine[headers.indexOf(h)];
      expect(at('车牌号')).toBe(stored.license_plate);
      expect(at('车牌颜色')).toBe('黄色');
      expect(at('车型')).toBe('小型汽车');
      expect(at('审核状态')).toBe('草稿');
      expect(at('园区')).toBe('化工区');
      expect(at('被访部门')).toBe('中海壳牌石油化工有限公司');
      // Only the filtered park, newest first, as many rows as the list counts.
      const total = (await squad.post<Page>('/carApplications/all/history/list', { visit_area: 1 })).body.data.total;
      expect(rows).toHaveLength(total);
      expect(rows.every((r) => r[headers.indexOf('园区')] === '化工区')).toBe(true);
      // Without the export code: 403, and no file.
      expect((await download('/carApplications/all/history/export', {}, contact.token!)).res.status).toBe(403);
    });

    it('exports every person application in pages, with 全部园区 in the name when no park is chosen', async () => {
      const now = ctx.time();
      const template = await row('person', await create('person'));
      const { person_application_id: _, ...base } = template;
      const values = Array.from({ length: 1150 }, (_, i) => ({ ...base, application_number: `PAX${dialect}${i}`, visitor_name: `批量访客${i}`, create_time: now, update_time: now }));
      for (let i = 0; i < values.length; i += 200)
        await ctx.db
          .insertInto('person_application')
          .values(values.slice(i, i + 200) as never)
          .execute();
      const { res, workbook } = await download('/personApplications/all/history/export', {});
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent(`人员预约总记录_全部园区_${today.replace(/-/g, '')}.xlsx`)}`);
      const ws = workbook.worksheets[0]!;
      expect(cells(ws, 1).slice(0, 3)).toEqual(['申请单号', '访客姓名', '性别']);
      const total = (await squad.post<Page>('/personApplications/all/history/list', {})).body.data.total;
      expect(total).toBeGreaterThan(1150);
      expect(ws.rowCount - 1).toBe(total);
      const numbers = new Set(Array.from({ length: ws.rowCount - 1 }, (_, i) => cells(ws, i + 2)[0]));
      expect(numbers.size).toBe(total);
      expect(numbers.has(`PAX${dialect}0`) && numbers.has(`PAX${dialect}1149`)).toBe(true);

      // A client that goes away mid-file leaves the server answering (and able to close).
      await new Promise<void>((resolve, reject) => {
        const req = http.request(
          `${server.base}/api/personApplications/all/history/export`,
          { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${squad.token}` } },
          (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          },
        );
        req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
        req.end('{}');
      });
      expect((await squad.post<Page>('/personApplications/all/history/list', {})).body.data.total).toBe(total);
    });
  });
}
