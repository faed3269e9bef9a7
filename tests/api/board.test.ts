import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { equipmentKindList } from '../../domain/schemas/equipment';
import { formatInZone } from '../../domain/time';
import { addDays } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import type { DeviceCount } from '../../server/modules/board';
import { markSilentOffline } from '../../server/modules/devices/ingest';
import { idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/** The dashboard's device overview (spec 002 §2, GET /board/deviceCounts) over the demo park's equipment, on each dialect. */
for (const dialect of await dialects()) {
  describe(`device overview counts on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, lead: Client, norole: Client;
    const gate = { id: 0, number: '', key: '' };
    let seq = 0;

    const counts = async (client = admin) => {
      const r = await client.get<DeviceCount[]>('/board/deviceCounts');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    const line = (lines: DeviceCount[], kind: string) => lines.find((l) => l.kind === kind)!;
    const heartbeat = async () => {
      const r = await fetch(`${server.base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gate.number}:${gate.key}` },
        body: JSON.stringify({ events: [{ event_id: `board-${dialect}-${++seq}`, type: 'heartbeat', capture_time: formatInZone(ctx.now(), ctx.config.tz) }] }),
      });
      expect(r.status).toBe(200);
    };

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      [admin, lead, norole] = await Promise.all(['admin', 'lead', 'norole'].map((a) => new Client(server).as(a)));
      // A gate of its own, new and so offline, whatever the demo seed's devices are doing.
      gate.number = `BOARD-GATE-${dialect}`;
      const saved = await admin.post<{ id: number }>('/equipment/gate/save', { name: '看板测试道闸', number: gate.number, type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0 });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      gate.id = saved.body.data.id;
      gate.key = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: gate.id })).body.data.key;
    });
    afterAll(async () => server?.close());

    it('answers every kind in the menu’s order with its title, then the total, as the table holds them', async () => {
      const lines = await counts();
      expect(lines.map((l) => l.kind)).toEqual([...equipmentKindList.map((k) => k.kind), 'total']);
      expect(lines.map((l) => l.title)).toEqual([...equipmentKindList.map((k) => k.title), '合计']);
      const live = await ctx.db.selectFrom('equipment').select(['kind', 'state']).where('deleted', '=', 0).execute();
      for (const k of equipmentKindList) {
        const rows = live.filter((r) => r.kind === k.kind);
        const online = rows.filter((r) => r.state === 1).length;
        expect(line(lines, k.kind), k.kind).toEqual({ kind: k.kind, title: k.title, total: rows.length, online, offline: rows.length - online });
      }
      const total = line(lines, 'total');
      expect(total.total).toBe(live.length);
      expect(total.online + total.offline).toBe(total.total);
      expect(line(lines, 'gate').total).toBeGreaterThan(0);
    });

    it('counts a device online after its heartbeat and offline again once the silence timer runs five minutes later', async () => {
      // Seeded devices that called recently go quiet first, so that the timer below moves only this gate.
      await markSilentOffline(ctx.db, formatInZone(ctx.now() + 360_000, ctx.config.tz), ctx.now() + 360_000, 300_000);
      const before = await counts();
      expect((await ctx.db.selectFrom('equipment').select('state').where('id', '=', gate.id).executeTakeFirstOrThrow()).state).toBe(0);

      await heartbeat();
      const online = await counts();
      expect(line(online, 'gate')).toMatchObject({ total: line(before, 'gate').total, online: line(before, 'gate').online + 1, offline: line(before, 'gate').offline - 1 });
      expect(line(online, 'total')).toMatchObject({ total: line(before, 'total').total, online: line(before, 'total').online + 1 });
      // Other kinds did not move.
      expect(line(online, 'bumpingPost')).toEqual(line(before, 'bumpingPost'));

      // Four minutes on it is still online; six minutes on the timer takes it offline.
      expect(await markSilentOffline(ctx.db, formatInZone(ctx.now() + 240_000, ctx.config.tz), ctx.now() + 240_000, 300_000)).toBe(0);
      expect(line(await counts(), 'gate').online).toBe(line(online, 'gate').online);
      const later = ctx.now() + 420_000;
      expect(await markSilentOffline(ctx.db, formatInZone(later, ctx.config.tz), later, 300_000)).toBe(1);
      expect(await counts()).toEqual(before);
    });

    it('leaves deleted devices out and counts new ones', async () => {
      const before = await counts();
      const saved = await admin.post<{ id: number }>('/equipment/bumpingPost/save', { name: '看板测试防撞柱', number: `BOARD-BP-${dialect}`, longitude: null, latitude: null });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const added = await counts();
      expect(line(added, 'bumpingPost')).toMatchObject({ total: line(before, 'bumpingPost').total + 1, offline: line(before, 'bumpingPost').offline + 1 });
      expect(line(added, 'total').total).toBe(line(before, 'total').total + 1);

      expect((await admin.post('/equipment/bumpingPost/delete', { id: saved.body.data.id })).body.success).toBe(true);
      expect(await counts()).toEqual(before);
    });

    it('is open to every role holder, as the dashboard is, and refused without a role or a session', async () => {
      // The security lead holds no dashboard code of its own (open menus are every role holder's), yet reads the counts.
      expect(await counts(lead)).toEqual(await counts());
      const refused = await norole.get('/board/deviceCounts');
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ success: false, code: 1004 });
      expect((await new Client(server).get('/board/deviceCounts')).status).toBe(401);
    });
  });
}

type Count = Record<string, number>;
type Chart = { xAxis: string[]; series: Array<{ name: string; data: number[] }> };

/**
 * The dashboard's figures (spec 002 §2 Dashboard, docs/decisions.md
 * "Dashboard (issue 26)"), on each dialect: each call against the same
 * figure counted by plain SQL over the base tables, and moved by exactly what
 * crossings sent through the device API and crafted stays and visits add.
 */
for (const dialect of await dialects()) {
  describe(`dashboard figures on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, lead: Client, norole: Client;
    let today = '';
    const gate = { id: 0, number: '', key: '' };
    let seq = 0;

    const get = async <T = Count>(path: string, client = admin) => {
      const r = await client.get<T>(path);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    const at = (minutesAgo = 0) => formatInZone(ctx.now() - minutesAgo * 60_000, ctx.config.tz);
    const eventId = () => `dash-${dialect}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
    const events = async (list: unknown[]) => {
      const r = await fetch(`${server.base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gate.number}:${gate.key}` },
        body: JSON.stringify({ events: list }),
      });
      expect(r.status, await r.clone().text()).toBe(200);
    };
    const vehicle = (plate: string, direction: number, open_result: number, minutesAgo: number) => ({
      event_id: eventId(),
      type: 'vehicle',
      capture_time: at(minutesAgo),
      license_plate: plate,
      license_plate_color: 2,
      direction,
      open_result,
    });
    const person = (idcard: string, direction: number, open_result: number, minutesAgo: number) => ({
      event_id: eventId(),
      type: 'person',
      capture_time: at(minutesAgo),
      idcard,
      person_name: '看板',
      direction,
      open_result,
    });
    const plain = async (q: ReturnType<typeof sql>) => Number(((await q.execute(ctx.db)).rows[0] as { n: unknown }).n ?? 0);
    const openedToday = (table: 'gate_record_car' | 'gate_record_person', direction: number) =>
      plain(sql`SELECT count(*) AS n FROM ${sql.table(table)} WHERE substr(capture_time, 1, 10) = ${today} AND direction = ${direction} AND open_result = 1`);
    const insertStay = (kind: 'car' | 'person', subject: string, o: { deadline?: string | null; application_id?: number | null; entry_time?: string } = {}) =>
      ctx.db
        .insertInto('presence')
        .values({ kind, subject, application_id: o.application_id ?? null, visit_area: 1, deadline: o.deadline ?? null, entry_time: o.entry_time ?? at(5), entry_device_id: gate.id, exit_time: null })
        .execute();

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = ctx.time().slice(0, 10);
      [admin, lead, norole] = await Promise.all(['admin', 'lead', 'norole'].map((a) => new Client(server).as(a)));
      gate.number = `DASH-GATE-${dialect}`;
      const saved = await admin.post<{ id: number }>('/equipment/gate/save', { name: '看板统计道闸', number: gate.number, type: 1, entrances_type: 1, is_security_check: 0, temporary_reservation: 0 });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      gate.id = saved.body.data.id;
      gate.key = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: gate.id })).body.data.key;
    });
    afterAll(async () => server?.close());

    it('counts today’s opened crossings, refusals, device alarms and who is inside, as the base tables hold them, and moves by each crossing', async () => {
      const park0 = await get('/board/parkCounts');
      const other0 = await get('/board/todayOtherCounts');
      expect(park0.car_in_count).toBe(await openedToday('gate_record_car', 1));
      expect(park0.person_out_count).toBe(await openedToday('gate_record_person', 2));
      expect(park0.car_inside_count).toBe(await plain(sql`SELECT count(*) AS n FROM presence WHERE kind = 'car' AND exit_time IS NULL`));
      expect(other0.device_alarm_count).toBe(await plain(sql`SELECT count(*) AS n FROM device_alarm WHERE substr(capture_time, 1, 10) = ${today}`));
      expect(other0.application_count).toBe(await plain(sql`SELECT count(*) AS n FROM process_instance WHERE process_type BETWEEN 1 AND 5 AND substr(create_time, 1, 10) = ${today}`));
      expect(other0.car_denied_count).toBe(await plain(sql`SELECT count(*) AS n FROM gate_record_car WHERE substr(capture_time, 1, 10) = ${today} AND open_result = 0`));
      for (const k of ['car_in_count', 'car_out_count', 'person_in_count', 'person_out_count'] as const) expect(other0[k], k).toBe(park0[k]);

      const plate = (i: number) => `粤D${dialect === 'sqlite' ? 'S' : 'P'}${String(seq + i).padStart(4, '0')}`;
      const [p1, p2, p3] = [plate(1), plate(2), plate(3)];
      const id1 = idNumber(7100 + (dialect === 'sqlite' ? 1 : 2));
      await events([
        vehicle(p1, 1, 1, 4),
        vehicle(p2, 1, 1, 3),
        vehicle(p2, 2, 1, 2),
        vehicle(p3, 1, 0, 2),
        person(id1, 1, 1, 3),
        person(id1, 2, 0, 1),
        { event_id: eventId(), type: 'alarm', capture_time: at(1), alarm_type: '防拆报警', remark: '看板测试' },
      ]);

      const park1 = await get('/board/parkCounts');
      expect(park1).toEqual({
        car_in_count: park0.car_in_count + 2,
        car_out_count: park0.car_out_count + 1,
        car_inside_count: park0.car_inside_count + 1,
        person_in_count: park0.person_in_count + 1,
        person_out_count: park0.person_out_count,
        person_inside_count: park0.person_inside_count + 1,
      });
      expect(await get('/board/todayOtherCounts')).toEqual({
        ...other0,
        car_in_count: other0.car_in_count + 2,
        car_out_count: other0.car_out_count + 1,
        person_in_count: other0.person_in_count + 1,
        device_alarm_count: other0.device_alarm_count + 1,
        car_denied_count: other0.car_denied_count + 1,
        person_denied_count: other0.person_denied_count + 1,
      });
    });

    it('charts today’s entering (type 1) and leaving (type 2) per hour, as the base tables hold them', async () => {
      const hours = Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`);
      const byHour = async (table: 'gate_record_car' | 'gate_record_person', direction: number) => {
        const { rows } = await sql<{ h: string; n: unknown }>`SELECT substr(capture_time, 12, 2) AS h, count(*) AS n FROM ${sql.table(table)}
          WHERE substr(capture_time, 1, 10) = ${today} AND direction = ${direction} AND open_result = 1 GROUP BY substr(capture_time, 12, 2)`.execute(ctx.db);
        return hours.map((h) => Number(rows.find((r) => r.h === h.slice(0, 2))?.n ?? 0));
      };
      for (const type of [1, 2]) {
        const chart = await get<Chart>(`/board/parkInOutChart?type=${type}`);
        expect(chart.xAxis).toEqual(hours);
        expect(chart.series).toEqual([
          { name: '车辆', data: await byHour('gate_record_car', type) },
          { name: '人员', data: await byHour('gate_record_person', type) },
        ]);
      }
      const before = await get<Chart>('/board/parkInOutChart?type=2');
      const when = at(0);
      await events([person(idNumber(7200 + seq), 2, 1, 0)]);
      const after = await get<Chart>('/board/parkInOutChart?type=2');
      const h = Number(when.slice(11, 13));
      expect(after.series[1].data[h]).toBe(before.series[1].data[h] + 1);
      expect(after.series[0]).toEqual(before.series[0]);
    });

    it('answers a bad chart type with 400 and a Chinese message naming it', async () => {
      for (const [path, message] of [
        ['/board/parkInOutChart?type=3', '类型只能是1（入园）或2（出园）'],
        ['/board/parkInOutChart', '类型只能是1（入园）或2（出园）'],
        ['/board/overtimeChart?type=abc', '类型只能是1（车辆）或2（人员）'],
        ['/board/overtimeChart?type=0', '类型只能是1（车辆）或2（人员）'],
      ] as const) {
        const r = await admin.get(path);
        expect(r.status, path).toBe(400);
        expect(r.body.msg, path).toContain(message);
      }
    });

    it('counts stays past their deadline by kind, and charts them by how long overdue', async () => {
      const check0 = await get('/board/parkInOutCheckCounts');
      const overdue = (kind: string) => plain(sql`SELECT count(*) AS n FROM presence WHERE kind = ${kind} AND exit_time IS NULL AND deadline < ${ctx.time()}`);
      expect(check0.car_overtime_count).toBe(await overdue('car'));
      expect(check0.person_overtime_count).toBe(await overdue('person'));
      const car0 = await get<Chart>('/board/overtimeChart?type=1');
      const person0 = await get<Chart>('/board/overtimeChart?type=2');
      expect(car0.xAxis).toEqual(['1小时内', '1-2小时', '2-4小时', '4-8小时', '8-24小时', '超24小时']);
      expect(car0.series.map((s) => s.name)).toEqual(['超时未离场车辆']);
      expect(person0.series.map((s) => s.name)).toEqual(['超时未离场人员']);
      expect(car0.series[0].data.reduce((a, b) => a + b, 0)).toBe(check0.car_overtime_count);

      // Overdue by 90 minutes and by 3 hours; one not yet due, one with no deadline.
      await insertStay('car', `OT-${dialect}-1`, { deadline: at(90), entry_time: at(300) });
      await insertStay('car', `OT-${dialect}-2`, { deadline: at(180), entry_time: at(300) });
      await insertStay('car', `OT-${dialect}-3`, { deadline: at(-60) });
      await insertStay('person', `OT-${dialect}-4`, { deadline: at(30 * 60), entry_time: at(40 * 60) });
      const check1 = await get('/board/parkInOutCheckCounts');
      expect(check1).toMatchObject({ car_overtime_count: check0.car_overtime_count + 2, person_overtime_count: check0.person_overtime_count + 1 });
      const car1 = await get<Chart>('/board/overtimeChart?type=1');
      expect(car1.series[0].data).toEqual(car0.series[0].data.map((v, i) => v + (i === 1 || i === 2 ? 1 : 0)));
      const person1 = await get<Chart>('/board/overtimeChart?type=2');
      expect(person1.series[0].data).toEqual(person0.series[0].data.map((v, i) => v + (i === 5 ? 1 : 0)));
    });

    it('counts today’s applications (申请, 登记, 通过, 驳回) and approved visits begun today with nobody in yet', async () => {
      const apps0 = await get<{ car: Count; person: Count }>('/board/todayApplicationCounts');
      const kinds = { person: 'process_type = 1', car: 'process_type BETWEEN 2 AND 5' } as const;
      for (const [k, types] of Object.entries(kinds) as Array<['car' | 'person', string]>) {
        expect(apps0[k], k).toEqual({
          apply: await plain(sql`SELECT count(*) AS n FROM process_instance WHERE ${sql.raw(types)} AND substr(create_time, 1, 10) = ${today}`),
          register: await plain(sql`SELECT count(DISTINCT application_id) AS n FROM presence WHERE kind = ${k} AND substr(entry_time, 1, 10) = ${today}`),
          agree: await plain(sql`SELECT count(*) AS n FROM process_instance WHERE ${sql.raw(types)} AND state = 1 AND substr(update_time, 1, 10) = ${today}`),
          disagree: await plain(sql`SELECT count(*) AS n FROM process_instance WHERE ${sql.raw(types)} AND state = 2 AND substr(update_time, 1, 10) = ${today}`),
        });
      }
      const check0 = await get('/board/parkInOutCheckCounts');
      const notEntered = await plain(sql`SELECT count(*) AS n FROM person_application a WHERE a.state = 2 AND a.is_deleted = 0
        AND a.visit_begin_time >= ${today} AND a.visit_begin_time <= ${ctx.time()}
        AND NOT EXISTS (SELECT 1 FROM presence p WHERE p.kind = 'person' AND p.application_id = a.person_application_id)`);
      expect(check0.person_not_entered_count).toBe(notEntered);

      // An approved visit nobody came in on, not begun today, moved to begin this morning: not entered; a stay on it: registered, and no longer not entered.
      const visit = await ctx.db
        .selectFrom('person_application as a')
        .select('a.person_application_id as id')
        .where('a.state', '=', 2)
        .where('a.is_deleted', '=', 0)
        .where((eb) => eb.or([eb('a.visit_begin_time', '<', today), eb('a.visit_begin_time', '>', ctx.time())]))
        .where((eb) => eb.not(eb.exists(eb.selectFrom('presence as p').select('p.id').where('p.kind', '=', 'person').whereRef('p.application_id', '=', 'a.person_application_id'))))
        .orderBy('a.person_application_id')
        .executeTakeFirstOrThrow();
      await ctx.db
        .updateTable('person_application')
        .set({ visit_begin_time: `${today} 00:00:01` })
        .where('person_application_id', '=', visit.id)
        .execute();
      expect((await get('/board/parkInOutCheckCounts')).person_not_entered_count).toBe(check0.person_not_entered_count + 1);
      await insertStay('person', `REG-${dialect}`, { application_id: visit.id, entry_time: at(1) });
      expect((await get('/board/parkInOutCheckCounts')).person_not_entered_count).toBe(check0.person_not_entered_count);
      const apps1 = await get<{ car: Count; person: Count }>('/board/todayApplicationCounts');
      expect(apps1).toEqual({ car: apps0.car, person: { ...apps0.person, register: apps0.person.register + 1 } });
    });

    it('charts the last 7 park days’ car and person submissions', async () => {
      const chart = await get<Chart>('/board/applicationCounts');
      const days = Array.from({ length: 7 }, (_, i) => addDays(today, i - 6));
      expect(chart.xAxis).toEqual(days);
      const per = async (types: string) => {
        const { rows } = await sql<{ d: string; n: unknown }>`SELECT substr(create_time, 1, 10) AS d, count(*) AS n FROM process_instance
          WHERE ${sql.raw(types)} AND substr(create_time, 1, 10) >= ${days[0]} GROUP BY substr(create_time, 1, 10)`.execute(ctx.db);
        return days.map((d) => Number(rows.find((r) => r.d === d)?.n ?? 0));
      };
      expect(chart.series).toEqual([
        { name: '车辆预约', data: await per('process_type BETWEEN 2 AND 5') },
        { name: '人员预约', data: await per('process_type = 1') },
      ]);
      // The seeded park has submissions in the week, so the comparison above is not of zeros.
      expect(chart.series.flatMap((s) => s.data).some((v) => v > 0)).toBe(true);
    });

    it('is open to every role holder and refused without a role (403) or a session (401)', async () => {
      for (const path of [
        '/board/parkCounts',
        '/board/todayOtherCounts',
        '/board/todayApplicationCounts',
        '/board/parkInOutCheckCounts',
        '/board/applicationCounts',
        '/board/parkInOutChart?type=1',
        '/board/overtimeChart?type=2',
      ]) {
        expect((await lead.get(path)).status, path).toBe(200);
        const refused = await norole.get(path);
        expect(refused.status, path).toBe(403);
        expect(refused.body).toMatchObject({ success: false, code: 1004 });
        expect((await new Client(server).get(path)).status, path).toBe(401);
      }
    });
  });
}
