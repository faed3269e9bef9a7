import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializePath } from '../../domain/schemas/driving-route';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { notify } from '../../server/core/notify';
import { withId } from '../../server/db/migrations/001-foundation';
import { DEVIATION_CROSSINGS_CHARS } from '../../server/modules/driving-routes/deviation';
import { routeDeviationAlarms } from '../../server/db/migrations/031-route-deviation-alarms';
import type { DB } from '../../server/db/schema';
import { rgbPng } from '../../server/seed/seed-appointments';
import { carApplicationBody, idNumber } from './fixtures';
import { Client, dialects, startSecondServer, startServer, type TestServer } from './harness';

type Row = Record<string, any>;

const LINE = [
  [22.7391, 114.5083],
  [22.745, 114.514],
] as const;

/**
 * 偏离路线告警 through HTTP on each dialect: one alarm per visit raised at its
 * first gate off the route and holding every later crossing off it, also when
 * two servers ingest the visit's crossings at once; its own list, detail and
 * handling; 滞留统计 and the home count it; its own notification kind, and
 * 全部标为已查看 of the alarm kinds only.
 */
for (const dialect of await dialects()) {
  describe(`route-deviation alarms on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, contact: Client, lead: Client, patrol: Client;
    let today = '';
    let seq = 0;
    let photo = '';
    let routeName = '';
    let leadId = 0;
    const depart: Record<string, number> = {};
    const model: Record<string, number> = {};
    const gates: Record<string, { id: number; name: string; key: string }> = {};

    const at = (minutesAgo: number) => formatInZone(ctx.now() - minutesAgo * 60_000, ctx.config.tz);
    const plateOf = () => `粤L${dialect === 'sqlite' ? 'X' : 'Y'}${String(4000 + ++seq).slice(-4)}`;
    const crossing = (plate: string, direction: 1 | 2, minutesAgo: number, open = 1): Row => ({
      event_id: `${dialect}-dev-${++seq}`,
      type: 'vehicle',
      capture_time: at(minutesAgo),
      license_plate: plate,
      license_plate_color: 2,
      direction,
      open_result: open,
    });
    async function send(gate: string, events: Row[], base = server.base) {
      const r = await fetch(`${base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gate}:${gates[gate]!.key}` },
        body: JSON.stringify({ events }),
      });
      const body = (await r.json()) as Row;
      expect(body.data, JSON.stringify(body)).toMatchObject({ accepted: events.length, rejected: [] });
    }
    /** An approved vehicle visit to 华德 (bound to the test's route) valid now: the window is set on the stored row, as the form books from a later day. */
    async function approvedVisit(plate: string): Promise<{ id: number; number: string }> {
      const saved = await contact.post<{ id: number }>('/v2/carApplications/save', {
        ...carApplicationBody({ today, license_plate: plate, applicant_idcard: idNumber(7100 + ++seq), vehicle_type_id: model['小型汽车']!, interviewee_depart_id: depart.HUADE! }),
        blind_video_photo: photo,
        register_record_photo: photo,
      });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const id = saved.body.data.id;
      await ctx.db
        .updateTable('car_application')
        .set({ state: 2, visitor_begin_time: `${addDays(today, -1)} 00:00:00`, visitor_end_time: `${addDays(today, 1)} 23:59:59` })
        .where('car_application_id', '=', id)
        .execute();
      const { application_number } = await ctx.db.selectFrom('car_application').select('application_number').where('car_application_id', '=', id).executeTakeFirstOrThrow();
      return { id, number: application_number };
    }
    const alarmsOf = (applicationId: number) => ctx.db.selectFrom('stranded_alarm').selectAll().where('application_id', '=', applicationId).where('level_type', '=', 4).execute();
    const notesOf = (userId: number, kind: string) => ctx.db.selectFrom('notification').selectAll().where('user_id', '=', userId).where('kind', '=', kind).orderBy('notification_id').execute();
    const userId = async (account: string) => (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', account).executeTakeFirstOrThrow()).user_id;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [admin, contact, lead, patrol] = await Promise.all(['admin', 'contact', 'lead', 'patrol'].map((a) => new Client(server).as(a)));
      leadId = await userId('lead');
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      for (const g of await ctx.db.selectFrom('equipment').select(['id', 'number', 'name']).where('number', 'in', ['GATE-W-01', 'GATE-N-01', 'GATE-E-01']).execute()) {
        const key = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: g.id })).body.data.key;
        gates[g.number] = { id: g.id, name: g.name, key };
      }
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(rgbPng(2, 2, () => [200, 180, 160]))], { type: 'image/png' }), 'doc.png');
      const up = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${contact.token}` } });
      photo = ((await up.json()) as { data: { name: string } }).data.name;
      // 华德's visitors follow a published route through the west gate only: the north and east gates are off it.
      routeName = `${dialect}西门专线`;
      const saved = await admin.post<{ id: number }>('/drivingRoute/save', { name: routeName, publish: 1, path: serializePath(LINE.map((p) => [...p] as [number, number])) });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const points = (await admin.post<Array<{ id: number; equipment_id: number | null }>>('/location/all', {})).body.data;
      await admin.post('/drivingRoute/location/update', { id: saved.body.data.id, locationIds: [points.find((p) => p.equipment_id === gates['GATE-W-01']!.id)!.id] });
      expect((await admin.post('/drivingRoute/depart/bind', { id: saved.body.data.id, departIds: [depart.HUADE] })).body).toMatchObject({ msg: '绑定成功' });
    });
    afterAll(async () => server?.close());

    it('raises one alarm per visit at its first gate off the route, adds each later crossing off it, and tells the lead once, by its own kind', async () => {
      const plate = plateOf();
      const visit = await approvedVisit(plate);
      const patrolId = await userId('patrol');
      const before = { lead: (await notesOf(leadId, 'route_deviation')).length, patrol: (await notesOf(patrolId, 'route_deviation')).length };

      const entry = crossing(plate, 1, 30);
      await send('GATE-N-01', [entry]);
      const [alarm, ...more] = await alarmsOf(visit.id);
      expect(more).toHaveLength(0);
      const stay = await ctx.db.selectFrom('presence').selectAll().where('subject', '=', plate).executeTakeFirstOrThrow();
      const record = await ctx.db.selectFrom('gate_record_car').selectAll().where('event_id', '=', entry.event_id).executeTakeFirstOrThrow();
      expect(record.deviated).toBe(1);
      expect(alarm).toMatchObject({
        kind: 'car',
        level_type: 4,
        presence_id: stay.id,
        license_plate: plate,
        entry_time: entry.capture_time,
        alarm_time: entry.capture_time,
        exit_time: null,
        handle_time: null,
        sms_state: 0,
      });
      expect(JSON.parse(alarm!.application_info)).toMatchObject({ application_number: visit.number, license_plate: plate, route_name: routeName });

      const notes = (await notesOf(leadId, 'route_deviation')).slice(before.lead);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatchObject({ title: '车辆偏离路线', url: `/security/route-deviation?open=${alarm!.id}`, tag: `route-deviation-${alarm!.id}` });
      expect(notes[0]!.body).toContain(plate);
      expect(notes[0]!.body).toContain(gates['GATE-N-01']!.name);
      expect(notes[0]!.body).toContain(routeName);
      expect(notes[0]!.body).toContain(visit.number);
      // The patrol lists vehicle alarms but does not handle them: not told.
      expect((await notesOf(patrolId, 'route_deviation')).length).toBe(before.patrol);
      // Not a stranded alarm's notification either.
      expect((await ctx.db.selectFrom('notification').select('notification_id').where('tag', '=', `stranded-car-${alarm!.id}`).execute()).length).toBe(0);

      // On the route (the west gate, which did not open for it): nothing added. Off it again, leaving by the east gate:
      // added to the same alarm, which takes the stay's exit, and nobody is told again.
      const onRoute = crossing(plate, 2, 20, 0);
      await send('GATE-W-01', [onRoute]);
      expect((await ctx.db.selectFrom('gate_record_car').select('deviated').where('event_id', '=', onRoute.event_id).executeTakeFirstOrThrow()).deviated).toBe(0);
      const exit = crossing(plate, 2, 5);
      await send('GATE-E-01', [exit]);
      const after = await alarmsOf(visit.id);
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ id: alarm!.id, exit_time: exit.capture_time, alarm_time: entry.capture_time });
      expect((await notesOf(leadId, 'route_deviation')).length).toBe(before.lead + 1);

      const detail = await lead.get<Row>(`/car/routeDeviation/detail?id=${alarm!.id}`);
      expect(detail.body, JSON.stringify(detail.body)).toMatchObject({ success: true });
      const exitRecord = await ctx.db.selectFrom('gate_record_car').select('id').where('event_id', '=', exit.event_id).executeTakeFirstOrThrow();
      expect(detail.body.data.crossings).toEqual([
        { record_id: record.id, device_id: gates['GATE-N-01']!.id, gate: gates['GATE-N-01']!.name, direction: 1, open_result: 1, capture_time: entry.capture_time },
        { record_id: exitRecord.id, device_id: gates['GATE-E-01']!.id, gate: gates['GATE-E-01']!.name, direction: 2, open_result: 1, capture_time: exit.capture_time },
      ]);
      expect(detail.body.data).toMatchObject({ level_type: 4, entry_gate_name: gates['GATE-N-01']!.name, application_info: { route_name: routeName } });
    });

    it('stops adding crossings to an alarm that is full, and still stores and marks the crossing', async () => {
      const plate = plateOf();
      const visit = await approvedVisit(plate);
      await send('GATE-N-01', [crossing(plate, 1, 40, 0)]);
      const [alarm] = await alarmsOf(visit.id);
      // Filled to the bound with copies of its first crossing, as a visit valid for months would fill it.
      const first = alarm!.crossings as string;
      const full = Array.from({ length: Math.ceil(DEVIATION_CROSSINGS_CHARS / (first.length + 1)) }, () => first).join(',');
      await ctx.db.updateTable('stranded_alarm').set({ crossings: full }).where('id', '=', alarm!.id).execute();
      const later = crossing(plate, 2, 35, 0);
      await send('GATE-E-01', [later]);
      const after = await alarmsOf(visit.id);
      expect(after).toHaveLength(1);
      expect(after[0]!.crossings).toBe(full);
      expect((await ctx.db.selectFrom('gate_record_car').select('deviated').where('event_id', '=', later.event_id).executeTakeFirstOrThrow()).deviated).toBe(1);
    });

    it('keeps to one alarm per visit when two servers ingest its crossings from two gates at once, and the database refuses a second', async () => {
      const plate = plateOf();
      const visit = await approvedVisit(plate);
      const second = await startSecondServer(server);
      try {
        const before = (await notesOf(leadId, 'route_deviation')).length;
        // Refused at the gate, so no stay orders them, and an hour apart, so no report counter row does: nothing but the alarm's index keeps them apart.
        const batches = Array.from({ length: 8 }, (_, i) => ({
          gate: i % 2 ? 'GATE-N-01' : 'GATE-E-01',
          base: i % 4 < 2 ? server.base : second.base,
          events: [crossing(plate, i % 4 < 2 ? 1 : 2, 10 + i * 61, 0)],
        }));
        await Promise.all(batches.map((b) => send(b.gate, b.events, b.base)));
        const alarms = await alarmsOf(visit.id);
        expect(alarms).toHaveLength(1);
        const detail = await lead.get<Row>(`/car/routeDeviation/detail?id=${alarms[0]!.id}`);
        expect(detail.body.data.crossings).toHaveLength(8);
        expect(new Set(detail.body.data.crossings.map((c: Row) => c.record_id)).size).toBe(8);
        // No crossing opened a stay: the alarm has none, and its entry time is the crossing that raised it.
        expect(alarms[0]!.presence_id).toBeNull();
        expect(detail.body.data.entry_gate_name).toBeNull();
        expect((await notesOf(leadId, 'route_deviation')).length).toBe(before + 1);
      } finally {
        await second.close();
      }
      const { id: _id, ...copy } = (await alarmsOf(visit.id))[0]!;
      await expect(ctx.db.insertInto('stranded_alarm').values(copy).execute()).rejects.toThrow(/unique|UNIQUE/);
    });

    it('lists route deviations apart from the stranded lists, with the vehicle list’s filters, and answers 404 across lists', async () => {
      const plate = plateOf();
      const visit = await approvedVisit(plate);
      await send('GATE-E-01', [crossing(plate, 1, 10)]);
      const [alarm] = await alarmsOf(visit.id);
      const range = { begin_time: addDays(today, -1), end_time: addDays(today, 1) };

      const mine = await lead.post<{ list: Row[]; total: number }>('/car/routeDeviation/list', { size: 50, license_plate: plate, ...range });
      expect(mine.body, JSON.stringify(mine.body)).toMatchObject({ success: true, data: { total: 1 } });
      expect(mine.body.data.list[0]).toMatchObject({ id: alarm!.id, level_type: 4, crossings: [{ gate: gates['GATE-E-01']!.name }] });
      const all = await lead.post<{ list: Row[]; total: number }>('/car/routeDeviation/list', { size: 100 });
      expect(all.body.data.list.length).toBeGreaterThanOrEqual(3);
      expect(all.body.data.list.every((r) => r.level_type === 4 && r.kind === 'car')).toBe(true);
      const area = (await ctx.db.selectFrom('car_application').select('visit_area').where('car_application_id', '=', visit.id).executeTakeFirstOrThrow()).visit_area;
      expect((await lead.post<{ total: number }>('/car/routeDeviation/list', { size: 10, license_plate: plate, visit_area: area })).body.data.total).toBe(1);
      expect((await lead.post<{ total: number }>('/car/routeDeviation/list', { size: 10, license_plate: plate, visit_area: area === 1 ? 2 : 1 })).body.data.total).toBe(0);
      expect((await lead.post<{ total: number }>('/car/routeDeviation/list', { size: 10, license_plate: plate, begin_time: addDays(today, 2) })).body.data.total).toBe(0);
      const bad = await lead.post('/car/routeDeviation/list', { size: 10, begin_time: '昨天' });
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toContain('开始时间');

      // The stranded lists, 车辆滞留统计's rows and the vehicle list's export stay free of it.
      expect((await lead.post<{ total: number }>('/car/stranded/list', { size: 10, license_plate: plate })).body.data.total).toBe(0);
      expect((await lead.post<{ total: number }>('/stat_car_stranded/list', { size: 10, license_plate: plate })).body.data.total).toBe(0);
      expect((await lead.get(`/car/stranded/detail?id=${alarm!.id}`)).status).toBe(404);
      const stayAlarm = await ctx.db.selectFrom('stranded_alarm').select('id').where('level_type', '!=', 4).executeTakeFirst();
      if (stayAlarm) expect((await lead.get(`/car/routeDeviation/detail?id=${stayAlarm.id}`)).status).toBe(404);

      // Whoever lists vehicle alarms reads it; without the code, 403 naming it.
      expect((await patrol.post<{ total: number }>('/car/routeDeviation/list', { size: 10, license_plate: plate })).body.data.total).toBe(1);
      const refused = await contact.post('/car/routeDeviation/list', { size: 10 });
      expect(refused.status).toBe(403);
      expect(refused.body.msg).toContain('strandedManagementCar:list');
      expect((await contact.get(`/car/routeDeviation/detail?id=${alarm!.id}`)).status).toBe(403);
    });

    it('is handled like a stranded alarm (是否误判, 处理说明), once, by the vehicle deal code; later crossings join the handled alarm', async () => {
      const plate = plateOf();
      const visit = await approvedVisit(plate);
      await send('GATE-N-01', [crossing(plate, 1, 10)]);
      const [alarm] = await alarmsOf(visit.id);
      const deal = (c: Client, body: Row, headers: Record<string, string> = {}) => c.call('POST', '/car/routeDeviation/alarmDeal', body, headers);

      const missing = await deal(lead, { id: alarm!.id, handled_remark: '判断准确！' });
      expect(missing.status).toBe(400);
      expect(missing.body.msg).toContain('请选择是否误判');
      expect((await deal(lead, { id: alarm!.id, false_alarm: 0, handled_remark: '  ' })).body.msg).toContain('请输入处理说明');
      expect((await deal(patrol, { id: alarm!.id, false_alarm: 0, handled_remark: '判断准确！' })).status).toBe(403);
      // Through the stranded list's call it is not there.
      expect((await lead.post('/car/stranded/alarmDeal', { id: alarm!.id, false_alarm: 0, handled_remark: '判断准确！' })).status).toBe(404);

      // As the outbox sends it: with an Idempotency-Key, so a resend after a lost answer is the same handling.
      const key = `${dialect}-deal-${alarm!.id}`;
      const dealt = await deal(lead, { id: alarm!.id, false_alarm: 1, handled_remark: '出现误判！司机走错闸口，已引导' }, { 'idempotency-key': key });
      expect(dealt.body, JSON.stringify(dealt.body)).toMatchObject({ success: true, msg: '处理告警成功！' });
      expect((await deal(lead, { id: alarm!.id, false_alarm: 1, handled_remark: '出现误判！司机走错闸口，已引导' }, { 'idempotency-key': key })).body).toMatchObject({ success: true });
      const again = await deal(lead, { id: alarm!.id, false_alarm: 0, handled_remark: '判断准确！' });
      expect(again.status).toBe(409);
      expect(again.body.msg).toBe('处理告警错误：该告警已被处理');
      const detail = await lead.get<Row>(`/car/routeDeviation/detail?id=${alarm!.id}`);
      expect(detail.body.data).toMatchObject({ false_alarm: 1, handled_remark: '出现误判！司机走错闸口，已引导', handle_user_name: '赵敏' });

      // The visit deviates once: a later crossing off the route joins the handled alarm, raising and telling nothing.
      const before = (await notesOf(leadId, 'route_deviation')).length;
      await send('GATE-E-01', [crossing(plate, 2, 2)]);
      const after = await alarmsOf(visit.id);
      expect(after).toHaveLength(1);
      expect(after[0]!.crossings.split('},{')).toHaveLength(2);
      expect((await notesOf(leadId, 'route_deviation')).length).toBe(before);
    });

    it('counts in 滞留统计 by kind and level and on the home’s 待处理告警 until handled', async () => {
      const plate = plateOf();
      const visit = await approvedVisit(plate);
      const range = { begin_time: addDays(today, -1), end_time: addDays(today, 1) };
      const deviations = async () => (await lead.post<Row>('/stat_car_stranded/summary', range)).body.data.kinds.find((k: Row) => k.kind === 'car' && k.level_type === 4)?.total ?? 0;
      const open = async () => (await lead.get<{ total: number; list: Row[] }>('/stranded/open')).body.data;
      const [statsBefore, openBefore] = await Promise.all([deviations(), open()]);

      await send('GATE-N-01', [crossing(plate, 1, 3)]);
      const [alarm] = await alarmsOf(visit.id);
      expect(await deviations()).toBe(statsBefore + 1);
      const opened = await open();
      expect(opened.total).toBe(openBefore.total + 1);
      expect(opened.list[0]).toMatchObject({ id: alarm!.id, kind: 'car', level_type: 4, license_plate: plate, crossings: [{ gate: gates['GATE-N-01']!.name, direction: 1 }] });
      // The patrol lists vehicle alarms: its home counts them too.
      expect((await patrol.get<{ total: number }>('/stranded/open')).body.data.total).toBe(opened.total);

      await lead.post('/car/routeDeviation/alarmDeal', { id: alarm!.id, false_alarm: 0, handled_remark: '判断准确！' });
      expect((await open()).total).toBe(openBefore.total);
      // Still counted by 滞留统计, now as judged right.
      expect(await deviations()).toBe(statsBefore + 1);
    });

    it('notifies by its own kind, filtered apart in the centre; 全部标为已查看 reads the alarm kinds only', async () => {
      const plate = plateOf();
      await approvedVisit(plate);
      await send('GATE-E-01', [crossing(plate, 1, 2)]);
      const page = async (body: Row) => (await lead.post<{ list: Row[]; total: number }>('/notifications/page', { size: 50, ...body })).body.data;
      const deviations = await page({ kind: 'route_deviation', unread: true });
      expect(deviations.total).toBeGreaterThan(0);
      expect(deviations.list.every((n) => n.kind === 'route_deviation')).toBe(true);
      expect((await page({ kind: 'stranded_alarm' })).list.some((n) => n.kind === 'route_deviation')).toBe(false);
      // A message that is not an alarm stays unread.
      await ctx.db
        .transaction()
        .execute((trx) => notify(trx as unknown as Kysely<DB>, ctx, [{ userId: leadId, kind: 'notice', title: '通知公告', body: '测试', url: '/notices', tag: `${dialect}-notice` }]));

      const bad = await lead.post('/notifications/readAll', { kinds: ['route_deviation', 'sms'] });
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toContain('消息类型');
      expect((await lead.post('/notifications/readAll', { kinds: [] })).status).toBe(400);

      const read = await lead.post<{ count: number }>('/notifications/readAll', { kinds: ['stranded_alarm', 'route_deviation'] });
      expect(read.body, JSON.stringify(read.body)).toMatchObject({ success: true });
      expect((await page({ kind: 'route_deviation', unread: true })).total).toBe(0);
      expect((await page({ kind: 'stranded_alarm', unread: true })).total).toBe(0);
      const notices = (await page({ kind: 'notice', unread: true })).total;
      expect(notices).toBeGreaterThan(0);
      expect(read.body.data.count).toBe((await lead.get<{ count: number }>('/notifications/unreadCount')).body.data.count);
      expect(read.body.data.count).toBeGreaterThanOrEqual(notices);
    });
  });

  describe(`migration 031 on a ${dialect} database from before`, () => {
    let server: TestServer;
    let db: Kysely<any>;
    afterAll(async () => server?.close());

    it('keeps every alarm, its id and the counter, makes presence_id optional and unique among stay alarms, and gives the vehicle alarm readers the menu', async () => {
      server = await startServer(dialect);
      db = server.app.ctx.db as unknown as Kysely<any>;
      // The table as migrations 013 and 020 left it, holding alarms; the menu not written yet.
      await db.schema.dropTable('stranded_alarm').execute();
      await withId(db.schema.createTable('stranded_alarm'), 'id', dialect)
        .addColumn('kind', 'varchar(8)', (c) => c.notNull())
        .addColumn('presence_id', 'integer', (c) => c.notNull().unique())
        .addColumn('application_id', 'integer')
        .addColumn('application_info', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('license_plate', 'varchar(16)', (c) => c.notNull().defaultTo(''))
        .addColumn('idcard', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('person_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('visit_area', 'integer')
        .addColumn('level_type', 'integer', (c) => c.notNull())
        .addColumn('is_black', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('entry_time', 'varchar(19)', (c) => c.notNull())
        .addColumn('alarm_time', 'varchar(19)', (c) => c.notNull())
        .addColumn('exit_time', 'varchar(19)')
        .addColumn('handle_user_id', 'integer')
        .addColumn('handled_remark', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('false_alarm', 'integer')
        .addColumn('handle_time', 'varchar(19)')
        .addColumn('phones', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('sms_send', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sms_content', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('sms_error_response', 'varchar(500)')
        .addColumn('create_time', 'varchar(19)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('stranded_alarm_kind_time').on('stranded_alarm').columns(['kind', 'alarm_time', 'id']).execute();
      await db.schema.createIndex('stranded_alarm_open').on('stranded_alarm').columns(['kind', 'id']).where(sql.ref('handle_time'), 'is', null).execute();
      await db.schema
        .alterTable('stranded_alarm')
        .addColumn('sms_state', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      const old = (n: number) => ({ kind: 'car', presence_id: 900 + n, level_type: 1, entry_time: '2026-01-01 08:00:00', alarm_time: '2026-01-01 20:00:00', create_time: '2026-01-01 20:00:00' });
      await db
        .insertInto('stranded_alarm')
        .values([old(1), old(2), old(3)])
        .execute();
      // The newest was removed: its id must not be given again.
      await db.deleteFrom('stranded_alarm').where('presence_id', '=', 903).execute();
      const menu = await db.selectFrom('sys_permission').select('permission_id').where('code', '=', 'menu:routeDeviation').executeTakeFirstOrThrow();
      await db.deleteFrom('sys_role_permission').where('permission_id', '=', menu.permission_id).execute();
      await db.deleteFrom('sys_permission').where('permission_id', '=', menu.permission_id).execute();

      // The migration itself, as the upgrade from the release before it ran it (later migrations stay applied).
      await routeDeviationAlarms(server.app.ctx.dialect).up(db);

      const kept = await db.selectFrom('stranded_alarm').select(['id', 'presence_id', 'crossings']).orderBy('id').execute();
      expect(kept.map((r) => [r.presence_id, r.crossings])).toEqual([
        [901, ''],
        [902, ''],
      ]);
      const fresh = await db
        .insertInto('stranded_alarm')
        .values({ ...old(4), presence_id: null, level_type: 4, application_id: 1 })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect(fresh.id).toBe(kept[1]!.id + 2);
      // A stay keeps one stay alarm, and may have a route deviation beside it; a visit one route deviation.
      await expect(db.insertInto('stranded_alarm').values(old(1)).execute()).rejects.toThrow(/unique|UNIQUE/);
      await db
        .insertInto('stranded_alarm')
        .values({ ...old(1), level_type: 4, application_id: 2 })
        .execute();
      await expect(
        db
          .insertInto('stranded_alarm')
          .values({ ...old(5), level_type: 4, application_id: 2 })
          .execute(),
      ).rejects.toThrow(/unique|UNIQUE/);
      // The indexes made before are there again.
      const open = await db.selectFrom('stranded_alarm').select('id').where('handle_time', 'is', null).where('kind', '=', 'car').execute();
      expect(open.length).toBe(4);

      // The lead and the patrol read vehicle alarms: both have the menu again; the contact does not.
      const menus = async (account: string) =>
        ((await (await new Client(server).as(account)).get<{ menus: Row[] }>('/user/info')).body.data.menus as Row[]).flatMap((m) => [m.code, ...(m.children ?? []).map((c: Row) => c.code)]);
      expect(await menus('lead')).toContain('menu:routeDeviation');
      expect(await menus('patrol')).toContain('menu:routeDeviation');
      expect(await menus('contact')).not.toContain('menu:routeDeviation');
    });
  });
}
