import { z } from 'zod';
import { col, defineCall } from '../contract';
import { defineRegister } from '../registers';
import { enumLabel } from '../enums';
import { MOBILE_PATTERN, PLATE_PATTERN } from '../identity';
import { isValidDate } from '../visit-rules';
import { codeField, imagesField, optionalField, optText, reqText, telephoneField } from './car-application';
import { idField, labelled, optionalFilterInt, optionalFilterText, pageQuery, recordLabels, requiredText } from './common';

/**
 * Transport waybills (运单, spec 001 §2, §3, §5, §9): a carrier's record of
 * one hazardous-goods shipment, filed as a draft, submitted and approved
 * through the waybill process. An approved one fills a hazardous-goods
 * appointment's cargo_info (DESIGN.md §7).
 */

/** Transport type (enums.transportType): 1 pick up at the park, 2 deliver to it. */
export const TransportType = { PICK_UP: 1, DELIVER: 2 } as const;

/** Spec 001 §9: the cargo is counted in tonnes. */
export const DEFAULT_CARGO_UNIT = '吨';

/**
 * The origin and destination labels of a waybill (spec 001 §2: they change
 * with the transport type). Picking up, the cargo leaves from where it is
 * collected; delivering, it goes from the sender to the consignee.
 */
export function waybillPlaceLabels(transportType: number | null | undefined): { origin: string; destination: string } {
  if (transportType === TransportType.PICK_UP) return { origin: '提货地址', destination: '送达地址' };
  if (transportType === TransportType.DELIVER) return { origin: '发货地址', destination: '收货地址' };
  return { origin: '起运地', destination: '目的地' };
}

export const transportListLabels = {
  ...recordLabels,
  id: '运单ID',
  application_number: '申请单号',
  transport_type: '运输类型',
  list_number: '全国运单编号',
  cargo_name: '货物名称',
  cargo_quantity: '货物数量',
  cargo_unit: '货物单位',
  enterprise: '承运企业',
  unified_social_credit_code: '统一社会信用代码',
  business_license_number: '道路运输经营许可证号',
  contact_phone: '企业联系电话',
  license_plate: '车牌号',
  license_plate_color: '车牌颜色',
  vehicle_transport_license: '车辆道路运输证号',
  trailer_license: '挂车号牌',
  trailer_transport_license: '挂车道路运输证号',
  tank_volume: '罐体容积',
  driver: '驾驶员',
  driver_qualification_certificate: '驾驶员从业资格证号',
  driver_phone: '驾驶员电话',
  supercargo: '押运员',
  supercargo_qualification_certificate: '押运员从业资格证号',
  supercargo_phone: '押运员电话',
  shipper: '托运人',
  shipper_phone: '托运人电话',
  recipient: '收货人',
  recipient_phone: '收货人电话',
  carrier: '承运人',
  carrier_phone: '承运人电话',
  loader: '装货人',
  loader_phone: '装货人电话',
  shipment_date: '起运日期',
  shipment_addr: '起运地',
  destination: '目的地',
  annex: '附件',
  process_instance_id: '流程实例ID',
  create_user_name: '填报人',
  shipment_begin: '起运日期（起）',
  shipment_end: '起运日期（止）',
  begin_time: '提交时间（起）',
  end_time: '提交时间（止）',
  reason: '撤销理由',
  remark: '审批意见',
};

type Label = keyof typeof transportListLabels;
const name = (field: Label) => transportListLabels[field];

/** A positive amount; digit strings from the form are numbers too. */
const amount = (field: Label, max: number, unit: string) =>
  z.preprocess(
    (v) => (v === '' || v === null ? undefined : typeof v === 'string' ? Number(v.trim()) : v),
    z
      .number({ error: (iss) => (iss.input === undefined ? `请输入${name(field)}` : `${name(field)}必须是数字`) })
      .gt(0, { error: `${name(field)}必须大于0` })
      .max(max, { error: `${name(field)}不能超过${max}${unit}` }),
  );

const mobile = (field: Label) => requiredText(`请输入${name(field)}`, 11, `${name(field)}格式不正确`).regex(MOBILE_PATTERN, { error: `${name(field)}格式不正确` });
const phone = (field: Label) => telephoneField(`请输入${name(field)}`, `${name(field)}格式不正确`);
const text = (field: Label, max: number, verb = '请输入') => reqText(`${verb}${name(field)}`, max);
const plate = (field: Label) =>
  requiredText(`请输入${name(field)}`, 10, `${name(field)}格式不正确`)
    .toUpperCase()
    .regex(PLATE_PATTERN, { error: `${name(field)}格式不正确` });

