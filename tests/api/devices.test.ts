import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, dateOf } from '../../domain/visit-rules';
import { formatInZone } from '../../domain/time';
import type { AppContext } from '../../server/core/context';
import { BLACK_PLATE, rgbPng } from '../../server/seed/seed-appointments';
import { markSeen, markSilentOffline } from '../../server/modules/devices/ingest';
import { carApplicationBody, idNumber, registerPlate } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, unknown>;
type Ingest = { accepted: number; duplicates: number; rejected: Array<{ event_id: string; msg: string }> };
type Decision = { allow: boolean; reason: string; application_number?: string; valid_until?: string; list_type?: number };

/** The device API of DESIGN.md §8 through HTTP, on each dialect, against the seeded demo park's gates. */
for (const dialect of await dialects()) {
  describe(`device API on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, contact: Client, patrol: Client;
    let today = '';
    let key = '';
    let seq = 0;
    let photo = '';
    const gate = { id: 0, number: 'GATE-W-01' };
    const model: Record<string, number> = {};
    const depart: Record<string, number> = {};

    /** A call as a device: `Authorization: Device <number>:<key>`. */
    async function device(path: string, body: unknown, auth = `Device ${gate.number}:${key}`): Promise<{ status: number; body: { success: boolean; code: number; msg: string; data: any } }> {
      const r = await fetch(`${server.base}/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as never };
    }
    const events = (list: unknown[]) => device('/device/events', { events: list });
    const access = async (b: Row) => {
      const r = await device('/device/access', b);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data as Decision;
    };
    const at = (minutesAgo = 0) => formatInZone(ctx.now() - minutesAgo * 60_000, ctx.config.tz);
    const eventId = () => `${dialect}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
    const vehicle = (o: Row = {}): Row => ({ event_id: eventId(), type: 'vehicle', capture_time: at(1), license_plate: '粤L12345', license_plate_color: 2, direction: 1, open_result: 1, ...o });
    const carRecords = (ids: string[]) => ctx.db.selectFrom('gate_record_car').selectAll().where('device_id', '=', gate.id).where('event_id', 'in', ids).execute();

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [admin, contact, patrol] = await Promise.all(['admin', 'contact', 'patrol'].map((a) => new Client(server).as(a)));
      gate.id = (await ctx.db.selectFrom('equipment').select('id').where('number', '=', gate.number).executeTakeFirstOrThrow()).id;
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      const issued = await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: gate.id });
      expect(issued.body, JSON.stringify(issued.body)).toMatchObject({ success: true });
      key = issued.body.data.key;
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(rgbPng(2, 2, () => [200, 180, 160]))], { type: 'image/png' }), 'doc.png');
      const up = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${contact.token}` } });
      photo = ((await up.json()) as { data: { name: string } }).data.name;
    });
    afterAll(async () => server?.close());

    it('issues a key once to the holder of the kind’s edit code; only its hash is stored, and a new one replaces it', async () => {
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const stored = await ctx.db.selectFrom('equipment').select(['key_hash', 'key_issued_time']).where('id', '=', gate.id).executeTakeFirstOrThrow();
      expect(stored.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored.key_hash).not.toContain(key);
      // The list never shows it.
      const list = await admin.post<{ list: Row[] }>('/equipment/gate/list', { size: 50 });
      expect(JSON.stringify(list.body.data.list)).not.toContain(stored.key_hash!);

      expect((await patrol.post('/equipment/gate/issueKey', { id: gate.id })).status).toBe(403);
      expect((await admin.post('/equipment/gate/issueKey', { id: 99999999 })).status).toBe(404);
      // A bumping post's id is not a gate.
      const post = (await ctx.db.selectFrom('equipment').select('id').where('kind', '=', 'bumpingPost').executeTakeFirstOrThrow()).id;
      expect((await admin.post('/equipment/gate/issueKey', { id: post })).status).toBe(404);

      const other = await ctx.db.selectFrom('equipment').select(['id', 'number']).where('number', '=', 'GATE-N-01').executeTakeFirstOrThrow();
      const first = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: other.id })).body.data.key;
      const second = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: other.id })).body.data.key;
      expect(second).not.toBe(first);
      expect((await device('/device/events', { events: [vehicle()] }, `Device ${other.number}:${first}`)).status).toBe(401);
      expect((await device('/device/events', { events: [vehicle()] }, `Device ${other.number}:${second}`)).status).toBe(200);
    });

    it('answers 401 to no key, a wrong key, another device’s key and a deleted device', async () => {
      for (const auth of ['', 'Bearer abc', `Device ${gate.number}:${key}x`, `Device GATE-E-01:${key}`, `Device NO-SUCH:${key}`, `Device ${gate.number}`]) {
        const r = await device('/device/events', { events: [vehicle()] }, auth);
        expect(r.status, auth).toBe(401);
        expect(r.body.msg).toContain('设备认证失败');
      }
      const doomed = await ctx.db.selectFrom('equipment').select(['id', 'number']).where('number', '=', 'GATE-E-01').executeTakeFirstOrThrow();
      const k = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: doomed.id })).body.data.key;
      expect((await device('/device/access', { direction: 1, license_plate: '粤L12345' }, `Device ${doomed.number}:${k}`)).status).toBe(200);
      expect((await admin.post('/equipment/gate/delete', { id: doomed.id })).body.success).toBe(true);
      expect((await device('/device/access', { direction: 1, license_plate: '粤L12345' }, `Device ${doomed.number}:${k}`)).status).toBe(401);
    });

    it('keeps the good events of a batch, lists the bad ones with their reason, and stores a replay nothing twice', async () => {
      const good = [
        vehicle({ vehicle_brand: '东风', vehicle_type: '重型罐式货车', vehicle_color: 1 }),
        { event_id: eventId(), type: 'person', capture_time: at(2), idcard: idNumber(9100 + seq), person_name: '王五', direction: 1, open_result: 1 },
        { event_id: eventId(), type: 'heartbeat', capture_time: at(0) },
        { event_id: eventId(), type: 'alarm', capture_time: at(0), alarm_type: '防拆报警', remark: '机箱被打开' },
      ];
      const bad = [
        [vehicle({ license_plate: '??' }), '车牌号格式不正确'],
        [vehicle({ direction: 3 }), '进出方向只能是1、2'],
        [vehicle({ capture_time: '2026/11/25 08:00' }), '抓拍时间格式应为 YYYY-MM-DD HH:mm:ss'],
        [vehicle({ capture_time: formatInZone(ctx.now() + 3600_000, ctx.config.tz) }), '抓拍时间晚于服务器时间，请校准设备时钟'],
        [vehicle({ vehicle_image: '../../etc/passwd' }), '车辆图片必须是 /api/device/files 返回的文件名'],
        [{ event_id: eventId(), type: 'teleport', capture_time: at(0) }, '事件类型只能是 vehicle、person、heartbeat 或 alarm'],
        [{ type: 'heartbeat', capture_time: at(0) }, '请提供事件ID'],
        ['not an object', '事件类型只能是 vehicle、person、heartbeat 或 alarm'],
      ] as const;
      const r = await events([...good, ...bad.map(([e]) => e)]);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const result = r.body.data as Ingest;
      expect(result).toMatchObject({ accepted: 4, duplicates: 0 });
      expect(result.rejected.map((x) => x.msg)).toEqual(bad.map(([, msg]) => msg));
      expect(result.rejected[0]!.event_id).toBe((bad[0][0] as Row).event_id);

      const ids = good.map((e) => e.event_id as string);
      expect(await carRecords(ids)).toHaveLength(1);
      expect((await carRecords(ids))[0]).toMatchObject({ license_plate: '粤L12345', vehicle_brand: '东风', direction: 1, open_result: 1 });
      expect(await ctx.db.selectFrom('gate_record_person').select('id').where('event_id', '=', ids[1]!).execute()).toHaveLength(1);
      expect(await ctx.db.selectFrom('device_alarm').select('id').where('event_id', '=', ids[3]!).execute()).toHaveLength(1);

      // The gate lost its network and sends its whole buffer again, plus one new event and one id twice.
      const fresh = vehicle();
      const again = await events([...good, fresh, { ...fresh }]);
      expect(again.body.data).toMatchObject({ accepted: 1, duplicates: 5, rejected: [] });
      expect(await carRecords([...ids, fresh.event_id as string])).toHaveLength(2);
      expect(
        await ctx.db
          .selectFrom('device_event')
          .select('event_id')
          .where('device_id', '=', gate.id)
          .where('event_id', 'in', [...ids, fresh.event_id as string])
          .execute(),
      ).toHaveLength(5);
    });

    it('stores a batch once when two connections replay it at the same time', async () => {
      const batch = Array.from({ length: 120 }, (_, i) => vehicle({ license_plate: `粤L${String(20000 + i)}` }));
      const [a, b, c] = await Promise.all([events(batch), events(batch), events(batch)]);
      const results = [a, b, c].map((r) => r.body.data as Ingest);
      expect(results.reduce((n, r) => n + r.accepted, 0)).toBe(120);
      expect(results.reduce((n, r) => n + r.duplicates, 0)).toBe(240);
      expect(await carRecords(batch.map((e) => e.event_id as string))).toHaveLength(120);
    });

    it('refuses a malformed batch as a whole with 400', async () => {
      for (const [body, msg] of [
        [{}, '请提供事件列表（events 数组）'],
        [{ events: [] }, '事件列表不能为空'],
        [{ events: Array.from({ length: 501 }, () => vehicle()) }, '每次最多上报500条事件'],
      ] as const) {
        const r = await device('/device/events', body);
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body.msg).toContain(msg);
      }
    });

    it('takes images from the device and lets the records’ readers see them', async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(rgbPng(4, 4, () => [90, 90, 90]))], { type: 'image/png' }), 'plate.png');
      const up = await fetch(`${server.base}/api/device/files`, { method: 'POST', body: form, headers: { authorization: `Device ${gate.number}:${key}` } });
      const uploaded = (await up.json()) as { data: { name: string } };
      expect(up.status).toBe(200);
      const e = vehicle({ plate_image: uploaded.data.name });
      expect((await events([e])).body.data).toMatchObject({ accepted: 1 });
      // The patrol holds the vehicle records' code (vehicleGateCrosRecords:list); a contact does not.
      const read = async (c: Client) => (await fetch(`${server.base}/api/file/${uploaded.data.name}`, { headers: { authorization: `Bearer ${c.token}` } })).status;
      expect(await read(contact)).toBe(404);
      expect(await read(patrol)).toBe(200);

      const text = new FormData();
      text.append('file', new Blob(['%PDF-1.4 not an image']), 'x.pdf');
      const refused = await fetch(`${server.base}/api/device/files`, { method: 'POST', body: text, headers: { authorization: `Device ${gate.number}:${key}` } });
      expect(refused.status).toBe(415);
    });

    it('marks a device online on contact and offline after five silent minutes, once across two timers', async () => {
      await events([{ event_id: eventId(), type: 'heartbeat', capture_time: at(0) }]);
      const row = () => ctx.db.selectFrom('equipment').select(['state', 'state_update_time', 'last_seen_at']).where('id', '=', gate.id).executeTakeFirstOrThrow();
      const online = await row();
      expect(online.state).toBe(1);
      const later = ctx.now() + 6 * 60_000;
      const changed = await Promise.all([markSilentOffline(ctx.db, at(-6), later, 300_000), markSilentOffline(ctx.db, at(-6), later, 300_000)]);
      expect(changed.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
      expect((await row()).state).toBe(0);
      expect(await markSilentOffline(ctx.db, at(-6), later, 300_000)).toBe(0);
      // The next heartbeat brings it back, with a new state time.
      await events([{ event_id: eventId(), type: 'heartbeat', capture_time: at(0) }]);
      expect((await row()).state).toBe(1);
      // While online, a contact rewrites last_seen_at only once it is ten seconds old: no durable write per access answer.
      const seen = Number((await row()).last_seen_at);
      await markSeen(ctx.db, gate.id, at(0), seen + 5_000);
      expect(Number((await row()).last_seen_at)).toBe(seen);
      await markSeen(ctx.db, gate.id, at(0), seen + 11_000);
      expect(Number((await row()).last_seen_at)).toBe(seen + 11_000);
    });

    it('decides access by the rules of DESIGN.md §8, in order', async () => {
      // Black list in force (the seed's), in and out.
      expect(await access({ direction: 1, license_plate: BLACK_PLATE })).toMatchObject({ allow: false, list_type: 1, reason: expect.stringContaining('黑名单车辆') });
      expect(await access({ direction: 2, license_plate: BLACK_PLATE })).toMatchObject({ allow: true, reason: '出场放行' });
      // White list in force (the seed's 粤LH5C21).
      expect(await access({ direction: 1, license_plate: '粤LH5C21' })).toMatchObject({ allow: true, list_type: 2 });
      // Nothing known.
      expect(await access({ direction: 1, license_plate: '粤L99999' })).toMatchObject({ allow: false, reason: '无车辆预约记录，不能放行' });

      // An approved appointment, valid now: allowed; the same plate with a 禁止入园 mark: refused.
      const plate = `粤L${dialect === 'sqlite' ? 'S' : 'P'}${String(7000 + seq).slice(-4)}`;
      const approvedNow = async (p: string, vehicleType: string, window: [string, string]) => {
        const saved = await contact.post<{ id: number }>('/v2/carApplications/save', {
          ...carApplicationBody({ today, license_plate: p, applicant_idcard: idNumber(8000 + ++seq), vehicle_type_id: model[vehicleType]!, interviewee_depart_id: depart.CNOOC_SHELL! }),
          blind_video_photo: photo,
          register_record_photo: photo,
        });
        expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
        const id = saved.body.data.id;
        // The visit window is set on the stored row: the form only books from tomorrow on.
        await ctx.db.updateTable('car_application').set({ state: 2, visitor_begin_time: window[0], visitor_end_time: window[1] }).where('car_application_id', '=', id).execute();
        return (await ctx.db.selectFrom('car_application').select('application_number').where('car_application_id', '=', id).executeTakeFirstOrThrow()).application_number;
      };
      const number = await approvedNow(plate, '小型汽车', [`${today} 00:00:00`, `${addDays(today, 1)} 23:59:59`]);
      expect(await access({ direction: 1, license_plate: plate })).toEqual({ allow: true, reason: '预约已通过，放行', application_number: number, valid_until: `${addDays(today, 1)} 23:59:59` });
      const mark = await patrol.post<{ id: number }>('/label/vehicle/save', { license_plate: plate, color_id: 1, label_type_id: 2, alarm_id: 1, remark: '闯卡', photo: '' });
      expect(mark.body, JSON.stringify(mark.body)).toMatchObject({ success: true });
      expect(await access({ direction: 1, license_plate: plate })).toMatchObject({ allow: false, reason: '车辆已被标记为禁止入园：闯卡' });

      // Not yet begun, expired.
      const soon = `粤L${dialect === 'sqlite' ? 'S' : 'P'}${String(7100 + seq).slice(-4)}`;
      await approvedNow(soon, '小型汽车', [`${addDays(today, 2)} 00:00:00`, `${addDays(today, 3)} 23:59:59`]);
      expect((await access({ direction: 1, license_plate: soon })).reason).toBe(`未到预约来访时间（${addDays(today, 2)} 00:00:00 起），不能放行`);
      const past = `粤L${dialect === 'sqlite' ? 'S' : 'P'}${String(7200 + seq).slice(-4)}`;
      await approvedNow(past, '小型汽车', [`${addDays(today, -3)} 00:00:00`, `${addDays(today, -1)} 23:59:59`]);
      expect((await access({ direction: 1, license_plate: past })).reason).toBe(`预约已过期（${addDays(today, -1)} 23:59:59 止），不能放行`);

      // A need-record model: refused without a covering registration, allowed with one.
      const tanker = `粤L${dialect === 'sqlite' ? 'S' : 'P'}${String(7300 + seq).slice(-4)}`;
      await approvedNow(tanker, '混凝土搅拌车', [`${today} 00:00:00`, `${today} 23:59:59`]);
      expect((await access({ direction: 1, license_plate: tanker })).reason).toBe(`车辆（${tanker}）未备案或备案不在来访日期内，不能放行`);
      await registerPlate(ctx.db, tanker, today, addDays(today, 30));
      expect(await access({ direction: 1, license_plate: tanker })).toMatchObject({ allow: true });

      // A pass: a forged one is refused, something that is no pass at all too.
      expect(await access({ direction: 1, pass: 'PK1.eyJuIjoiQ0EifQ.AAAA' })).toMatchObject({ allow: false });
      expect(await access({ direction: 1, pass: 'hello' })).toMatchObject({ allow: false, reason: '通行码无效（不是园区通行码），不能放行' });
      // One subject exactly.
      const both = await device('/device/access', { direction: 1, license_plate: plate, idcard: idNumber(1) });
      expect(both.status).toBe(400);
      expect(both.body.msg).toContain('请提供车牌号、证件号码或通行码中的一项');
    });
  });
}
