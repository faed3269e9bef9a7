import { z } from 'zod';
import { col, defineCall, pageOf } from '../contract';
import { enums, type EnumName, type EnumOption } from '../enums';
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
  deviated: '路线情况',
  hazmat: '危化品',
  waybill_number: '运单号',
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
    deviated: optionalFilterInt.refine((v) => v === undefined || v === 0 || v === 1, { error: '只能是0（正常）、1（偏离路线）' }),
    hazmat: optionalFilterInt.refine((v) => v === undefined || v === 0 || v === 1, { error: '只能是0（否）、1（是）' }),
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

/** Both lists' own columns, and the device's name (deleted devices keep theirs). */
const sharedColumns = {
  id: col.id,
  device_id: col.id,
  device_name: col.text.nullable(),
  event_id: col.text,
  direction: col.int,
  open_result: col.int,
  capture_time: col.time,
  create_time: col.time,
};

/** A vehicle crossing as the list answers it. */
export const gateRecordCarRow = z.object({
  ...sharedColumns,
  license_plate: col.text,
  license_plate_color: col.int.nullable(),
  plate_image: col.text,
  vehicle_image: col.text,
  vehicle_brand: col.text,
  vehicle_type: col.text,
  vehicle_color: col.int.nullable(),
  vehicle_compare_result: col.int.nullable(),
  face_compare_result: col.int.nullable(),
  /** 1: at a gate off the published route of the visit's department (issue 27). */
  deviated: col.flag,
  /** 1: the visit's vehicle model is hazardous, stamped when the crossing was stored (docs/decisions.md). */
  hazmat: col.flag,
  /** The waybill (全国运单编号) covering that day when hazmat, else ''. */
  waybill_number: col.text,
});
export type GateRecordCarRow = z.infer<typeof gateRecordCarRow>;

/** A person crossing as the list answers it: idcard (masked unless the reader may see it whole) also as the spec's paper_number, direction as person_event_type. */
export const gateRecordPersonRow = z.object({
  ...sharedColumns,
  idcard: col.text,
  paper_number: col.text,
  person_name: col.text,
  card_number: col.text,
  card_status: col.int.nullable(),
  image_type: col.int.nullable(),
  person_event_type: col.int,
  snapshot: col.text,
});
export type GateRecordPersonRow = z.infer<typeof gateRecordPersonRow>;

/** A vehicle barrier as the gate filter offers it. */
export const gateOption = z.object({ id: col.id, name: col.text, number: col.text });
export type GateOption = z.infer<typeof gateOption>;

/** 路线情况 of a vehicle crossing (issue 27). */
export const deviatedOptions: EnumOption[] = [
  { value: 0, label: '正常', color: 'default' },
  { value: 1, label: '偏离路线', color: 'danger' },
];

/** 危化品 of a vehicle crossing: its visit's model is hazardous. */
export const hazmatOptions: EnumOption[] = [
  { value: 0, label: '否', color: 'default' },
  { value: 1, label: '是', color: 'danger' },
];

/** Who reads each list (spec 001 §6). */
export const GATE_RECORD_CODES = { car: 'vehicleGateCrosRecords:list', person: 'personGateCrosRecords:list' } as const;

const recordPage = <Q extends z.ZodType, R extends z.ZodType>(noun: string, path: string, permission: (typeof GATE_RECORD_CODES)[keyof typeof GATE_RECORD_CODES], input: Q, row: R) =>
  defineCall({ method: 'POST', path, permission, summary: `${noun}列表（按抓拍日期，默认当天）`, input, answer: pageOf(row) });

/** 过闸记录 on the wire (spec 001 §7): each kind's page, and the vehicle list's gate filter choices. */
export const gateRecordApi = {
  car: recordPage('车辆过闸记录', '/device/record/car/page', GATE_RECORD_CODES.car, gateRecordCarQuery, gateRecordCarRow),
  person: recordPage('人员过闸记录', '/device/record/person/page', GATE_RECORD_CODES.person, gateRecordPersonQuery, gateRecordPersonRow),
  // The park's vehicle barriers, for whoever reads the vehicle records (the equipment list is another code's).
  gates: defineCall({ method: 'POST', path: '/device/record/car/gates', permission: GATE_RECORD_CODES.car, summary: '车辆过闸记录的闸机筛选项', input: z.object({}), answer: z.array(gateOption) }),
};
