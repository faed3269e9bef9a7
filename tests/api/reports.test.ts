import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enumLabel } from '../../domain/enums';
import { reports, vehicleTypeReport, type ReportAnswer, type ReportDef } from '../../domain/reports';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * The statistics reports of spec 002 (issue 26) over HTTP on each dialect:
 * who may read them, their defaults, what each filter does, the 400s, the
 * exports, and exact figures for crossings crafted on a day nobody else
 * touches, ingested late and replayed through the device API.
 */

type Row = Record<string, unknown>;
type Ingest = { accepted: number; duplicates: number; rejected: Array<{ event_id: string; msg: string }> };

/** Every (report, data path, export path, fixed filters) the server registers: 车型进出报表 once per direction. */
function endpoints() {
  const out: Array<{ def: ReportDef; data: string; export: string; fixed: Row }> = [];
  for (const def of reports as readonly ReportDef[]) {
    if (def.variants) for (const [v, c] of Object.entries(def.variants.calls)) out.push({ def, data: c.data.path, export: c.export.path, fixed: { [def.variants.filter]: v } });
    else out.push({ def, data: def.calls.data.path, export: def.calls.export.path, fixed: {} });
  }
  return out;
}
const byKey = (key: string) => (reports as readonly ReportDef[]).find((r) => r.key === key)!;
const query = (f: Row) => {
  const q = new URLSearchParams(Object.entries(f).map(([k, v]) => [k, String(v)])).toString();
  return q ? `?${q}` : '';
};
const rangeKeys = ['vehicleInOut', 'carReservation', 'personReservation', 'vehicleType', 'vehicleIncrease', 'personInOut', 'vehicleGateTimes'];
const byDayKeys = ['vehicleInOut', 'carReservation', 'personReservation', 'vehicleType', 'personInOut'];