/** 'YYYY-MM-DD'; a date-time from a picker keeps its date. */
const shipmentDate = requiredText('请选择起运日期', 19, '起运日期格式不正确')
  .transform((s) => s.slice(0, 10))
  .refine(isValidDate, { error: '起运日期格式不正确' });

const fields = {
  transport_type: codeField('请选择运输类型', 'transportType'),
  list_number: text('list_number', 50),
  cargo_name: text('cargo_name', 60),
  cargo_quantity: amount('cargo_quantity', 100_000, ''),
  // Spec 001 §9: tonnes unless the form says otherwise.
  cargo_unit: optText(10).transform((s) => s || DEFAULT_CARGO_UNIT),
  enterprise: text('enterprise', 60),
  unified_social_credit_code: requiredText('请输入统一社会信用代码', 18, '统一社会信用代码格式不正确')
    .toUpperCase()
    .regex(/^[0-9A-Z]{18}$/, { error: '统一社会信用代码格式不正确' }),
  business_license_number: text('business_license_number', 50),
  contact_phone: phone('contact_phone'),
  license_plate: plate('license_plate'),
  license_plate_color: codeField('请选择车牌颜色', 'plateColor'),
  vehicle_transport_license: text('vehicle_transport_license', 50),
  // Spec 001 §5: the trailer and the tank are optional (a van has neither).
  trailer_license: optionalField(plate('trailer_license')).transform((v) => v ?? ''),
  trailer_transport_license: optText(50),
  tank_volume: optionalField(amount('tank_volume', 1000, '立方米')).transform((v) => v ?? null),
  driver: text('driver', 30),
  driver_qualification_certificate: text('driver_qualification_certificate', 50),
  driver_phone: mobile('driver_phone'),
  supercargo: text('supercargo', 30),
  supercargo_qualification_certificate: text('supercargo_qualification_certificate', 50),
  supercargo_phone: mobile('supercargo_phone'),
  shipper: text('shipper', 60),
  shipper_phone: phone('shipper_phone'),
  recipient: text('recipient', 60),
  recipient_phone: phone('recipient_phone'),
  carrier: text('carrier', 60),
  carrier_phone: phone('carrier_phone'),
  loader: text('loader', 30),
  loader_phone: phone('loader_phone'),
  shipment_date: shipmentDate,
  // At most 100: an approved waybill fills an appointment's cargo_info, whose texts stop there.
  shipment_addr: text('shipment_addr', 100),
  destination: text('destination', 100),
  annex: imagesField().refine((s) => s !== '', { error: '请上传附件' }),
};

export const transportListCreate = labelled(z.object(fields), transportListLabels);
export const transportListUpdate = labelled(z.object({ ...fields, id: idField(transportListLabels.id) }), transportListLabels);

const dateFilter = optionalField(
  z
    .string()
    .trim()
    .transform((s) => s.slice(0, 10))
    .refine(isValidDate, { error: '起运日期格式不正确' }),
);

/** The lists' filters (spec 001 §2 "not shown in detail": ours). State -1 means all. */
export const transportListQuery = labelled(
  pageQuery.extend({
    application_number: optionalFilterText,
    license_plate: optionalFilterText,
    enterprise: optionalFilterText,
    transport_type: optionalFilterInt,
    state: optionalFilterInt,
    shipment_begin: dateFilter,
    shipment_end: dateFilter,
  }),
  transportListLabels,
);

export type TransportListCreate = z.infer<typeof transportListCreate>;

/** A waybill as answered: its columns and the filer's name. */
export const transportListRow = z.object({
  id: col.id,
  application_number: col.text.nullable(),
  transport_type: col.int,
  list_number: col.text,
  cargo_name: col.text,
  cargo_quantity: col.num,
  cargo_unit: col.text,
  enterprise: col.text,
  unified_social_credit_code: col.text,
  business_license_number: col.text,
  contact_phone: col.text,
  license_plate: col.text,
  license_plate_color: col.int,
  vehicle_transport_license: col.text,
  trailer_license: col.text,
  trailer_transport_license: col.text,
  tank_volume: col.num.nullable(),
  driver: col.text,
  driver_qualification_certificate: col.text,
  driver_phone: col.text,
  supercargo: col.text,
  supercargo_qualification_certificate: col.text,
  supercargo_phone: col.text,
  shipper: col.text,
  shipper_phone: col.text,
  recipient: col.text,
  recipient_phone: col.text,
  carrier: col.text,
  carrier_phone: col.text,
  loader: col.text,
  loader_phone: col.text,
  shipment_date: col.text,
  shipment_addr: col.text,
  destination: col.text,
  annex: col.text,
  state: col.int,
  revoke_reason: col.text,
  process_instance_id: col.id.nullable(),
  create_user_id: col.id.nullable(),
  update_user_id: col.id.nullable(),
  create_user_name: col.text.nullable(),
  create_time: col.time,
  update_time: col.time,
});
export type TransportListRow = z.infer<typeof transportListRow>;

