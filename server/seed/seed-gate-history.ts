import { isMainlandIdNumber } from '../../domain/identity';
import { MAX_EVENTS_PER_CALL, OFFLINE_AFTER_MS } from '../../domain/schemas/device-event';
import { formatInZone } from '../../domain/time';
import type { AppContext } from '../core/context';
import type { DeviceIdentity } from '../core/device-auth';
import type { SmsSender } from '../core/sms';
import { ingestEvents, markSilentOffline } from '../modules/devices/ingest';
import { raiseDueAlarms } from '../modules/stranded/detection';
import { dealAlarm } from '../modules/stranded/routes';
import { BLACK_PLATE, clockAt } from './seed-appointments';

/**
 * Ninety days of gate crossings for the demo park (DESIGN.md §8: gate records
 * come from the devices and from nowhere else). Vehicles cross the three
 * vehicle gates and persons the west pedestrian gate, in and out pairs with
 * a morning and an afternoon peak, fewer at weekends: the plates and ID
 * numbers of the seeded approved appointments and list entries, regular
 * made-up contractors and one-off visitors; a few refused (black-listed once
 * listed, unknown), a few device alarms. Everything goes through
 * ingestEvents, the devices' own ingestion, one batch per gate and day with
 * the clock at that batch's capture time. The east gate's network fails the
 * day before (its last event an alarm saying so), so it is the demo's one
 * offline device; the others end with a heartbeat now, online.
 *
 * Stranded alarms come from the same detection as the park's (DESIGN.md §8):
 * the visitors of the visits seed-appointments.ts files in the past for this
 * history leave late, after their visit's end or the tanker's dwell limit,
 * and a few black-listed subjects are let in by hand; the alarm timer
 * (raiseDueAlarms) runs with the clock just past each deadline, between the
 * batches before and after it, and the ingestion raises a black-listed
 * entry's alarm itself. The security lead then handles most of those older
 * than two days through the route's own code, as 误判 or 判断准确. An alarm
 * older than a day texts nobody (its SMS fields say so) and its
 * notifications are stored read: a first start must not send dozens of
 * messages about the past, nor fill the lead's notification centre.
 *
 * Once (sys_setting 'demo_gate_history_seeded'), after seedDemoEquipment.
 * Deterministic (a fixed pseudo-random seed) for a given day, and its event
 * ids are the gate's date and sequence, so a first start interrupted half-way
 * and started again the same day stores the earlier days once (the device
 * ledger's replay safety). About 4,400 events: each costs the ingestion's
 * few queries (record, stay), which is what keeps the volume modest.
 */

const SETTING = 'demo_gate_history_seeded';
export const HISTORY_DAYS = 90;
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** How long before the seed the east gate's network fails. */
const EAST_SILENT_MS = 26 * 3_600_000;

/** The demo park's gates (server/seed/seed.ts seedDemoEquipment) as the simulator and this history use them. */
export const DEMO_GATES = { west: 'GATE-W-01', westPersons: 'GATE-W-P01', north: 'GATE-N-01', east: 'GATE-E-01' } as const;

/** Where each kind usually crosses: persons at the west persons' gate; vehicles at the west or the north gate (drawn from `r`). */
const usualGate: Record<'vehicle' | 'person', (r: () => number) => string> = {
  vehicle: (r) => pick(r, [DEMO_GATES.west, DEMO_GATES.north]),
  person: () => DEMO_GATES.westPersons,
};
/** A day's visit by a draw `g` in [0, 1): vehicles use the east gate too. */
const anyGate: Record<'vehicle' | 'person', (g: number) => string> = {
  vehicle: (g) => (g < 0.5 ? DEMO_GATES.west : g < 0.8 ? DEMO_GATES.north : DEMO_GATES.east),
  person: () => DEMO_GATES.westPersons,
};

// ---------------------------------------------------------------- made-up plates, people and cameras (the simulator's too)

