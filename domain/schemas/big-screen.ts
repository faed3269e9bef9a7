import { z } from 'zod';
import { col, defineCall } from '../contract';
import { STRANDED_KINDS } from '../stranded-kinds';
import type { EquipmentKind } from './equipment';

/**
 * 大屏 and 地图看板 (spec 002 §2 "Big-screen page", "Map board"; issue 26
 * items 5–6). Like the dashboard's calls they are open to every role holder
 * ('role'): the pages are for whoever watches the park.
 */

/** The spec's device-alarm keys (spec 002 §3 "Alarm counts use the same kind keys plus total"), in the panel's order. */
export const alarmKindKeys = ['carMountedFacialRecognition', 'gateEquipment', 'liftingAntiCollisionPillar', 'securityLaneIdentification', 'tireCrushing', 'truckScales'] as const;
export type AlarmKindKey = (typeof alarmKindKeys)[number];

/**
 * Each equipment kind of the register under the spec's key. The spec names
 * six kinds, the register seven: 防撞柱 (bumpingPost) is an anti-collision
 * pillar too and counts with 升降防撞柱 (docs/decisions.md).
 */
export const alarmKeyOfKind: Record<EquipmentKind, AlarmKindKey> = {
  carMountedFacialRecognition: 'carMountedFacialRecognition',
  gate: 'gateEquipment',
  liftingAntiCollisionPillar: 'liftingAntiCollisionPillar',
  bumpingPost: 'liftingAntiCollisionPillar',
  securityLaneIdentification: 'securityLaneIdentification',
  tireCrushing: 'tireCrushing',
  truckScales: 'truckScales',
};

/** The panel's words for each key. */
export const alarmKindTitles: Record<AlarmKindKey, string> = {
  carMountedFacialRecognition: '车载人脸识别',
  gateEquipment: '道闸设备',
  liftingAntiCollisionPillar: '防撞柱',
  securityLaneIdentification: '安检通道识别',
  tireCrushing: '破胎器',
  truckScales: '地磅系统',
};

export const deviceAlarmCounts = z.object({
  carMountedFacialRecognition: col.int,
  gateEquipment: col.int,
  liftingAntiCollisionPillar: col.int,
  securityLaneIdentification: col.int,
  tireCrushing: col.int,
  truckScales: col.int,
  total: col.int,
});
export type DeviceAlarmCounts = z.infer<typeof deviceAlarmCounts>;

/** How many lines the live feed may ask for: the screen shows a dozen, a wall a few more. */
export const FEED_MAX = 50;
export const FEED_DEFAULT = 20;
/** How far back the feed looks: older events are not news, and the bound keeps the index walk short. */
export const FEED_DAYS = 7;

/** `size` of a bounded list: a whole number from 1 to max, `dflt` when absent. */
const sizeParam = (max: number, dflt: number) =>
  z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? dflt : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
    z
      .number({ error: '条数必须是数字' })
      .int({ error: '条数必须是整数' })
      .min(1, { error: `条数范围为1至${max}` })
      .max(max, { error: `条数范围为1至${max}` }),
  );

export const feedQuery = z.object({ size: sizeParam(FEED_MAX, FEED_DEFAULT) });

/**
 * One line of the feed: a gate that refused a vehicle or a person (拒绝通行).
 * Alarms are not in it: they stay pinned in their own panel until handled
 * (openAlarms), so routine refusals cannot push them off the screen. `key`
 * is unique across both kinds, so the screen can key its rows by it. A
 * person is named by surname only: the screen hangs on a wall.
 */
export const feedItem = z.object({
  key: col.text,
  kind: z.enum(['car', 'person']),
  /** The plate, or the person's masked name. */
  subject: col.text,
  /** The gate's name. */
  detail: col.text,
  time: col.time,
});
export type FeedItem = z.infer<typeof feedItem>;

/** Open alarms the panel may ask for per kind: what a wall shows; the count covers the rest. */
export const OPEN_ALARMS_MAX = 20;
export const OPEN_ALARMS_DEFAULT = 10;
export const openAlarmsQuery = z.object({ size: sizeParam(OPEN_ALARMS_MAX, OPEN_ALARMS_DEFAULT) });

/** One alarm nobody has handled yet, as a wall shows it: the level_type is labelled by enums.strandedLevel on the screen, whatever levels it gains. */
export const openAlarmItem = z.object({
  id: col.id,
  kind: z.enum(STRANDED_KINDS),
  /** The plate, or the person's masked name. */
  subject: col.text,
  level_type: col.int,
  alarm_time: col.time,
});
export type OpenAlarmItem = z.infer<typeof openAlarmItem>;

/** Every open alarm counted (total, and per kind), each kind's newest `size` listed newest first. */
export const openAlarms = z.object({
  total: col.int,
  kinds: z.array(z.object({ kind: z.enum(STRANDED_KINDS), total: col.int, list: z.array(openAlarmItem) })),
});
export type OpenAlarms = z.infer<typeof openAlarms>;

/** One gate on the map: where it stands and today's opened crossings by direction. */
export const gateTraffic = z.object({
  id: col.id,
  name: col.text,
  /** Degrees as the register holds them (WGS-84, the GPS a surveyor reads); null when not surveyed. */
  longitude: col.nullable(col.num),
  latitude: col.nullable(col.num),
  /** 入口归属: 1 化工区, 2 港区, 3 both. */
  entrances_type: col.nullable(col.int),
  state: col.int,
  carIn: col.int,
  carOut: col.int,
  personIn: col.int,
  personOut: col.int,
});
export type GateTraffic = z.infer<typeof gateTraffic>;

export const TILE_CRS = ['gcj02', 'wgs84'] as const;
export type TileCrs = (typeof TILE_CRS)[number];
export const mapTiles = z.object({ url: col.text, crs: z.enum(TILE_CRS) }).nullable();
export type MapTiles = z.infer<typeof mapTiles>;

export const bigScreenApi = {
  deviceAlarmCounts: defineCall({
    method: 'GET',
    path: '/board/deviceAlarmCounts',
    permission: 'role',
    summary: '设备告警统计：今日各类设备告警数与合计',
    input: z.object({}),
    answer: deviceAlarmCounts,
  }),
  liveFeed: defineCall({
    method: 'GET',
    path: '/board/liveFeed',
    permission: 'role',
    summary: '拒绝通行：最近的车辆与人员拒绝通行，最新在前',
    input: feedQuery,
    answer: z.array(feedItem),
  }),
  openAlarms: defineCall({
    method: 'GET',
    path: '/board/openAlarms',
    permission: 'role',
    summary: '未处理告警：全部未处理告警数（合计与按车辆、人员），各类最新的若干条',
    input: openAlarmsQuery,
    answer: openAlarms,
  }),
  gateTraffic: defineCall({
    method: 'GET',
    path: '/board/gateTraffic',
    permission: 'role',
    summary: '地图看板：各道闸位置与今日车辆、人员进出数',
    input: z.object({}),
    answer: z.array(gateTraffic),
  }),
  mapTiles: defineCall({
    method: 'GET',
    path: '/board/mapTiles',
    permission: 'role',
    summary: '地图瓦片地址模板与坐标系（未配置时为空）',
    input: z.object({}),
    answer: mapTiles,
  }),
};
