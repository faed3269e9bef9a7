import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../domain/envelope';
import type { GateRecordCarRow, GateRecordPersonRow } from '../../domain/schemas/gate-record';
import { addDays, dateOf } from '../../domain/visit-rules';
import { rgbPng } from '../../server/seed/seed-appointments';
import { idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';
import { HIDDEN_PHOTO, maskIdNumber } from '../../domain/personal-data';

type Row = Record<string, unknown>;

/**
 * 车辆过闸记录 and 人员过闸记录 (spec 001 §2) on each dialect: crossings fed
 * through the device API (DESIGN.md §8) by gates of the test's own, then
 * read back through POST /device/record/car/page and /device/record/person/page.
 */
for (const dialect of await dialects()) {
  describe(`gate crossing records on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client, patrol: Client, auditor: Client, lead: Client, contact: Client;
    let today = '';
    let yesterday = '';
    let plateImage = '';
    let snapshot = '';
    const gates = {
      a: { id: 0, number: `GR-A-${dialect}`, name: '过闸测试道闸A', key: '' },
      b: { id: 0, number: `GR-B-${dialect}`, name: '过闸测试道闸B', key: '' },
      p: { id: 0, number: `GR-P-${dialect}`, name: '过闸测试人行闸机', key: '' },
    };
    type Gate = (typeof gates)['a'];
    // Plates and people no seeded record has, so the assertions hold whatever the demo park holds.
    const plates = { p1: '粤L7G01学', p2: '粤L7G02学', p3: '粤L7G03学' };
    const people = { one: { idcard: idNumber(701), name: '过闸测试甲' }, two: { idcard: idNumber(702), name: '过闸测试乙' } };

    const device = async (gate: Gate, path: string, body: unknown) => {
      const r = await fetch(`${server.base}/api${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gate.number}:${gate.key}` },
        body: JSON.stringify(body),
      });
      return (await r.json()) as { success: boolean; data: { accepted: number; rejected: unknown[] } };
    };
    const feed = async (gate: Gate, events: Row[]) => {
      const r = await device(gate, '/device/events', { events });
      expect(r.data, JSON.stringify(r)).toMatchObject({ accepted: events.length, rejected: [] });
    };
    const deviceFile = async (gate: Gate) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(rgbPng(4, 4, () => [90, 90, 90]))], { type: 'image/png' }), 'shot.png');
      const r = await fetch(`${server.base}/api/device/files`, { method: 'POST', body: form, headers: { authorization: `Device ${gate.number}:${gate.key}` } });
      return ((await r.json()) as { data: { name: string } }).data.name;
    };
    /** Early in the day: never ahead of the server's clock by more than the 10 minutes a device may be. */
    const at = (day: string, time: string) => `${day} ${time}`;
    const vehicle = (id: string, capture_time: string, o: Row = {}): Row => ({ event_id: id, type: 'vehicle', capture_time, license_plate: plates.p1, direction: 1, open_result: 1, ...o });
    const person = (id: string, capture_time: string, o: Row = {}): Row => ({
      event_id: id,
      type: 'person',
      capture_time,
      idcard: people.one.idcard,
      person_name: people.one.name,
      direction: 1,
      open_result: 1,
      ...o,
    });

    const cars = async (q: Row, as: Client = patrol) => {
      const r = await as.post<Page<GateRecordCarRow>>('/device/record/car/page', { size: 10, pn: 1, ...q });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    const persons = async (q: Row, as: Client = patrol) => {
      const r = await as.post<Page<GateRecordPersonRow>>('/device/record/person/page', { size: 10, pn: 1, ...q });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    const events = (page: Page<{ event_id: string }>) => page.list.map((r) => r.event_id);

    beforeAll(async () => {
      server = await startServer(dialect);
      const ctx = server.app.ctx;
      today = dateOf(ctx.time());
      yesterday = addDays(today, -1);
      [admin, patrol, auditor, lead, contact] = await Promise.all(['admin', 'patrol', 'auditor', 'lead', 'contact'].map((a) => new Client(server).as(a)));
      for (const [i, g] of Object.values(gates).entries()) {
        const saved = await admin.post<{ id: number }>('/equipment/gate/save', {
          name: g.name,
          number: g.number,
          type: g === gates.p ? 2 : 1,
          entrances_type: 1 + i,
          is_security_check: 0,
          temporary_reservation: 0,
          longitude: 114.5,
          latitude: 22.7,
        });
        expect(saved.body.success, JSON.stringify(saved.body)).toBe(true);
        g.id = saved.body.data.id;
        g.key = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: g.id })).body.data.key;
      }
      // Installed before the days these records span: a device's events may not predate its registration (beyond the clock slack).
      await ctx.db
        .updateTable('equipment')
        .set({ create_time: `${addDays(today, -10)} 00:00:00` })
        .where(
          'id',
          'in',
          Object.values(gates).map((g) => g.id),
        )
        .execute();
      plateImage = await deviceFile(gates.a);
      snapshot = await deviceFile(gates.p);

      // Gate A today: four crossings, two of them in the same second (sent apart, so the later one has the larger id).
      await feed(gates.a, [
        vehicle('a1', at(today, '00:01:00'), {
          vehicle_color: 1,
          plate_image: plateImage,
          vehicle_brand: '丰田',
          vehicle_type: '小型轿车',
          vehicle_compare_result: 1,
          face_compare_result: 0,
          license_plate_color: 2,
        }),
        vehicle('a2', at(today, '00:02:00'), { license_plate: plates.p2, direction: 2, open_result: 0, vehicle_color: 10 }),
      ]);
      await feed(gates.a, [vehicle('a3', at(today, '00:03:00'), { license_plate: plates.p3, vehicle_color: 5 })]);
      await feed(gates.a, [vehicle('a4', at(today, '00:03:00'), { license_plate: plates.p3, vehicle_color: 5 })]);
      // Other days, and gate B today.
      await feed(gates.a, [vehicle('y1', at(yesterday, '12:00:00')), vehicle('d5', at(addDays(today, -5), '08:00:00'))]);
      await feed(gates.b, [vehicle('b1', at(today, '00:04:00'), { direction: 2 })]);

      await feed(gates.p, [
        person('q1', at(today, '00:01:00'), { card_number: 'C-0001', card_status: 1, image_type: 1, snapshot }),
        person('q2', at(today, '00:02:00'), { idcard: people.two.idcard, person_name: people.two.name, direction: 2, open_result: 0 }),
        person('q3', at(yesterday, '09:00:00')),
        person('q4', at(addDays(today, -3), '09:00:00'), { idcard: people.two.idcard, person_name: people.two.name }),
      ]);
    });
    afterAll(async () => server?.close());

    it('lists a gate’s vehicle crossings of today by default, newest first, with the device’s name and the images', async () => {
      const page = await cars({ deviceId: gates.a.id });
      expect(events(page)).toEqual(['a4', 'a3', 'a2', 'a1']);
      expect(page.total).toBe(4);
      expect(page.list[3]).toMatchObject({
        license_plate: plates.p1,
        license_plate_color: 2,
        direction: 1,
        open_result: 1,
        vehicle_color: 1,
        vehicle_brand: '丰田',
        vehicle_type: '小型轿车',
        vehicle_compare_result: 1,
        face_compare_result: 0,
        plate_image: plateImage,
        device_id: gates.a.id,
        device_name: gates.a.name,
        capture_time: at(today, '00:01:00'),
      });
      // The same second: the later record first.
      expect(page.list[0]!.id).toBeGreaterThan(page.list[1]!.id);
      // Today sent explicitly is the same list; the image is readable by the list's readers only.
      expect(events(await cars({ deviceId: gates.a.id, date: today }))).toEqual(['a4', 'a3', 'a2', 'a1']);
      const read = async (c: Client) => (await fetch(`${server.base}/api/file/${plateImage}`, { headers: { authorization: `Bearer ${c.token}` } })).status;
      expect(await read(auditor)).toBe(200);
      expect(await read(contact)).toBe(404);
    });

    it('filters vehicle crossings by plate, body colour, gate, direction, open result and date', async () => {
      // A whole plate (its index) and part of one find the same crossings of the day, on every gate.
      expect(events(await cars({ licensePlate: plates.p1 }))).toEqual(['b1', 'a1']);
      expect(events(await cars({ licensePlate: plates.p1.slice(3).toLowerCase() }))).toEqual(['b1', 'a1']);
      expect(events(await cars({ deviceId: gates.a.id, vehicleColor: 10 }))).toEqual(['a2']);
      expect(events(await cars({ deviceId: gates.a.id, vehicleColor: 5 }))).toEqual(['a4', 'a3']);
      expect(events(await cars({ deviceId: gates.b.id }))).toEqual(['b1']);
      expect(events(await cars({ deviceId: gates.a.id, direction: 2 }))).toEqual(['a2']);
      expect(events(await cars({ deviceId: gates.a.id, openResult: 0 }))).toEqual(['a2']);
      expect(events(await cars({ deviceId: gates.a.id, openResult: 1, direction: 1 }))).toEqual(['a4', 'a3', 'a1']);
      // -1 and '' are 全部, as every list's code filters.
      expect((await cars({ deviceId: -1, licensePlate: plates.p3, vehicleColor: -1, direction: '', openResult: -1 })).total).toBe(2);
      expect(events(await cars({ licensePlate: plates.p1, date: yesterday }))).toEqual(['y1']);
      expect(events(await cars({ licensePlate: plates.p1, date: addDays(today, -5) }))).toEqual(['d5']);
      expect((await cars({ licensePlate: plates.p1, date: addDays(today, -4) })).total).toBe(0);
    });

    it('pages vehicle crossings with their total', async () => {
      const first = await cars({ deviceId: gates.a.id, size: 2, pn: 1 });
      expect([events(first), first.total]).toEqual([['a4', 'a3'], 4]);
      const second = await cars({ deviceId: gates.a.id, size: 2, pn: 2 });
      expect([events(second), second.total]).toEqual([['a2', 'a1'], 4]);
      const beyond = await cars({ deviceId: gates.a.id, size: 2, pn: 3 });
      expect([events(beyond), beyond.total]).toEqual([[], 4]);
    });

    it('lists person crossings of today by default with the spec’s columns, and filters them by the spec’s query', async () => {
      const page = await persons({ personName: '过闸测试' });
      expect(events(page)).toEqual(['q2', 'q1']);
      expect(page.total).toBe(2);
      // The patrol reads ID numbers masked and, without pii:view, no face capture (see the masking test below).
      expect(page.list[1]).toMatchObject({
        idcard: maskIdNumber(people.one.idcard),
        paper_number: maskIdNumber(people.one.idcard),
        person_name: people.one.name,
        card_number: 'C-0001',
        card_status: 1,
        image_type: 1,
        direction: 1,
        person_event_type: 1,
        open_result: 1,
        snapshot: HIDDEN_PHOTO,
        device_name: gates.p.name,
        capture_time: at(today, '00:01:00'),
      });
      expect(page.list[0]).toMatchObject({ paper_number: maskIdNumber(people.two.idcard), person_event_type: 2, open_result: 0 });

      expect(events(await persons({ idCard: people.one.idcard }))).toEqual(['q1']);
      expect(events(await persons({ idCard: people.one.idcard.slice(-6).toLowerCase() }))).toEqual(['q1']);
      expect(events(await persons({ personName: '测试乙' }))).toEqual(['q2']);
      expect(events(await persons({ personName: '过闸测试', openResult: 0 }))).toEqual(['q2']);
      expect(events(await persons({ personName: '过闸测试', openResult: 1 }))).toEqual(['q1']);
      // Date ranges: both ends; a start alone runs to today; an end alone is that day.
      const threeDaysAgo = addDays(today, -3);
      expect(events(await persons({ personName: '过闸测试', startDate: threeDaysAgo, endDate: today }))).toEqual(['q2', 'q1', 'q3', 'q4']);
      expect(events(await persons({ personName: '过闸测试', startDate: yesterday }))).toEqual(['q2', 'q1', 'q3']);
      expect(events(await persons({ personName: '过闸测试', endDate: yesterday }))).toEqual(['q3']);
      expect(events(await persons({ personName: '过闸测试', startDate: threeDaysAgo, endDate: threeDaysAgo }))).toEqual(['q4']);
      const paged = await persons({ personName: '过闸测试', startDate: threeDaysAgo, endDate: today, size: 3, pn: 2 });
      expect([events(paged), paged.total]).toEqual([['q4'], 4]);
      // At most 31 days, except for one whole ID number (its own index).
      expect((await persons({ personName: '过闸测试', startDate: addDays(today, -30) })).total).toBe(4);
      expect(events(await persons({ idCard: people.two.idcard, startDate: addDays(today, -400) }))).toEqual(['q2', 'q4']);
    });

    it('masks ID numbers for every reader, whose idCard filter still takes the whole number; shows the face capture to pii:view only', async () => {
      const masked = maskIdNumber(people.one.idcard);
      expect(masked).toMatch(/^\d{4}\*{10}[\dX]{4}$/);
      for (const as of [patrol, auditor, lead, admin]) {
        const page = await persons({ idCard: people.one.idcard }, as);
        expect(events(page)).toEqual(['q1']);
        expect(page.list[0]).toMatchObject({ idcard: masked, paper_number: masked });
        // The whole number appears nowhere in the answer.
        expect(JSON.stringify(page)).not.toContain(people.one.idcard);
        expect(events(await persons({ idCard: people.one.idcard.slice(-6) }, as))).toEqual(['q1']);
      }
      expect((await persons({ idCard: people.one.idcard }, admin)).list[0]).toMatchObject({ snapshot });
      expect((await persons({ idCard: people.one.idcard }, lead)).list[0]).toMatchObject({ snapshot: HIDDEN_PHOTO });
    });

    it('offers the park’s vehicle barriers, never a pedestrian gate, as the vehicle list’s gate filter', async () => {
      const r = await patrol.post<Array<{ id: number; name: string; number: string }>>('/device/record/car/gates', {});
      expect(r.status).toBe(200);
      const live = await server.app.ctx.db.selectFrom('equipment').select('id').where('kind', '=', 'gate').where('type', '=', 1).where('deleted', '=', 0).orderBy('id').execute();
      expect(r.body.data.map((g) => g.id)).toEqual(live.map((g) => g.id));
      expect(r.body.data).toEqual(expect.arrayContaining([{ id: gates.a.id, name: gates.a.name, number: gates.a.number }, expect.objectContaining({ number: 'GATE-W-01' })]));
      const numbers = r.body.data.map((g) => g.number);
      expect(numbers).not.toContain(gates.p.number);
      expect(numbers).not.toContain('GATE-W-P01');
    });

    it('answers 403 to an account without the records’ codes', async () => {
      for (const path of ['/device/record/car/page', '/device/record/person/page', '/device/record/car/gates']) {
        const r = await contact.post(path, { size: 10, pn: 1 });
        expect(r.status, path).toBe(403);
        expect(r.body.msg).toContain('没有操作权限');
      }
      // The auditor and the admin hold both codes.
      expect((await cars({ deviceId: gates.a.id }, auditor)).total).toBe(4);
      expect((await persons({ personName: '过闸测试' }, admin)).total).toBe(2);
    });

    it('refuses bad filters with 400 and a Chinese message naming the field', async () => {
      const cases: Array<[string, Row, string]> = [
        ['/device/record/car/page', { date: '2026-13-01' }, '日期'],
        ['/device/record/car/page', { date: 'today' }, '日期格式应为 YYYY-MM-DD'],
        ['/device/record/car/page', { vehicleColor: 11 }, '车身颜色'],
        ['/device/record/car/page', { direction: 3 }, '进出方向'],
        ['/device/record/car/page', { openResult: 'x' }, '开闸结果'],
        ['/device/record/car/page', { deviceId: 'abc' }, '闸机'],
        ['/device/record/car/page', { size: 0 }, '每页条数'],
        ['/device/record/person/page', { startDate: '2026-02-30' }, '开始日期不是有效的日期'],
        ['/device/record/person/page', { startDate: today, endDate: yesterday }, '结束日期不能早于开始日期'],
        ['/device/record/person/page', { openResult: 2 }, '开闸结果'],
        ['/device/record/person/page', { startDate: addDays(today, -31) }, '开始日期：日期范围不能超过31天'],
        ['/device/record/person/page', { idCard: '4401', startDate: addDays(today, -40), endDate: addDays(today, -5) }, '开始日期：日期范围不能超过31天'],
        ['/device/record/person/page', { personName: 'x'.repeat(101) }, '姓名'],
      ];
      for (const [path, body, msg] of cases) {
        const r = await patrol.post(path, { size: 10, pn: 1, ...body });
        expect(r.status, `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body.msg).toContain(msg);
      }
    });

    // Last: it adds crossings today, which the counts above do not expect.
    it('counts a crossing in today’s unfiltered total as soon as its batch is stored, though the total is remembered', async () => {
      const before = (await cars({})).total;
      expect((await cars({})).total).toBe(before);
      await feed(gates.b, [vehicle('b2', at(today, '00:05:00'), { license_plate: '粤L7G04学' })]);
      expect((await cars({})).total).toBe(before + 1);
      expect(events(await cars({}))[0]).toBe('b2');
      // A day's own total, under its own key: yesterday's is not today's.
      expect((await cars({ date: yesterday })).total).not.toBe(before + 1);
      await feed(gates.p, [person('q5', at(today, '00:06:00'))]);
      expect((await persons({})).total).toBe((await persons({ personName: '' })).total);
    });
  });
}
