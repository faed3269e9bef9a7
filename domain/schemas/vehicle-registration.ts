import { z } from 'zod';
import { col, defineCall, none } from '../contract';
import { defineRegister, registerQueues, standardPaths } from '../registers';
import { PLATE_PATTERN } from '../identity';
import { addMonths, dateOf, isValidDate, type FieldError } from '../visit-rules';
import { always, codeField, filterTimeField, imagesField, mobileField, optionalField, optText, reqText, visitTimeField } from './car-application';
import { idField, labelled, optionalFilterInt, optionalFilterText, pageQuery, recordLabels, requiredText } from './common';

/**
 * Vehicle registrations (车辆备案, spec 001 §2, §3, §5, §9): a vehicle's
 * documents filed by an enterprise contact and approved through the
 * registration process. An approved registration whose begin..end covers a
 * visit lets a vehicle model with need_record = 1 be booked (DESIGN.md §7).
 */

/** The document image fields, each with its label and the most images it takes (spec 001 §5). */
export const registrationDocuments = [
  ['registry_img', '车辆登记证书', 10],
  ['business_license_img', '营业执照', 10],
  ['company_road_transport_img', '企业道路运输经营许可证', 300],
  ['legal_person_idcard_img', '法人身份证', 300],
  ['driver_info_img', '驾驶员信息', 300],
  ['supercargo_info_img', '押运员信息', 300],
  ['driving_permit_img', '行驶证', 300],
  ['road_transport_img', '道路运输证', 300],
  ['compulsory_insurance_img', '交强险', 300],
  ['commercial_insurance_img', '商业险', 300],
  ['carrier_liability_insurance_img', '承运人责任险', 300],
  ['report_instruction_img', '检测报告或情况说明', 300],
  ['commitment_letter_img', '承诺书', 300],
  ['gps_instruction_img', 'GPS安装说明', 30],
] as const;
export type RegistrationDocument = (typeof registrationDocuments)[number][0];

/** The validity date pairs of the permits and the tank report. */
const validityPairs = [
  ['company_road_transport_begin', 'company_road_transport_end'],
  ['road_transport_begin', 'road_transport_end'],
  ['tank_report_begin', 'tank_report_end'],
] as const;

export const vehicleRegistrationLabels = {
  ...recordLabels,
  id: '备案ID',
  car_application_id: '备案ID',
  process_instance_id: '流程实例ID',
  application_number: '受理编号',
  visit_area: '备案园区',
  visitor_company: '来访单位',
  license_plate: '车牌号',
  license_plate_color: '车牌颜色',
  total_mass: '总质量',
  phone: '手机号',
  begin_time: '备案开始时间',
  end_time: '备案结束时间',
  ...(Object.fromEntries(registrationDocuments.map(([k, label]) => [k, label])) as Record<RegistrationDocument, string>),
  company_road_transport_number: '企业道路运输经营许可证号',
  company_road_transport_begin: '企业道路运输经营许可证有效期（起）',
  company_road_transport_end: '企业道路运输经营许可证有效期（止）',
  road_transport_number: '道路运输证号',
  road_transport_begin: '道路运输证有效期（起）',
  road_transport_end: '道路运输证有效期（止）',
  tank_number: '罐体编号',
  tank_volume: '罐体容积',
  tank_medium_range: '罐体介质范围',
  tank_report_begin: '罐体检测报告有效期（起）',
  tank_report_end: '罐体检测报告有效期（止）',
  create_user_name: '填报人',
  reason: '撤销理由',
  remark: '审批意见',
};

type Label = keyof typeof vehicleRegistrationLabels;
const name = (field: Label) => vehicleRegistrationLabels[field];

/** The hint under an appointment's model when that model needs a registration (DESIGN.md §7). */
export const NEEDS_REGISTRATION_HINT = '该车型需已备案且备案有效期覆盖来访日期，否则无法提交';

/** The 409 of a submit or resume when no approved registration of the plate covers the visit. */
export const registrationMissingMessage = (plate: string) => `车辆（${plate}）未备案或备案不在来访日期内，不能提交`;

/** A number not below 0; digit strings from the form are numbers too. */
const nonNegative = (field: Label, required: boolean) => {
  const n = z.preprocess(
    (v) => (v === '' || v === null ? undefined : typeof v === 'string' ? Number(v.trim()) : v),
    z
      .number({ error: (iss) => (iss.input === undefined ? `请输入${name(field)}` : `${name(field)}必须是不小于0的数字`) })
      .min(0, { error: `${name(field)}必须是不小于0的数字` })
      .max(1_000_000, { error: `${name(field)}不能超过1000000` }),
  );
  return required ? n : optionalField(n);
};

