import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { BLACK_PLATE } from '../../server/seed/seed-appointments';
import { DEMO_GATES, HISTORY_DAYS, seedGateHistory } from '../../server/seed/seed-gate-history';
import { runSimulation, type SimulationReport } from '../../scripts/simulate';
import { DEMO_PASSWORD, dialects, startServer, type TestServer } from './harness';

/**
 * The demo's gate history (server/seed/seed-gate-history.ts, fed through the
 * devices' ingestion) and one round of the gate simulator (scripts/simulate.ts)
 * against a running server over HTTP, on each dialect.
 */
for (const dialect of await dialects()) {
  describe(`gate history and simulator on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let today = '';
    const gate: Record<string, number> = {};

    const count = async (table: 'gate_record_car' | 'gate_record_person' | 'device_alarm' | 'device_event', deviceId?: number, type?: string) => {
      let q = ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
      if (deviceId !== undefined) q = q.where('device_id', '=', deviceId);
      if (type) q = q.where('type' as never, '=', type as never);
      return Number((await q.executeTakeFirstOrThrow()).n);
    };
    const days = async (table: 'gate_record_car' | 'gate_record_person') => {
      const rows = await ctx.db.selectFrom(table).select('capture_time').execute();
      return new Set(rows.map((r) => dateOf(r.capture_time)));
    };
    const gates = () => ctx.db.selectFrom('equipment').select(['number', 'state', 'state_update_time', 'last_seen_at']).where('kind', '=', 'gate').execute();

    beforeAll(async () => {
      server = await startServer(dialect, { seedGateHistory: true });
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      for (const g of await ctx.db.selectFrom('equipment').select(['id', 'number']).where('kind', '=', 'gate').execute()) gate[g.number] = g.id;
    });
    afterAll(async () => server?.close());

    it('seeds about ninety days of crossings at the demo gates, each one in the device ledger', async () => {
      const cars = await count('gate_record_car');
      const persons = await count('gate_record_person');
      // About 15 to 40 vehicle and person crossings a day, weekends quieter.
      expect(cars).toBeGreaterThan(HISTORY_DAYS * 15);
      expect(cars).toBeLessThan(HISTORY_DAYS * 40);
      expect(persons).toBeGreaterThan(HISTORY_DAYS * 12);
      expect(persons).toBeLessThan(HISTORY_DAYS * 40);
      for (const table of ['gate_record_car', 'gate_record_person'] as const) {
        const seen = await days(table);
        expect(seen.size, table).toBeGreaterThanOrEqual(HISTORY_DAYS - 2);
        expect([...seen].sort()[0]! >= addDays(today, -HISTORY_DAYS), table).toBe(true);
      }
      // In and out, mostly in pairs, and some turned away.
      const car = await ctx.db.selectFrom('gate_record_car').select(['direction', 'open_result']).execute();
      const ins = car.filter((c) => c.direction === 1 && c.open_result === 1).length;
      const outs = car.filter((c) => c.direction === 2).length;
      expect(Math.abs(ins - outs)).toBeLessThan(40);
      expect(car.filter((c) => c.open_result === 0).length).toBeGreaterThan(10);
      expect(await ctx.db.selectFrom('gate_record_car').select('id').where('license_plate', '=', BLACK_PLATE).where('open_result', '=', 1).execute()).toHaveLength(0);
      expect(await count('device_alarm')).toBeGreaterThanOrEqual(3);

      // The ledger: every record is one stored event of its device, and nothing else was stored.
      for (const [number, id] of Object.entries(gate)) {
        expect(await count('device_event', id, 'vehicle'), number).toBe(await count('gate_record_car', id));
        expect(await count('device_event', id, 'person'), number).toBe(await count('gate_record_person', id));
        expect(await count('device_event', id, 'alarm'), number).toBe(await count('device_alarm', id));
      }
      const orphans = await ctx.db
        .selectFrom('gate_record_car as g')
        .leftJoin('device_event as e', (j) => j.onRef('e.device_id', '=', 'g.device_id').onRef('e.event_id', '=', 'g.event_id'))
        .select('g.id')
        .where('e.event_id', 'is', null)
        .execute();
      expect(orphans).toHaveLength(0);

      // The gates that spoke lately are online; the east gate fell silent yesterday and is offline since.
      const states = new Map((await gates()).map((g) => [g.number, g]));
      for (const n of [DEMO_GATES.west, DEMO_GATES.westPersons, DEMO_GATES.north]) expect(states.get(n)!.state, n).toBe(1);
      const east = states.get(DEMO_GATES.east)!;
      expect(east.state).toBe(0);
      expect(east.state_update_time! < ctx.time()).toBe(true);
      expect(east.state_update_time! > formatInZone(ctx.now() - 2 * 86_400_000, ctx.config.tz)).toBe(true);
    });

    it('raises a past of stranded alarms through detection: overstays and black-listed entries, most handled, some open', async () => {
      const alarms = await ctx.db.selectFrom('stranded_alarm').selectAll().orderBy('id').execute();
      const now = ctx.time();
      const dayAgo = formatInZone(ctx.now() - 86_400_000, ctx.config.tz);
      // Both kinds, each for both reasons (overstay: 1 visit end, 2 dwell limit; 3 black-listed); a vehicle past its dwell limit too.
      for (const kind of ['car', 'person']) {
        const mine = alarms.filter((a) => a.kind === kind);
        expect(
          mine.some((a) => a.is_black === 1 && a.level_type === 3),
          kind,
        ).toBe(true);
        expect(
          mine.some((a) => a.is_black === 0 && a.level_type === 1),
          kind,
        ).toBe(true);
      }
      expect(alarms.some((a) => a.kind === 'car' && a.level_type === 2)).toBe(true);
      // Raised in the past, at the deadline the detection saw passed, while the subject was inside.
      expect(alarms.filter((a) => a.alarm_time < dayAgo).length).toBeGreaterThanOrEqual(10);
      expect(new Set(alarms.map((a) => a.alarm_time.slice(0, 7))).size).toBeGreaterThanOrEqual(3);
      for (const a of alarms) {
        expect(a.alarm_time >= a.entry_time && a.alarm_time < now, `alarm ${a.id}`).toBe(true);
        expect(a.exit_time! > a.alarm_time, `alarm ${a.id} left after it`).toBe(true);
      }
      // Handled by the lead as 误判 and as 判断准确, after the alarm; the latest still open.
      const lead = (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'lead').executeTakeFirstOrThrow()).user_id;
      const handled = alarms.filter((a) => a.handle_time);
      expect(handled.length).toBeGreaterThan(alarms.length / 2);
      for (const a of handled) expect([a.handle_user_id, a.handle_time! > a.alarm_time, a.handled_remark!.length > 0], `alarm ${a.id}`).toEqual([lead, true, true]);
      expect(new Set(handled.map((a) => a.false_alarm))).toEqual(new Set([0, 1]));
      expect(handled.some((a) => a.is_black === 1) && handled.some((a) => a.is_black === 0)).toBe(true);
      expect(alarms.filter((a) => !a.handle_time).length).toBeGreaterThanOrEqual(2);
      expect(alarms.at(-1)!.handle_time).toBeNull();
      // The past texted nobody and left no unread notification; what it says on the row tells why.
      for (const a of alarms.filter((x) => x.alarm_time < dayAgo)) expect([a.sms_send, a.sms_error_response], `alarm ${a.id}`).toEqual([0, expect.stringContaining('演示历史数据，未发送短信')]);
      const tags = alarms.filter((a) => a.alarm_time < dayAgo).map((a) => `stranded-${a.kind}-${a.id}`);
      const notes = await ctx.db.selectFrom('notification').select(['tag', 'read_at']).where('tag', 'in', tags).execute();
      expect(new Set(notes.map((n) => n.tag)).size).toBe(tags.length);
      expect(notes.filter((n) => !n.read_at)).toEqual([]);
      const outbox = path.join(server.dataDir, 'sms-outbox.jsonl');
      const texts = fs.existsSync(outbox) ? fs.readFileSync(outbox, 'utf8') : '';
      for (const a of alarms.filter((x) => x.alarm_time < dayAgo)) expect(texts, `alarm ${a.id}`).not.toContain(`告警时间 ${a.alarm_time}`);
    });

    it('adds nothing when it runs again', async () => {
      const alarms = async () =>
        Number(
          (
            await ctx.db
              .selectFrom('stranded_alarm')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = [await count('gate_record_car'), await count('gate_record_person'), await count('device_event'), await count('device_alarm'), await alarms()];
      await seedGateHistory(ctx);
      expect([await count('gate_record_car'), await count('gate_record_person'), await count('device_event'), await count('device_alarm'), await alarms()]).toEqual(before);
    });

    let report: SimulationReport;
    let startedAt = '';
    const lines: string[] = [];

    it('plays one round of the gates over HTTP: keys, decisions, crossings, heartbeats, an image', async () => {
      startedAt = formatInZone(ctx.now() - 1000, ctx.config.tz);
      report = await runSimulation({ base: server.base, once: true, dataDir: server.dataDir, password: DEMO_PASSWORD, log: (l) => lines.push(l), seed: 7 });
      expect(lines.join('\n')).toContain('已以 admin 登录');

      const recent = await ctx.db.selectFrom('gate_record_car').selectAll().where('capture_time', '>=', startedAt).execute();
      expect(recent.length).toBeGreaterThanOrEqual(3);
      // The white-listed truck of the demo lists was let in, with the plate image uploaded first.
      expect(recent.find((r) => r.license_plate === '粤LH5C21' && r.direction === 1)).toMatchObject({ open_result: 1 });
      expect(recent.some((r) => r.plate_image !== '')).toBe(true);
      // The black-listed plate and a plate nobody expects were refused.
      expect(recent.find((r) => r.license_plate === BLACK_PLATE)).toMatchObject({ direction: 1, open_result: 0 });
      expect(recent.filter((r) => r.open_result === 0).length).toBeGreaterThanOrEqual(2);
      // The day's visitors on foot were let in by their whole ID numbers (the lists answer them masked; the simulator reveals them).
      const persons = await ctx.db.selectFrom('gate_record_person').select(['idcard', 'direction', 'open_result']).where('capture_time', '>=', startedAt).execute();
      expect(persons.some((p) => p.direction === 1 && p.open_result === 1)).toBe(true);
      expect(persons.every((p) => !p.idcard.includes('*'))).toBe(true);
      // Each number it read whole is in the operation log with its reason.
      const reveals = await ctx.db.selectFrom('sys_operation_log').select('params').where('api', '=', '/api/pii/reveal').where('operate_time', '>=', startedAt).execute();
      expect(reveals.length).toBeGreaterThan(0);
      expect(reveals.every((r) => r.params.includes('道闸模拟器'))).toBe(true);

      // Every gate sent a heartbeat and is online, the east one again too.
      for (const g of await gates()) {
        expect(g.state, g.number).toBe(1);
        expect(Number(g.last_seen_at)).toBeGreaterThan(ctx.now() - 60_000);
      }
      const beats = await ctx.db.selectFrom('device_event').select('device_id').where('type', '=', 'heartbeat').where('capture_time', '>=', startedAt).execute();
      expect(new Set(beats.map((b) => b.device_id)).size).toBe(Object.keys(gate).length);
      expect(report).toMatchObject({ rounds: 1, rejected: 0, replays: 0 });
      expect(report.accepted).toBe(report.sent);
      expect(report.uploads).toBe(1);
    });

    it('runs on: the demo’s visits of today come and go, and a black-listed vehicle let in by hand alarms the security lead', async () => {
      const from = formatInZone(ctx.now() - 1000, ctx.config.tz);
      // At 60 times the speed the guard lifts the barrier after half a second; two seconds are several rounds.
      const run = await runSimulation({ base: server.base, speed: 60, minutes: 2 / 60, dataDir: server.dataDir, password: DEMO_PASSWORD, log: (l) => lines.push(l), seed: 11 });
      expect(run.manualOpenings).toBe(1);
      expect(run.rounds).toBeGreaterThan(3);
      const ins = await ctx.db.selectFrom('gate_record_car').select('license_plate').where('capture_time', '>=', from).where('direction', '=', 1).where('open_result', '=', 1).execute();
      // Beside the white-listed truck, the demo's approved visits of today (seed-appointments.ts) are admitted.
      const todays = ['粤LK7720', '粤LD5519', '粤LF3362'].filter((p) => ins.some((r) => r.license_plate === p));
      expect(todays.length).toBeGreaterThanOrEqual(2);
      const alarms = await ctx.db.selectFrom('stranded_alarm').selectAll().where('alarm_time', '>=', from).execute();
      expect(alarms).toHaveLength(1);
      const alarm = alarms[0]!;
      expect(alarm).toMatchObject({ kind: 'car', level_type: 3, is_black: 1 });
      expect(lines.some((l) => l.includes(`${alarm.license_plate} 判定拒绝`) && l.includes('手动抬杆放行'))).toBe(true);
      const lead = await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'lead').executeTakeFirstOrThrow();
      const note = await ctx.db.selectFrom('notification').select(['kind', 'url']).where('user_id', '=', lead.user_id).where('tag', '=', `stranded-car-${alarm.id}`).executeTakeFirst();
      expect(note).toMatchObject({ kind: 'stranded_alarm', url: `/security/stranded-car?open=${alarm.id}` });
    });

    it('keeps its buffer when a reply is lost and replays it: the server stores each event once', async () => {
      const stored = await count('device_event');
      let lost = 0;
      // The first batch reaches the server, but its answer never comes back.
      const flaky: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        if (String(input).endsWith('/api/device/events') && lost++ === 0) throw new TypeError('fetch failed: socket hang up');
        return res;
      };
      const again = await runSimulation({ base: server.base, once: true, dataDir: server.dataDir, password: DEMO_PASSWORD, log: () => {}, fetch: flaky, seed: 8 });
      expect(again.replays).toBe(1);
      expect(again.duplicates).toBeGreaterThanOrEqual(1);
      expect(again.rejected).toBe(0);
      // The lost batch was stored when first sent: its replay came back as duplicates.
      expect(await count('device_event')).toBe(stored + again.accepted + again.duplicates);
      for (const table of ['gate_record_car', 'gate_record_person'] as const) {
        const twice = await ctx.db
          .selectFrom(table)
          .select(['device_id', 'event_id'])
          .groupBy(['device_id', 'event_id'])
          .having((eb) => eb.fn.countAll(), '>', 1)
          .execute();
        expect(twice, table).toHaveLength(0);
      }
    });

    it('cut off from the server, the gates decide from their allow-lists and send what they queued once when it is back', async () => {
      const lines: string[] = [];
      const run = await runSimulation({
        base: server.base,
        speed: 60,
        minutes: 3 / 60,
        offlineAfter: 30,
        offlineFor: 60,
        dataDir: server.dataDir,
        password: DEMO_PASSWORD,
        log: (l) => lines.push(l),
        seed: 12,
      });
      expect(run.offlineDecisions).toBeGreaterThan(0);
      expect(run.queuedOffline).toBeGreaterThan(0);
      expect(lines.join('\n')).toContain('离线判定');
      // Every event the gates made was stored once: nothing lost while cut off, nothing stored twice, no crossing refused for a field.
      expect(run.rejected).toBe(0);
      expect(run.accepted).toBe(run.events);
      const gates = await ctx.db.selectFrom('equipment').select(['allowlist_version', 'allowlist_time']).where('kind', '=', 'gate').where('state', '=', 1).execute();
      expect(gates.some((g) => g.allowlist_version !== null && g.allowlist_time !== null)).toBe(true);
    });
  });
}
