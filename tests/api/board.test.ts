import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { equipmentKindList } from '../../domain/schemas/equipment';
import { formatInZone } from '../../domain/time';
import type { AppContext } from '../../server/core/context';
import type { DeviceCount } from '../../server/modules/board';
import { markSilentOffline } from '../../server/modules/devices/ingest';
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