/** A pseudo-random source in [0, 1) (mulberry32): the same seed, the same park. */
export type Random = () => number;
export function randomSource(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
export const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const between = (r: Random, lo: number, hi: number) => lo + r() * (hi - lo);

const PLATE_CHARS = [...'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789'];
const PLATE_PREFIXES = ['粤L', '粤L', '粤L', '粤L', '粤L', '粤B', '粤A', '粤S', '湘A', '赣B'];
/** An ordinary plate, mostly Huizhou's (粤L); a few from Shenzhen, Guangzhou, Dongguan and neighbouring provinces. */
export function madeUpPlate(r: Random): string {
  return pick(r, PLATE_PREFIXES) + Array.from({ length: 5 }, () => pick(r, PLATE_CHARS)).join('');
}

const SURNAMES = [...'王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高梁郑谢宋唐许邓冯韩曹曾彭蔡潘田董袁叶蒋杜苏魏程吕丁沈姚卢钟'];
const GIVEN = [...'伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚英华建文辉鹏飞斌宇浩凯健俊峰志海'];
const AREAS = ['441302', '441303', '441322', '441323', '440303', '440106', '441900', '430524', '360102', '450821'];
const pad2 = (n: number) => String(n).padStart(2, '0');
/** A visitor with a well-formed resident ID number (a real birth date and its GB 11643 check character). */
export function madeUpPerson(r: Random): { name: string; idcard: string } {
  const name = pick(r, SURNAMES) + pick(r, GIVEN) + (r() < 0.6 ? pick(r, GIVEN) : '');
  const birth = `${1965 + Math.floor(r() * 36)}${pad2(1 + Math.floor(r() * 12))}${pad2(1 + Math.floor(r() * 28))}`;
  const body = `${pick(r, AREAS)}${birth}${String(1 + Math.floor(r() * 998)).padStart(3, '0')}`;
  return { name, idcard: [...'0123456789X'].map((c) => body + c).find(isMainlandIdNumber)! };
}

interface Look {
  type: string;
  brands: readonly string[];
  plateColor: number;
  colors: readonly number[];
  /** Minutes inside, shortest and longest. */
  stay: readonly [number, number];
}
const LOOKS: Record<string, Look> = {
  小型汽车: { type: '小型轿车', brands: ['丰田', '大众', '本田', '比亚迪', '日产', '吉利'], plateColor: 2, colors: [1, 2, 8, 10], stay: [30, 420] },
  普通货车: { type: '轻型厢式货车', brands: ['福田', '江铃', '解放', '东风'], plateColor: 1, colors: [1, 8, 3], stay: [20, 150] },
  重型自卸货车: { type: '重型自卸货车', brands: ['重汽', '陕汽', '东风'], plateColor: 1, colors: [3, 5, 7], stay: [20, 120] },
  危险化学品运输车: { type: '重型罐式货车', brands: ['东风', '解放', '陕汽'], plateColor: 1, colors: [1, 8, 5], stay: [40, 180] },
  混凝土搅拌车: { type: '混凝土搅拌车', brands: ['三一', '中联', '徐工'], plateColor: 1, colors: [5, 1, 3], stay: [20, 90] },
  中型客车: { type: '中型客车', brands: ['宇通', '金龙', '海格'], plateColor: 1, colors: [1, 8], stay: [10, 40] },
  大型客车: { type: '大型客车', brands: ['宇通', '金龙', '海格'], plateColor: 1, colors: [1, 8], stay: [10, 40] },
};
const MODELS = Object.keys(LOOKS);

/** What a plate camera reports of a vehicle (the optional fields of a 'vehicle' event), chosen once per vehicle. */
export interface VehicleLook {
  license_plate_color: number;
  vehicle_brand: string;
  vehicle_type: string;
  vehicle_color: number;
}
export function vehicleLook(r: Random, model = pick(r, MODELS), plateColor?: number | null): VehicleLook & { stay: readonly [number, number] } {
  const l = LOOKS[model] ?? LOOKS['小型汽车']!;
  return { license_plate_color: plateColor ?? l.plateColor, vehicle_brand: pick(r, l.brands), vehicle_type: l.type, vehicle_color: pick(r, l.colors), stay: l.stay };
}

// ---------------------------------------------------------------- the ninety days

interface Subject {
  /** The plate or the ID number: one visit a day each. */
  key: string;
  fields: Record<string, unknown>;
  stay: readonly [number, number];
}
type Planned = { at: number; body: Record<string, unknown> };

/** [weight, mean minute of the day, spread]; the rest of the weight is spread evenly over the day. */
const VEHICLE_PEAKS = [
  [0.5, 8 * 60 + 10, 40],
  [0.3, 13 * 60 + 40, 50],
] as const;
const PERSON_PEAKS = [
  [0.6, 7 * 60 + 45, 30],
  [0.25, 13 * 60 + 20, 40],
] as const;
function minuteOfDay(r: Random, peaks: ReadonlyArray<readonly [number, number, number]>): number {
  let u = r();
  for (const [weight, mean, spread] of peaks) {
    // Three uniforms summed: near enough to a normal curve, and never far out.
    if (u < weight) return Math.min(21 * 60, Math.max(5 * 60 + 30, mean + (r() + r() + r() - 1.5) * 2 * spread));
    u -= weight;
  }
  return between(r, 6 * 60, 20 * 60);
}

const VEHICLE_ALARMS = [
  ['道闸抬杆超时', '抬杆后60秒未落杆，已自动落杆'],
  ['防砸雷达故障', '雷达无回波，已切换为地感检测'],
  ['车牌识别相机离线', '相机心跳丢失，3分钟后恢复'],
  ['防拆报警', '机箱门被打开，巡逻员到场确认为例行检修'],
] as const;
const PERSON_ALARMS = [
  ['人脸识别模块故障', '补光灯不亮，夜间识别率下降'],
  ['尾随通行告警', '一次刷证两人通过，已通知岗亭'],
  ['防拆报警', '机箱门被打开，巡逻员到场确认为例行检修'],
] as const;

/** How long the alarm timer takes to notice a passed deadline: it runs every minute. */
const TIMER_LAG_MS = 40_000;
/** Alarms raised longer ago than this are the past: no SMS, notifications read. */
const PAST_ALARM_MS = DAY_MS;
/** The SMS gateway of the past: declines, so the alarm row records that nothing was sent. */
const pastSms: SmsSender = {
  send: () => Promise.reject(new Error('演示历史数据，未发送短信')),
};

/** The lead's judgements: [误判 (1) or 判断准确 (0), 处理说明], by what raised the alarm. */
const DEALS: Record<'black' | 'overstay', ReadonlyArray<readonly [0 | 1, string]>> = {
  black: [
    [0, '岗亭人工放行时未核对黑名单，已联系当事人离场并对当班门岗进行通报'],
    [0, '巡逻员到场核实，已督促离开园区并登记在案'],
    [1, '其黑名单已申请解除并经审核同意，系统尚未同步，核实后放行'],
  ],
  overstay: [
    [0, '已电话联系当事人，次日凌晨离场，已登记并提醒按时离园'],
    [0, '巡逻员现场核实，作业超时未及时离场，已通知被访单位加强管理'],
    [1, '被访单位已申请延期，延期审批尚未同步，核实后不予处理'],
    [1, '当事人随被访单位值班人员加班抢修，事前已报备，不属于滞留'],
  ],
};

/** Seeds the history once; does nothing where any of the four demo gates is missing. */
export async function seedGateHistory(ctx: AppContext): Promise<void> {
  const { db } = ctx;
  if (await db.selectFrom('sys_setting').select('value').where('key', '=', SETTING).executeTakeFirst()) return;
  const found = await db.selectFrom('equipment').select(['id', 'number', 'kind', 'name']).where('number', 'in', Object.values(DEMO_GATES)).where('deleted', '=', 0).execute();
  const gate = new Map<string, DeviceIdentity>(found.map((g) => [g.number, g]));
  if (gate.size < Object.keys(DEMO_GATES).length) return;

  const r = randomSource(20_261_126);
  const start = ctx.now();
  // Park time by the zone's offset now (it keeps no daylight saving, domain/time.ts addMinutes): formatting each of thousands of times in the zone is slow.
  const offset = Date.parse(`${formatInZone(start, ctx.config.tz).replace(' ', 'T')}Z`) - (start - (start % 1000));
  const fmt = (ms: number) => new Date(ms + offset).toISOString().slice(0, 19).replace('T', ' ');
  const parse = (time: string) => Date.parse(`${time.replace(' ', 'T')}Z`) - offset;
  /** The context at `ms`, with the past's SMS gateway for an alarm raised then. */
  const at = (ms: number): AppContext => {
    const c = clockAt(ctx, ms, 0);
    return ms < start - PAST_ALARM_MS ? { ...c, sms: pastSms } : c;
  };
  const midnight = start - ((start + offset) % DAY_MS);
  const eastSilentAt = start - EAST_SILENT_MS;

  // Who crosses: the seeded approved appointments and list entries, regulars, one-offs.
  const models = new Map((await db.selectFrom('vehicle_type').select(['id', 'name']).execute()).map((m) => [m.id, m.name]));
  const approvedCars = await db.selectFrom('car_application').select(['license_plate', 'license_plate_color', 'vehicle_type_id']).where('state', '=', 2).where('is_deleted', '=', 0).execute();
  const approvedPersons = await db.selectFrom('person_application').select(['visitor_name as name', 'visitor_idcard as idcard']).where('state', '=', 2).where('is_deleted', '=', 0).execute();
  const carList = await db.selectFrom('car_black_white_list').select(['license_plate', 'vehicle_type_id', 'type', 'start_time']).where('status', '=', 2).where('deleted', '=', 0).execute();
  const personList = await db.selectFrom('person_black_white_list').select(['name', 'idcard', 'type', 'start_time']).where('status', '=', 2).where('deleted', '=', 0).execute();

  // The visits filed for this history (seed-appointments.ts): over before today.
  const historyStart = fmt(midnight - (HISTORY_DAYS - 1) * DAY_MS);
  const pastCars = await db
    .selectFrom('car_application as a')
    .innerJoin('vehicle_type as m', 'm.id', 'a.vehicle_type_id')
    .select(['a.license_plate', 'a.license_plate_color', 'm.name as model', 'm.dwell_limit_minutes as dwell', 'a.visitor_begin_time as begin', 'a.visitor_end_time as end'])
    .where('a.state', '=', 2)
    .where('a.is_deleted', '=', 0)
    .where('a.visitor_end_time', '<', fmt(midnight))
    .where('a.visitor_begin_time', '>=', historyStart)
    .orderBy('a.car_application_id')
    .execute();
  const pastPersons = await db
    .selectFrom('person_application')
    .select(['visitor_name as name', 'visitor_idcard as idcard', 'visit_begin_time as begin', 'visit_end_time as end'])
    .where('state', '=', 2)
    .where('is_deleted', '=', 0)
    .where('visit_end_time', '<', fmt(midnight))
    .where('visit_begin_time', '>=', historyStart)
    .orderBy('person_application_id')
    .execute();
  // Their crossings are planned below, on their visits' days only.
  const pastKeys = new Set([...pastCars.map((c) => c.license_plate), ...pastPersons.map((p) => p.idcard)]);

  const car = (plate: string, model?: string | null, plateColor?: number | null): Subject => {
    const { stay, ...look } = vehicleLook(r, model ?? undefined, plateColor);
    return { key: plate, fields: { license_plate: plate, ...look, vehicle_compare_result: 1 }, stay };
  };
  const person = (p: { name: string; idcard: string }): Subject => ({
    key: p.idcard,
    fields: { idcard: p.idcard, person_name: p.name, card_number: `IC${p.idcard.slice(-8)}`, card_status: 1, image_type: 1 },
    stay: [60, 600],
  });
  const known = {
    vehicle: [
      ...approvedCars.map((c) => car(c.license_plate, models.get(c.vehicle_type_id), c.license_plate_color)),
      ...carList.filter((e) => e.type === 2).map((e) => car(e.license_plate, e.vehicle_type_id ? models.get(e.vehicle_type_id) : null)),
    ],
    person: [...approvedPersons.map(person), ...personList.filter((e) => e.type === 2).map(person)],
  };
  known.vehicle = known.vehicle.filter((s) => !pastKeys.has(s.key));
  known.person = known.person.filter((s) => !pastKeys.has(s.key));
  const regulars = { vehicle: Array.from({ length: 40 }, () => car(madeUpPlate(r))), person: Array.from({ length: 40 }, () => person(madeUpPerson(r))) };
  // Refused at the gate from the day they were listed.
  const black = {
    vehicle: carList.filter((e) => e.type === 1).map((e) => ({ since: e.start_time ?? '', subject: car(e.license_plate, e.vehicle_type_id ? models.get(e.vehicle_type_id) : null) })),
    person: personList.filter((e) => e.type === 1).map((e) => ({ since: e.start_time ?? '', subject: person(e) })),
  };

  const planned = new Map<string, Planned[]>([...gate.keys()].map((n) => [n, []]));
  const plan = (number: string, at: number, body: Record<string, unknown>) => planned.get(number)!.push({ at: Math.round(at), body });
  /** When the alarm timer runs between batches: just after a deadline an overstay passes. */
  const checks: number[] = [];
  /** A batch ends at each of these: a black-listed entry, whose alarm its ingestion raises. */
  const cuts: number[] = [];

  // The past visits: in and out on every day of the visit; out late on the last (most of them), or past the model's dwell limit.
  const visitDays = (begin: string, end: string) => {
    const days: number[] = [];
    for (let day = parse(`${begin.slice(0, 10)} 00:00:00`); day <= parse(end); day += DAY_MS) if (day >= midnight - (HISTORY_DAYS - 1) * DAY_MS) days.push(day);
    return days;
  };
  const pastVisits = [
    ...pastCars.map((c) => ({ kind: 'vehicle' as const, subject: car(c.license_plate, c.model, c.license_plate_color), dwell: c.dwell, end: c.end, days: visitDays(c.begin, c.end) })),
    ...pastPersons.map((p) => ({ kind: 'person' as const, subject: person(p), dwell: null, end: p.end, days: visitDays(p.begin, p.end) })),
  ];
  for (const v of pastVisits) {
    v.days.forEach((day, i) => {
      const entry = Math.round(day + minuteOfDay(r, v.kind === 'vehicle' ? VEHICLE_PEAKS : PERSON_PEAKS) * MINUTE_MS + Math.floor(r() * 60_000));
      let exit = Math.min(day + (23 * 60 + 40) * MINUTE_MS, entry + between(r, ...v.subject.stay) * MINUTE_MS);
      if (v.dwell && i === 0) {
        exit = entry + (v.dwell + between(r, 25, 110)) * MINUTE_MS;
        checks.push(entry + v.dwell * MINUTE_MS + TIMER_LAG_MS);
      } else if (!v.dwell && i === v.days.length - 1 && (r() < 0.8 || parse(v.end) > start - 3 * DAY_MS)) {
        // Most leave late; the latest always do, so that a fresh start has alarms still open.
        const late = day + DAY_MS + between(r, 5, 150) * MINUTE_MS;
        // Out before the seed's now, or not late at all: nobody is left inside by the history.
        if (late < start - 10 * MINUTE_MS) {
          exit = late;
          checks.push(parse(v.end) + TIMER_LAG_MS);
        }
      }
      if (exit > start) return;
      // In and out at one gate: a day's batches go gate by gate, and an exit stored before its entry would close nothing.
      const where = usualGate[v.kind](r);
      plan(where, entry, { type: v.kind, ...v.subject.fields, direction: 1, open_result: 1 });
      plan(where, exit, { type: v.kind, ...v.subject.fields, direction: 2, open_result: 1 });
    });
  }

  // Black-listed subjects let in by hand at the gate, once each, the day after they were listed; the demo's refused plate never.
  for (const kind of ['vehicle', 'person'] as const) {
    for (const b of black[kind]) {
      if (b.subject.key === BLACK_PLATE || !b.since) continue;
      const first = Math.max(parse(`${b.since.slice(0, 10)} 00:00:00`), midnight - (HISTORY_DAYS - 1) * DAY_MS);
      const day = first + DAY_MS;
      if (day >= midnight) continue;
      const entry = Math.round(day + minuteOfDay(r, kind === 'vehicle' ? VEHICLE_PEAKS : PERSON_PEAKS) * MINUTE_MS + Math.floor(r() * 60_000));
      const exit = entry + between(r, 15, 70) * MINUTE_MS;
      if (exit > start) continue;
      const where = usualGate[kind](r);
      plan(where, entry, { type: kind, ...b.subject.fields, direction: 1, open_result: 1 });
      plan(where, exit, { type: kind, ...b.subject.fields, direction: 2, open_result: 1 });
      cuts.push(entry);
    }
  }

  for (let d = HISTORY_DAYS - 1; d >= 0; d--) {
    const day = midnight - d * DAY_MS;
    const date = fmt(day).slice(0, 10);
    const weekend = [0, 6].includes(new Date(`${date}T12:00:00Z`).getUTCDay());
    for (const kind of ['vehicle', 'person'] as const) {
      const crossed = new Set<string>();
      const visits = Math.round(kind === 'vehicle' ? (weekend ? 7 : 13) + r() * 4 : (weekend ? 5 : 11) + r() * 4);
      for (let i = 0; i < visits; i++) {
        const u = r();
        let s = u < 0.2 && known[kind].length ? pick(r, known[kind]) : u < 0.75 ? pick(r, regulars[kind]) : null;
        if (!s || crossed.has(s.key)) s = kind === 'vehicle' ? car(madeUpPlate(r)) : person(madeUpPerson(r));
        crossed.add(s.key);
        const entry = day + minuteOfDay(r, kind === 'vehicle' ? VEHICLE_PEAKS : PERSON_PEAKS) * MINUTE_MS + Math.floor(r() * 60_000);
        const exit = Math.min(day + (23 * 60 + 40) * MINUTE_MS, entry + between(r, ...s.stay) * MINUTE_MS);
        const g = r();
        const where = anyGate[kind](g);
        // Once its network has failed the east gate records nothing: that visit used the west gate.
        const at = where === DEMO_GATES.east && exit >= eastSilentAt - MINUTE_MS ? DEMO_GATES.west : where;
        // Nobody is left inside by the history: a visit still going on now is the simulator's to play.
        if (exit > start) continue;
        plan(at, entry, { type: kind, ...s.fields, direction: 1, open_result: 1 });
        plan(at, exit, { type: kind, ...s.fields, direction: 2, open_result: 1 });
      }
      // Now and then one is turned away: a listed one, or one nobody expects.
      if (r() < (kind === 'vehicle' ? 0.45 : 0.25)) {
        const listed = black[kind].filter((b) => b.since.slice(0, 10) <= date);
        const s = r() < 0.4 && listed.length ? pick(r, listed).subject : kind === 'vehicle' ? car(madeUpPlate(r)) : person(madeUpPerson(r));
        const where = usualGate[kind](r);
        plan(where, day + minuteOfDay(r, kind === 'vehicle' ? VEHICLE_PEAKS : PERSON_PEAKS) * MINUTE_MS, { type: kind, ...s.fields, direction: 1, open_result: 0 });
      }
    }
    if (r() < 0.1) {
      const where = pick(r, [DEMO_GATES.west, DEMO_GATES.north, DEMO_GATES.westPersons]);
      const [alarm_type, remark] = pick<readonly [string, string]>(r, where === DEMO_GATES.westPersons ? PERSON_ALARMS : VEHICLE_ALARMS);
      plan(where, day + between(r, 0, DAY_MS), { type: 'alarm', alarm_type, remark });
    }
  }
  // The east gate's last word, before its network fails; the others are alive now.
  plan(DEMO_GATES.east, eastSilentAt - MINUTE_MS, { type: 'alarm', alarm_type: '网络中断', remark: '与平台连接中断，事件暂存设备本地' });
  for (const n of [DEMO_GATES.west, DEMO_GATES.westPersons, DEMO_GATES.north]) plan(n, start, { type: 'heartbeat', state: 1 });

  // Day by day, each gate's events of the day as one batch (or more), the clock at the batch's last capture;
  // a day with an alarm check or a black-listed entry is cut there, so that the alarm sees who is inside then.
  for (let d = HISTORY_DAYS - 1; d >= 0; d--) {
    const from = midnight - d * DAY_MS;
    const date = fmt(from).slice(0, 10).replaceAll('-', '');
    const inDay = (t: number) => t >= from && t < from + DAY_MS && t <= start;
    const bounds = [...new Set([...checks.filter(inDay), ...cuts.filter(inDay)])].sort((a, b) => a - b);
    const gates = [...planned].map(([number, events]) => {
      const day = events.filter((e) => inDay(e.at)).sort((a, b) => a.at - b.at);
      return { number, events: day.map((e, i) => ({ at: e.at, event: { event_id: `${number}-${date}-${String(i + 1).padStart(4, '0')}`, capture_time: fmt(e.at), ...e.body } })) };
    });
    let after = -Infinity;
    for (const bound of [...bounds, Infinity]) {
      for (const { number, events } of gates) {
        const segment = events.filter((e) => e.at > after && e.at <= bound);
        for (let i = 0; i < segment.length; i += MAX_EVENTS_PER_CALL) {
          const part = segment.slice(i, i + MAX_EVENTS_PER_CALL);
          const sentAt = Math.min(start, part[part.length - 1]!.at + 20_000);
          const result = await ingestEvents(
            at(sentAt),
            gate.get(number)!,
            part.map((e) => e.event),
          );
          if (result.rejected.length) throw new Error(`gate history: ${number} ${JSON.stringify(result.rejected[0])}`);
        }
      }
      if (checks.includes(bound)) await raiseDueAlarms(at(bound));
      after = bound;
    }
  }
  // The online timer's statement, as it ran just over five minutes after the east gate fell silent.
  const east = await db.selectFrom('equipment').select('last_seen_at').where('id', '=', gate.get(DEMO_GATES.east)!.id).executeTakeFirstOrThrow();
  const offlineAt = Number(east.last_seen_at) + OFFLINE_AFTER_MS + 30_000;
  await markSilentOffline(db, fmt(offlineAt), offlineAt, OFFLINE_AFTER_MS);

  // The lead's judgement of most alarms older than two days (each kind of judgement in turn); the recent ones are still open.
  const lead = await db.selectFrom('sys_user').select('user_id').where('account', '=', 'lead').where('deleted', '=', 0).executeTakeFirst();
  const alarms = await db.selectFrom('stranded_alarm').select(['id', 'kind', 'is_black', 'alarm_time', 'exit_time']).where('handle_time', 'is', null).orderBy('id').execute();
  const judged = { black: 0, overstay: 0 };
  for (const [i, a] of alarms.entries()) {
    const raised = parse(a.alarm_time);
    const kind = a.kind as 'car' | 'person';
    // Read long since: the alarm is the past.
    if (raised < start - PAST_ALARM_MS)
      await db
        .updateTable('notification')
        .set({ read_at: fmt(raised + between(r, 2, 40) * MINUTE_MS) })
        .where('tag', '=', `stranded-${kind}-${a.id}`)
        .where('read_at', 'is', null)
        .execute();
    if (!lead || raised >= start - 2 * DAY_MS || i % 7 === 4) continue;
    const reason = a.is_black ? 'black' : 'overstay';
    const [false_alarm, handled_remark] = DEALS[reason][judged[reason]++ % DEALS[reason].length]!;
    // Handled once the subject has left, as the remarks tell.
    const handled = Math.min(start - MINUTE_MS, parse(a.exit_time ?? a.alarm_time) + between(r, 5, 120) * MINUTE_MS);
    await dealAlarm(clockAt(ctx, handled, 0), kind, lead.user_id, { id: a.id, false_alarm, handled_remark });
  }
  await db
    .insertInto('sys_setting')
    .values({ key: SETTING, value: ctx.time() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}