/**
 * The cargo_info of a hazardous-goods appointment (car-application.ts) that
 * an approved waybill fills: the same keys, the plate colour as its name
 * (cargo_info keeps text) and the spec 000 spelling trailer_trasport_license.
 * The UN number and tank report are not on a waybill; the form asks for them.
 */
export function waybillCargoInfo(r: TransportListRow): Record<string, string | number | null> {
  return {
    cargo_name: r.cargo_name,
    cargo_quantity: r.cargo_quantity,
    cargo_unit: r.cargo_unit,
    enterprise: r.enterprise,
    unified_social_credit_code: r.unified_social_credit_code,
    business_license_number: r.business_license_number,
    contact_phone: r.contact_phone,
    license_plate_color: enumLabel('plateColor', r.license_plate_color),
    vehicle_transport_license: r.vehicle_transport_license,
    trailer_license: r.trailer_license,
    trailer_trasport_license: r.trailer_transport_license,
    tank_volume: r.tank_volume,
    driver: r.driver,
    driver_qualification_certificate: r.driver_qualification_certificate,
    driver_phone: r.driver_phone,
    supercargo: r.supercargo,
    supercargo_qualification_certificate: r.supercargo_qualification_certificate,
    supercargo_phone: r.supercargo_phone,
    shipper: r.shipper,
    shipper_phone: r.shipper_phone,
    recipient: r.recipient,
    recipient_phone: r.recipient_phone,
    carrier: r.carrier,
    carrier_phone: r.carrier_phone,
    shipment_date: r.shipment_date,
    shipment_addr: r.shipment_addr,
    destination: r.destination,
    annex: r.annex,
  };
}

/** A cargo_info as a waybill fills it: text, the amounts as numbers, the tank volume null when there is none. */
const cargoInfo = z.record(z.string(), z.union([col.text, col.num]).nullable());

/** An approved waybill as the appointment form offers it, and the cargo_info a hazardous-goods appointment takes from it. */
export const waybillOption = z.object({
  id: col.id,
  application_number: col.text,
  license_plate: col.text,
  cargo_name: col.text,
  shipment_date: col.text,
  cargo_info: cargoInfo,
});
export type WaybillOption = z.infer<typeof waybillOption>;

const waybillOptionsQuery = labelled(z.object({ license_plate: optionalFilterText }), transportListLabels);

/**
 * 运单 on the wire (spec 001 §2, §7): the filer's own list is the history
 * (运单记录); get, save, edit, push and delete are ours (the spec names
 * none). Its all-history (运单总记录) lists and revokes with its own codes.
 */
export const transportListApi = {
  ...defineRegister({
    noun: '运单',
    labels: transportListLabels,
    row: transportListRow,
    queue: 'transport',
    wrapper: 'transportList',
    paths: {
      list: '/transportList/history',
      get: '/transportList/get',
      detail: '/transportList/detail',
      save: '/transportList/save',
      edit: '/transportList/edit',
      push: '/transportList/push',
      delete: '/transportList/delete',
      revoke: '/transportList/revoke',
      urge: '/transportList/urge',
      processInfo: '/transportList/checkProcessInfo',
      taskPage: '/transportList/taskPage',
      taskCheck: '/transportList/check',
    },
    codes: {
      list: 'menu:transportListHis',
      add: 'transportListHis:add',
      edit: 'transportListHis:edit',
      delete: 'transportListHis:delete',
      commit: 'transportListHis:commit',
      revoke: 'transportListHis:revoke',
    },
    schemas: { list: transportListQuery, create: transportListCreate, update: transportListUpdate },
    taskFilters: ['application_number', 'license_plate', 'enterprise'],
    histories: {
      all: { summary: '运单总记录', list: '/transportList/list', permission: 'menu:allTransportListHis', revoke: { path: '/transportList/revokeForHis', permission: 'allTransportListHis:revoke' } },
    },
  }),
  // Only the caller's own rows, so any role may ask: the appointment form fills cargo_info from one (DESIGN.md §7).
  approvedOptions: defineCall({
    method: 'POST',
    path: '/transportList/approvedOptions',
    permission: 'role',
    summary: '本人已通过的运单（供危险货物预约填写货物信息）',
    input: waybillOptionsQuery,
    answer: z.array(waybillOption),
  }),
};
