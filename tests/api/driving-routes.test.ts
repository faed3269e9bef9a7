import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATH_MAX_POINTS, serializePath } from '../../domain/schemas/driving-route';
import type { LatLng } from '../../domain/geo';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { rgbPng } from '../../server/seed/seed-appointments';
import { carApplicationBody, idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, any>;
type Location = { id: number; name: string; longitude: number | null; latitude: number | null; equipment_id: number | null };
type Binding = { depart_id: number; depart_name: string; route_id: number; route_name: string };

const LINE: LatLng[] = [
  [22.7391, 114.5083],
  [22.745, 114.514],
  [22.7512, 114.5196],
];

/** 行车路线 (spec 001 "Vehicle entry routes", §7 Routes; issue 27) through HTTP, on each dialect, in the seeded demo park. */
for (const dialect of await dialects()) {
  describe(`driving routes on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, contact: Client, patrol: Client, reviewer: Client;
    let today = '';
    let seq = 0;
    let photo = '';
    const depart: Record<string, number> = {};
    const model: Record<string, number> = {};
    const gateIds: Record<string, number> = {};

    const save = (body: Row) => admin.post<{ id: number }>('/drivingRoute/save', body);
    const newRoute = async (name: string, publish = 1, line = LINE) => {
      const r = await save({ name, publish, path: serializePath(line) });
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
      return r.body.data.id;
    };
    const page = async (body: Row = {}) => (await admin.post<{ list: Row[]; total: number }>('/drivingRoute/page', { size: 100, pn: 1, ...body })).body.data;
    const locations = async () => (await admin.post<Location[]>('/location/all', {})).body.data;
    const pointOf = async (number: string) => (await locations()).find((l) => l.equipment_id === gateIds[number])!.id;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [admin, contact, patrol, reviewer] = await Promise.all(['admin', 'contact', 'patrol', 'reviewer'].map((a) => new Client(server).as(a)));
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      for (const g of await ctx.db.selectFrom('equipment').select(['id', 'number']).where('kind', '=', 'gate').execute()) gateIds[g.number] = g.id;
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(rgbPng(2, 2, () => [200, 180, 160]))], { type: 'image/png' }), 'doc.png');
      const up = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${contact.token}` } });
      photo = ((await up.json()) as { data: { name: string } }).data.name;
    });
    afterAll(async () => server?.close());

    it('saves, lists by name and publish state, updates and deletes a route; the path is stored as checked', async () => {
      const id = await newRoute(`${dialect}东线`, 0);
      const stored = await ctx.db.selectFrom('driving_route').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(JSON.parse(stored.path)).toEqual(LINE);
      expect(stored).toMatchObject({ publish: 0, location_id: '', deleted: 0 });

      expect((await page({ name: `${dialect}东` })).list.map((r) => r.id)).toEqual([id]);
      expect((await page({ name: `${dialect}东`, publish: 1 })).total).toBe(0);
      expect((await page({ name: `${dialect}东`, publish: -1 })).total).toBe(1);

      const upd = await admin.post('/drivingRoute/update', { id, name: `${dialect}东线改`, publish: 1, path: serializePath([LINE[0]!, LINE[2]!]) });
      expect(upd.body, JSON.stringify(upd.body)).toMatchObject({ success: true, msg: '编辑成功！' });
      const row = (await page({ name: `${dialect}东线改` })).list[0]!;
      expect(row).toMatchObject({ id, publish: 1, depart_names: '', point_names: '' });
      expect(JSON.parse(row.path)).toEqual([LINE[0], LINE[2]]);

      const del = await admin.post('/drivingRoute/delete', { id });
      expect(del.body).toMatchObject({ success: true, msg: '删除成功！' });
      expect((await page({ name: `${dialect}东线改` })).total).toBe(0);
      expect((await admin.post('/drivingRoute/update', { id, name: 'x', publish: 0, path: serializePath(LINE) })).status).toBe(404);
      expect((await admin.post('/drivingRoute/delete', { id })).status).toBe(404);
    });

    it('refuses bad input with the field and the rule in Chinese, saving nothing', async () => {
      const before = (await page()).total;
      const bad = async (body: Row, field: string, text: string) => {
        const r = await save(body);
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body.code).toBe(1001);
        expect(r.body.msg).toContain(text);
        expect(JSON.stringify((r.body.data as unknown as { errors: unknown[] }).errors)).toContain(field);
      };
      const ok = { name: `${dialect}校验`, publish: 0, path: serializePath(LINE) };
      await bad({ ...ok, name: '' }, 'name', '请输入路线名称');
      await bad({ ...ok, name: '长'.repeat(51) }, 'name', '路线名称：不能超过50个文字');
      await bad({ ...ok, path: undefined }, 'path', '请在地图上绘制行车路线');
      await bad({ ...ok, path: '[]' }, 'path', '请在地图上绘制行车路线');
      await bad({ ...ok, path: serializePath([LINE[0]!]) }, 'path', '至少需要2个点');
      await bad({ ...ok, path: '{"a":1}' }, 'path', '格式不正确');
      await bad({ ...ok, path: 'not json' }, 'path', '格式不正确');
      await bad(
        {
          ...ok,
          path: JSON.stringify([
            [22.7, 114.5],
            [95, 114.5],
          ]),
        },
        'path',
        '坐标超出范围',
      );
      await bad(
        {
          ...ok,
          path: JSON.stringify([
            [22.7, 114.5],
            [22.7, 'x'],
          ]),
        },
        'path',
        '格式不正确',
      );
      const tooMany = Array.from({ length: PATH_MAX_POINTS + 1 }, (_, i): LatLng => [22.7 + i * 1e-5, 114.5]);
      await bad({ ...ok, path: serializePath(tooMany) }, 'path', `最多${PATH_MAX_POINTS}个点`);
      await bad({ ...ok, publish: 2 }, 'publish', '发布状态只能是0（未发布）或1（已发布）');
      expect((await page()).total).toBe(before);

      await newRoute(`${dialect}重名`);
      const dup = await save({ ...ok, name: `${dialect}重名` });
      expect(dup.status).toBe(409);
      expect(dup.body.msg).toBe(`路线名称“${dialect}重名”已存在`);
    });

    it('answers 403 naming the code to a user without the carRoute codes', async () => {
      const id = await newRoute(`${dialect}权限`);
      for (const [path, body, code] of [
        ['/drivingRoute/page', {}, 'carRoute:list'],
        ['/drivingRoute/save', { name: 'x', path: serializePath(LINE) }, 'carRoute:add'],
        ['/drivingRoute/update', { id, name: 'x', path: serializePath(LINE) }, 'carRoute:edit'],
        ['/drivingRoute/delete', { id }, 'carRoute:delete'],
        ['/drivingRoute/depart/bind', { id, departIds: [] }, 'carRoute:bind'],
        ['/drivingRoute/depart/find', {}, 'carRoute:list'],
        ['/location/all', {}, 'carRoute:list'],
        ['/drivingRoute/location/update', { id, locationIds: [] }, 'carRoute:edit'],
      ] as const) {
        const r = await patrol.post(path, body);
        expect(r.status, path).toBe(403);
        expect(r.body.msg, path).toContain(code);
      }
      expect((await ctx.db.selectFrom('driving_route').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name).toBe(`${dialect}权限`);
    });

    it('binds departments with 绑定成功; a department bound to another route moves there, and find lists who follows which', async () => {
      const a = await newRoute(`${dialect}甲线`);
      const b = await newRoute(`${dialect}乙线`);
      const bind = await admin.post('/drivingRoute/depart/bind', { id: a, departIds: [depart.HZ_PORT, depart.QUANWAN] });
      expect(bind.body, JSON.stringify(bind.body)).toMatchObject({ success: true, msg: '绑定成功' });
      const find = async (id?: number) => (await admin.post<Binding[]>('/drivingRoute/depart/find', id === undefined ? {} : { id })).body.data;
      expect((await find(a)).map((x) => x.depart_id)).toEqual([depart.HZ_PORT, depart.QUANWAN].sort((x, y) => x! - y!));

      // QUANWAN moves to b; a keeps HZ_PORT.
      expect((await admin.post('/drivingRoute/depart/bind', { id: b, departIds: `${depart.QUANWAN}` })).body).toMatchObject({ success: true, msg: '绑定成功' });
      expect((await find(a)).map((x) => x.depart_id)).toEqual([depart.HZ_PORT]);
      expect(await find(b)).toEqual([{ depart_id: depart.QUANWAN, depart_name: '惠州港荃湾港区码头有限公司', route_id: b, route_name: `${dialect}乙线` }]);
      expect((await find()).filter((x) => x.depart_id === depart.QUANWAN)).toHaveLength(1);
      expect((await page({ name: `${dialect}甲线` })).list[0]).toMatchObject({ depart_names: '惠州港务集团有限公司' });

      // An empty list unbinds; an unknown department refuses the whole bind.
      const unknown = await admin.post('/drivingRoute/depart/bind', { id: a, departIds: [depart.HZ_PORT, 9_999_999] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.msg).toContain('绑定部门：所选部门不存在或已被删除');
      expect((await find(a)).map((x) => x.depart_id)).toEqual([depart.HZ_PORT]);
      expect((await admin.post('/drivingRoute/depart/bind', { id: a, departIds: 'x,1' })).status).toBe(400);
      expect((await admin.post('/drivingRoute/depart/bind', { id: a, departIds: [] })).body).toMatchObject({ success: true });
      expect(await find(a)).toEqual([]);
      expect((await admin.post('/drivingRoute/depart/bind', { id: 9_999_999, departIds: [] })).status).toBe(404);

      // Deleting a route frees its departments.
      await admin.post('/drivingRoute/delete', { id: b });
      expect((await find()).some((x) => x.depart_id === depart.QUANWAN)).toBe(false);
    });

    it('lists the vehicle gates as points (a gate added later too, a deleted one no more) and sets a route’s points in order', async () => {
      const all = await locations();
      const gates = all.filter((l) => l.equipment_id !== null).map((l) => l.equipment_id);
      expect(gates).toEqual(expect.arrayContaining([gateIds['GATE-W-01'], gateIds['GATE-N-01'], gateIds['GATE-E-01']]));
      // A pedestrian gate is no point of a vehicle route.
      expect(gates).not.toContain(gateIds['GATE-W-P01']);
      expect(all.find((l) => l.equipment_id === gateIds['GATE-W-01'])).toMatchObject({ name: '西门车辆道闸1', latitude: 22.7391, longitude: 114.5083 });

      const added = await admin.post<{ id: number }>('/equipment/gate/save', {
        name: `${dialect}南门道闸`,
        number: `GATE-S-${dialect}`,
        type: 1,
        entrances_type: 1,
        is_security_check: 0,
        temporary_reservation: 0,
        longitude: 114.52,
        latitude: 22.73,
      });
      expect(added.body, JSON.stringify(added.body)).toMatchObject({ success: true });
      const south = (await locations()).find((l) => l.equipment_id === added.body.data.id);
      expect(south).toMatchObject({ name: `${dialect}南门道闸`, latitude: 22.73, longitude: 114.52 });
      // Read twice (as two servers would): still one point per gate.
      await locations();
      expect((await ctx.db.selectFrom('location').select('id').where('equipment_id', '=', added.body.data.id).execute()).length).toBe(1);

      const id = await newRoute(`${dialect}点位线`);
      const north = await pointOf('GATE-N-01');
      const west = await pointOf('GATE-W-01');
      const edit = await admin.post('/drivingRoute/location/update', { id, locationIds: [north, west, south!.id] });
      expect(edit.body, JSON.stringify(edit.body)).toMatchObject({ success: true, msg: '编辑成功！' });
      expect((await ctx.db.selectFrom('driving_route').select('location_id').where('id', '=', id).executeTakeFirstOrThrow()).location_id).toBe(`${north},${west},${south!.id}`);
      expect((await page({ name: `${dialect}点位线` })).list[0]).toMatchObject({ point_names: `北门车辆道闸1 → 西门车辆道闸1 → ${dialect}南门道闸` });

      // The gate deleted: no longer a point, nor named on the route.
      await admin.post('/equipment/gate/delete', { id: added.body.data.id });
      expect((await locations()).some((l) => l.id === south!.id)).toBe(false);
      expect((await page({ name: `${dialect}点位线` })).list[0]).toMatchObject({ point_names: '北门车辆道闸1 → 西门车辆道闸1' });

      const unknown = await admin.post('/drivingRoute/location/update', { id, locationIds: [north, south!.id] });
      expect(unknown.status).toBe(400);
      expect(unknown.body.msg).toContain('途经点位：所选点位不存在或已被删除');
      expect((await admin.post('/drivingRoute/location/update', { id, locationIds: [0] })).status).toBe(400);
      expect((await admin.post('/drivingRoute/location/update', { id: 9_999_999, locationIds: [] })).status).toBe(404);
    });

    it('saves the points picked with the line in their order, keeps them when none are sent, and refuses points that are gone', async () => {
      const [north, west, east] = [await pointOf('GATE-N-01'), await pointOf('GATE-W-01'), await pointOf('GATE-E-01')];
      const created = await save({ name: `${dialect}连线`, publish: 0, path: serializePath(LINE), locationIds: [west, north] });
      expect(created.body, JSON.stringify(created.body)).toMatchObject({ success: true });
      const id = created.body.data.id;
      const row = async () => (await page({ name: `${dialect}连线` })).list[0]!;
      expect(await row()).toMatchObject({ location_id: `${west},${north}`, point_names: '西门车辆道闸1 → 北门车辆道闸1' });

      // An update that names no points (an older client, a name change) leaves them; one that names them replaces them.
      expect((await admin.post('/drivingRoute/update', { id, name: `${dialect}连线`, publish: 1, path: serializePath(LINE) })).body).toMatchObject({ success: true });
      expect((await row()).location_id).toBe(`${west},${north}`);
      expect((await admin.post('/drivingRoute/update', { id, name: `${dialect}连线`, publish: 1, path: serializePath(LINE), locationIds: [east] })).body).toMatchObject({ success: true });
      expect((await row()).point_names).toBe('东门车辆道闸1');
      expect((await admin.post('/drivingRoute/update', { id, name: `${dialect}连线`, publish: 1, path: serializePath(LINE), locationIds: [] })).body).toMatchObject({ success: true });
      expect((await row()).location_id).toBe('');

      const gone = await admin.post('/drivingRoute/update', { id, name: `${dialect}连线`, publish: 1, path: serializePath(LINE), locationIds: [north, 9_999_999] });
      expect(gone.status).toBe(400);
      expect(gone.body.msg).toContain('途经点位：所选点位不存在或已被删除（ID 9999999）');
      const bad = await save({ name: `${dialect}连线2`, publish: 0, path: serializePath(LINE), locationIds: ['x'] });
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toContain('途经点位不正确');
      expect((await page({ name: `${dialect}连线2` })).total).toBe(0);
      expect((await row()).location_id).toBe('');
    });

    describe('a vehicle visit and its route', () => {
      let route = 0;
      let appId = 0;
      let plate = '';
      let key = '';
      let keyE = '';
      const leadId = async () => (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'lead').executeTakeFirstOrThrow()).user_id;
      const at = (minutesAgo = 0) => formatInZone(ctx.now() - minutesAgo * 60_000, ctx.config.tz);
      const crossing = async (number: string, deviceKey: string, o: Row = {}) => {
        const eventId = `${dialect}-route-${++seq}`;
        const r = await fetch(`${server.base}/api/device/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Device ${number}:${deviceKey}` },
          body: JSON.stringify({ events: [{ event_id: eventId, type: 'vehicle', capture_time: at(1), license_plate: plate, license_plate_color: 2, direction: 1, open_result: 1, ...o }] }),
        });
        const body = (await r.json()) as { data: { accepted: number } };
        expect(body.data.accepted, JSON.stringify(body)).toBe(1);
        return ctx.db.selectFrom('gate_record_car').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow();
      };

      beforeAll(async () => {
        route = await newRoute(`${dialect}华德线`);
        await admin.post('/drivingRoute/location/update', { id: route, locationIds: [await pointOf('GATE-W-01'), await pointOf('GATE-N-01')] });
        expect((await admin.post('/drivingRoute/depart/bind', { id: route, departIds: [depart.HUADE] })).body).toMatchObject({ msg: '绑定成功' });
        plate = `粤L${dialect === 'sqlite' ? 'R' : 'Q'}${String(3000 + seq).slice(-4)}`;
        const saved = await contact.post<{ id: number }>('/v2/carApplications/save', {
          ...carApplicationBody({ today, license_plate: plate, applicant_idcard: idNumber(8600 + seq), vehicle_type_id: model['小型汽车']!, interviewee_depart_id: depart.HUADE! }),
          blind_video_photo: photo,
          register_record_photo: photo,
        });
        expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
        appId = saved.body.data.id;
        // Approved and valid now: the form only books from a later day.
        await ctx.db
          .updateTable('car_application')
          .set({ state: 2, visitor_begin_time: `${today} 00:00:00`, visitor_end_time: `${addDays(today, 1)} 23:59:59` })
          .where('car_application_id', '=', appId)
          .execute();
        key = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: gateIds['GATE-N-01'] })).body.data.key;
        keyE = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: gateIds['GATE-E-01'] })).body.data.key;
      });

      it('answers the published route of the visited department to whoever may read the visit, and 404 to others', async () => {
        const mine = await contact.post<Row | null>('/drivingRoute/ofApplication', { car_application_id: appId });
        expect(mine.body, JSON.stringify(mine.body)).toMatchObject({ success: true });
        expect(mine.body.data).toMatchObject({ id: route, name: `${dialect}华德线` });
        expect(JSON.parse(mine.body.data!.path)).toEqual(LINE);
        expect(mine.body.data!.points.map((p: Location) => p.equipment_id)).toEqual([gateIds['GATE-W-01'], gateIds['GATE-N-01']]);
        // The admin reads every application (all-history code); the patrol too (allCarApplyHistory:list), without any carRoute code.
        expect((await admin.post<Row>('/drivingRoute/ofApplication', { car_application_id: appId })).body.data).toMatchObject({ id: route });
        expect((await patrol.post<Row>('/drivingRoute/ofApplication', { car_application_id: appId })).body.data).toMatchObject({ id: route });
        // 中海壳牌's reviewer reads only visits to his company: this one is not his.
        expect((await reviewer.post('/drivingRoute/ofApplication', { car_application_id: appId })).status).toBe(404);
        expect((await contact.post('/drivingRoute/ofApplication', { car_application_id: 9_999_999 })).status).toBe(404);

        // Unpublished: no route to follow.
        await ctx.db.updateTable('driving_route').set({ publish: 0 }).where('id', '=', route).execute();
        expect((await contact.post('/drivingRoute/ofApplication', { car_application_id: appId })).body).toMatchObject({ success: true, data: null });
        await ctx.db.updateTable('driving_route').set({ publish: 1 }).where('id', '=', route).execute();
      });

      it('marks a crossing at a gate off the route 偏离路线 and tells the security lead; a gate on the route is normal', async () => {
        const lead = await leadId();
        const notes = () => ctx.db.selectFrom('notification').selectAll().where('user_id', '=', lead).where('tag', 'like', 'route-deviation-%').execute();
        const before = (await notes()).length;

        const onRoute = await crossing('GATE-N-01', key);
        expect(onRoute.deviated).toBe(0);
        expect((await notes()).length).toBe(before);

        const off = await crossing('GATE-E-01', keyE, { direction: 2 });
        expect(off.deviated).toBe(1);
        // The visit's route-deviation alarm holds the crossing, and the notification opens the alarm (tests/api/stranded-deviation.test.ts).
        const alarm = await ctx.db.selectFrom('stranded_alarm').select(['id', 'crossings']).where('application_id', '=', appId).where('level_type', '=', 4).executeTakeFirstOrThrow();
        expect(JSON.parse(`[${alarm.crossings}]`)).toMatchObject([{ record_id: off.id, direction: 2 }]);
        const note = (await notes()).find((n) => n.tag === `route-deviation-${alarm.id}`);
        expect(note).toMatchObject({ kind: 'route_deviation', title: '车辆偏离路线', url: `/security/route-deviation?open=${alarm.id}` });
        expect(note!.body).toContain(plate);
        expect(note!.body).toContain('东门车辆道闸1');
        expect(note!.body).toContain(`${dialect}华德线`);

        // The vehicle records list shows it and filters by it.
        const list = await admin.post<{ list: Row[] }>('/device/record/car/page', { size: 50, licensePlate: plate, deviated: 1 });
        expect(list.body.data.list.map((r) => r.id)).toEqual([off.id]);
        expect(list.body.data.list[0]).toMatchObject({ deviated: 1 });
        expect((await admin.post<{ list: Row[] }>('/device/record/car/page', { size: 50, licensePlate: plate, deviated: 0 })).body.data.list.map((r) => r.id)).toEqual([onRoute.id]);
        expect((await admin.post('/device/record/car/page', { deviated: 3 })).status).toBe(400);
      });

      it('does not judge plates without a route: no visit, or a department with none', async () => {
        const other = await crossing('GATE-E-01', keyE, { license_plate: '粤L00000' });
        expect(other.deviated).toBe(0);
        await admin.post('/drivingRoute/depart/bind', { id: route, departIds: [] });
        const unbound = await crossing('GATE-E-01', keyE);
        expect(unbound.deviated).toBe(0);
      });
    });
  });
}