/** An optional validity date 'YYYY-MM-DD' (a date-time from a picker keeps its date); '' and null mean none. */
const validityDate = (field: Label) =>
  optionalField(
    z
      .string({ error: `${name(field)}格式不正确` })
      .trim()
      .transform((s) => s.slice(0, 10))
      .refine(isValidDate, { error: `${name(field)}格式不正确` }),
  ).transform((v) => v ?? null);

const documents = Object.fromEntries(registrationDocuments.map(([k, , max]) => [k, imagesField(max)])) as Record<RegistrationDocument, ReturnType<typeof imagesField>>;

const fields = {
  license_plate: requiredText('请输入车牌号', 10, '车牌号格式不正确').toUpperCase().regex(PLATE_PATTERN, { error: '车牌号格式不正确' }),
  license_plate_color: optionalField(codeField('请选择车牌颜色', 'plateColor')).transform((v) => v ?? null),
  visit_area: codeField('请选择备案园区', 'visitArea'),
  visitor_company: reqText('请输入来访单位', 60),
  phone: mobileField('请输入手机号'),
  total_mass: nonNegative('total_mass', true),
  begin_time: visitTimeField('begin', '请选择备案开始时间', '备案开始时间格式不正确'),
  end_time: visitTimeField('end', '请选择备案结束时间', '备案结束时间格式不正确'),
  ...documents,
  company_road_transport_number: optText(50),
  company_road_transport_begin: validityDate('company_road_transport_begin'),
  company_road_transport_end: validityDate('company_road_transport_end'),
  road_transport_number: optText(50),
  road_transport_begin: validityDate('road_transport_begin'),
  road_transport_end: validityDate('road_transport_end'),
  tank_number: optText(50),
  tank_volume: nonNegative('tank_volume', false).transform((v) => v ?? null),
  tank_medium_range: optText(200),
  tank_report_begin: validityDate('tank_report_begin'),
  tank_report_end: validityDate('tank_report_end'),
};

/**
 * The registration's own span (DESIGN.md §7): the end not before the begin,
 * at most one year. Pure, so the form and the schema hold it too.
 */
export function registrationSpanErrors(v: { begin_time?: unknown; end_time?: unknown }): FieldError[] {
  if (typeof v.begin_time !== 'string' || typeof v.end_time !== 'string' || !v.begin_time || !v.end_time) return [];
  if (v.end_time < v.begin_time) return [{ field: 'end_time', message: '备案结束时间不能早于备案开始时间' }];
  if (dateOf(v.end_time) > addMonths(dateOf(v.begin_time), 12)) return [{ field: 'end_time', message: '备案有效期不能超过1年' }];
  return [];
}

/** The span, and an end that has not passed already: a registration that is over could never cover a visit. */
export function registrationDateErrors(v: { begin_time: string; end_time: string }, today: string): FieldError[] {
  const errors = registrationSpanErrors(v);
  if (!errors.length && dateOf(v.end_time) < dateOf(today)) errors.push({ field: 'end_time', message: '备案结束时间不能早于今天' });
  return errors;
}

/** The order of each validity pair, where both ends are given. */
function validityErrors(v: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [begin, end] of validityPairs) {
    const b = v[begin];
    const e = v[end];
    if (typeof b === 'string' && typeof e === 'string' && e < b) errors.push({ field: end, message: '结束日期不能早于开始日期' });
  }
  return errors;
}

/** The cross-field rules as issues on their fields; skipped for a field that already failed its own rule. */
const crossChecks = (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const failed = new Set(ctx.issues.map((i) => String(i.path?.[0] ?? '')));
  // A field that failed its own rule holds no value to compare.
  const valid = Object.fromEntries(Object.entries(v).filter(([k]) => !failed.has(k)));
  for (const e of [...registrationSpanErrors(valid), ...validityErrors(valid)]) ctx.addIssue({ code: 'custom', path: [e.field], message: e.message });
};

export const vehicleRegistrationCreate = labelled(z.object(fields).superRefine(crossChecks, always), vehicleRegistrationLabels);
export const vehicleRegistrationUpdate = labelled(z.object({ ...fields, id: idField(name('id')) }).superRefine(crossChecks, always), vehicleRegistrationLabels);

/** Spec 001 §2, §9: registered park 3 (both) and status -1 (all) by default; 3 filters nothing. */
export const REGISTRATION_AREA_ALL = 3;
const areaFilter = z.preprocess((v) => (v === undefined || v === null || v === '' ? REGISTRATION_AREA_ALL : v), optionalFilterInt);

/** The list and history query: acceptance number, plate, visiting company, park, state, and the validity overlapping a time range. */
export const vehicleRegistrationQuery = labelled(
  pageQuery.extend({
    application_number: optionalFilterText,
    license_plate: optionalFilterText,
    visitor_company: optionalFilterText,
    visit_area: areaFilter,
    state: optionalFilterInt,
    begin_time: filterTimeField('begin'),
    end_time: filterTimeField('end'),
  }),
  vehicleRegistrationLabels,
);
/** The queue's own filters beside its text ones (approvable.ts taskFilters): the park. */
export const registrationTaskFilters = { visit_area: areaFilter };

