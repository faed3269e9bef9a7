import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CarListRow, PersonListRow } from '../../domain/schemas/black-white-list';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { rgbPng } from '../../server/seed/seed-appointments';
import { carApplicationBody, idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, unknown>;
type Task = { process_task_id: number; ref_id: number; approval_status: number; carBlackWhiteList?: CarListRow; personBlackWhiteList?: PersonListRow };

for (const dialect of await dialects()) {
  describe(`black/white lists on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let lead: Client, squad: Client, contact: Client, patrol: Client;
    let today = '';
    let seq = 0;
    const depart: Record<string, number> = {};
    const model: Record<string, number> = {};

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      [lead, squad, contact, patrol] = await Promise.all(['lead', 'squad', 'contact', 'patrol'].map((a) => new Client(server).as(a)));
    });
    afterAll(async () => server?.close());

    const plate = () => `粤L${String(++seq).padStart(5, '0')}`;
    const carEntry = (o: Row = {}): Row => ({ license_plate: plate(), vehicle_type_id: model['小型汽车'], type: 1, start_time: today, end_time: addDays(today, 30), in_reason: '多次违规进入', ...o });
    const personEntry = (o: Row = {}): Row => ({
      name: '张三',
      gender: 0,
      idcard_type: 1,
      idcard: idNumber(++seq, '03'),
      type: 1,
      start_time: today,
      end_time: addDays(today, 30),
      in_reason: '冒用证件',
      ...o,
    });

    async function create(base: string, body: Row, who = lead): Promise<number> {
      const r = await who.post<{ id: number }>(`${base}/save`, body);
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '创建成功！' });
      return r.body.data.id;
    }
    const status = async (table: 'car_black_white_list' | 'person_black_white_list', id: number) =>
      (await ctx.db.selectFrom(table).select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    async function squadTask(base: string, id: number): Promise<Task> {
      const page = await squad.post<{ list: Task[]; total: number }>(`${base}/task/page`, { size: 100, pn: 1 });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      const t = page.body.data.list.find((x) => x.ref_id === id);
      expect(t, `task of ${id}`).toBeTruthy();
      return t!;
    }

    it('validates each field of the vehicle entry with its rule, dates from today on', async () => {
      const cases: Array<[Row, string, string]> = [
        [{ license_plate: '' }, 'license_plate', '请输入车牌号'],
        [{ license_plate: 'ABC' }, 'license_plate', '车牌号格式不正确'],
        [{ type: 3 }, 'type', '请选择名单类型'],
        [{ start_time: '' }, 'start_time', '请选择开始时间'],
        [{ start_time: addDays(today, -1) }, 'start_time', '开始时间不能早于今天'],
        [{ start_time: addDays(today, 5), end_time: addDays(today, 2) }, 'end_time', '结束时间不能早于开始时间'],
        [{ in_reason: '' }, 'in_reason', '请输入原因'],
        [{ vehicle_type_id: 999999 }, 'vehicle_type_id', '所选车型不存在或已被删除'],
      ];
      for (const [patch, field, msg] of cases) {
        const r = await lead.post('/carBlackWhiteList/save', carEntry(patch));
        expect(r.status, msg).toBe(400);
        expect(r.body.msg).toBe(msg);
        expect((r.body.data as { errors: Array<{ field: string }> }).errors[0]!.field).toBe(field);
      }
      const r = await lead.post('/personBlackWhiteList/save', personEntry({ idcard: '123' }));
      expect(r.status).toBe(400);
      expect((r.body.data as { errors: Array<{ field: string }> }).errors[0]!.field).toBe('idcard');
    });

    it('walks a black-list plate from draft to approved; from then on the plate cannot be booked', async () => {
      const p = plate();
      const id = await create('/carBlackWhiteList', carEntry({ license_plate: p }));
      expect(await status('car_black_white_list', id)).toBe(0);
      // Not submitted yet: no process to show, and not in force.
      expect((await lead.post('/v2/carBlackWhiteList/check/process/info', { id })).status).toBe(409);
      expect((await lead.post('/carBlackWhiteList/push', { id })).body.msg).toBe('提交成功！');
      expect(await status('car_black_white_list', id)).toBe(1);
      expect((await lead.post('/carBlackWhiteList/edit', { ...carEntry({ license_plate: p }), id })).status).toBe(409);
      expect((await lead.post('/carBlackWhiteList/delete', { id })).status).toBe(409);

      const task = await squadTask('/carBlackWhiteList', id);
      expect(task.approval_status).toBe(1);
      expect(task.carBlackWhiteList).toMatchObject({ license_plate: p, vehicle_type_name: '小型汽车', create_user_name: '赵敏' });
      // The filer holds no check code; the squad decides.
      expect((await lead.post('/carBlackWhiteList/task/check', { taskIds: [task.process_task_id], result: 1, remark: '同意' })).status).toBe(403);
      expect((await squad.post('/carBlackWhiteList/task/check', { taskIds: [task.process_task_id], result: 1, remark: '同意' })).body.msg).toBe('审核成功！');
      expect(await status('car_black_white_list', id)).toBe(2);
      const again = await squad.post('/carBlackWhiteList/task/check', { taskIds: [task.process_task_id], result: 1, remark: '同意' });
      expect(again.status).toBe(409);
      const info = await lead.post<{ processTaskList: Array<{ result: number }> }>('/v2/carBlackWhiteList/check/process/info', { id });
      expect(info.body.data.processTaskList.map((t) => t.result)).toEqual([1]);
      // The lead hears of the decision.
      const note = await ctx.db.selectFrom('notification').select(['title', 'url']).where('title', '=', '名单已通过').orderBy('notification_id', 'desc').executeTakeFirst();
      expect(note?.url).toBe(`/vehicles/car-list?open=${id}`);

      const booking = await contact.post<{ id: number }>('/v2/carApplications/save', {
        ...carApplicationBody({ today, license_plate: p, applicant_idcard: '441302199001011231', vehicle_type_id: model['小型汽车']!, interviewee_depart_id: depart.CNOOC_SHELL! }),
      });
      const submit = await contact.post('/carApplications/push', { id: booking.body.data.id });
      expect(submit.status).toBe(409);
      expect(submit.body.msg).toBe(`该车辆（${p}）在黑名单中，不能提交`);

      // Revoked with a reason, it is no longer in force; an edit then makes it a draft again.
      expect((await lead.post('/carBlackWhiteList/revoke', { id, reason: '' })).status).toBe(400);
      expect((await lead.post('/carBlackWhiteList/revoke', { id, reason: '误报' })).body.msg).toBe('撤销审核成功！');
      expect(await status('car_black_white_list', id)).toBe(4);
      expect((await contact.post('/carApplications/push', { id: booking.body.data.id })).body.msg).toBe('提交成功！');
      expect((await lead.post('/carBlackWhiteList/edit', { ...carEntry({ license_plate: p, type: 2 }), id })).body.msg).toBe('编辑成功！');
      expect(await status('car_black_white_list', id)).toBe(0);
      expect((await lead.post('/carBlackWhiteList/delete', { id })).body.msg).toBe('删除成功！');
      expect((await lead.get(`/carBlackWhiteList/detail?id=${id}`)).status).toBe(404);
    });

    it('a rejection needs an opinion and leaves the entry rejected, not in force', async () => {
      const id = await create('/personBlackWhiteList', personEntry());
      await lead.post('/personBlackWhiteList/push', { id });
      const task = await squadTask('/personBlackWhiteList', id);
      expect(task.personBlackWhiteList).toMatchObject({ name: '张三', type: 1 });
      const bare = await squad.post('/personBlackWhiteList/task/check', { taskIds: [task.process_task_id], result: 2, remark: '' });
      expect(bare.status).toBe(400);
      expect((await squad.post('/personBlackWhiteList/task/check', { taskIds: [task.process_task_id], result: 2, remark: '证据不足' })).body.msg).toBe('审核成功！');
      expect(await status('person_black_white_list', id)).toBe(3);
    });

    it('lists with the spec filters, and only for those who keep or approve the list', async () => {
      const p = plate();
      const white = await create('/carBlackWhiteList', carEntry({ license_plate: p, type: 2, start_time: addDays(today, 3), end_time: addDays(today, 9) }));
      const list = async (q: Row) => (await lead.post<{ list: CarListRow[]; total: number }>('/carBlackWhiteList/list', { size: 10, pn: 1, ...q })).body.data;
      expect((await list({ license_plate: p })).list.map((r) => r.id)).toEqual([white]);
      // Part of a plate, typed in lower case, finds the stored upper-case plate on both databases; % is a character, not a wildcard.
      expect((await list({ license_plate: p.slice(1).toLowerCase() })).list.map((r) => r.id)).toEqual([white]);
      expect((await list({ license_plate: `${p.slice(1, 3)}%` })).total).toBe(0);
      expect((await list({ license_plate: p, type: 1 })).total).toBe(0);
      expect((await list({ license_plate: p, type: -1, status: 0 })).total).toBe(1);
      expect((await list({ license_plate: p, validity: 2 })).total).toBe(1);
      expect((await list({ license_plate: p, validity: 1 })).total).toBe(0);
      // A draft is the list keepers' until submitted: the approver meets it in the queue (issue 23).
      expect((await squad.get(`/carBlackWhiteList/detail?id=${white}`)).status).toBe(404);
      expect((await contact.post('/carBlackWhiteList/list', { size: 10, pn: 1 })).status).toBe(403);
      // A row the caller may not read answers as one that does not exist.
      expect((await patrol.get(`/carBlackWhiteList/detail?id=${white}`)).status).toBe(404);
      expect((await lead.get('/carBlackWhiteList/detail?id=99999999')).status).toBe(404);
      expect((await lead.get('/carBlackWhiteList/detail?id=1e15')).status).toBe(400);
    });

    it("the approver sees the face photo on an entry; nobody else without the list's codes does", async () => {
      const upload = async (c: Client) => {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(rgbPng(1, 1, () => [0, 0, 255]))], { type: 'image/png' }), 'face.png');
        const r = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
        return ((await r.json()) as { data: { name: string } }).data.name;
      };
      const read = (c: Client, name: string) => fetch(`${server.base}/api/file/${name}`, { headers: { authorization: `Bearer ${c.token}` } }).then((r) => r.status);
      // Someone else's upload cannot be put on an entry.
      const others = await upload(squad);
      const refused = await lead.post('/personBlackWhiteList/save', personEntry({ face_photo: others }));
      expect(refused.status).toBe(400);
      expect(refused.body.msg).toContain('不存在或无权使用');
      const photo = await upload(lead);
      expect(await read(squad, photo)).toBe(404);
      const id = await create('/personBlackWhiteList', personEntry({ face_photo: photo }));
      // Not on a draft (issue 23): once submitted.
      expect(await read(squad, photo)).toBe(404);
      expect((await lead.post('/personBlackWhiteList/push', { id })).body.msg).toBe('提交成功！');
      expect(await read(squad, photo)).toBe(200);
      expect(await read(contact, photo)).toBe(404);
    });

    it('the squad sees the new queues on its home counts', async () => {
      const r = await squad.get<{ list: Array<{ queue: string; title: string; route: string }> }>('/approval/pending');
      expect(r.body.data.list.map((q) => q.queue)).toEqual(expect.arrayContaining(['car_list', 'person_list']));
      expect(r.body.data.list.find((q) => q.queue === 'car_list')).toMatchObject({ title: '车辆黑白名单审核', route: '/approval/car-list' });
    });
  });
}
