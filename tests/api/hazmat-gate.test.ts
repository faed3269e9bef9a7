import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { newDeviceKey } from '../../server/core/device-auth';
import { carApplicationBody, idNumber, registerPlate } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, any>;
type Decision = { allow: boolean; reason: string; application_number?: string };

const HAZMAT_MODEL = '危险化学品运输车';

/** 危化品 at the gate (docs/decisions.md): the waybill rule, its alarm, the per-park cap, the gate records and 安全设置, on each dialect. */
for (const dialect of await dialects()) {
  describe(`hazardous goods at the gate on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, contact: Client, lead: Client;
    let today = '';
    let key = '';
    let seq = 0;
    const gate = { id: 0, number: 'GATE-W-01', name: '' };
    const model: Record<string, number> = {};
    const depart: Record<string, number> = {};

    async function device(path: string, body: unknown): Promise<{ status: number; body: { success: boolean; msg: string; data: any } }> {
      const r = await fetch(`${server.base}/api${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gate.number}:${key}` },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as never };
    }
    const access = async (plate: string, direction: 1 | 2 = 1): Promise<Decision> => {
      const r = await device('/device/access', { direction, license_plate: plate });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data as Decision;
    };
    const send = async (events: Row[]) => {
      const r = await device('/device/events', { events });
      expect(r.body.data, JSON.stringify(r.body)).toMatchObject({ accepted: events.length });
    };
    const at = (minutesAgo = 0) => formatInZone(ctx.now() - minutesAgo * 60_000, ctx.config.tz);
    const crossing = (plate: string, direction: 1 | 2, open: 0 | 1, minutesAgo = 1): Row => ({
      event_id: `${dialect}-hz-${++seq}`,
      type: 'vehicle',
      capture_time: at(minutesAgo),
      license_plate: plate,
      direction,
      open_result: open,
    });
    const plateOf = () => `粤L${dialect === 'sqlite' ? 'H' : 'Z'}${String(1000 + ++seq).slice(-4)}`;

    /** An approved visit of `plate` from yesterday to tomorrow, its model and park set on the stored row; a hazardous model gets the registration it needs. */
    async function visit(plate: string, o: { model?: string; area?: number } = {}) {
      const saved = await contact.post<{ id: number }>(
        '/v2/carApplications/save',
        carApplicationBody({ today, license_plate: plate, applicant_idcard: idNumber(7000 + ++seq), vehicle_type_id: model['小型汽车']!, interviewee_depart_id: depart.CNOOC_SHELL! }),
      );
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      const m = o.model ?? HAZMAT_MODEL;
      await ctx.db
        .updateTable('car_application')
        .set({ state: 2, vehicle_type_id: model[m]!, visit_area: o.area ?? 1, visitor_begin_time: `${addDays(today, -1)} 00:00:00`, visitor_end_time: `${addDays(today, 1)} 23:59:59` })
        .where('car_application_id', '=', saved.body.data.id)
        .execute();
      if (m === HAZMAT_MODEL) await registerPlate(ctx.db, plate, addDays(today, -1), addDays(today, 1));
      return saved.body.data.id;
    }
    /** A waybill of the plate written straight to the table (its filing and approval are tests/api/waybills.test.ts's). */
    async function waybill(plate: string, o: { ship?: string; state?: number } = {}) {
      const number = `4413002026${String(++seq).padStart(8, '0')}`;
      await ctx.db
        .insertInto('transport_list')
        .values({
          application_number: `TL2026${String(seq).padStart(8, '0')}`,
          transport_type: 2,
          list_number: number,
          cargo_name: '液碱',
          cargo_quantity: 20,
          license_plate: plate,
          license_plate_color: 1,
          shipment_date: o.ship ?? today,
          state: o.state ?? 2,
          create_user_id: null,
          update_user_id: null,
          create_time: at(60),
          update_time: at(60),
        })
        .execute();
      return number;
    }
    const alarmsOf = (plate: string) => ctx.db.selectFrom('stranded_alarm').selectAll().where('license_plate', '=', plate).orderBy('id').execute();
    const recordsOf = (plate: string) => ctx.db.selectFrom('gate_record_car').selectAll().where('license_plate', '=', plate).orderBy('id').execute();

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [admin, contact, lead] = await Promise.all(['admin', 'contact', 'lead'].map((a) => new Client(server).as(a)));
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      const row = await ctx.db.selectFrom('equipment').select(['id', 'name']).where('number', '=', gate.number).executeTakeFirstOrThrow();
      Object.assign(gate, row);
      // The gate's key, as the equipment screen issues it (the issuing call is tests/api/devices.test.ts's).
      const issued = newDeviceKey();
      key = issued.key;
      await ctx.db.updateTable('equipment').set({ key_hash: issued.hash, key_issued_time: ctx.time() }).where('id', '=', gate.id).execute();
    });
    afterAll(async () => server?.close());

    it('lets a hazardous vehicle in only with an approved waybill of its plate covering today; an exit is never held', async () => {
      const plate = plateOf();
      await visit(plate);
      const refused = await access(plate);
      expect(refused).toMatchObject({ allow: false, reason: `危化品车辆（${plate}）无有效运单，不能放行` });
      expect(refused.application_number).toMatch(/^CA/);
      expect(await access(plate, 2)).toEqual({ allow: true, reason: '出场放行' });
      // Neither a draft, nor another plate's, nor one shipped two days ago covers today.
      await waybill(plate, { state: 0 });
      await waybill(plateOf());
      await waybill(plate, { ship: addDays(today, -2) });
      expect((await access(plate)).reason).toContain('无有效运单');
      // Shipped yesterday (a delivery that set out the evening before), or today: in.
      await waybill(plate, { ship: addDays(today, -1) });
      expect(await access(plate)).toMatchObject({ allow: true, reason: '预约已通过，放行' });

      // A vehicle of another model needs none; a white-listed hazardous one is let in by the list.
      const car = plateOf();
      await visit(car, { model: '小型汽车' });
      expect((await access(car)).allow).toBe(true);
      const white = plateOf();
      await visit(white);
      await ctx.db
        .insertInto('car_black_white_list')
        .values({
          license_plate: white,
          vehicle_type_id: null,
          type: 2,
          start_time: null,
          end_time: null,
          status: 2,
          in_reason: '应急保障',
          create_user_id: null,
          update_user_id: null,
          create_time: at(),
          update_time: at(),
        })
        .execute();
      expect(await access(white)).toMatchObject({ allow: true, list_type: 2 });
    });

    it('raises one 危化品无运单 alarm per plate and day from the refused crossing: banner, push and SMS to the lead', async () => {
      const plate = plateOf();
      const visitId = await visit(plate);
      // Asking twice raises nothing: the crossing is the fact.
      await access(plate);
      await access(plate);
      expect(await alarmsOf(plate)).toHaveLength(0);
      // Two refused entries, delivered at once by two batches (two servers would do the same): one alarm.
      await Promise.all([send([crossing(plate, 1, 0, 3)]), send([crossing(plate, 1, 0, 2)])]);
      await send([crossing(plate, 1, 0, 1)]);
      const alarms = await alarmsOf(plate);
      expect(alarms).toHaveLength(1);
      const alarm = alarms[0]!;
      expect(alarm).toMatchObject({ kind: 'car', level_type: 5, application_id: visitId, visit_area: 1, is_black: 0, presence_id: null, handle_time: null });
      expect(alarm.sms_content).toContain(plate);
      expect(alarm.sms_content).toContain('危化品车辆无运单');
      expect(alarm.sms_content.length).toBeLessThanOrEqual(70);
      // Sent after the commit, once: the outbox row is settled and the alarm records it.
      expect(alarm).toMatchObject({ sms_state: 0, sms_send: 1 });
      const outbox = await ctx.db.selectFrom('outbox_message').selectAll().where('origin', '=', 'stranded_alarm').where('origin_id', '=', alarm.id).execute();
      expect(outbox).toHaveLength(1);
      expect(outbox[0]!.state).toBe(2);
      const leadId = (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'lead').executeTakeFirstOrThrow()).user_id;
      const note = await ctx.db.selectFrom('notification').selectAll().where('user_id', '=', leadId).where('tag', '=', `stranded-car-${alarm.id}`).executeTakeFirst();
      expect(note).toMatchObject({ kind: 'stranded_alarm', title: '危化品车辆无运单', url: `/security/stranded-car?open=${alarm.id}` });
      // It is listed and handled with the vehicle alarms.
      const listed = await lead.post<{ list: Row[] }>('/car/stranded/list', { size: 50, pn: 1, license_plate: plate });
      expect(listed.body.data.list.map((r) => r.level_type)).toEqual([5]);
      // The records say hazardous, no waybill; none opened a stay.
      expect((await recordsOf(plate)).map((r) => [r.hazmat, r.waybill_number])).toEqual([
        [1, ''],
        [1, ''],
        [1, ''],
      ]);
      expect(await ctx.db.selectFrom('presence').select('id').where('subject', '=', plate).execute()).toHaveLength(0);

      // With a waybill the crossing carries its number and raises nothing; nor does a vehicle of another model refused.
      const other = plateOf();
      await visit(other);
      const number = await waybill(other);
      await send([crossing(other, 1, 1, 2), crossing(other, 2, 1, 1)]);
      expect((await recordsOf(other)).map((r) => [r.hazmat, r.waybill_number])).toEqual([
        [1, number],
        [1, number],
      ]);
      const car = plateOf();
      await visit(car, { model: '小型汽车' });
      await send([crossing(car, 1, 0)]);
      expect(await alarmsOf(other)).toHaveLength(0);
      expect(await alarmsOf(car)).toHaveLength(0);
      expect((await recordsOf(car))[0]).toMatchObject({ hazmat: 0, waybill_number: '' });
    });

    it('holds the next hazardous vehicle once its park has as many inside as the 安全设置 cap', async () => {
      const saved = await admin.post('/safetySetting/save', { hazmat_cap_chemical: 1, hazmat_cap_port: '', repeat_offender_threshold: 3, repeat_offender_days: 90 });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true, data: { hazmat_cap_chemical: 1, hazmat_cap_port: null } });
      try {
        const first = plateOf();
        const second = plateOf();
        const port = plateOf();
        const both = plateOf();
        for (const p of [first, second]) {
          await visit(p);
          await waybill(p);
        }
        await visit(port, { area: 2 });
        await waybill(port);
        await visit(both, { area: 3 });
        await waybill(both);
        expect((await access(first)).allow).toBe(true);
        await send([crossing(first, 1, 1)]);
        const held = await access(second);
        expect(held.allow).toBe(false);
        expect(held.reason).toContain('危化品车辆已达上限');
        expect(held.reason).toContain('化工区在园1辆，上限1辆');
        // A visit to both parks is held by the full one; the port has no cap; the one inside is not counted against itself.
        expect((await access(both)).reason).toContain('危化品车辆已达上限');
        expect((await access(port)).allow).toBe(true);
        expect((await access(first)).allow).toBe(true);
        // Once it has left there is room again.
        await send([crossing(first, 2, 1, 0)]);
        expect((await access(second)).allow).toBe(true);
      } finally {
        await admin.post('/safetySetting/save', { hazmat_cap_chemical: '', hazmat_cap_port: '', repeat_offender_threshold: 3, repeat_offender_days: 90 });
      }
    });

    it('lists the crossings with their waybill number and filters 危化品 yes or no', async () => {
      const page = async (q: Row) => {
        const r = await lead.post<{ list: Row[]; total: number }>('/device/record/car/page', { size: 100, pn: 1, ...q });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body.data;
      };
      const yes = await page({ hazmat: 1 });
      expect(yes.total).toBeGreaterThan(0);
      expect(yes.list.every((r) => r.hazmat === 1)).toBe(true);
      expect(yes.list.some((r) => r.waybill_number !== '')).toBe(true);
      const no = await page({ hazmat: 0 });
      expect(no.list.every((r) => r.hazmat === 0 && r.waybill_number === '')).toBe(true);
      expect((await page({})).total).toBe(yes.total + no.total);
      expect((await page({ hazmat: -1 })).total).toBe(yes.total + no.total);
      const bad = await lead.post('/device/record/car/page', { size: 10, pn: 1, hazmat: 2 });
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toContain('危化品');
    });

    it('安全设置: read by the menu holder, saved by safetySetting:edit, each refusal a 400 naming the field and its rule', async () => {
      expect((await lead.get('/safetySetting/get')).body).toMatchObject({
        success: true,
        data: { hazmat_cap_chemical: null, hazmat_cap_port: null, repeat_offender_threshold: 3, repeat_offender_days: 90 },
      });
      // The lead reads the screen; saving is the administrator's.
      expect((await lead.post('/safetySetting/save', { repeat_offender_threshold: 3, repeat_offender_days: 90 })).status).toBe(403);
      expect((await contact.get('/safetySetting/get')).status).toBe(403);
      const refusals: Array<[Row, string]> = [
        [{ hazmat_cap_chemical: 0 }, '化工区危化品车辆上限必须是1到10000之间的整数'],
        [{ hazmat_cap_port: 10_001 }, '港区危化品车辆上限必须是1到10000之间的整数'],
        [{ repeat_offender_threshold: 21 }, '重复告警次数必须是2到20之间的整数'],
        [{ repeat_offender_threshold: '3.5' }, '重复告警次数必须是2到20之间的整数'],
        [{ repeat_offender_days: 6 }, '重复告警统计天数必须是7到365之间的整数'],
        [{ repeat_offender_days: null }, '请填写重复告警统计天数'],
      ];
      for (const [o, msg] of refusals) {
        const r = await admin.post('/safetySetting/save', { repeat_offender_threshold: 3, repeat_offender_days: 90, ...o });
        expect(r.status, JSON.stringify(o)).toBe(400);
        expect(r.body.msg).toContain(msg);
      }
      const saved = await admin.post('/safetySetting/save', { hazmat_cap_chemical: '20', hazmat_cap_port: 5, repeat_offender_threshold: '4', repeat_offender_days: 60 });
      expect(saved.body).toMatchObject({ success: true, data: { hazmat_cap_chemical: 20, hazmat_cap_port: 5, repeat_offender_threshold: 4, repeat_offender_days: 60, updated_by: '系统管理员' } });
      expect((await lead.get('/safetySetting/get')).body.data).toMatchObject({ hazmat_cap_chemical: 20, hazmat_cap_port: 5, repeat_offender_threshold: 4 });
      await admin.post('/safetySetting/save', { repeat_offender_threshold: 3, repeat_offender_days: 90 });
    });
  });
}
