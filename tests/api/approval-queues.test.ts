import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../domain/visit-rules';
import { taskSubmitTime } from '../../server/db/migrations/021-task-submit-time';
import { carApplicationBody, personApplicationBody, registerPlate } from './fixtures';
import { Client, dialects, startServer, type Reply, type TestServer } from './harness';

/** The approval queues, visit-date amend and vehicle flags over HTTP, with the seeded demo accounts and processes. */

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 1)]);

const path = {
  car_task: { page: '/carApplications/task/page', check: '/carApplications/task/check' },
  car_zxzxc: { page: '/carApplications/zxzxc_task/page', check: '/carApplications/zxzxc_task/check' },
  car_bus: { page: '/carApplications/bus_task/page', check: '/carApplications/bus_task/check' },
  car_chemicals: { page: '/carApplications/chemicals_task/page', check: '/carApplications/chemicals_task/check' },
  car_final: { page: '/carApplications/shdd_final/taskPage', check: '/carApplications/shdd_final/taskCheck' },
  person_task: { page: '/personApplications/task/page', check: '/personApplications/task/check' },
  person_final: { page: '/personApplications/shdd_final/taskPage', check: '/personApplications/shdd_final/taskCheck' },
} as const;
type Queue = keyof typeof path;

interface TaskRow {
  ref_id: number;
  process_task_id: number;
  process_instance_id: number;
  state: number;
  approval_status: number | null;
  node_name: string;
  carApplication?: Record<string, unknown>;
  personApplication?: Record<string, unknown>;
}

