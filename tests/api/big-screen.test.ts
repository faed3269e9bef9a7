import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alarmKindKeys, type DeviceAlarmCounts, type FeedItem, type GateTraffic, type MapTiles } from '../../domain/schemas/big-screen';
import { formatInZone } from '../../domain/time';
import { loadConfig } from '../../server/config';
import type { AppContext } from '../../server/core/context';
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
    });

    it('lists gate refusals and stranded alarms newest first, bounded by size, persons by surname only', async () => {
      // Seconds in the past: an event from the future waits for its moment before it raises anything.
      const t0 = ctx.now() - 10_000;
      const at = (s: number) => formatInZone(t0 + s * 1000, ctx.config.tz);
      await send('GATE-W-01', [{ type: 'vehicle', license_plate: '粤L00X01', direction: 1, open_result: 0, capture_time: at(1) }]);
      await send('GATE-W-P01', [{ type: 'person', idcard: idNumber(9101), person_name: '欧阳明', direction: 1, open_result: 0, capture_time: at(2) }]);
      // An opened crossing is no news for the feed.
      await send('GATE-W-01', [{ type: 'vehicle', license_plate: '粤L00X02', direction: 1, open_result: 1, capture_time: at(3) }]);
      // A guard lifts the barrier for the black-listed plate: the stranded alarm 黑名单入园 is raised at once.
      await send('GATE-W-01', [{ type: 'vehicle', license_plate: BLACK_PLATE, direction: 1, open_result: 1, capture_time: at(4) }]);

      const feed = await data<FeedItem[]>('/board/liveFeed?size=5');
      expect(feed.length).toBeLessThanOrEqual(5);
      const times = feed.map((f) => f.time);
      expect(times).toEqual([...times].sort().reverse());
      expect(new Set(feed.map((f) => f.key)).size).toBe(feed.length);
      const alarm = feed.find((f) => f.source === 'stranded' && f.subject === BLACK_PLATE);
      expect(alarm, JSON.stringify(feed)).toMatchObject({ kind: 'car', detail: '黑名单入园' });
      expect(feed).toContainEqual(expect.objectContaining({ source: 'denied', kind: 'car', subject: '粤L00X01', detail: '西门车辆道闸1', time: at(1) }));
      expect(feed).toContainEqual(expect.objectContaining({ source: 'denied', kind: 'person', subject: '欧**', detail: '西门人行闸机1', time: at(2) }));
      expect(feed.some((f) => f.subject === '粤L00X02')).toBe(false);
      expect(JSON.stringify(feed)).not.toContain(idNumber(9101));

      expect(await data<FeedItem[]>('/board/liveFeed?size=2')).toEqual(feed.slice(0, 2));
      expect((await data<FeedItem[]>('/board/liveFeed')).length).toBeGreaterThanOrEqual(feed.length);
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
      for (const size of ['0', '51', 'abc', '1.5']) {
        const r = await admin.get(`/board/liveFeed?size=${size}`);
        expect(r.status, size).toBe(400);
        expect(r.body.msg, size).toContain('条数');
      }
      for (const path of ['/board/deviceAlarmCounts', '/board/liveFeed', '/board/gateTraffic', '/board/mapTiles']) {
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
