import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import type { DeviceIdentity } from '../../server/core/device-auth';
import { randomSource, type Random } from '../../server/seed/seed-gate-history';
import { BLACK_PLATE, clockAt } from '../../server/seed/seed-appointments';
import { ingestEvents } from '../../server/modules/devices/ingest';
import { raiseDueAlarms } from '../../server/modules/stranded/detection';
import { personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, any>;
type Ingest = { accepted: number; duplicates: number; rejected: Array<{ event_id: string; msg: string }> };

/**
 * Issue 23 items 4, 8, 10b and 10e: stays follow capture time whatever the
 * order gates deliver in, capture times must be real, recent and after the
 * device's registration, event ids must be well-formed text, and a gate
 * checks every document type an appointment accepts. On each dialect.
 */
for (const dialect of await dialects()) {
  describe(`gate event order and truth on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, contact: Client, patrol: Client;
    let today = '';
    let seq = 0;
    const keys: Record<string, string> = {};
    const gates: Record<string, DeviceIdentity> = {};
    const GATE_A = 'GATE-W-01',
      GATE_B = 'GATE-N-01',
      PERSONS = 'GATE-W-P01';

    const at = (minutesFromNow: number) => formatInZone(ctx.now() + minutesFromNow * 60_000, ctx.config.tz);
    const later = (minutes: number) => clockAt(ctx, ctx.now(), -minutes);
    async function send(gate: string, events: unknown[]): Promise<{ status: number; body: Row }> {
      const r = await fetch(`${server.base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gate}:${keys[gate]}` },
        body: JSON.stringify({ events }),
      });
      return { status: r.status, body: (await r.json()) as Row };
    }
    async function accepted(gate: string, events: unknown[]): Promise<Ingest> {
      const r = await send(gate, events);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data as Ingest;
    }
    const crossing = (plate: string, direction: 1 | 2, capture_time: string, open = 1): Row => ({
      event_id: `${dialect}-o-${++seq}`,
      type: 'vehicle',
      capture_time,
      license_plate: plate,
      direction,
      open_result: open,
    });
    const plateOf = () => `粤L${dialect === 'sqlite' ? 'U' : 'V'}${String(10000 + ++seq).slice(-4)}`;
    const staysOf = (plate: string) => ctx.db.selectFrom('presence').selectAll().where('kind', '=', 'car').where('subject', '=', plate).orderBy('entry_time').orderBy('id').execute();
    const alarmsOf = (plate: string) => ctx.db.selectFrom('stranded_alarm').selectAll().where('license_plate', '=', plate).orderBy('entry_time').execute();
    async function blackList(plate: string) {
      const now = ctx.time();
      await ctx.db
        .insertInto('car_black_white_list')
        .values({
          license_plate: plate,
          vehicle_type_id: null,
          type: 1,
          start_time: null,
          end_time: null,
          status: 2,
          in_reason: '测试',
          create_user_id: null,
          update_user_id: null,
          create_time: now,
          update_time: now,
        })
        .execute();
    }

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [admin, contact, patrol] = await Promise.all(['admin', 'contact', 'patrol'].map((a) => new Client(server).as(a)));
      for (const number of [GATE_A, GATE_B, PERSONS]) {
        const g = await ctx.db.selectFrom('equipment').select(['id', 'number', 'kind', 'name']).where('number', '=', number).executeTakeFirstOrThrow();
        gates[number] = g;
        keys[number] = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: g.id })).body.data.key;
      }
    });
    afterAll(async () => server?.close());

    it('leaves no open stay and no alarm when a black-listed plate’s exit arrives before its earlier entry from another gate', async () => {
      const plate = plateOf();
      await blackList(plate);
      const exit = crossing(plate, 2, at(-1));
      const entry = crossing(plate, 1, at(-6));
      expect(await accepted(GATE_A, [exit])).toMatchObject({ accepted: 1 });
      expect(await accepted(GATE_B, [entry])).toMatchObject({ accepted: 1 });
      expect(await raiseDueAlarms(later(1))).toBe(0);
      expect(await raiseDueAlarms(later(60))).toBe(0);
      const stays = await staysOf(plate);
      expect(stays).toHaveLength(1);
      expect(stays[0]).toMatchObject({ entry_time: entry.capture_time, entry_device_id: gates[GATE_B]!.id, exit_time: exit.capture_time, exit_device_id: gates[GATE_A]!.id, black: 1 });
      expect(await alarmsOf(plate)).toHaveLength(0);
    });

    it('records a late exit on the alarm already raised for the stay it ends, and opens nothing', async () => {
      const entry = crossing(BLACK_PLATE, 1, at(-20));
      await accepted(GATE_B, [entry]);
      expect(await alarmsOf(BLACK_PLATE)).toMatchObject([{ entry_time: entry.capture_time, exit_time: null }]);
      // The next visit's entry arrives first; the exit between them comes late from the other gate.
      const next = crossing(BLACK_PLATE, 1, at(-5));
      await accepted(GATE_B, [next]);
      const exit = crossing(BLACK_PLATE, 2, at(-15));
      await accepted(GATE_A, [exit]);
      const stays = await staysOf(BLACK_PLATE);
      expect(stays.map((s) => [s.entry_time, s.exit_time, s.exit_device_id])).toEqual([
        [entry.capture_time, exit.capture_time, gates[GATE_A]!.id],
        [next.capture_time, null, null],
      ]);
      const alarms = await alarmsOf(BLACK_PLATE);
      expect(alarms.map((a) => [a.entry_time, a.exit_time])).toEqual([
        [entry.capture_time, exit.capture_time],
        [next.capture_time, null],
      ]);
      await accepted(GATE_A, [crossing(BLACK_PLATE, 2, at(0))]);
    });

    it('refuses capture times that are no real calendar time, naming 抓拍时间', async () => {
      const plate = plateOf();
      const bad = ['2025-02-30 08:00:00', '2025-01-01 25:61:61', '0000-00-00 00:00:00', '2025-13-01 08:00:00', '2025-04-31 08:00:00', '2025-06-01 24:00:00'];
      const r = await accepted(
        GATE_A,
        bad.map((t) => crossing(plate, 1, t)),
      );
      expect(r.accepted).toBe(0);
      expect(r.rejected).toHaveLength(bad.length);
      for (const x of r.rejected) expect(x.msg).toBe('抓拍时间不是真实的日期时间（月份 01-12、当月的日期、时 00-23、分秒 00-59）');
      expect(await staysOf(plate)).toHaveLength(0);
      // A leap day is a real day.
      expect((await accepted(GATE_A, [crossing(plate, 2, at(-1).replace(/^\d{4}-\d{2}-\d{2}/, '2024-02-29'))])).rejected[0]!.msg).toContain('天前');
    });

    it('refuses a 1970 entry, which leaves the live stay open, and any capture older than 30 days', async () => {
      const plate = plateOf();
      const entry = crossing(plate, 1, at(-10));
      await accepted(GATE_A, [entry]);
      const old = await accepted(GATE_B, [crossing(plate, 1, '1970-01-01 08:00:00'), crossing(plate, 2, at(-31 * 24 * 60))]);
      expect(old.accepted).toBe(0);
      expect(old.rejected.map((x) => x.msg)).toEqual(['抓拍时间早于30天前，不再接收，请检查设备时钟', '抓拍时间早于30天前，不再接收，请检查设备时钟']);
      expect(await staysOf(plate)).toMatchObject([{ entry_time: entry.capture_time, exit_time: null }]);
      expect(await ctx.db.selectFrom('gate_record_car').select('id').where('license_plate', '=', plate).execute()).toHaveLength(1);
      // A gate that was offline for 29 days still delivers its buffer.
      expect(await accepted(GATE_B, [crossing(plateOf(), 1, at(-29 * 24 * 60))])).toMatchObject({ accepted: 1, rejected: [] });
    });

    it('refuses a capture before the device was registered, beyond the clock slack', async () => {
      const plate = plateOf();
      const registered = at(-60);
      await ctx.db.updateTable('equipment').set({ create_time: registered }).where('id', '=', gates[GATE_B]!.id).execute();
      try {
        const r = await accepted(GATE_B, [crossing(plate, 1, at(-71)), crossing(plate, 1, at(-65))]);
        expect(r.accepted).toBe(1);
        expect(r.rejected.map((x) => x.msg)).toEqual([`抓拍时间早于设备登记时间（${registered}），请检查设备时钟`]);
      } finally {
        await ctx.db
          .updateTable('equipment')
          .set({ create_time: at(-100 * 24 * 60) })
          .where('id', '=', gates[GATE_B]!.id)
          .execute();
      }
    });

    it('rejects an event id holding a lone surrogate instead of counting it a duplicate', async () => {
      const plate = plateOf();
      const good = { ...crossing(plate, 1, at(-3)), event_id: `${dialect}-ok-😀-${++seq}` };
      const lone = [
        { ...crossing(plate, 2, at(-2)), event_id: `${dialect}-x-${seq}\uD800` },
        { ...crossing(plate, 2, at(-1)), event_id: `${dialect}-x-${seq}\uDC00` },
      ];
      const r = await accepted(GATE_A, [good, ...lone]);
      expect(r).toMatchObject({ accepted: 1, duplicates: 0 });
      expect(r.rejected.map((x) => [x.event_id, x.msg])).toEqual(lone.map((e) => [e.event_id, '事件ID含有无效字符（不成对的 UTF-16 代理项）']));
      expect(await staysOf(plate)).toMatchObject([{ exit_time: null }]);
      // The well-formed id is stored as sent, so its replay is a duplicate.
      expect(await accepted(GATE_A, [good])).toMatchObject({ accepted: 0, duplicates: 1 });
    });

    it('checks a passport holder at the gate and takes the holder’s crossings', async () => {
      const passport = `E${dialect === 'sqlite' ? 1 : 2}${String(1000000 + ++seq)}`;
      const depart = (await ctx.db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      const saved = await contact.post<{ id: number }>('/personApplications/save', {
        ...personApplicationBody({ today, visitor_idcard: passport, interviewee_depart_id: depart }),
        visitor_idcard_type: 6,
      });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      await ctx.db
        .updateTable('person_application')
        .set({ state: 2, visit_begin_time: `${today} 00:00:00`, visit_end_time: `${addDays(today, 1)} 23:59:59` })
        .where('person_application_id', '=', saved.body.data.id)
        .execute();
      const number = (await ctx.db.selectFrom('person_application').select('application_number').where('person_application_id', '=', saved.body.data.id).executeTakeFirstOrThrow()).application_number;

      const r = await fetch(`${server.base}/api/device/access`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${PERSONS}:${keys[PERSONS]}` },
        body: JSON.stringify({ direction: 1, idcard: passport.toLowerCase() }),
      });
      const body = (await r.json()) as Row;
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(body.data).toMatchObject({ allow: true, application_number: number });
      // The patrol's lookup finds the holder too.
      const found = await patrol.get<Row>(`/pass/lookup?${new URLSearchParams({ idcard: passport })}`);
      expect(found.body.data.application, JSON.stringify(found.body)).toMatchObject({ kind: 'person', application_number: number });

      const e = { event_id: `${dialect}-p-${++seq}`, type: 'person', capture_time: at(-1), idcard: passport, person_name: '测试访客', direction: 1, open_result: 1 };
      expect(await accepted(PERSONS, [e])).toMatchObject({ accepted: 1, rejected: [] });
      expect(await ctx.db.selectFrom('presence').select(['application_id', 'exit_time']).where('kind', '=', 'person').where('subject', '=', passport).execute()).toEqual([
        { application_id: saved.body.data.id, exit_time: null },
      ]);
      // Still a format: something no document can be is refused with the field named.
      const bad = await accepted(PERSONS, [{ ...e, event_id: `${dialect}-p-${++seq}`, idcard: 'E-1' }]);
      expect(bad.rejected[0]!.msg).toBe('证件号码格式不正确（身份证号，或其他证件的 5-30 位字母数字）');
    });

    it('places crossings of one subject delivered by two gates at the same moment as if one after the other', async () => {
      for (let round = 0; round < 30; round++) {
        const plate = plateOf();
        const entry = crossing(plate, 1, at(-30));
        await accepted(GATE_A, [entry]);
        // Gate A sends the exit live while gate B replays an entry between the two that it had buffered (a missed exit before it).
        const exit = crossing(plate, 2, at(-10));
        const between = crossing(plate, 1, at(-20));
        await Promise.all([accepted(GATE_A, [exit]), accepted(GATE_B, [between])]);
        const stays = await staysOf(plate);
        expect(
          stays.map((x) => [x.entry_time, x.exit_time, x.exit_device_id]),
          `round ${round}`,
        ).toEqual([
          [entry.capture_time, between.capture_time, null],
          [between.capture_time, exit.capture_time, gates[GATE_A]!.id],
        ]);
      }
    });

    /**
     * The property: any arrival order of one subject's crossings, from several
     * gates and in batches of any size, leaves the stays that delivery in
     * capture order leaves, and those are the stays of the rule itself (an
     * entry opens a stay the next crossing ends). Alarms left open match too,
     * and an alarm's exit is always its stay's.
     */
    it('gives the same stays and open alarms for any arrival order as for delivery in capture order', async () => {
      const r: Random = randomSource(dialect === 'sqlite' ? 23_04 : 23_14);
      const devices = [gates[GATE_A]!, gates[GATE_B]!];
      const ingest = async (device: DeviceIdentity, events: Row[]) => {
        const res = await ingestEvents(ctx, device, events);
        expect(res, JSON.stringify(res)).toMatchObject({ accepted: events.length, rejected: [] });
      };
      const summary = async (plate: string) => {
        const stays = await staysOf(plate);
        const alarms = await alarmsOf(plate);
        for (const a of alarms) expect(a.exit_time, plate).toBe(stays.find((s) => s.id === a.presence_id)!.exit_time);
        return {
          stays: stays.map((s) => [s.entry_time, s.entry_device_id, s.exit_time, s.exit_device_id]),
          openAlarms: alarms.filter((a) => a.exit_time === null).map((a) => a.entry_time),
        };
      };
      const TRIALS = 30;
      for (let trial = 0; trial < TRIALS; trial++) {
        const black = trial % 2 === 0;
        const n = 2 + Math.floor(r() * 7);
        let t = ctx.now() - 600 * 60_000;
        const plan = Array.from({ length: n }, () => {
          t += (1 + Math.floor(r() * 40)) * 60_000;
          return { at: formatInZone(t, ctx.config.tz), direction: (r() < 0.5 ? 1 : 2) as 1 | 2, open: r() < 0.9 ? 1 : 0, device: devices[Math.floor(r() * devices.length)]! };
        });
        // The same crossings of two plates: one delivered in capture order, the other in a random order.
        const [inOrder, shuffled] = [plateOf(), plateOf()];
        if (black) for (const p of [inOrder, shuffled]) await blackList(p);
        const eventsOf = (plate: string) => plan.map((c, i) => ({ device: c.device, body: { ...crossing(plate, c.direction, c.at, c.open), event_id: `${plate}-${i}` } as Row }));
        for (const e of eventsOf(inOrder)) await ingest(e.device, [e.body]);
        const order = eventsOf(shuffled);
        for (let i = order.length - 1; i > 0; i--) {
          const j = Math.floor(r() * (i + 1));
          [order[i], order[j]] = [order[j]!, order[i]!];
        }
        // Deliveries of one to three events at a time, each gate's part as its own call.
        for (let i = 0; i < order.length;) {
          const take = order.slice(i, i + 1 + Math.floor(r() * 3));
          i += take.length;
          for (const d of devices) {
            const part = take.filter((e) => e.device === d).map((e) => e.body);
            if (part.length) await ingest(d, part);
          }
        }
        await raiseDueAlarms(ctx);

        const expected: Array<[string, number, string | null, number | null]> = [];
        for (const c of plan.filter((x) => x.open === 1)) {
          const open = expected.at(-1);
          if (open && open[2] === null) [open[2], open[3]] = [c.at, c.direction === 2 ? c.device.id : null];
          if (c.direction === 1) expected.push([c.at, c.device.id, null, null]);
        }
        const want = await summary(inOrder);
        const label = JSON.stringify({ trial, plan: plan.map((c) => [c.at.slice(11), c.direction, c.open, c.device.number]), order: order.map((e) => e.body.capture_time.slice(11)) });
        expect(want.stays, label).toEqual(expected);
        expect(want.openAlarms, label).toEqual(black && expected.at(-1)?.[2] === null ? [expected.at(-1)![0]] : []);
        expect(await summary(shuffled), label).toEqual(want);
      }
      // Thirty trials of up to eight crossings, each delivered twice through the ingestion: seconds alone, far longer on a loaded machine.
    }, 180_000);
  });
}
