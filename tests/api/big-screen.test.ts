import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppState } from '../../domain/appointments';
import { ListType } from '../../domain/registers';
import { alarmKindKeys, type DeviceAlarmCounts, type FeedItem, type GateTraffic, type MapTiles, type OpenAlarms } from '../../domain/schemas/big-screen';
import type { TodayOtherCounts } from '../../domain/schemas/board';
import { formatInZone } from '../../domain/time';
import { loadConfig } from '../../server/config';
import type { AppContext } from '../../server/core/context';
import { blackListedOn } from '../../server/modules/park-rules';
import { BLACK_PLATE } from '../../server/seed/seed-appointments';
import { idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/** The big screen's and the map board's calls (spec 002 §2; domain/schemas/big-screen.ts), driven through the device API, on each dialect. */
for (const dialect of await dialects()) {
  describe(`big screen and map board on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, lead: Client, norole: Client, anonymous: Client;
    const gates: Record<string, { id: number; key: string }> = {};
    let seq = 0;

    const now = () => formatInZone(ctx.now(), ctx.config.tz);
    const send = async (number: string, events: Record<string, unknown>[]) => {
      const r = await fetch(`${server.base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${number}:${gates[number]!.key}` },
        body: JSON.stringify({ events: events.map((e) => ({ event_id: `big-${dialect}-${++seq}`, capture_time: now(), ...e })) }),
      });
      const body = (await r.json()) as { data: { accepted: number; rejected: unknown[] } };
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(body.data.rejected).toEqual([]);
    };
    const data = async <T>(url: string, client = admin) => {
      const r = await client.get<T>(url);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      [admin, lead, norole] = await Promise.all(['admin', 'lead', 'norole'].map((a) => new Client(server).as(a)));
      anonymous = new Client(server);
      const seeded = await ctx.db.selectFrom('equipment').select(['id', 'number']).where('number', 'in', ['GATE-W-01', 'GATE-W-P01', 'TC-W-01']).execute();
      for (const g of seeded) {
        const kind = g.number === 'TC-W-01' ? 'tireCrushing' : 'gate';
        const r = await admin.post<{ key: string }>(`/equipment/${kind}/issueKey`, { id: g.id });
        expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true });
        gates[g.number] = { id: g.id, key: r.body.data.key };
      }
    });
    afterAll(async () => server?.close());

    it('counts today’s device alarms under the spec’s kind keys, 防撞柱 with the pillars, and their total', async () => {
      const before = await data<DeviceAlarmCounts>('/board/deviceAlarmCounts');
      expect(Object.keys(before).sort()).toEqual([...alarmKindKeys, 'total'].sort());
      await send('GATE-W-01', [
        { type: 'alarm', alarm_type: '防拆报警' },
        { type: 'alarm', alarm_type: '通信异常' },
      ]);
      await send('TC-W-01', [{ type: 'alarm', alarm_type: '破胎器故障' }]);
      // Yesterday's alarm is not today's.
      await send('TC-W-01', [{ type: 'alarm', alarm_type: '破胎器故障', capture_time: formatInZone(ctx.now() - 86_400_000, ctx.config.tz) }]);
      const after = await data<DeviceAlarmCounts>('/board/deviceAlarmCounts', lead);
      expect(after).toEqual({ ...before, gateEquipment: before.gateEquipment + 2, tireCrushing: before.tireCrushing + 1, total: before.total + 3 });
      expect(after.total).toBe(alarmKindKeys.reduce((n, k) => n + after[k], 0));
      // The dashboard's 设备告警 is the same figure.
      expect((await data<TodayOtherCounts>('/board/todayOtherCounts')).device_alarm_count).toBe(after.total);
      // Stranded alarms are not device alarms: a black-listed plate let in moves the open alarms, not this figure.
      const open = await data<OpenAlarms>('/board/openAlarms');
      await send('GATE-W-01', [{ type: 'vehicle', license_plate: BLACK_PLATE, direction: 1, open_result: 1 }]);
      expect((await data<OpenAlarms>('/board/openAlarms')).total).toBe(open.total + 1);
      expect(await data<DeviceAlarmCounts>('/board/deviceAlarmCounts')).toEqual(after);
    });

    it('lists gate refusals only, newest first, bounded by size, persons by surname only', async () => {
      // Seconds in the past: an event from the future waits for its moment before it raises anything.
      const t0 = ctx.now() - 10_000;
      const at = (s: number) => formatInZone(t0 + s * 1000, ctx.config.tz);
      await send('GATE-W-01', [{ type: 'vehicle', license_plate: '粤L00X01', direction: 1, open_result: 0, capture_time: at(1) }]);
      await send('GATE-W-P01', [{ type: 'person', idcard: idNumber(9101), person_name: '欧阳明', direction: 1, open_result: 0, capture_time: at(2) }]);
      // An opened crossing is no news for the feed.
      await send('GATE-W-01', [{ type: 'vehicle', license_plate: '粤L00X02', direction: 1, open_result: 1, capture_time: at(3) }]);
      // A guard lifts the barrier for the black-listed plate: its alarm goes to the open alarms, not the feed.
      await send('GATE-W-01', [{ type: 'vehicle', license_plate: BLACK_PLATE, direction: 1, open_result: 1, capture_time: at(4) }]);

      const feed = await data<FeedItem[]>('/board/liveFeed?size=5');
      expect(feed.length).toBeLessThanOrEqual(5);
      const times = feed.map((f) => f.time);
      expect(times).toEqual([...times].sort().reverse());
      expect(new Set(feed.map((f) => f.key)).size).toBe(feed.length);
      expect(feed[0]).toEqual(expect.objectContaining({ kind: 'person', subject: '欧**', detail: '西门人行闸机1', time: at(2) }));
      expect(feed[1]).toEqual(expect.objectContaining({ kind: 'car', subject: '粤L00X01', detail: '西门车辆道闸1', time: at(1) }));
      expect(feed.some((f) => f.subject === '粤L00X02' || f.subject === BLACK_PLATE)).toBe(false);
      expect(JSON.stringify(feed)).not.toContain(idNumber(9101));

      expect(await data<FeedItem[]>('/board/liveFeed?size=2')).toEqual(feed.slice(0, 2));
      expect((await data<FeedItem[]>('/board/liveFeed')).length).toBeGreaterThanOrEqual(feed.length);
    });

    it('keeps every open alarm counted and each kind’s newest listed until handled, however many refusals follow', async () => {
      const today = now().slice(0, 10);
      // A black-listed person of the seeded list, let in by a guard: a person alarm, raised at once.
      const listed = await ctx.db
        .selectFrom('person_black_white_list')
        .select(['idcard', 'name'])
        .where('type', '=', ListType.BLACK)
        .where('status', '=', AppState.APPROVED)
        .where('deleted', '=', 0)
        .execute();
      const person = (await Promise.all(listed.map(async (p) => ((await blackListedOn(ctx.db, 'person', p.idcard, today)) ? p : null)))).find((p) => p !== null);
      expect(person, 'the demo seed black-lists a person').toBeTruthy();
      const before = await data<OpenAlarms>('/board/openAlarms');
      expect(before.kinds.map((k) => k.kind)).toEqual(['car', 'person']);
      await send('GATE-W-01', [{ type: 'vehicle', license_plate: BLACK_PLATE, direction: 1, open_result: 1 }]);
      await send('GATE-W-P01', [{ type: 'person', idcard: person!.idcard, person_name: person!.name, direction: 1, open_result: 1 }]);
      // Thirty routine refusals after it.
      await send(
        'GATE-W-01',
        Array.from({ length: 30 }, (_, i) => ({ type: 'vehicle', license_plate: `粤L0R${String(i).padStart(3, '0')}`, direction: 1, open_result: 0 })),
      );

      const open = await data<OpenAlarms>('/board/openAlarms', lead);
      const kind = (answer: OpenAlarms, k: 'car' | 'person') => answer.kinds.find((x) => x.kind === k)!;
      expect(open.total).toBe(before.total + 2);
      expect(kind(open, 'car').total).toBe(kind(before, 'car').total + 1);
      expect(kind(open, 'person').total).toBe(kind(before, 'person').total + 1);
      const car = kind(open, 'car').list[0]!;
      expect(car).toMatchObject({ kind: 'car', subject: BLACK_PLATE, level_type: 3 });
      const walker = kind(open, 'person').list[0]!;
      expect(walker).toMatchObject({ kind: 'person', level_type: 3, subject: `${[...person!.name][0]}${'*'.repeat([...person!.name].length - 1)}` });
      expect(JSON.stringify(open)).not.toContain(person!.idcard);
      // Newest first within each kind, and the counts are the table's open rows.
      for (const k of open.kinds) {
        expect(k.list.map((a) => a.id)).toEqual(k.list.map((a) => a.id).sort((a, b) => b - a));
        const rows = await ctx.db.selectFrom('stranded_alarm').select('id').where('kind', '=', k.kind).where('handle_time', 'is', null).execute();
        expect(k.total).toBe(rows.length);
      }
      // The refusals took the feed over; the alarms are still there.
      const feed = await data<FeedItem[]>('/board/liveFeed?size=9');
      expect(feed.every((f) => f.subject.startsWith('粤L0R'))).toBe(true);

      // Bounded per kind, the counts whole.
      const one = await data<OpenAlarms>('/board/openAlarms?size=1');
      expect(one.total).toBe(open.total);
      for (const k of one.kinds) expect(k.list).toEqual(kind(open, k.kind).list.slice(0, 1));

      // Handled, an alarm leaves the panel and the count; the other stays.
      const dealt = await lead.post('/car/stranded/alarmDeal', { id: car.id, false_alarm: 0, handled_remark: '判断准确！' });
      expect(dealt.body, JSON.stringify(dealt.body)).toMatchObject({ success: true });
      const after = await data<OpenAlarms>('/board/openAlarms');
      expect(after.total).toBe(open.total - 1);
      expect(kind(after, 'car').list.some((a) => a.id === car.id)).toBe(false);
      expect(kind(after, 'person').list[0]).toEqual(walker);
    });

    it('answers every live gate with its place and today’s opened crossings by kind and direction from the rollup', async () => {
      const before = await data<GateTraffic[]>('/board/gateTraffic');
      const live = await ctx.db.selectFrom('equipment').select(['id', 'name']).where('kind', '=', 'gate').where('deleted', '=', 0).orderBy('id').execute();
      expect(before.map((g) => g.id)).toEqual(live.map((g) => g.id));
      const west = () => before.find((g) => g.id === gates['GATE-W-01']!.id)!;
      expect(west()).toMatchObject({ name: '西门车辆道闸1', latitude: 22.7391, longitude: 114.5083, entrances_type: 1 });

      await send('GATE-W-01', [
        { type: 'vehicle', license_plate: '粤L00Y01', direction: 1, open_result: 1 },
        { type: 'vehicle', license_plate: '粤L00Y02', direction: 1, open_result: 1 },
        { type: 'vehicle', license_plate: '粤L00Y01', direction: 2, open_result: 1 },
        // Refused: not a crossing.
        { type: 'vehicle', license_plate: '粤L00Y03', direction: 1, open_result: 0 },
        // Yesterday's: not today's.
        { type: 'vehicle', license_plate: '粤L00Y04', direction: 1, open_result: 1, capture_time: formatInZone(ctx.now() - 86_400_000, ctx.config.tz) },
      ]);
      await send('GATE-W-P01', [{ type: 'person', idcard: idNumber(9102), person_name: '钱多', direction: 2, open_result: 1 }]);

      const after = await data<GateTraffic[]>('/board/gateTraffic', lead);
      const westAfter = after.find((g) => g.id === gates['GATE-W-01']!.id)!;
      expect(westAfter).toEqual({ ...west(), carIn: west().carIn + 2, carOut: west().carOut + 1 });
      const personGate = (list: GateTraffic[]) => list.find((g) => g.id === gates['GATE-W-P01']!.id)!;
      expect(personGate(after)).toEqual({ ...personGate(before), personOut: personGate(before).personOut + 1 });
      // Against the base tables: today's opened crossings of that gate.
      const today = `${now().slice(0, 10)} 00:00:00`;
      const rows = await ctx.db
        .selectFrom('gate_record_car')
        .select(['direction'])
        .where('device_id', '=', gates['GATE-W-01']!.id)
        .where('open_result', '=', 1)
        .where('capture_time', '>=', today)
        .execute();
      expect(westAfter.carIn).toBe(rows.filter((r) => r.direction === 1).length);
      expect(westAfter.carOut).toBe(rows.filter((r) => r.direction === 2).length);
    });

    it('answers the tile settings, null when MAP_TILE_URL is unset', async () => {
      expect(await data<MapTiles>('/board/mapTiles')).toBeNull();
      ctx.config.mapTiles = { url: 'https://tiles.example/{z}/{x}/{y}.png', crs: 'wgs84' };
      try {
        expect(await data<MapTiles>('/board/mapTiles')).toEqual({ url: 'https://tiles.example/{z}/{x}/{y}.png', crs: 'wgs84' });
      } finally {
        ctx.config.mapTiles = null;
      }
    });

    it('refuses a bad size with 400 naming the field, no session with 401 and no role with 403', async () => {
      for (const [path, bad] of [
        ['/board/liveFeed', ['0', '51', 'abc', '1.5']],
        ['/board/openAlarms', ['0', '21', 'abc', '1.5']],
      ] as const) {
        for (const size of bad) {
          const r = await admin.get(`${path}?size=${size}`);
          expect(r.status, `${path} ${size}`).toBe(400);
          expect(r.body.msg, `${path} ${size}`).toContain('条数');
        }
      }
      for (const path of ['/board/deviceAlarmCounts', '/board/openAlarms', '/board/liveFeed', '/board/gateTraffic', '/board/mapTiles']) {
        expect((await anonymous.get(path)).status, path).toBe(401);
        expect((await norole.get(path)).status, path).toBe(403);
      }
    });
  });
}

describe('map tiles from MAP_TILE_URL and MAP_TILE_CRS', () => {
  let server: TestServer;
  const url = 'https://{s}.tiles.example.com/{z}/{x}/{y}.png';
  beforeAll(async () => {
    server = await startServer('sqlite', { mapTiles: loadConfig({ MAP_TILE_URL: url, MAP_TILE_CRS: 'WGS84' }).mapTiles });
  });
  afterAll(async () => server?.close());

  it('answers the template and its system, and lets the page load the provider’s images', async () => {
    const lead = await new Client(server).as('lead');
    const r = await lead.get<MapTiles>('/board/mapTiles');
    expect(r.body.data).toEqual({ url, crs: 'wgs84' });
    const csp = (await fetch(`${server.base}/api/system/version`)).headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/img-src 'self' data: blob: https:\/\/\*\.tiles\.example\.com(;|$)/);
  });

  it('refuses a setting it cannot use at start, and defaults the system to gcj02', () => {
    expect(loadConfig({}).mapTiles).toBeNull();
    expect(loadConfig({ MAP_TILE_URL: 'https://t.example/{z}/{x}/{y}.png' }).mapTiles).toEqual({ url: 'https://t.example/{z}/{x}/{y}.png', crs: 'gcj02' });
    expect(() => loadConfig({ MAP_TILE_URL: 'https://t.example/{z}/{x}/{y}.png', MAP_TILE_CRS: 'bd09' })).toThrow(/MAP_TILE_CRS/);
    expect(() => loadConfig({ MAP_TILE_URL: 'ftp://t.example/{z}/{x}/{y}.png' })).toThrow(/MAP_TILE_URL/);
    expect(() => loadConfig({ MAP_TILE_URL: 'https://t.example/tiles.png' })).toThrow(/MAP_TILE_URL/);
  });
});
