import { z } from 'zod';
import { enums, type EnumName } from '../enums';
import { isMainlandIdNumber } from '../identity';
import { diffDays, isValidDate, type FieldError } from '../visit-rules';
import { labelled, optionalFilterInt, optionalFilterText, pageQuery, type FieldLabels } from './common';
import { deviceEventLabels } from './device-event';

/**
 * 车辆过闸记录 and 人员过闸记录 (spec 001 §2 Gate crossing records, §7):
 * read-only lists of the crossings the park's devices report through the
 * device API (DESIGN.md §8). A list always covers whole days of capture time,
 * today unless the query names others, so every page is a range of the
 * (capture_time, id) index however large the table grows.
 */

/** The device API's words for the event fields, and the lists' own: one catalogue for both record kinds. */
export const gateRecordLabels: FieldLabels = {
  ...deviceEventLabels,
  id: '记录ID',
  device_id: '设备ID',
  device_name: '设备名称',
  create_time: '接收时间',
  // The person list's columns by the spec's names (paper_number is the ID number, person_event_type the direction).
  paper_number: '证件号码',
  person_event_type: '进出方向',
  // Filters, by their wire names.
  licensePlate: '车牌号',
  vehicleColor: '车身颜色',
  deviceId: '闸机',
  openResult: '开闸结果',
  date: '日期',
  idCard: '证件号码',
  personName: '姓名',
  startDate: '开始日期',
  endDate: '结束日期',
  size: '每页条数',
  pn: '页码',
};

const blank = (v: unknown) => v === undefined || v === null || v === '';

/** A code filter: absent, '' and -1 (全部) mean none; anything else must be a value of the code table. */
const codeFilter = (table: EnumName) =>
  optionalFilterInt.refine((v) => v === undefined || enums[table].some((o) => o.value === v), { error: `只能是${enums[table].map((o) => `${o.value}（${o.label}）`).join('、')}` });

/** A day 'YYYY-MM-DD' (a date-time keeps its date); absent or '' is the list's default. */
const dayFilter = (label: string) =>
  z.preprocess(
    (v) => (blank(v) ? undefined : v),
    z
      .string({ error: `${label}格式应为 YYYY-MM-DD` })
      .trim()
      .regex(/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/, { error: `${label}格式应为 YYYY-MM-DD` })
      .transform((s) => s.slice(0, 10))
      .refine(isValidDate, { error: `${label}不是有效的日期` })
      .optional(),
  );

/** Upper-cased text filters: plates and ID numbers are stored upper-case. */
const upperFilter = optionalFilterText.transform((v) => v?.toUpperCase());

/** Vehicle records' filters (spec 001 §2: plate, body colour, gate, event type, strobe state, a date); names ours, the spec shows no query. */
export const gateRecordCarQuery = labelled(
  pageQuery.extend({
    licensePlate: upperFilter,
    vehicleColor: codeFilter('vehicleColor'),
    deviceId: optionalFilterInt,
    direction: codeFilter('gateDirection'),
    openResult: codeFilter('gateOpenResult'),
    date: dayFilter('日期'),
  }),
  gateRecordLabels,
);

/** Person records' filters: exactly the spec's query (size, pn, idCard, personName, openResult, startDate, endDate). */
export const gateRecordPersonQuery = labelled(
  pageQuery
    .extend({
      idCard: upperFilter,
      personName: optionalFilterText,
      openResult: codeFilter('gateOpenResult'),
      startDate: dayFilter('开始日期'),
      endDate: dayFilter('结束日期'),
    })
    .refine((q) => !q.startDate || !q.endDate || q.startDate <= q.endDate, { error: '结束日期不能早于开始日期', path: ['endDate'] }),
  gateRecordLabels,
);

export type GateRecordCarQuery = z.infer<typeof gateRecordCarQuery>;
export type GateRecordPersonQuery = z.infer<typeof gateRecordPersonQuery>;

/**
 * The days a list covers, as [first, last] 'YYYY-MM-DD': the vehicle list's
 * one date, or the person list's range; what the query leaves out is today
 * (a missing start is the end's day, a missing end is today or the start).
 */
export function recordDays(q: { date?: string; startDate?: string; endDate?: string }, today: string): [string, string] {
  if (q.date) return [q.date, q.date];
  const start = q.startDate ?? q.endDate ?? today;
  const end = q.endDate ?? (start > today ? start : today);
  return [start, end];
}

/** The longest range of days a person list covers, unless a whole ID number narrows it to one person's crossings (their own index). */
export const MAX_RECORD_DAYS = 31;

/** The person list's range rule beyond the schema: it needs today for an open end. */
export function recordRangeErrors(q: { idCard?: string; startDate?: string; endDate?: string }, today: string): FieldError[] {
  const [first, last] = recordDays(q, today);
  if (diffDays(first, last) < MAX_RECORD_DAYS || (q.idCard && isMainlandIdNumber(q.idCard))) return [];
  return [{ field: q.startDate ? 'startDate' : 'endDate', message: `日期范围不能超过${MAX_RECORD_DAYS}天（按完整证件号码查询时不限）` }];
}

/** A vehicle crossing as the list answers it. */
export interface GateRecordCarRow {
  id: number;
  device_id: number;
  device_name: string | null;
  event_id: string;
  license_plate: string;
  license_plate_color: number | null;
  direction: number;
  open_result: number;
  plate_image: string;
  vehicle_image: string;
  vehicle_brand: string;
  vehicle_type: string;
  vehicle_color: number | null;
  vehicle_compare_result: number | null;
  face_compare_result: number | null;
  capture_time: string;
  create_time: string;
}

/** A person crossing as the list answers it: idcard also as the spec's paper_number, direction as person_event_type. */
export interface GateRecordPersonRow {
  id: number;
  device_id: number;
  device_name: string | null;
  event_id: string;
  idcard: string;
  paper_number: string;
  person_name: string;
  card_number: string;
  card_status: number | null;
  image_type: number | null;
  direction: number;
  person_event_type: number;
  open_result: number;
  snapshot: string;
  capture_time: string;
  create_time: string;
}
