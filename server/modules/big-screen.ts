import type { FastifyInstance } from 'fastify';
import { alarmKeyOfKind, alarmKindKeys, bigScreenApi, FEED_DAYS, type DeviceAlarmCounts, type FeedItem, type GateTraffic, type OpenAlarms } from '../../domain/schemas/big-screen';
import type { EquipmentKind } from '../../domain/schemas/equipment';
import { STRANDED_KINDS, type StrandedKind } from '../../domain/stranded-kinds';
import { addMinutes } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import { ok } from '../core/errors';
import type { Db } from '../core/repository';
import { route } from '../core/route';

/** A person on a wall display: the surname, the rest hidden. */
const maskName = (name: string) => (name ? `${[...name][0]}${'*'.repeat(Math.max(1, [...name].length - 1))}` : '访客');

/**
 * A park day's device alarms (device_alarm rows captured that day, spec 002
 * §2 "Device-alarm panel") under the spec's kind keys, and their total: the
 * big screen's panel and the dashboard's 设备告警 (board.ts) both read this.
 */
export async function deviceAlarmCountsOn(db: Db, day: string): Promise<DeviceAlarmCounts> {
  const rows = await db
    .selectFrom('device_alarm as a')
    .innerJoin('equipment as e', 'e.id', 'a.device_id')
    .select((eb) => ['e.kind', eb.fn.countAll().as('n')])
    .where('a.capture_time', '>=', day)
    .where('a.capture_time', '<', addDays(day, 1))
    .groupBy('e.kind')
    .execute();
  const counts = Object.fromEntries([...alarmKindKeys.map((k) => [k, 0]), ['total', 0]]) as DeviceAlarmCounts;
  for (const r of rows) {
    const key = alarmKeyOfKind[r.kind as EquipmentKind];
    // PostgreSQL answers count as a bigint string.
    const n = Number(r.n);
    if (key) counts[key] += n;
    counts.total += n;
  }
  return counts;
}

/**
 * 大屏 and 地图看板 (spec 002 §2; calls in domain/schemas/big-screen.ts).
 * Every query is bounded by today, by the feed's window and size, or by what
 * is open, and walks an index (device_alarm_time, the gate records' *_time,
 * stranded_alarm_open holding only unhandled alarms, stat_crossing_day's key
 * by day).
 */
export async function bigScreenRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;

  route(app, bigScreenApi.deviceAlarmCounts, async () => ok(await deviceAlarmCountsOn(db, dateOf(ctx.time()))));

  // Open until handled (handle_time set), whatever the level: a level added later is counted and listed unchanged.
  route(app, bigScreenApi.openAlarms, async (req) => {
    const { size } = req.query as { size: number };
    const open = () => db.selectFrom('stranded_alarm').where('handle_time', 'is', null);
    const newest = (kind: StrandedKind) =>
      open().select(['id', 'kind', 'license_plate', 'person_name', 'level_type', 'alarm_time']).where('kind', '=', kind).orderBy('id', 'desc').limit(size).execute();
    const [counts, ...lists] = await Promise.all([
      open()
        .select((eb) => ['kind', eb.fn.countAll().as('n')])
        .groupBy('kind')
        .execute(),
      ...STRANDED_KINDS.map(newest),
    ]);
    const answer: OpenAlarms = {
      total: counts.reduce((n, c) => n + Number(c.n), 0),
      kinds: STRANDED_KINDS.map((kind, i) => ({
        kind,
        total: Number(counts.find((c) => c.kind === kind)?.n ?? 0),
        list: lists[i]!.map((a) => ({ id: a.id, kind, subject: kind === 'person' ? maskName(a.person_name) : a.license_plate, level_type: a.level_type, alarm_time: a.alarm_time })),
      })),
    };
    return ok(answer);
  });

  // Refusals only: alarms are pinned in openAlarms until handled, so a run of refusals cannot push one off the screen.
  route(app, bigScreenApi.liveFeed, async (req) => {
    const { size } = req.query as { size: number };
    const since = addMinutes(ctx.time(), -FEED_DAYS * 24 * 60);
    const deniedCars = db
      .selectFrom('gate_record_car as r')
      .innerJoin('equipment as e', 'e.id', 'r.device_id')
      .select(['r.id', 'r.license_plate', 'r.capture_time', 'e.name'])
      .where('r.capture_time', '>=', since)
      .where('r.open_result', '=', 0)
      .orderBy('r.capture_time', 'desc')
      .orderBy('r.id', 'desc')
      .limit(size)
      .execute();
    const deniedPersons = db
      .selectFrom('gate_record_person as r')
      .innerJoin('equipment as e', 'e.id', 'r.device_id')
      .select(['r.id', 'r.person_name', 'r.capture_time', 'e.name'])
      .where('r.capture_time', '>=', since)
      .where('r.open_result', '=', 0)
      .orderBy('r.capture_time', 'desc')
      .orderBy('r.id', 'desc')
      .limit(size)
      .execute();
    const [cars, persons] = await Promise.all([deniedCars, deniedPersons]);
    const items: FeedItem[] = [
      ...cars.map((r): FeedItem => ({ key: `c${r.id}`, kind: 'car', subject: r.license_plate, detail: r.name, time: r.capture_time })),
      ...persons.map((r): FeedItem => ({ key: `p${r.id}`, kind: 'person', subject: maskName(r.person_name), detail: r.name, time: r.capture_time })),
    ];
    items.sort((a, b) => (a.time === b.time ? b.key.localeCompare(a.key) : a.time < b.time ? 1 : -1));
    return ok(items.slice(0, size));
  });

  route(app, bigScreenApi.gateTraffic, async () => {
    const day = dateOf(ctx.time());
    const [gates, traffic] = await Promise.all([
      db.selectFrom('equipment').select(['id', 'name', 'longitude', 'latitude', 'entrances_type', 'state']).where('kind', '=', 'gate').where('deleted', '=', 0).orderBy('id').execute(),
      db
        .selectFrom('stat_crossing_day')
        .select((eb) => ['device_id', 'kind', 'direction', eb.fn.sum('crossings').as('n')])
        .where('day', '=', day)
        .where('opened', '=', 1)
        .groupBy(['device_id', 'kind', 'direction'])
        .execute(),
    ]);
    const byGate = new Map<number, Pick<GateTraffic, 'carIn' | 'carOut' | 'personIn' | 'personOut'>>();
    for (const t of traffic) {
      const line = byGate.get(t.device_id) ?? { carIn: 0, carOut: 0, personIn: 0, personOut: 0 };
      const field = `${t.kind === 'person' ? 'person' : 'car'}${t.direction === 1 ? 'In' : 'Out'}` as const;
      line[field] += Number(t.n ?? 0);
      byGate.set(t.device_id, line);
    }
    return ok(
      gates.map((g): GateTraffic => ({
        id: g.id,
        name: g.name,
        // PostgreSQL may hand back numeric columns as strings.
        longitude: g.longitude === null ? null : Number(g.longitude),
        latitude: g.latitude === null ? null : Number(g.latitude),
        entrances_type: g.entrances_type,
        state: g.state,
        ...(byGate.get(g.id) ?? { carIn: 0, carOut: 0, personIn: 0, personOut: 0 }),
      })),
    );
  });

  route(app, bigScreenApi.mapTiles, async () => ok(ctx.config.mapTiles));
}
