import { z } from 'zod';
import { col, defineCall, defineResourceContract, none } from '../contract';
import type { EnumOption } from '../enums';
import type { LatLng } from '../geo';
import { choice01, idField, idNumber, labelled, optionalFilterInt, optionalFilterText, pageQuery, requiredText, stampLabels } from './common';

/**
 * 行车路线 (spec 001 "Vehicle entry routes", §3 Route, §6 carRoute:*, §7
 * Routes): a named line on the park map that vehicles visiting the bound
 * departments are to follow, the points (gates) it passes, and the
 * departments bound to it. The path is WGS-84 [lat, lng] vertices, sent and
 * answered serialized as JSON text (the spec: "the serialized path must exist
 * in the payload").
 */

export const RoutePublish = { DRAFT: 0, PUBLISHED: 1 } as const;
export const routePublishOptions: EnumOption[] = [
  { value: RoutePublish.DRAFT, label: '未发布', color: 'default' },
  { value: RoutePublish.PUBLISHED, label: '已发布', color: 'success' },
];

/** Bounds of one path: enough for any road through the park, and a body of a few tens of kilobytes at most. */
export const PATH_MIN_POINTS = 2;
export const PATH_MAX_POINTS = 500;
const PATH_MAX_CHARS = 40_000;
/** Points a route passes: the park has a handful of gates. */
export const MAX_ROUTE_POINTS = 100;
export const MAX_BOUND_DEPARTS = 200;

export const PATH_REQUIRED_MSG = '请在地图上绘制行车路线';
export const PATH_FORMAT_MSG = '格式不正确，应为[[纬度,经度],…]的JSON文本';
export const PATH_MIN_MSG = `至少需要${PATH_MIN_POINTS}个点`;
export const PATH_MAX_MSG = `最多${PATH_MAX_POINTS}个点`;
export const PATH_RANGE_MSG = '坐标超出范围（纬度-90至90，经度-180至180）';

/** The path's problem, or undefined: the rule the form shows and the server refuses by. */
export function pathProblem(text: string): string | undefined {
  if (text.trim() === '') return PATH_REQUIRED_MSG;
  if (text.length > PATH_MAX_CHARS) return PATH_MAX_MSG;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return PATH_FORMAT_MSG;
  }
  if (!Array.isArray(value) || !value.every((p) => Array.isArray(p) && p.length === 2 && p.every((n) => typeof n === 'number' && Number.isFinite(n)))) return PATH_FORMAT_MSG;
  if (value.length < PATH_MIN_POINTS) return value.length === 0 ? PATH_REQUIRED_MSG : PATH_MIN_MSG;
  if (value.length > PATH_MAX_POINTS) return PATH_MAX_MSG;
  if (!(value as LatLng[]).every(([lat, lng]) => lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180)) return PATH_RANGE_MSG;
  return undefined;
}

/** The vertices of a stored path; an unreadable one reads as none (it was checked when saved). */
export function parsePath(text: string | null | undefined): LatLng[] {
  if (!text || pathProblem(text)) return [];
  return JSON.parse(text) as LatLng[];
}

/** The vertices of a path being drawn (one vertex, or none, is a step on the way): well-formed pairs, whatever their count. */
export function draftPath(text: unknown): LatLng[] {
  if (typeof text !== 'string' || text.trim() === '') return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length === 2 && p.every((n) => typeof n === 'number' && Number.isFinite(n))) ? (v as LatLng[]) : [];
  } catch {
    return [];
  }
}

/** Vertices → the wire text, rounded to 1e-7° (about a centimetre): the numbers a person drew, not the float noise of a conversion. */
export const serializePath = (points: readonly LatLng[]): string => JSON.stringify(points.map(([lat, lng]) => [Math.round(lat * 1e7) / 1e7, Math.round(lng * 1e7) / 1e7]));

