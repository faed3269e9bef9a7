import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMinutes, formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { BLACK_PLATE, clockAt } from '../../server/seed/seed-appointments';
import { raiseDueAlarms } from '../../server/modules/stranded/detection';
import { startStrandedJob } from '../../server/modules/stranded/timer';
import { carApplicationBody, idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, any>;

/** Stranded detection and handling (DESIGN.md §8, spec 001 §2) on each dialect, fed only through the device API. */
for (const dialect of await dialects()) {
  describe(`stranded alarms on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, contact: Client, lead: Client;
    let today = '';
    let key = '';
    let seq = 0;
    const gateNumber = 'GATE-W-01';
    const model: Record<string, number> = {};
    const depart: Record<string, number> = {};

    const at = (minutesFromNow: number) => formatInZone(ctx.now() + minutesFromNow * 60_000, ctx.config.tz);
    const later = (minutes: number) => clockAt(ctx, ctx.now(), -minutes);
    async function send(events: Row[]) {
      const r = await fetch(`${server.base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gateNumber}:${key}` },
        body: JSON.stringify({ events }),
      });
      const body = (await r.json()) as Row;
      expect(body.data, JSON.stringify(body)).toMatchObject({ accepted: events.length });
    }
    const crossing = (plate: string, direction: 1 | 2, minutesFromNow: number, open = 1): Row => ({
      event_id: `${dialect}-s-${++seq}`,
      type: 'vehicle',
      capture_time: at(minutesFromNow),
      license_plate: plate,
      direction,
      open_result: open,
    });
    const plateOf = () => `粤L${dialect === 'sqlite' ? 'T' : 'Q'}${String(3000 + ++seq).slice(-4)}`;
    /** An approved vehicle visit of the contact's whose window is set on the stored row (the form books from days ahead). */
    async function approvedVisit(plate: string, begin: string, end: string, vehicle = '小型汽车') {
      const saved = await contact.post<{ id: number }>(
        '/v2/carApplications/save',
        carApplicationBody({ today, license_plate: plate, applicant_idcard: idNumber(6000 + ++seq), vehicle_type_id: model[vehicle]!, interviewee_depart_id: depart.CNOOC_SHELL! }),
      );
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      await ctx.db.updateTable('car_application').set({ state: 2, visitor_begin_time: begin, visitor_end_time: end }).where('car_application_id', '=', saved.body.data.id).execute();
      return saved.body.data.id;
    }
    // Visits below begin yesterday: a crossing minutes ago falls inside them even when the tests run just after midnight.
    const alarmsOf = (plate: string) => ctx.db.selectFrom('stranded_alarm').selectAll().where('license_plate', '=', plate).execute();

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [admin, contact, lead] = await Promise.all(['admin', 'contact', 'lead'].map((a) => new Client(server).as(a)));
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      const gate = await ctx.db.selectFrom('equipment').select('id').where('number', '=', gateNumber).executeTakeFirstOrThrow();
      key = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: gate.id })).body.data.key;
    });
    afterAll(async () => server?.close());

    it('raises one alarm when a vehicle is still inside after its visit ends, tells the deal-code holders and records the SMS', async () => {
      const plate = plateOf();
      const id = await approvedVisit(plate, `${addDays(today, -1)} 00:00:00`, at(30));
      await send([crossing(plate, 1, -10)]);
      expect(await raiseDueAlarms(ctx)).toBe(0);
      // Two servers' timers at once, 31 minutes on: one alarm between them.
      const raised = await Promise.all([raiseDueAlarms(later(31)), raiseDueAlarms(later(31))]);
      expect(raised[0]! + raised[1]!).toBe(1);
      expect(await raiseDueAlarms(later(60))).toBe(0);
      const [alarm] = await alarmsOf(plate);
      expect(alarm).toMatchObject({ kind: 'car', application_id: id, level_type: 1, is_black: 0, exit_time: null, sms_send: 1 });
      expect(alarm!.phones).toMatch(/^1\d{10}/);
      expect(alarm!.sms_content).toContain(plate);
      expect(JSON.parse(alarm!.application_info)).toMatchObject({ license_plate: plate });
      // The security lead holds strandedManagementCar:deal: the notification centre has it.
      const leadId = (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'lead').executeTakeFirstOrThrow()).user_id;
      const note = await ctx.db.selectFrom('notification').selectAll().where('user_id', '=', leadId).where('tag', '=', `stranded-car-${alarm!.id}`).executeTakeFirst();
      expect(note).toMatchObject({ kind: 'stranded_alarm', url: `/security/stranded-car?open=${alarm!.id}` });

      // Leaving closes the stay and the alarm.
      const out = crossing(plate, 2, 1);
      await send([out]);
      expect((await alarmsOf(plate))[0]!.exit_time).toBe(out.capture_time);
    });

    it('texts the alarm only once it is committed: the provider is called when the alarm can be read from outside the transaction', async () => {
      const plate = plateOf();
      await approvedVisit(plate, `${addDays(today, -1)} 00:00:00`, at(30));
      await send([crossing(plate, 1, -10)]);
      const seen: string[] = [];
      const probe = {
        send: async () => {
          // Inside the raising transaction SQLite's one connection would wait on it, and PostgreSQL's others would not see the row.
          const row = ctx.db.selectFrom('stranded_alarm').select('id').where('license_plate', '=', plate).executeTakeFirst();
          seen.push(await Promise.race([row.then((r) => (r ? 'committed' : 'not visible')), new Promise<string>((r) => setTimeout(() => r('blocked by the transaction'), 2000))]));
        },
      };
      expect(await raiseDueAlarms({ ...later(31), sms: probe })).toBe(1);
      expect(seen).toEqual(['committed', 'committed']);
      expect((await alarmsOf(plate))[0]).toMatchObject({ sms_send: 1, sms_state: 0, sms_error_response: null });
    });

    it('leaves a visitor who left in time alone, and a gate that did not open opens no stay', async () => {
      const plate = plateOf();
      await approvedVisit(plate, `${addDays(today, -1)} 00:00:00`, at(30));
      await send([crossing(plate, 1, -10), crossing(plate, 2, 5)]);
      const other = plateOf();
      await approvedVisit(other, `${addDays(today, -1)} 00:00:00`, at(30));
      await send([crossing(other, 1, -5, 0)]);
      expect(await raiseDueAlarms(later(120))).toBe(0);
      expect(await alarmsOf(plate)).toHaveLength(0);
      expect(await alarmsOf(other)).toHaveLength(0);
    });

    it('uses the model’s dwell limit when it ends the stay before the visit does', async () => {
      const plate = plateOf();
      await ctx.db.updateTable('vehicle_type').set({ dwell_limit_minutes: 30 }).where('name', '=', '普通货车').execute();
      await approvedVisit(plate, `${addDays(today, -1)} 00:00:00`, `${addDays(today, 1)} 23:59:59`, '普通货车');
      await send([crossing(plate, 1, 0)]);
      expect(await raiseDueAlarms(later(29))).toBe(0);
      expect(await raiseDueAlarms(later(31))).toBe(1);
      expect((await alarmsOf(plate))[0]).toMatchObject({ level_type: 2 });
      await ctx.db.updateTable('vehicle_type').set({ dwell_limit_minutes: null }).where('name', '=', '普通货车').execute();
    });

    it('raises a black-listed plate’s alarm the moment it is inside', async () => {
      await send([crossing(BLACK_PLATE, 1, 0)]);
      const alarms = await alarmsOf(BLACK_PLATE);
      expect(alarms).toHaveLength(1);
      expect(alarms[0]).toMatchObject({ is_black: 1, level_type: 3 });
      // It names what happened, the gate and the time, in one SMS segment with a time that cannot be split by a space.
      const entry = alarms[0]!.entry_time as string;
      const shortTime = `${Number(entry.slice(5, 7))}月${Number(entry.slice(8, 10))}日${entry.slice(11)}`;
      expect(alarms[0]!.sms_content).toBe(`【园区出入管理】黑名单车辆入园：${BLACK_PLATE}，${shortTime}经西门车辆道闸1入园，请立即处理。`);
      expect(alarms[0]!.sms_content.length).toBeLessThanOrEqual(70);
      const note = await ctx.db
        .selectFrom('notification as n')
        .innerJoin('sys_user as u', 'u.user_id', 'n.user_id')
        .select(['n.title', 'n.body'])
        .where('u.account', '=', 'lead')
        .where('n.tag', '=', `stranded-car-${alarms[0]!.id}`)
        .executeTakeFirstOrThrow();
      expect(note).toEqual({ title: '黑名单车辆入园', body: `黑名单车辆${BLACK_PLATE}于${entry}经西门车辆道闸1入园，请立即处理` });
      expect(`${note.body}${alarms[0]!.sms_content}`).not.toContain('滞留超时');
      // The detail names the gate it came in by.
      const detail = await lead.get<Row>(`/car/stranded/detail?id=${alarms[0]!.id}`);
      expect(detail.body.data).toMatchObject({ entry_gate_name: '西门车辆道闸1', is_black: 1 });
      await send([crossing(BLACK_PLATE, 2, 1)]);
    });

    it('lists, shows and handles alarms for the holders of the codes; a second handling is refused', async () => {
      const page = await lead.post<{ list: Row[]; total: number }>('/car/stranded/list', { size: 50, begin_time: addDays(today, -7), end_time: addDays(today, 1) });
      expect(page.body, JSON.stringify(page.body)).toMatchObject({ success: true });
      expect(page.body.data.total).toBeGreaterThanOrEqual(3);
      const first = page.body.data.list[0]!;
      expect(typeof first.application_info).toBe('object');
      const byPlate = await lead.post<{ list: Row[] }>('/car/stranded/list', { size: 50, license_plate: BLACK_PLATE });
      expect(byPlate.body.data.list.every((r) => r.license_plate === BLACK_PLATE)).toBe(true);
      const detail = await lead.get<Row>(`/car/stranded/detail?id=${first.id}`);
      expect(detail.body.data).toMatchObject({ id: first.id, kind: 'car' });

      expect((await contact.post('/car/stranded/list', { size: 10 })).status).toBe(403);
      expect((await lead.post('/car/stranded/alarmDeal', { id: first.id, false_alarm: 0 })).body.msg).toContain('请输入处理说明');
      expect((await lead.post('/car/stranded/alarmDeal', { id: first.id, false_alarm: 3, handled_remark: 'x' })).status).toBe(400);
      const dealt = await lead.post('/car/stranded/alarmDeal', { id: first.id, false_alarm: 0, handled_remark: '判断准确！' });
      expect(dealt.body.msg).toBe('处理告警成功！');
      const row = await ctx.db.selectFrom('stranded_alarm').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ false_alarm: 0, handled_remark: '判断准确！' });
      expect(row.handle_time).not.toBeNull();
      const again = await lead.post('/car/stranded/alarmDeal', { id: first.id, false_alarm: 1, handled_remark: '出现误判！' });
      expect(again.status).toBe(409);
      expect(again.body.msg).toBe('处理告警错误：该告警已被处理');
      // The daily statistics and their export: always allowed to the list's holders.
      const stats = await lead.post<{ list: Row[]; total: number }>('/stat_car_stranded/list', { size: 50, license_plate: BLACK_PLATE });
      expect(stats.body.data.list[0]).toMatchObject({ stat_date: today, license_plate: BLACK_PLATE });
      const file = await fetch(`${server.base}/api/stat_car_stranded/export`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${lead.token}` },
        body: JSON.stringify({}),
      });
      expect(file.status).toBe(200);
      expect(file.headers.get('content-disposition')).toContain(encodeURIComponent('车辆滞留导出.xlsx'));
      const bytes = Buffer.from(await file.arrayBuffer());
      expect(bytes.subarray(0, 2).toString()).toBe('PK');
      const ExcelJS = (await import('exceljs')).default;
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(bytes as never);
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
      expect(sheet.rowCount - 1).toBe((await lead.post<{ total: number }>('/stat_car_stranded/list', { size: 1 })).body.data.total);
      expect((await contact.post('/stat_car_stranded/export', {})).status).toBe(403);

      // A vehicle alarm is not a person alarm.
      expect((await lead.post('/person/stranded/alarmDeal', { id: first.id, false_alarm: 0, handled_remark: '判断准确！' })).status).toBe(404);
    });

    it('counts and lists the alarms nobody has handled, newest first, for the home of whoever may list them', async () => {
      const open = await lead.get<{ total: number; list: Row[] }>('/stranded/open');
      expect(open.body, JSON.stringify(open.body)).toMatchObject({ success: true });
      const unhandled = await ctx.db.selectFrom('stranded_alarm').select(['id']).where('handle_time', 'is', null).orderBy('id', 'desc').execute();
      expect(open.body.data.total).toBe(unhandled.length);
      expect(open.body.data.list.map((r) => r.id)).toEqual(unhandled.slice(0, 5).map((r) => r.id));
      expect(open.body.data.list[0]).toHaveProperty('entry_gate_name');
      const handled = await ctx.db.selectFrom('stranded_alarm').select('id').where('handle_time', 'is not', null).execute();
      expect(handled.length).toBeGreaterThan(0);
      expect(open.body.data.list.some((r) => handled.some((h) => h.id === r.id))).toBe(false);
      expect((await contact.get('/stranded/open')).status).toBe(403);
    });

    it('raises an overstay within 5 s of its deadline by the deadline timer, armed when the stay is written and re-read at a restart', async () => {
      // The minute check would come up to 60 s late: the job runs with it, and only the deadline timer can be in time.
      let stop = startStrandedJob(server.app);
      await ctx.db.updateTable('vehicle_type').set({ dwell_limit_minutes: 1 }).where('name', '=', '普通货车').execute();
      try {
        const addSeconds = (t: string, n: number) => addMinutes(t, n / 60);
        const seconds = (n: number) => formatInZone(ctx.now() + n * 1000, ctx.config.tz);
        const waitForAlarm = async (plate: string, deadline: string) => {
          for (;;) {
            const [alarm] = await alarmsOf(plate);
            if (alarm) return alarm;
            expect(ctx.time() <= addSeconds(deadline, 5), `no alarm for ${plate} 5 s after its deadline ${deadline}`).toBe(true);
            await new Promise((r) => setTimeout(r, 100));
          }
        };

        // Came in 57 s ago with a one-minute dwell limit: stranded 3 s from now.
        const plate = plateOf();
        await approvedVisit(plate, `${addDays(today, -1)} 00:00:00`, `${addDays(today, 1)} 23:59:59`, '普通货车');
        const entry = { ...crossing(plate, 1, 0), capture_time: seconds(-57) };
        await send([entry]);
        const deadline = addSeconds(entry.capture_time, 60);
        expect(await alarmsOf(plate)).toHaveLength(0);
        const alarm = await waitForAlarm(plate, deadline);
        expect(alarm).toMatchObject({ level_type: 2, is_black: 0 });
        expect(alarm.alarm_time >= deadline && alarm.alarm_time <= addSeconds(deadline, 5)).toBe(true);

        // A restart: the stay is written while no job runs; the new job reads its deadline at start.
        stop();
        const other = plateOf();
        await approvedVisit(other, `${addDays(today, -1)} 00:00:00`, `${addDays(today, 1)} 23:59:59`, '普通货车');
        const otherEntry = { ...crossing(other, 1, 0), capture_time: seconds(-57) };
        await send([otherEntry]);
        stop = startStrandedJob(server.app);
        const otherAlarm = await waitForAlarm(other, addSeconds(otherEntry.capture_time, 60));
        expect(otherAlarm.alarm_time <= addSeconds(otherEntry.capture_time, 65)).toBe(true);
      } finally {
        stop();
        await ctx.db.updateTable('vehicle_type').set({ dwell_limit_minutes: null }).where('name', '=', '普通货车').execute();
      }
    });
  });
}