for (const dialect of await dialects()) {
  describe(`approval queues (${dialect})`, () => {
    let server: TestServer;
    const as: Record<string, Client> = {};
    const model: Record<string, number> = {};
    const depart: Record<string, number> = {};
    let today = '';
    let img = '';
    let seq = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      for (const a of ['contact', 'reviewer', 'hazard', 'squad', 'patrol']) as[a] = await new Client(server).as(a);
      const { db } = server.app.ctx;
      for (const v of await db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[v.name] = v.id;
      for (const d of await db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      today = server.app.ctx.time().slice(0, 10);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'photo.png');
      const up = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${as.contact!.token}` } });
      img = ((await up.json()) as { data: { name: string } }).data.name;
      expect(img).toBeTruthy();
    });
    afterAll(async () => server?.close());

    const extras: Record<string, () => Record<string, unknown>> = {
      小型汽车: () => ({}),
      重型自卸货车: () => ({
        blind_video_photo: img,
        register_record_photo: img,
        cargo_type: 0,
        dump_truck_file: { driver_license: img, driving_license: img, compulsory_insurance: img, commercial_insurance: img, excess_insurance: img, commitment_letter: img },
      }),
      中型客车: () => ({ blind_video_photo: img }),
      危险化学品运输车: () => ({
        blind_video_photo: img,
        register_record_photo: img,
        cargo_type: 1,
        cargo_name: '液氯',
        cargo_info: { cargo_name: '液氯', cargo_quantity: 10, cargo_unit: '吨', enterprise: '惠州测试化工有限公司', driver: '王五', driver_phone: '13900002222' },
      }),
    };

    const carBody = (modelName: keyof typeof extras, extra: Record<string, unknown> = {}) => ({
      ...carApplicationBody({
        today,
        license_plate: `粤L${String(++seq).padStart(4, '0')}${dialect === 'sqlite' ? 'S' : 'P'}`,
        applicant_idcard: '441302199001011231',
        vehicle_type_id: model[modelName]!,
        interviewee_depart_id: depart.CNOOC_SHELL!,
      }),
      ...extras[modelName]!(),
      ...extra,
    });

    const idOf = (r: Reply) => {
      const d = r.body.data as { id?: number; car_application_id?: number; person_application_id?: number } | number;
      return typeof d === 'number' ? d : (d.id ?? d.car_application_id ?? d.person_application_id)!;
    };

    /** A submitted vehicle application: its id, number and process instance. */
    async function newCar(modelName: keyof typeof extras, extra: Record<string, unknown> = {}) {
      const body = carBody(modelName, extra);
      const saved = await as.contact!.post('/v2/carApplications/save', body);
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = idOf(saved);
      // Dump trucks and hazardous vehicles need an approved registration of the plate (DESIGN.md §7).
      await registerPlate(server.app.ctx.db, body.license_plate, today, addDays(today, 30));
      const pushed = await as.contact!.post('/carApplications/push', { id });
      expect(pushed.body, JSON.stringify(pushed.body)).toMatchObject({ success: true });
      const row = await server.app.ctx.db.selectFrom('car_application').select(['application_number', 'process_instance_id', 'state']).where('car_application_id', '=', id).executeTakeFirstOrThrow();
      expect(row.state).toBe(1);
      return { id, number: row.application_number, instance: row.process_instance_id! };
    }

    async function newPerson() {
      const saved = await as.contact!.post('/personApplications/save', personApplicationBody({ today, visitor_idcard: '441302198503152048', interviewee_depart_id: depart.CNOOC_SHELL! }));
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = idOf(saved);
      const pushed = await as.contact!.post('/personApplications/push', { id });
      expect(pushed.body, JSON.stringify(pushed.body)).toMatchObject({ success: true });
      const row = await server.app.ctx.db.selectFrom('person_application').select(['application_number', 'process_instance_id']).where('person_application_id', '=', id).executeTakeFirstOrThrow();
      return { id, number: row.application_number, instance: row.process_instance_id! };
    }

    const page = (who: string, queue: Queue, filters: Record<string, unknown> = {}) => as[who]!.post<{ list: TaskRow[]; total: number }>(path[queue].page, { size: 50, pn: 1, ...filters });
    /** The caller's pending task of an application in a queue, or undefined. */
    const taskOf = async (who: string, queue: Queue, number: string) => {
      const r = await page(who, queue, { application_number: number });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data.list.find((t) => (t.carApplication ?? t.personApplication)!.application_number === number);
    };
    const check = (who: string, queue: Queue, taskIds: number | string, extra: Record<string, unknown> = {}) => as[who]!.post<unknown>(path[queue].check, { taskIds: String(taskIds), ...extra });
    const carState = async (id: number) => (await server.app.ctx.db.selectFrom('car_application').select('state').where('car_application_id', '=', id).executeTakeFirstOrThrow()).state;

    /** Approves the application's task in each queue in turn, as each account. */
    async function walk(number: string, steps: Array<[who: string, queue: Queue]>) {
      for (const [who, queue] of steps) {
        const t = await taskOf(who, queue, number);
        expect(t, `${who} in ${queue}`).toBeTruthy();
        const r = await check(who, queue, t!.process_task_id);
        expect(r.body, `${who} in ${queue}: ${JSON.stringify(r.body)}`).toMatchObject({ success: true, msg: '审核成功！' });
      }
    }

    it('walks a vehicle of each process type through its queues with the right accounts to state 2', async () => {
      const general = await newCar('小型汽车');
      await walk(general.number, [
        ['reviewer', 'car_task'],
        ['squad', 'car_final'],
      ]);
      expect(await carState(general.id)).toBe(2);

      const dump = await newCar('重型自卸货车');
      await walk(dump.number, [
        ['reviewer', 'car_zxzxc'],
        ['hazard', 'car_zxzxc'],
        ['squad', 'car_final'],
      ]);
      expect(await carState(dump.id)).toBe(2);

      const bus = await newCar('中型客车');
      await walk(bus.number, [
        ['reviewer', 'car_bus'],
        ['hazard', 'car_bus'],
        ['squad', 'car_final'],
      ]);
      expect(await carState(bus.id)).toBe(2);

      const chem = await newCar('危险化学品运输车');
      await walk(chem.number, [
        ['reviewer', 'car_chemicals'],
        ['hazard', 'car_chemicals'],
        ['squad', 'car_final'],
      ]);
      expect(await carState(chem.id)).toBe(2);
    });

    it('shows every node’s reviewer when the filer submitted (提交时间), not when the node before approved', async () => {
      const ctx = server.app.ctx;
      const dump = await newCar('重型自卸货车');
      const { create_time: submitted } = await ctx.db.selectFrom('process_instance').select('create_time').where('process_instance_id', '=', dump.instance).executeTakeFirstOrThrow();
      const submitTimes: string[] = [];
      const realTime = ctx.time;
      try {
        // Each node decides a year after the one before, so a node's arrival could never pass for the submission.
        let year = Number(submitted.slice(0, 4));
        for (const [who, queue] of [
          ['reviewer', 'car_zxzxc'],
          ['hazard', 'car_zxzxc'],
          ['squad', 'car_final'],
        ] as const) {
          const t = (await taskOf(who, queue, dump.number)) as (TaskRow & { submit_time: string }) | undefined;
          expect(t, `${who} in ${queue}`).toBeTruthy();
          submitTimes.push(t!.submit_time);
          const decidedAt = `${++year}${submitted.slice(4)}`;
          ctx.time = () => decidedAt;
          expect((await check(who, queue, t!.process_task_id)).body).toMatchObject({ success: true });
          ctx.time = realTime;
        }
      } finally {
        ctx.time = realTime;
      }
      expect(submitTimes).toEqual([submitted, submitted, submitted]);
      expect(await carState(dump.id)).toBe(2);

      // Tasks written before migration 021 held their node's arrival; it gives them their instance's time.
      await ctx.db.updateTable('process_task').set({ submit_time: '2000-01-01 00:00:00' }).where('process_instance_id', '=', dump.instance).execute();
      await taskSubmitTime().up(ctx.db);
      const after = await ctx.db.selectFrom('process_task').select('submit_time').where('process_instance_id', '=', dump.instance).execute();
      expect(after.map((t) => t.submit_time)).toEqual([submitted, submitted, submitted]);
    });

    it('answers queue rows as the task wrapper with the application, its model and department names', async () => {
      const car = await newCar('小型汽车');
      const r = await page('reviewer', 'car_task', { application_number: car.number });
      expect(r.body.data.total).toBe(1);
      const row = r.body.data.list[0]!;
      expect(row).toMatchObject({ ref_id: car.id, process_instance_id: car.instance, state: 0, approval_status: 1, result: null, node_name: '被访企业审核' });
      expect(row.carApplication).toMatchObject({
        car_application_id: car.id,
        application_number: car.number,
        vehicle_type_name: '小型汽车',
        interviewee_depart_name: '中海壳牌石油化工有限公司',
        label_status: 0,
      });
      // Newest first, and the other filters narrow the same way.
      const second = await newCar('小型汽车');
      const all = await page('reviewer', 'car_task');
      const ids = all.body.data.list.map((t) => t.process_task_id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const { license_plate } = await server.app.ctx.db.selectFrom('car_application').select('license_plate').where('car_application_id', '=', second.id).executeTakeFirstOrThrow();
      // Stored upper-case, matched whatever case is typed.
      const byPlate = (await page('reviewer', 'car_task', { license_plate: license_plate.slice(1).toLowerCase() })).body.data;
      expect(byPlate.list.map((t) => t.ref_id)).toEqual([second.id]);
      expect((await page('reviewer', 'car_task', { application_number: second.number.toLowerCase() })).body.data.list.map((t) => t.ref_id)).toEqual([second.id]);
      expect((await page('reviewer', 'car_task', { application_number: car.number, visit_area: 2 })).body.data.total).toBe(0);
      expect((await page('reviewer', 'car_task', { application_number: car.number, visitor_type: 3, applicant_name: '测试', begin_time: today })).body.data.total).toBe(1);
      expect((await page('reviewer', 'car_task', { application_number: car.number, end_time: addDays(today, -1) })).body.data.total).toBe(0);
    });

    it('shows a task only to its assignee and only in its queue; anyone else’s check is 404', async () => {
      const car = await newCar('小型汽车');
      const mine = await taskOf('reviewer', 'car_task', car.number);
      expect(mine).toBeTruthy();
      expect(await taskOf('squad', 'car_task', car.number)).toBeUndefined();
      expect(await taskOf('reviewer', 'car_zxzxc', car.number)).toBeUndefined();
      // The final queue is not even open to an enterprise reviewer.
      expect((await page('reviewer', 'car_final')).status).toBe(403);

      const other = await check('squad', 'car_task', mine!.process_task_id);
      expect(other.status).toBe(404);
      expect(other.body.code).toBe(1005);
      // The right person through another queue's endpoint is refused the same way.
      const wrongQueue = await check('reviewer', 'car_zxzxc', mine!.process_task_id);
      expect(wrongQueue.status).toBe(404);
      // Without the queue's code the guard refuses first.
      expect((await check('hazard', 'car_task', mine!.process_task_id)).status).toBe(403);

      const detail = await as.reviewer!.get<TaskRow & { processInfo: { processTaskList: unknown[] } }>(`/carApplications/task/detail?id=${mine!.process_task_id}`);
      expect(detail.status).toBe(200);
      expect(detail.body.data).toMatchObject({ process_task_id: mine!.process_task_id, ref_id: car.id, carApplication: { application_number: car.number } });
      expect(detail.body.data.processInfo.processTaskList).toHaveLength(1);
      expect((await as.squad!.get(`/carApplications/task/detail?id=${mine!.process_task_id}`)).status).toBe(404);
      expect((await as.reviewer!.get(`/personApplications/task/detail?id=${mine!.process_task_id}`)).status).toBe(404);
      expect(await carState(car.id)).toBe(1);
    });

    it('decides a batch of comma-joined tasks, each on its own, and reports a partial failure', async () => {
      const cars = [await newCar('小型汽车'), await newCar('小型汽车'), await newCar('小型汽车')];
      const tasks = await Promise.all(cars.map((c) => taskOf('reviewer', 'car_task', c.number)));
      const [a, b, c] = tasks.map((t) => t!.process_task_id);
      expect((await check('reviewer', 'car_task', a!)).body.msg).toBe('审核成功！');

      const r = await check('reviewer', 'car_task', `${a},${b},${c}`);
      expect(r.status).toBe(409);
      expect(r.body.code).toBe(1006);
      expect(r.body.msg).toMatch(new RegExp(`^2 条审核成功，1 条未处理：申请 ${cars[0]!.number} 该任务已由李强于.+审核通过，不能重复审核$`));
      expect(r.body.data).toMatchObject({ done: [b, c], failed: [{ taskId: a, message: expect.stringContaining('不能重复审核') }] });
      for (const car of cars) expect(await taskOf('squad', 'car_final', car.number)).toBeTruthy();

      const more = [await newCar('小型汽车'), await newCar('小型汽车')];
      const ids = await Promise.all(more.map(async (m) => (await taskOf('reviewer', 'car_task', m.number))!.process_task_id));
      const ok = await check('reviewer', 'car_task', ids.join(','));
      expect(ok.body).toMatchObject({ success: true, msg: '审核成功！', data: { done: ids } });
      // The final queue takes the batch too, with the batch code.
      const finals = await Promise.all(more.map(async (m) => (await taskOf('squad', 'car_final', m.number))!.process_task_id));
      expect((await check('squad', 'car_final', finals.join(','))).body.msg).toBe('审核成功！');
      for (const m of more) expect(await carState(m.id)).toBe(2);
    });

    it('rejects a batch with one required reason, given to every task', async () => {
      const cars = [await newCar('小型汽车'), await newCar('小型汽车')];
      const ids = await Promise.all(cars.map(async (c) => (await taskOf('reviewer', 'car_task', c.number))!.process_task_id));
      const bare = await check('reviewer', 'car_task', ids.join(','), { result: 2, remark: '  ' });
      expect(bare.status).toBe(400);
      expect(bare.body.msg).toContain('请输入审批意见');
      for (const c of cars) expect(await carState(c.id)).toBe(1);
      const r = await check('reviewer', 'car_task', ids.join(','), { result: 2, remark: '车辆信息不全' });
      expect(r.body).toMatchObject({ success: true, data: { done: ids } });
      for (const c of cars) expect(await carState(c.id)).toBe(3);
      const settled = await server.app.ctx.db.selectFrom('process_task').select(['result', 'remark']).where('process_task_id', 'in', ids).execute();
      expect(settled).toEqual([
        { result: 2, remark: '车辆信息不全' },
        { result: 2, remark: '车辆信息不全' },
      ]);
    });

    it('needs the batch code for more than one task', async () => {
      const cars = [await newCar('重型自卸货车'), await newCar('重型自卸货车')];
      const ids = await Promise.all(cars.map(async (m) => (await taskOf('reviewer', 'car_zxzxc', m.number))!.process_task_id));
      for (const id of ids) await check('reviewer', 'car_zxzxc', id);
      const hazardIds = await Promise.all(cars.map(async (m) => (await taskOf('hazard', 'car_zxzxc', m.number))!.process_task_id));
      const r = await check('hazard', 'car_zxzxc', hazardIds.join(','));
      expect(r.status).toBe(403);
      expect(r.body.msg).toContain('carApplyApproval:batch');
      expect(await taskOf('hazard', 'car_zxzxc', cars[0]!.number)).toBeTruthy();
    });

    it('answers 409 with what happened for a task already decided', async () => {
      const car = await newCar('小型汽车');
      const t = (await taskOf('reviewer', 'car_task', car.number))!;
      await check('reviewer', 'car_task', t.process_task_id);
      const again = await check('reviewer', 'car_task', t.process_task_id);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe(1006);
      expect(again.body.msg).toMatch(/^该任务已由李强于\d{4}-\d\d-\d\d \d\d:\d\d:\d\d审核通过，不能重复审核$/);
    });

    it('rejects only with an opinion: 请输入审批意见', async () => {
      const car = await newCar('小型汽车');
      const t = (await taskOf('reviewer', 'car_task', car.number))!;
      const bare = await check('reviewer', 'car_task', t.process_task_id, { result: 2 });
      expect(bare.status).toBe(400);
      expect(bare.body.msg).toContain('请输入审批意见');
      expect(await carState(car.id)).toBe(1);
      const r = await check('reviewer', 'car_task', t.process_task_id, { result: 2, remark: '来访事由不清楚' });
      expect(r.body.msg).toBe('审核成功！');
      expect(await carState(car.id)).toBe(3);
      const task = await server.app.ctx.db.selectFrom('process_task').select(['result', 'remark']).where('process_task_id', '=', t.process_task_id).executeTakeFirstOrThrow();
      expect(task).toEqual({ result: 2, remark: '来访事由不清楚' });
      // An approval without an opinion reads 同意.
      const other = await newCar('小型汽车');
      const t2 = (await taskOf('reviewer', 'car_task', other.number))!;
      await check('reviewer', 'car_task', t2.process_task_id, { result: 1 });
      expect((await server.app.ctx.db.selectFrom('process_task').select('remark').where('process_task_id', '=', t2.process_task_id).executeTakeFirstOrThrow()).remark).toBe('同意');
    });

    it('honours the interviewee department filter only with the queue’s showDept code', async () => {
      const car = await newCar('小型汽车');
      // The reviewer lacks carApplyApproval:showDept: the filter is ignored.
      expect((await page('reviewer', 'car_task', { application_number: car.number, interviewee_depart_id: depart.YUXIN })).body.data.total).toBe(1);
      await check('reviewer', 'car_task', (await taskOf('reviewer', 'car_task', car.number))!.process_task_id);
      // The squad holds it: the filter applies.
      expect((await page('squad', 'car_final', { application_number: car.number, interviewee_depart_id: depart.YUXIN })).body.data.total).toBe(0);
      expect((await page('squad', 'car_final', { application_number: car.number, interviewee_depart_id: depart.CNOOC_SHELL })).body.data.total).toBe(1);
    });

    it('lets the assignee of a pending task amend the visit dates', async () => {
      const car = await newCar('小型汽车');
      const body = { car_application_id: car.id, process_instance_id: car.instance };
      expect((await as.reviewer!.post('/carApplications/canAmend', body)).body.data).toBe(true);
      expect((await as.squad!.post('/carApplications/canAmend', body)).body.data).toBe(false);
      expect((await as.reviewer!.post('/carApplications/canAmend', { ...body, process_instance_id: car.instance + 1000 })).body.data).toBe(false);

      const refused = await as.squad!.post('/carApplications/amend', { ...body, visitor_begin_time: addDays(today, 1), visitor_end_time: addDays(today, 2) });
      expect(refused.status).toBe(409);
      const reversed = await as.reviewer!.post('/carApplications/amend', { ...body, visitor_begin_time: addDays(today, 6), visitor_end_time: addDays(today, 5) });
      expect(reversed.status).toBe(400);
      expect(reversed.body.msg).toContain('来访结束时间不能早于开始时间');
      const tooLong = await as.reviewer!.post('/carApplications/amend', { ...body, visitor_begin_time: addDays(today, 4), visitor_end_time: addDays(today, 10) });
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.msg).toContain('临时车辆来访时间不能超过3天');
      // An approver may move a visit closer than the form's earliest start.
      const okay = await as.reviewer!.post('/carApplications/amend', { ...body, visitor_begin_time: addDays(today, 1), visitor_end_time: addDays(today, 2) });
      expect(okay.body).toMatchObject({ success: true, msg: '编辑成功！' });
      const row = await server.app.ctx.db.selectFrom('car_application').select(['visitor_begin_time', 'visitor_end_time', 'state']).where('car_application_id', '=', car.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ visitor_begin_time: `${addDays(today, 1)} 00:00:00`, visitor_end_time: `${addDays(today, 2)} 23:59:59`, state: 1 });

      await walk(car.number, [
        ['reviewer', 'car_task'],
        ['squad', 'car_final'],
      ]);
      expect((await as.squad!.post('/carApplications/canAmend', body)).body.data).toBe(false);
      expect((await as.reviewer!.post('/carApplications/amend', { ...body, visitor_begin_time: addDays(today, 1), visitor_end_time: addDays(today, 2) })).status).toBe(409);
      // Without any check code of a queue holding the task: refused by the route itself.
      expect((await as.patrol!.post('/carApplications/canAmend', body)).body.data).toBe(false);
    });

    it('flags vehicles and reads back their active marks', async () => {
      const cars = [await newCar('小型汽车'), await newCar('小型汽车')];
      const ids = cars.map((c) => c.id).join(',');
      const none = await as.patrol!.post('/label/vehicle/label', { car_application_ids: '', remark: '可疑' });
      expect(none.status).toBe(400);
      expect(none.body.msg).toContain('请先选择要标记的车辆');
      const noReason = await as.patrol!.post('/label/vehicle/label', { car_application_ids: ids });
      expect(noReason.status).toBe(400);
      expect(noReason.body.msg).toContain('请输入标记原因');
      const tooMany = await as.patrol!.post('/label/vehicle/label', { car_application_ids: ids, remark: '可疑', photo: Array(10).fill(img).join(';') });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.msg).toContain('最多上传9张图片');
      expect((await as.reviewer!.post('/label/vehicle/label', { car_application_ids: ids, remark: '可疑' })).status).toBe(403);
      expect((await as.patrol!.post('/label/vehicle/label', { car_application_ids: '999999', remark: '可疑' })).status).toBe(404);

      const r = await as.patrol!.post('/label/vehicle/label', { car_application_ids: ids, remark: '多次违规停车', photo: Array(9).fill(img) });
      expect(r.body).toMatchObject({ success: true, msg: '标记成功' });
      const rows = await server.app.ctx.db
        .selectFrom('car_application')
        .select(['label_status', 'label_remark'])
        .where(
          'car_application_id',
          'in',
          cars.map((c) => c.id),
        )
        .execute();
      expect(rows).toEqual([
        { label_status: 1, label_remark: '多次违规停车' },
        { label_status: 1, label_remark: '多次违规停车' },
      ]);

      const marks = await as.patrol!.post<Array<Record<string, unknown>>>('/label/vehicle/queryRemark', { car_application_ids: String(cars[0]!.id) });
      expect(marks.body.data).toHaveLength(1);
      expect(marks.body.data[0]).toMatchObject({
        car_application_id: cars[0]!.id,
        remark: '多次违规停车',
        color_id: 2,
        label_type_id: 1,
        alarm_id: 3,
        create_user_name: '张伟',
        vehicle_type_name: '小型汽车',
      });
      expect(String(marks.body.data[0]!.photo).split(';')).toHaveLength(9);
      const plate = (await server.app.ctx.db.selectFrom('car_application').select('license_plate').where('car_application_id', '=', cars[1]!.id).executeTakeFirstOrThrow()).license_plate;
      const byPlate = await as.patrol!.post<Array<Record<string, unknown>>>('/label/vehicle/queryRemark', { license_plate: plate });
      expect(byPlate.body.data.map((m) => m.car_application_id)).toEqual([cars[1]!.id]);
      expect((await as.patrol!.post('/label/vehicle/queryRemark', {})).status).toBe(400);
    });

    it('counts the caller’s pending tasks in each queue they may list (GET /approval/pending)', async () => {
      type Pending = { list: Array<{ queue: string; title: string; route: string; count: number }> };
      const pending = async (who: string) => {
        const r = await as[who]!.get<Pending>('/approval/pending');
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.data.list;
      };
      expect(await pending('patrol')).toEqual([]);
      const before = await pending('reviewer');
      expect(before.map((q) => q.queue)).toEqual(['car_task', 'car_zxzxc', 'car_bus', 'car_chemicals', 'person_task']);
      expect(before.find((q) => q.queue === 'person_task')).toMatchObject({ title: '人员预约审核', route: '/approval/person' });
      await newPerson();
      const after = await pending('reviewer');
      for (const q of after) expect(q.count, q.queue).toBe(before.find((b) => b.queue === q.queue)!.count + (q.queue === 'person_task' ? 1 : 0));
      expect((await pending('squad')).map((q) => q.queue)).toEqual(expect.arrayContaining(['car_final', 'person_final']));
    });

    it('walks a person application through the person queue and the person final queue', async () => {
      const p = await newPerson();
      const t = await taskOf('reviewer', 'person_task', p.number);
      expect(t).toMatchObject({ ref_id: p.id, state: 0, approval_status: 1, personApplication: { person_application_id: p.id, interviewee_depart_name: '中海壳牌石油化工有限公司' } });
      expect(await taskOf('squad', 'person_final', p.number)).toBeUndefined();
      expect(await taskOf('squad', 'person_task', p.number)).toBeUndefined();
      expect((await as.reviewer!.post('/personApplications/canAmend', { person_application_id: p.id, process_instance_id: p.instance })).body.data).toBe(true);
      const amended = await as.reviewer!.post('/personApplications/amend', {
        person_application_id: p.id,
        process_instance_id: p.instance,
        visit_begin_time: today,
        visit_end_time: addDays(today, 20),
      });
      expect(amended.status).toBe(400);
      expect(amended.body.msg).toContain('临时来访时间差不能超过10天');
      expect(
        (await as.reviewer!.post('/personApplications/amend', { person_application_id: p.id, process_instance_id: p.instance, visit_begin_time: today, visit_end_time: addDays(today, 2) })).body.msg,
      ).toBe('编辑成功！');
      const detail = await as.reviewer!.get<TaskRow>(`/personApplications/task/detail?id=${t!.process_task_id}`);
      expect(detail.body.data.personApplication).toMatchObject({ visit_begin_time: `${today} 00:00:00` });

      await walk(p.number, [
        ['reviewer', 'person_task'],
        ['squad', 'person_final'],
      ]);
      const state = await server.app.ctx.db.selectFrom('person_application').select('state').where('person_application_id', '=', p.id).executeTakeFirstOrThrow();
      expect(state.state).toBe(2);
      // A vehicle endpoint never decides a person task.
      const q = await newPerson();
      const pt = (await taskOf('reviewer', 'person_task', q.number))!;
      expect((await check('reviewer', 'car_task', pt.process_task_id)).status).toBe(404);
    });
  });
}