/** The approver's visit-date check and amend (spec 001 §7): `id`, or `car_application_id` as the original screen sends it. */
const amendIds = {
  id: optionalField(idField(name('id'))),
  car_application_id: optionalField(idField(name('id'))),
  process_instance_id: idField(name('process_instance_id')),
};
const oneId = <T extends { id?: number; car_application_id?: number }>(v: T, ctx: z.RefinementCtx) => {
  if (v.id === undefined && v.car_application_id === undefined) ctx.addIssue({ code: 'custom', path: ['id'], message: '请提供备案ID' });
};
const withId = <T extends { id?: number; car_application_id?: number }>(v: T) => ({ ...v, id: (v.id ?? v.car_application_id)! });

export const registrationCanAmendBody = labelled(z.object(amendIds).superRefine(oneId).transform(withId), vehicleRegistrationLabels);
export const registrationAmendBody = labelled(
  z
    .object({ ...amendIds, begin_time: fields.begin_time, end_time: fields.end_time })
    .superRefine(oneId)
    .superRefine(crossChecks, always)
    .transform(withId),
  vehicleRegistrationLabels,
);

/** A registration as answered: its columns, and the filer's name both flat and as spec 001 §3 names it (createUser.user_name). */
export const vehicleRegistrationRow = z.object({
  id: col.id,
  application_number: col.text.nullable(),
  visit_area: col.int,
  visitor_company: col.text,
  license_plate: col.text,
  license_plate_color: col.int.nullable(),
  total_mass: col.num.nullable(),
  phone: col.text,
  begin_time: col.time,
  end_time: col.time,
  ...(Object.fromEntries(registrationDocuments.map(([k]) => [k, col.text])) as Record<RegistrationDocument, typeof col.text>),
  company_road_transport_number: col.text,
  company_road_transport_begin: col.text.nullable(),
  company_road_transport_end: col.text.nullable(),
  road_transport_number: col.text,
  road_transport_begin: col.text.nullable(),
  road_transport_end: col.text.nullable(),
  tank_number: col.text,
  tank_volume: col.num.nullable(),
  tank_medium_range: col.text,
  tank_report_begin: col.text.nullable(),
  tank_report_end: col.text.nullable(),
  state: col.int,
  revoke_reason: col.text,
  process_instance_id: col.id.nullable(),
  create_user_id: col.id.nullable(),
  update_user_id: col.id.nullable(),
  create_user_name: col.text.nullable(),
  createUser: z.object({ user_name: col.text }).nullable(),
  create_time: col.time,
  update_time: col.time,
});
export type VehicleRegistrationRow = z.infer<typeof vehicleRegistrationRow>;

/** The registration queue: the approver's date amend is its check code's (spec 001 §2, §4). */
const QUEUE = 'registration';

/** 车辆备案 on the wire (spec 001 §2, §7): the filer's own register, its history (车辆备案记录) and its queue. */
export const vehicleRegistrationApi = {
  ...defineRegister({
    noun: '车辆备案',
    labels: vehicleRegistrationLabels,
    row: vehicleRegistrationRow,
    queue: QUEUE,
    wrapper: 'vehicleRegistration',
    paths: standardPaths('/vehicleRegistration'),
    codes: {
      list: 'carRegistration:list',
      add: 'carRegistration:add',
      edit: 'carRegistration:edit',
      delete: 'carRegistration:delete',
      commit: 'carRegistration:commit',
      revoke: 'carRegistration:revoke',
    },
    schemas: { list: vehicleRegistrationQuery, create: vehicleRegistrationCreate, update: vehicleRegistrationUpdate },
    taskFilters: ['application_number', 'license_plate', 'visitor_company'],
    taskShape: registrationTaskFilters,
    histories: {
      history: {
        summary: '车辆备案记录',
        list: '/vehicleRegistration/history/list',
        detail: '/vehicleRegistration/history/detail',
        permission: 'carRegistrationHistory:list',
        revoke: { path: '/vehicleRegistration/history/revoke', permission: 'carRegistrationHistory:revoke' },
      },
    },
  }),
  // 'role': the answer is a boolean for anyone, false without the queue's check code.
  canAmend: defineCall({ method: 'POST', path: '/vehicleRegistration/canAmend', permission: 'role', summary: '能否修改车辆备案的有效期', input: registrationCanAmendBody, answer: z.boolean() }),
  amend: defineCall({
    method: 'POST',
    path: '/vehicleRegistration/amend',
    permission: registerQueues[QUEUE].check,
    summary: '审批中修改车辆备案的有效期',
    operation: '修改车辆备案有效期',
    input: registrationAmendBody,
    answer: none,
  }),
};