for (const dialect of await dialects()) {
  describe(`statistics reports (${dialect})`, () => {
    let server: TestServer;
    let ctx: AppContext;
    const as: Record<string, Client> = {};
    const keys: Record<string, string> = {};
    const depart: Record<string, number> = {};
    let today = '';
    /** The crafted day: past, inside the devices' 30-day window, with no crossings seeded (the test servers seed no gate history). */
    let D = '';
    let seq = 0;

    const get = <T = ReportAnswer>(who: string | null, path: string, f: Row = {}) => (who ? as[who]! : new Client(server)).get<T>(path + query(f));
    const data = async (key: string, f: Row, direction?: 'in' | 'out') => {
      const def = byKey(key);
      const path = direction ? def.variants!.calls[direction]!.data.path : def.calls.data.path;
      const r = await get('patrol', path, f);
      expect(r.status, `${key} ${JSON.stringify(f)}: ${JSON.stringify(r.body)}`).toBe(200);
      return r.body.data;
    };
    const device = async (gate: string, events: unknown[]) => {
      const r = await fetch(`${server.base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gate}:${keys[gate]}` },
        body: JSON.stringify({ events }),
      });
      const body = (await r.json()) as { data: Ingest };
      expect(r.status, JSON.stringify(body)).toBe(200);
      return body.data;
    };
    const at = (day: string, hhmm: string) => `${day} ${hhmm}:00`;
    const car = (day: string, hhmm: string, plate: string, direction: 1 | 2, open: 0 | 1, vehicle_type?: string): Row => ({
      event_id: `rep-${dialect}-${++seq}`,
      type: 'vehicle',
      capture_time: at(day, hhmm),
      license_plate: plate,
      license_plate_color: 2,
      direction,
      open_result: open,
      ...(vehicle_type ? { vehicle_type } : {}),
    });
    const person = (day: string, hhmm: string, n: number, direction: 1 | 2, open: 0 | 1): Row => ({
      event_id: `rep-${dialect}-${++seq}`,
      type: 'person',
      capture_time: at(day, hhmm),
      idcard: idNumber(n, '05'),
      person_name: '报表访客',
      direction,
      open_result: open,
    });

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      D = addDays(today, -20);
      for (const a of ['admin', 'contact', 'patrol', 'reviewer', 'norole']) as[a] = await new Client(server).as(a);
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      for (const gate of ['GATE-W-01', 'GATE-N-01', 'GATE-E-01', 'GATE-W-P01']) {
        const { id } = await ctx.db.selectFrom('equipment').select('id').where('number', '=', gate).executeTakeFirstOrThrow();
        const issued = await as.admin!.post<{ key: string }>('/equipment/gate/issueKey', { id });
        expect(issued.body, JSON.stringify(issued.body)).toMatchObject({ success: true });
        keys[gate] = issued.body.data.key;
      }
    });
    afterAll(async () => server?.close());

    it('answers 401 without a session, data and export alike, and 200 to any signed-in user', async () => {
      for (const e of endpoints()) {
        for (const path of [e.data, e.export]) {
          const anon = await get(null, path);
          expect(anon.status, path).toBe(401);
          expect(anon.body.success, path).toBe(false);
        }
        // Spec 002 §6: the reports are "always allowed", whatever the role (patrol, a contact, even none).
        for (const who of ['patrol', 'contact', 'norole']) {
          const r = await get(who, e.data);
          expect(r.status, `${who} ${e.data}: ${JSON.stringify(r.body)}`).toBe(200);
          expect(Array.isArray(r.body.data.list)).toBe(true);
          const x = await fetch(`${server.base}/api${e.export}`, { headers: { authorization: `Bearer ${as[who]!.token}` } });
          expect(x.status, `${who} ${e.export}`).toBe(200);
          await x.arrayBuffer();
        }
      }
    });

    it('applies the defaults of the park day when filters are absent or empty', async () => {
      const now = dateOf(ctx.time());
      for (const e of endpoints()) {
        const bare = await get('patrol', e.data);
        const empty = await get('patrol', e.data, Object.fromEntries(e.def.filters.flatMap((f) => (f.kind === 'dateRange' ? f.keys.map((k) => [k, '']) : [[f.key, '']]))));
        const explicit = await get('patrol', e.data, { ...e.def.defaults(now), ...e.fixed } as Row);
        expect(bare.body.data, e.data).toEqual(explicit.body.data);
        expect(empty.body.data, e.data).toEqual(explicit.body.data);
        if (byDayKeys.includes(e.def.key)) {
          expect(
            bare.body.data.list.map((r) => r.stat_date),
            e.data,
          ).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => addDays(now, i - 6)));
        }
      }
      // An empty park takes the report's default (车辆进出统计: 化工区), as a park left out does.
      expect((await get('patrol', '/statistics/car/counts', { visit_area: '' })).body.data).toEqual((await get('patrol', '/statistics/car/counts', { visit_area: 1 })).body.data);
      expect((await get('patrol', '/statistics/car/counts')).body.data).toEqual((await get('patrol', '/statistics/car/counts', { visit_area: 1 })).body.data);
      const counts = (await get('patrol', '/statistics/application/counts')).body.data.list;
      expect(counts).toHaveLength(1);
      expect(counts[0]!.date).toBe(now);
      const approvals = (await get('patrol', '/statistics/user_check/statistics')).body.data.list;
      for (const r of approvals) expect(r.count_date).toBe(addDays(now, -1));
    });

    it('answers 400 naming the field for a bad date, a reversed or too long range and a bad park', async () => {
      const expect400 = async (path: string, f: Row, label: string, field: string) => {
        const r = await get<{ errors: Array<{ field: string; message: string }> }>('patrol', path, f);
        expect(r.status, `${path} ${JSON.stringify(f)}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.code).toBe(1001);
        expect(r.body.msg, path).toContain(label);
        expect(
          r.body.data.errors.map((x) => x.field),
          path,
        ).toContain(field);
      };
      for (const key of rangeKeys) {
        const def = byKey(key);
        for (const path of [def.calls.data.path, def.calls.export.path]) {
          for (const bad of ['2026-13-01', '2026-02-30', 'abc', '20260101']) {
            await expect400(path, { start_time: bad }, '开始日期', 'start_time');
            await expect400(path, { end_time: bad }, '结束日期', 'end_time');
          }
          await expect400(path, { start_time: today, end_time: addDays(today, -1) }, '结束日期不能早于开始日期', 'end_time');
          await expect400(path, { start_time: addDays(today, -366), end_time: today }, '统计时间范围不能超过366天', 'end_time');
          const park = def.filters.find((f) => f.kind === 'park')!;
          if ('key' in park) await expect400(path, { [park.key]: 4 }, '园区类型只能是1（化工区）、2（港区）或3（化工区和港区）', park.key);
        }
      }
      await expect400('/statistics/application/counts', { date: '2026-02-30' }, '日期格式不正确', 'date');
      await expect400('/statistics/application/countsExport', { date: 'abc' }, '日期', 'date');
      await expect400('/statistics/user_check/statistics', { count_date: '2026-13-01' }, '日期格式不正确', 'count_date');
      await expect400('/statistics/user_check/export', { count_date: '2026-1-1' }, '日期', 'count_date');
    });

    it('counts crossings crafted through the device API exactly: late, replayed, per park, per type, per gate', async () => {
      const before = await ctx.db.selectFrom('gate_record_car').select('id').where('capture_time', '>=', addDays(D, -1)).where('capture_time', '<', addDays(D, 1)).execute();
      expect(before, 'no crossing on the crafted days before the test').toHaveLength(0);
      const TANK = '重型罐式货车';
      const SMALL = '小型轿车';
      // West gate (化工区): A in twice, B in, A out twice, C refused.
      const west = [
        car(D, '08:00', '粤R10001', 1, 1, TANK),
        car(D, '09:00', '粤R10002', 1, 1, SMALL),
        car(D, '10:00', '粤R10001', 2, 1, TANK),
        car(D, '11:00', '粤R10001', 1, 1, TANK),
        car(D, '12:00', '粤R10001', 2, 1, TANK),
        car(D, '13:00', '粤R10003', 1, 0, SMALL),
      ];
      expect(await device('GATE-W-01', west)).toEqual({ accepted: 6, duplicates: 0, rejected: [] });
      // North gate (港区): B in, D (type not recognised) in and out.
      expect(await device('GATE-N-01', [car(D, '08:30', '粤R10002', 1, 1, SMALL), car(D, '09:30', '粤R10004', 1, 1), car(D, '10:30', '粤R10004', 2, 1)])).toMatchObject({ accepted: 3 });
      // East gate (both parks): E in and out.
      expect(await device('GATE-E-01', [car(D, '14:00', '粤R10005', 1, 1, SMALL), car(D, '15:00', '粤R10005', 2, 1, SMALL)])).toMatchObject({ accepted: 2 });
      // The west gate's buffer again: nothing counts twice.
      expect(await device('GATE-W-01', west)).toEqual({ accepted: 0, duplicates: 6, rejected: [] });
      // Later still, a day-older entry of A arrives: A was not new on D after all.
      expect(await device('GATE-W-01', [car(addDays(D, -1), '18:00', '粤R10001', 1, 1, TANK)])).toMatchObject({ accepted: 1 });
      // Persons at the west pedestrian gate (化工区): two in, one out, one refused; one replayed.
      const people = [person(D, '08:00', 1, 1, 1), person(D, '08:05', 2, 1, 1), person(D, '17:00', 1, 2, 1), person(D, '08:10', 3, 1, 0)];
      expect(await device('GATE-W-P01', people)).toMatchObject({ accepted: 4 });
      expect(await device('GATE-W-P01', [people[0]])).toMatchObject({ accepted: 0, duplicates: 1 });

      const day = (list: Row[], d: string) => list.find((r) => r.stat_date === d);
      const range = { start_time: addDays(D, -1), end_time: D };
      // 车辆进出统计: opened crossings of the gates of the park (and of both parks).
      const inOut = async (park: number) => (await data('vehicleInOut', { ...range, visit_area: park })).list;
      expect(await inOut(1)).toEqual([
        { stat_date: addDays(D, -1), in_count: 1, out_count: 0, total: 1 },
        { stat_date: D, in_count: 4, out_count: 3, total: 7 },
      ]);
      expect(day(await inOut(2), D)).toEqual({ stat_date: D, in_count: 3, out_count: 2, total: 5 });
      expect(day(await inOut(2), addDays(D, -1))).toEqual({ stat_date: addDays(D, -1), in_count: 0, out_count: 0, total: 0 });
      expect(day(await inOut(3), D)).toEqual({ stat_date: D, in_count: 6, out_count: 4, total: 10 });

      // 人员进出统计.
      const persons = async (park: number) => day((await data('personInOut', { ...range, visit_area: park })).list, D);
      expect(await persons(1)).toEqual({ stat_date: D, in_count: 2, out_count: 1, total: 3 });
      expect(await persons(3)).toEqual({ stat_date: D, in_count: 2, out_count: 1, total: 3 });
      expect(await persons(2)).toEqual({ stat_date: D, in_count: 0, out_count: 0, total: 0 });

      // 车型进出报表: the types of the range are the columns, the most frequent first.
      const types = await data('vehicleType', { ...range, type: 1 }, 'in');
      expect(types.title).toEqual([
        { key: 't0', label: TANK },
        { key: 't1', label: SMALL },
      ]);
      expect(types.list).toEqual([
        { stat_date: addDays(D, -1), t0: 1, t1: 0, total: 1 },
        { stat_date: D, t0: 2, t1: 2, total: 4 },
      ]);
      const port = await data('vehicleType', { ...range, type: 2 }, 'in');
      expect(port.title).toEqual([
        { key: 't0', label: SMALL },
        { key: 't1', label: '未识别' },
      ]);
      expect(day(port.list, D)).toEqual({ stat_date: D, t0: 2, t1: 1, total: 3 });
      const out = await data('vehicleType', { ...range, type: 1 }, 'out');
      expect(out.title).toEqual([
        { key: 't0', label: TANK },
        { key: 't1', label: SMALL },
      ]);
      expect(day(out.list, D)).toEqual({ stat_date: D, t0: 2, t1: 1, total: 3 });
      // The data call takes the direction from its path, whatever the query says.
      expect(await data('vehicleType', { ...range, type: 1, direction: 'in' }, 'out')).toEqual(out);

      // 车型新增及去重统计: distinct plates that entered per day and type; new ones entered the park for the first time.
      expect((await data('vehicleIncrease', { ...range, visit_area: 1 })).list).toEqual([
        { stat_date: addDays(D, -1), vehicle_type: TANK, new_vehicles: 1, vehicles: 1 },
        { stat_date: D, vehicle_type: SMALL, new_vehicles: 2, vehicles: 2 },
        { stat_date: D, vehicle_type: TANK, new_vehicles: 0, vehicles: 1 },
      ]);
      expect((await data('vehicleIncrease', { ...range, visit_area: 2 })).list).toEqual([
        { stat_date: D, vehicle_type: SMALL, new_vehicles: 2, vehicles: 2 },
        { stat_date: D, vehicle_type: '未识别', new_vehicles: 1, vehicles: 1 },
      ]);
      const both = (await data('vehicleIncrease', { start_time: D, end_time: D, visit_area: 3 })).list;
      expect(both[0]).toEqual({ stat_date: D, vehicle_type: SMALL, new_vehicles: 2, vehicles: 2 });
      expect(both.slice(1)).toHaveLength(2);
      expect(both.slice(1)).toEqual(
        expect.arrayContaining([
          { stat_date: D, vehicle_type: TANK, new_vehicles: 0, vehicles: 1 },
          { stat_date: D, vehicle_type: '未识别', new_vehicles: 1, vehicles: 1 },
        ]),
      );

      // 车辆过闸次数统计: per gate in the range; 合计 = in + out, 未开闸 apart.
      const gates = async (park: number, f: Row = { start_time: D, end_time: D }) => (await data('vehicleGateTimes', { ...f, visit_area: park })).list;
      const W = { gate_name: '西门车辆道闸1', entrances_type: 1, in_count: 3, out_count: 2, refused: 1, total: 5 };
      const N = { gate_name: '北门车辆道闸1', entrances_type: 2, in_count: 2, out_count: 1, refused: 0, total: 3 };
      const E = { gate_name: '东门车辆道闸1', entrances_type: 3, in_count: 1, out_count: 1, refused: 0, total: 2 };
      expect(await gates(3)).toEqual([W, N, E]);
      expect(await gates(1)).toEqual([W, E]);
      expect(await gates(2)).toEqual([N, E]);
      expect(await gates(1, range)).toEqual([{ ...W, in_count: 4, total: 6 }, E]);
      // A range that misses the crafted days shows none of them.
      expect(await gates(3, { start_time: addDays(D, 1), end_time: addDays(D, 2) })).toEqual([]);
    });

    it('files a submission under its park: 1 or 2 takes that park and both, 3 everything', async () => {
      const figures = async (park: number) => {
        const row = (await data('personReservation', { start_time: today, end_time: today, visit_area: park })).list[0]!;
        return { added: Number(row.added), company_check_pending: Number(row.company_check_pending) };
      };
      const before = await Promise.all([1, 2, 3].map(figures));
      const saved = await as.contact!.post<{ person_application_id: number }>('/personApplications/save', {
        ...personApplicationBody({ today, visitor_idcard: idNumber(700, '06'), interviewee_depart_id: depart.CNOOC_SHELL! }),
        visit_area: 2,
      });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = saved.body.data as unknown as { person_application_id?: number; id?: number } | number;
      const appId = typeof id === 'number' ? id : (id.person_application_id ?? id.id)!;
      expect((await as.contact!.post('/personApplications/push', { id: appId })).body).toMatchObject({ success: true });
      const after = await Promise.all([1, 2, 3].map(figures));
      // Pending at the enterprise's node (a 企业 node): 当日新增 and 企业待审核 in 港区 and in both, not in 化工区.
      expect(after[0]).toEqual(before[0]);
      expect(after[1]).toEqual({ added: before[1]!.added + 1, company_check_pending: before[1]!.company_check_pending + 1 });
      expect(after[2]).toEqual({ added: before[2]!.added + 1, company_check_pending: before[2]!.company_check_pending + 1 });

      // The reviewer approves it today: 审批统计 counts the decision for 李强 and his department, matched by part of either.
      const approvals = async (f: Row) => (await data('approval', { count_date: today, ...f })).list;
      const mine = async () => (await approvals({ user_name: '李强' })).reduce((s, r) => s + Number(r.total), 0);
      const decided = await mine();
      const task = await as.reviewer!.post<{ list: Array<{ process_task_id: number; personApplication: Row }> }>('/personApplications/task/page', { size: 50, pn: 1 });
      const t = task.body.data.list.find((x) => x.personApplication.person_application_id === appId);
      expect(t, JSON.stringify(task.body)).toBeTruthy();
      expect((await as.reviewer!.post('/personApplications/task/check', { taskIds: String(t!.process_task_id) })).body).toMatchObject({ success: true });
      expect(await mine()).toBe(decided + 1);
      const byPart = await approvals({ user_name: '强', depart_name: '壳牌' });
      expect(byPart.length).toBeGreaterThan(0);
      for (const r of byPart) {
        expect(String(r.user_name)).toContain('强');
        expect(String(r.depart_name)).toContain('壳牌');
        expect(r.count_date).toBe(today);
      }
      expect(byPart.find((r) => r.user_name === '李强')).toMatchObject({ depart_name: '中海壳牌石油化工有限公司', total: decided + 1 });
      expect(await approvals({ user_name: '无此审批人' })).toEqual([]);
      expect(await approvals({ depart_name: '%' })).toEqual([]);
      // Another day holds none of today's decisions of his.
      expect((await approvals({ count_date: addDays(today, 1), user_name: '李强' })).length).toBe(0);
    });

    it('keeps a submission under its application’s park after the filer edits a rejected one into another', async () => {
      const figures = async (park: number) => {
        const reservation = (await data('personReservation', { start_time: today, end_time: today, visit_area: park })).list[0]!;
        const counts = (await data('applicationCounts', { date: today, type: park })).list[0]!;
        return { added: Number(reservation.added), company_check_disagree: Number(reservation.company_check_disagree), person_fail: Number(counts.person_fail) };
      };
      const body = { ...personApplicationBody({ today, visitor_idcard: idNumber(701, '06'), interviewee_depart_id: depart.CNOOC_SHELL! }), visit_area: 1 };
      const saved = await as.contact!.post('/personApplications/save', body);
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const d = saved.body.data as { person_application_id?: number; id?: number } | number;
      const appId = typeof d === 'number' ? d : (d.person_application_id ?? d.id)!;
      expect((await as.contact!.post('/personApplications/push', { id: appId })).body).toMatchObject({ success: true });
      const task = await as.reviewer!.post<{ list: Array<{ process_task_id: number; personApplication: Row }> }>('/personApplications/task/page', { size: 50, pn: 1 });
      const t = task.body.data.list.find((x) => x.personApplication.person_application_id === appId)!;
      expect((await as.reviewer!.post('/personApplications/task/check', { taskIds: String(t.process_task_id), result: 2, remark: '园区选择有误' })).body).toMatchObject({ success: true });
      const rejected = await Promise.all([1, 2].map(figures));

      // Same department and process: the approval is kept (a resume would continue it), the park is now 港区.
      const edited = await as.contact!.post('/v2/personApplications/edit', { ...body, visit_area: 2, person_application_id: appId });
      expect(edited.body, JSON.stringify(edited.body)).toMatchObject({ success: true });
      const row = await ctx.db.selectFrom('person_application').select(['state', 'visit_area']).where('person_application_id', '=', appId).executeTakeFirstOrThrow();
      expect(row).toEqual({ state: 3, visit_area: 2 });
      const after = await Promise.all([1, 2].map(figures));
      expect(after[0]).toEqual({ added: rejected[0]!.added - 1, company_check_disagree: rejected[0]!.company_check_disagree - 1, person_fail: rejected[0]!.person_fail - 1 });
      expect(after[1]).toEqual({ added: rejected[1]!.added + 1, company_check_disagree: rejected[1]!.company_check_disagree + 1, person_fail: rejected[1]!.person_fail + 1 });
    });

    it('counts a crossing for the park its gate led into when it crossed, not after the gate is changed', async () => {
      const saved = await as.admin!.post<{ id: number }>('/equipment/gate/save', {
        name: '报表测试道闸',
        number: `REP-${dialect}`,
        type: 1,
        entrances_type: 1,
        is_security_check: 0,
        temporary_reservation: 0,
        longitude: 114.52,
        latitude: 22.74,
      });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const gateId = saved.body.data.id;
      keys[`REP-${dialect}`] = (await as.admin!.post<{ key: string }>('/equipment/gate/issueKey', { id: gateId })).body.data.key;
      const todayRange = { start_time: today, end_time: today };
      const gateRow = async (park: number) => (await data('vehicleGateTimes', { ...todayRange, visit_area: park })).list.find((r) => r.gate_name === '报表测试道闸');
      const entries = async (park: number) => Number((await data('vehicleInOut', { ...todayRange, visit_area: park })).list[0]!.in_count);
      const now = dateOf(ctx.time()) === today ? ctx.time().slice(11, 16) : '00:00';
      const before = { 1: await entries(1), 2: await entries(2) };
      expect(await device(`REP-${dialect}`, [car(today, now, '粤R20001', 1, 1, '小型轿车')])).toMatchObject({ accepted: 1 });
      expect(await gateRow(1)).toMatchObject({ in_count: 1, total: 1 });
      expect(await gateRow(2)).toBeUndefined();

      const detail = await as.admin!.get<Row>(`/equipment/gate/detail?id=${gateId}`);
      const { name, number, type, is_security_check, temporary_reservation, longitude, latitude } = detail.body.data;
      const edit = await as.admin!.post('/equipment/gate/edit', { id: gateId, name, number, type, is_security_check, temporary_reservation, longitude, latitude, entrances_type: 2 });
      expect(edit.body, JSON.stringify(edit.body)).toMatchObject({ success: true });
      // The earlier entry stays 化工区's.
      expect(await entries(1)).toBe(before[1] + 1);
      expect(await entries(2)).toBe(before[2]);
      expect(await gateRow(2)).toBeUndefined();
      // One after the change is 港区's.
      expect(await device(`REP-${dialect}`, [car(today, now, '粤R20002', 1, 1, '小型轿车')])).toMatchObject({ accepted: 1 });
      expect(await entries(1)).toBe(before[1] + 1);
      expect(await entries(2)).toBe(before[2] + 1);
      expect(await gateRow(2)).toMatchObject({ in_count: 1, total: 1, entrances_type: 2 });
    });

    it('exports the data call’s rows under the catalogue’s headers, named as declared', async () => {
      const crafted = { start_time: addDays(D, -1), end_time: D };
      for (const e of endpoints()) {
        const f: Row = { ...(rangeKeys.includes(e.def.key) ? crafted : {}), ...e.fixed };
        if (e.def.key === 'vehicleGateTimes' || e.def.key === 'vehicleIncrease') f.visit_area = 1;
        const answer = (await get('patrol', e.data, f)).body.data;
        const res = await fetch(`${server.base}/api${e.export}${query(f)}`, { headers: { authorization: `Bearer ${as.patrol!.token}` } });
        expect(res.status, e.export).toBe(200);
        expect(res.headers.get('content-type')).toContain('spreadsheetml');
        const disposition = res.headers.get('content-disposition') ?? '';
        const encoded = /filename\*=UTF-8''([^;]+)/.exec(disposition)?.[1];
        const now = dateOf(ctx.time());
        const parsed = e.def.input.parse({ ...e.def.defaults(now), ...f });
        expect(decodeURIComponent(encoded ?? ''), e.export).toBe(e.def.fileName(parsed as never, now));

        const wb = new ExcelJS.Workbook();
        await wb.xlsx.load((await res.arrayBuffer()) as ArrayBuffer);
        const ws = wb.worksheets[0]!;
        expect(ws.name).toBe(e.def.title);
        const rows: unknown[][] = [];
        ws.eachRow((r) => rows.push((r.values as unknown[]).slice(1)));
        const columns = e.def.dynamicColumns ? [e.def.columns[0]!, ...(answer.title ?? []).map((t) => ({ key: t.key, label: t.label, kind: 'count' })), ...e.def.columns.slice(1)] : e.def.columns;
        if (e.def === vehicleTypeReport) {
          expect(rows[0]).toEqual(['日期', ...(answer.title ?? []).map((t) => t.label), '合计']);
          expect(answer.title!.length, 'the crafted days have vehicle types').toBeGreaterThan(0);
        } else expect(rows[0], e.export).toEqual(e.def.columns.map((c) => c.label));
        const cells = answer.list.map((r) => columns.map((c) => (c.kind === 'park' ? enumLabel('visitArea', Number(r[c.key])) : r[c.key])));
        expect(rows.slice(1), e.export).toEqual(cells);
      }
    });
  });
}
