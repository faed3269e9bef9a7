import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../server/core/context';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, any>;

/** 滞留统计 (issue 24 item 6): counts per park day, kind, handling state and entry gate, and the full export, on each dialect. */
for (const dialect of await dialects()) {
  describe(`stranded statistics on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let contact: Client, lead: Client;
    const gates: Array<{ id: number; name: string }> = [];
    // Days no demo data reaches, so the counts are exactly the seeded alarms'.
    const range = { begin_time: '2020-03-01', end_time: '2020-03-03' };

    async function alarm(a: { kind: 'car' | 'person'; at: string; level: number; gate: number; plate: string; handled?: { false_alarm: number; remark: string } }) {
      const p = await ctx.db
        .insertInto('presence')
        .values({ kind: a.kind, subject: a.plate, entry_time: `${a.at.slice(0, 10)} 08:00:00`, entry_device_id: gates[a.gate]!.id, exit_time: `${a.at.slice(0, 10)} 20:00:00`, alarmed: 1 })
        .returning('id')
        .executeTakeFirstOrThrow();
      const leadId = (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'lead').executeTakeFirstOrThrow()).user_id;
      await ctx.db
        .insertInto('stranded_alarm')
        .values({
          kind: a.kind,
          presence_id: p.id,
          license_plate: a.kind === 'car' ? a.plate : '',
          person_name: a.kind === 'person' ? a.plate : '',
          visit_area: 1,
          level_type: a.level,
          is_black: a.level === 3 ? 1 : 0,
          entry_time: `${a.at.slice(0, 10)} 08:00:00`,
          alarm_time: a.at,
          exit_time: `${a.at.slice(0, 10)} 20:00:00`,
          create_time: a.at,
          ...(a.handled ? { handle_user_id: leadId, false_alarm: a.handled.false_alarm, handled_remark: a.handled.remark, handle_time: a.at } : {}),
        } as never)
        .execute();
    }

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      [contact, lead] = await Promise.all(['contact', 'lead'].map((a) => new Client(server).as(a)));
      gates.push(...(await ctx.db.selectFrom('equipment').select(['id', 'name']).orderBy('id').limit(2).execute()));
      await alarm({ kind: 'car', at: '2020-03-01 09:00:00', level: 3, gate: 0, plate: '粤LST001' });
      await alarm({ kind: 'car', at: '2020-03-01 23:59:00', level: 1, gate: 1, plate: '粤LST002', handled: { false_alarm: 1, remark: '出现误判！' } });
      await alarm({ kind: 'person', at: '2020-03-02 00:00:00', level: 2, gate: 0, plate: '李滞留', handled: { false_alarm: 0, remark: '判断准确！' } });
      await alarm({ kind: 'car', at: '2020-03-02 10:00:00', level: 1, gate: 0, plate: '粤LST003' });
    });
    afterAll(async () => server?.close());

    it('counts the alarms per park day and kind, per kind and level, per handling state and per entry gate', async () => {
      const r = await lead.post<Row>('/stat_car_stranded/summary', range);
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
      const s = r.body.data;
      expect(s.total).toBe(4);
      expect(s.days).toEqual([
        { date: '2020-03-01', car: 2, person: 0 },
        { date: '2020-03-02', car: 1, person: 1 },
        { date: '2020-03-03', car: 0, person: 0 },
      ]);
      expect(s.kinds).toEqual([
        { kind: 'car', level_type: 1, total: 2 },
        { kind: 'car', level_type: 3, total: 1 },
        { kind: 'person', level_type: 2, total: 1 },
      ]);
      expect(s.states).toEqual([
        { state: 0, total: 2 },
        { state: 1, total: 1 },
        { state: 2, total: 1 },
      ]);
      expect(s.gates).toEqual([
        { gate: gates[0]!.name, total: 3 },
        { gate: gates[1]!.name, total: 1 },
      ]);
      // One day only: the park day is the alarm's own, 23:59 on the 1st stays on the 1st.
      const one = await lead.post<Row>('/stat_car_stranded/summary', { begin_time: '2020-03-01', end_time: '2020-03-01' });
      expect(one.body.data).toMatchObject({ total: 2, days: [{ date: '2020-03-01', car: 2, person: 0 }] });
      // The default range is the lists': from 7 days ago to tomorrow.
      const byDefault = await lead.post<Row>('/stat_car_stranded/summary', {});
      expect(byDefault.body.data.days).toHaveLength(9);
      expect((await contact.post('/stat_car_stranded/summary', range)).status).toBe(403);
    });

    it('refuses a malformed or reversed range with a 400 naming the field', async () => {
      const bad = await lead.post('/stat_car_stranded/summary', { begin_time: '2020-13-45' });
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toContain('开始时间');
      const reversed = await lead.post('/stat_car_stranded/summary', { begin_time: '2020-03-03', end_time: '2020-03-01' });
      expect(reversed.status).toBe(400);
      expect(reversed.body.msg).toContain('结束时间不能早于开始时间');
      const tooLong = await lead.post('/stat_car_stranded/summary', { begin_time: '2018-01-01', end_time: '2020-03-01' });
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.msg).toContain('结束时间');
      // Only the start given, the end defaults to tomorrow: the same bound holds.
      expect((await lead.post('/stat_car_stranded/summary', { begin_time: '2018-01-01' })).status).toBe(400);
    });

    it('exports every column of the vehicle alarm list, handling included', async () => {
      const file = await fetch(`${server.base}/api/stat_car_stranded/export`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${lead.token}` },
        body: JSON.stringify(range),
      });
      expect(file.status).toBe(200);
      expect(file.headers.get('content-disposition')).toContain(encodeURIComponent('车辆滞留导出.xlsx'));
      const ExcelJS = (await import('exceljs')).default;
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(Buffer.from(await file.arrayBuffer()) as never);
      const sheet = wb.worksheets[0]!;
      expect(sheet.getRow(1).values).toEqual([
        undefined,
        '统计日期',
        '来访园区',
        '车牌号',
        '告警类型',
        '处理状态',
        '入园闸口',
        '入园时间',
        '告警时间',
        '出园时间',
        '处理人',
        '处理时间',
        '是否误判',
        '处理说明',
      ]);
      // Vehicles only, newest first.
      expect(sheet.rowCount).toBe(4);
      expect(sheet.getRow(3).values).toEqual([
        undefined,
        '2020-03-01',
        expect.any(String),
        '粤LST002',
        '超出来访时间',
        '误判',
        gates[1]!.name,
        '2020-03-01 08:00:00',
        '2020-03-01 23:59:00',
        '2020-03-01 20:00:00',
        '赵敏',
        '2020-03-01 23:59:00',
        '是',
        '出现误判！',
      ]);
      expect(sheet.getRow(4).getCell(5).value).toBe('未处理');
    });
  });
}