/** The location_id column: ids joined by commas (spec 001 §3), and back. */
export const joinIds = (ids: readonly number[]) => ids.join(',');
export const splitIds = (text: string | null | undefined): number[] =>
  (text ?? '')
    .split(',')
    .map((p) => Number(p.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);

export const drivingRouteLabels = {
  ...stampLabels,
  id: '路线ID',
  name: '路线名称',
  publish: '发布状态',
  path: '行车路线',
  location_id: '途经点位',
  locationIds: '途经点位',
  departIds: '绑定部门',
  depart_names: '绑定部门',
  point_names: '途经点位',
  create_user_name: '创建人',
};

const pathField = z.string({ error: (issue) => (issue.input === undefined || issue.input === null ? PATH_REQUIRED_MSG : PATH_FORMAT_MSG) }).superRefine((text, ctx) => {
  const problem = pathProblem(text);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** Ids as an array (or comma text, or one number), each a row id, none twice. */
const idArray = (bad: string, max: number, maxMsg: string) =>
  z.preprocess(
    (v) => {
      if (v === undefined || v === null || v === '') return [];
      if (typeof v === 'number') return [v];
      if (typeof v === 'string') return v.split(',').map((p) => (/^\s*\d+\s*$/.test(p) ? Number(p) : p));
      return v;
    },
    z
      .array(idNumber(bad), { error: bad })
      .max(max, { error: maxMsg })
      .transform((ids) => [...new Set(ids)]),
  );

/** A route's points in the order it passes them; absent, a save keeps the points as they are (/drivingRoute/location/update sets them alone). */
const locationIdsField = idArray('途经点位不正确', MAX_ROUTE_POINTS, `途经点位最多选择${MAX_ROUTE_POINTS}个`);

const fields = {
  name: requiredText('请输入路线名称', 50, '不能超过50个文字'),
  publish: z.preprocess((v) => (v === undefined || v === null || v === '' ? 0 : v), choice01('发布状态只能是0（未发布）或1（已发布）')),
  path: pathField,
  locationIds: locationIdsField.optional(),
};

export const drivingRouteCreate = labelled(z.object(fields), drivingRouteLabels);
export const drivingRouteUpdate = labelled(z.object({ ...fields, id: idField(drivingRouteLabels.id) }), drivingRouteLabels);
export type DrivingRouteCreate = z.infer<typeof drivingRouteCreate>;
export const drivingRoutePageQuery = labelled(pageQuery.extend({ name: optionalFilterText, publish: optionalFilterInt }), drivingRouteLabels);

export const drivingRouteBind = labelled(
  z.object({ id: idField(drivingRouteLabels.id), departIds: idArray('绑定部门不正确', MAX_BOUND_DEPARTS, `绑定部门最多选择${MAX_BOUND_DEPARTS}个`) }),
  drivingRouteLabels,
);
export const drivingRouteFind = labelled(z.object({ id: z.preprocess((v) => (v === '' || v === null ? undefined : v), idField(drivingRouteLabels.id).optional()) }), drivingRouteLabels);
export const locationEdit = labelled(z.object({ id: idField(drivingRouteLabels.id), locationIds: locationIdsField }), drivingRouteLabels);
export const applicationRouteQuery = labelled(z.object({ car_application_id: idField('车辆预约ID') }), { car_application_id: '车辆预约ID' });

export const drivingRouteRow = z.object({
  id: col.id,
  name: col.text,
  publish: col.flag,
  path: col.text,
  location_id: col.text,
  create_user_id: col.int.nullable(),
  update_user_id: col.int.nullable(),
  create_time: col.time,
  update_time: col.time,
  /** Joined in for the list: the bound departments' and the points' names. */
  depart_names: col.text,
  point_names: col.text,
});
export type DrivingRouteRow = z.infer<typeof drivingRouteRow>;

/** A named point of the park (location/all): a gate's, or one of its own; WGS-84. */
export const locationRow = z.object({
  id: col.id,
  name: col.text,
  longitude: col.num.nullable(),
  latitude: col.num.nullable(),
  equipment_id: col.int.nullable(),
});
export type LocationRow = z.infer<typeof locationRow>;

export const departBinding = z.object({ depart_id: col.id, depart_name: col.text, route_id: col.id, route_name: col.text });
export type DepartBinding = z.infer<typeof departBinding>;

/** The route a vehicle visit is to follow: its line and points; null when the visited department has no published route. */
export const applicationRoute = z
  .object({
    id: col.id,
    name: col.text,
    path: col.text,
    points: z.array(locationRow),
  })
  .nullable();
export type ApplicationRoute = z.infer<typeof applicationRoute>;

/** 行车路线 on the wire (spec 001 §7 Routes). */
export const drivingRouteApi = defineResourceContract({
  noun: '行车路线',
  key: 'id',
  labels: drivingRouteLabels,
  row: drivingRouteRow,
  paths: { list: '/drivingRoute/page', save: '/drivingRoute/save', edit: '/drivingRoute/update', delete: '/drivingRoute/delete' },
  permissions: { list: 'carRoute:list', save: 'carRoute:add', edit: 'carRoute:edit', delete: 'carRoute:delete' },
  schemas: { list: drivingRoutePageQuery, create: drivingRouteCreate, update: drivingRouteUpdate },
  operations: { save: '新增行车路线', edit: '编辑行车路线', delete: '删除行车路线' },
});

export const drivingRouteCalls = {
  bind: defineCall({
    method: 'POST',
    path: '/drivingRoute/depart/bind',
    permission: 'carRoute:bind',
    summary: '行车路线绑定部门（一个部门只绑定一条路线，绑定即从原路线移出）',
    operation: '行车路线绑定部门',
    input: drivingRouteBind,
    answer: none,
  }),
  find: defineCall({
    method: 'POST',
    path: '/drivingRoute/depart/find',
    permission: 'carRoute:list',
    summary: '部门绑定的行车路线（给出路线ID时只列该路线的）',
    input: drivingRouteFind,
    answer: z.array(departBinding),
  }),
  locations: defineCall({
    method: 'POST',
    path: '/location/all',
    permission: 'carRoute:list',
    summary: '园区全部点位（各车辆道闸），WGS-84',
    input: z.object({}),
    answer: z.array(locationRow),
  }),
  editLocations: defineCall({
    method: 'POST',
    path: '/drivingRoute/location/update',
    permission: 'carRoute:edit',
    summary: '编辑行车路线的途经点位',
    operation: '编辑行车路线点位',
    input: locationEdit,
    answer: none,
  }),
  ofApplication: defineCall({
    method: 'POST',
    path: '/drivingRoute/ofApplication',
    permission: 'role',
    summary: '车辆预约被访部门绑定的已发布行车路线（可查看该预约者可读）',
    input: applicationRouteQuery,
    answer: applicationRoute,
  }),
};
