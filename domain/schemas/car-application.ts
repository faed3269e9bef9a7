/**
 * Vehicle appointment (car application) payloads, spec 000 §3, §5 and §7.
 * Field names are the spec's snake_case wire names, which are also the columns.
 *
 * The field builders shared with person-application.ts live here (ID numbers,
 * phones, visit times, image lists, the approval bodies).
 */
import { z } from 'zod';
import { col } from '../contract';
import { APPROVED_TEXT, TaskResult, isDumpTruckModel } from '../appointments';
import { MAX_PAGE_SIZE } from '../envelope';
import { enums, type EnumName } from '../enums';
import { normaliseVisitTime, type FieldError } from '../visit-rules';
import { choice01, idField, idNumber, intField, labelled, optionalFilterInt, optionalFilterText, optionalText, pageQuery, recordLabels, requiredText } from './common';

// ---------------------------------------------------------------- shared field builders

export { MOBILE_PATTERN, OTHER_DOCUMENT_PATTERN, PLATE_PATTERN, TELEPHONE_PATTERN, idNumberError, isMainlandIdNumber } from '../identity';
import { MOBILE_PATTERN, PLATE_PATTERN, TELEPHONE_PATTERN, idNumberError } from '../identity';
export const MAX_IMAGES = 20;
export const MAX_LABEL_PHOTOS = 9;
export const MAX_CAR_PERSONS = 10;

const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
/** Makes a field optional where '' and null also mean "not given". */
export const optionalField = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** A value of one of the code tables in enums.ts. */
export const codeField = (required: string, table: EnumName) => intField(required).refine((n) => enums[table].some((o) => o.value === n), { error: required });

const maxMsg = (n: number) => `不能超过${n}个文字`;
export const reqText = (required: string, max: number) => requiredText(required, max, maxMsg(max));
export const optText = (max: number) => optionalText(max, maxMsg(max));

export const mobileField = (required: string) => requiredText(required, 11, '手机号格式不正确').regex(MOBILE_PATTERN, { error: '手机号格式不正确' });
export const telephoneField = (required: string, invalid: string) => requiredText(required, 20, invalid).regex(TELEPHONE_PATTERN, { error: invalid });

/** Document number; its format depends on the sibling document type, checked by idNumberCheck. */
export const idNumberField = () => requiredText('请输入证件号码', 30, '身份证号格式不正确').transform((s) => s.toUpperCase());

/**
 * Object-level check of a document number against its type. Runs even when
 * other fields failed, so the form shows every broken field at once.
 */
export function idNumberCheck(numberKey: string, typeKey: string) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const num = value[numberKey];
    const type = value[typeKey];
    if (typeof num !== 'string' || num === '') return;
    if (ctx.issues.some((i) => i.path?.[0] === numberKey || i.path?.[0] === typeKey)) return;
    const message = idNumberError(typeof type === 'number' ? type : null, num);
    if (message) ctx.addIssue({ code: 'custom', path: [numberKey], message });
  };
}
export const always = { when: () => true };

/** 'YYYY-MM-DD HH:mm:ss'; a plain date is the start or the end of its day. */
export const visitTimeField = (edge: 'begin' | 'end', required = '请选择来访时间', invalid = '来访时间格式不正确') =>
  z
    .string({ error: required })
    .trim()
    .min(1, { error: required })
    .transform((s, ctx) => {
      const v = normaliseVisitTime(s, edge);
      if (v === null) {
        ctx.addIssue({ code: 'custom', message: invalid });
        return z.NEVER;
      }
      return v;
    });

/** Optional time-range filter: '' or absent means no bound. */
export const filterTimeField = (edge: 'begin' | 'end') => optionalField(visitTimeField(edge, '时间格式不正确', '时间格式不正确'));

/**
 * A photo still only on the device: the image field keeps an object URL in
 * its value while offline (src/lib/files.ts). Only the outbox can send those.
 */
export const isLocalPhoto = (part: string): boolean => part.startsWith('blob:');
export const PHOTOS_NOT_UPLOADED = '有照片尚未上传，请联网后重试';

/**
 * Uploaded file names joined by ';' (spec 000 §3). Arrays are accepted and
 * joined; empty parts are dropped. The result is '' when nothing is uploaded.
 */
export const imagesField = (max = MAX_IMAGES) =>
  z
    .preprocess((v) => (v === undefined || v === null ? '' : Array.isArray(v) ? v.join(';') : v), z.string({ error: '图片格式不正确' }))
    .transform((s) =>
      s
        .split(';')
        .map((p) => p.trim())
        .filter(Boolean),
    )
    .refine((parts) => !parts.some(isLocalPhoto), { error: PHOTOS_NOT_UPLOADED })
    .refine((parts) => parts.length <= max, { error: `最多上传${max}张图片` })
    .refine((parts) => parts.every((p) => p.length <= 255), { error: '图片文件名过长' })
    .transform((parts) => parts.join(';'));

export const imageCount = (images: string | null | undefined) => (images ? images.split(';').filter((p) => p.trim()).length : 0);

/** Comma-joined ids (or a single number, or an array) → number[]. */
export const idListField = (empty: string) =>
  z.preprocess(
    (v) => {
      if (typeof v === 'number') return [v];
      if (typeof v !== 'string') return v ?? [];
      const parts = v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      // One bad part fails the whole list, so the message lands on the field itself.
      return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : null;
    },
    // A batch is chosen from one page of a list, so it is never longer than the largest page.
    z
      .array(idNumber(empty), { error: empty })
      .min(1, { error: empty })
      .max(MAX_PAGE_SIZE, { error: `一次最多选择${MAX_PAGE_SIZE}条` }),
  );

/** A JSON-encoded object is accepted as well (the column stores it as text). */
const jsonObject = (v: unknown) => {
  if (typeof v !== 'string') return blankToUndefined(v);
  if (v.trim() === '') return undefined;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};

// ---------------------------------------------------------------- application form

export const dumpTruckFileKeys = ['driver_license', 'driving_license', 'compulsory_insurance', 'commercial_insurance', 'excess_insurance', 'commitment_letter', 'monitor_return_receipt'] as const;
export type DumpTruckFileKey = (typeof dumpTruckFileKeys)[number];

export const dumpTruckFileLabels: Record<DumpTruckFileKey, string> = {
  driver_license: '驾驶证',
  driving_license: '行驶证',
  compulsory_insurance: '交强险',
  commercial_insurance: '商业险',
  excess_insurance: '超赔险',
  commitment_letter: '承诺书',
  monitor_return_receipt: '监控回执',
};
/** Spec 000 §3: every document but the monitoring receipt is required. */
export const requiredDumpTruckFiles = dumpTruckFileKeys.filter((k) => k !== 'monitor_return_receipt');

const dumpTruckFile = z.preprocess(
  jsonObject,
  z.object(Object.fromEntries(dumpTruckFileKeys.map((k) => [k, imagesField()])) as Record<DumpTruckFileKey, ReturnType<typeof imagesField>>, { error: '自卸车资料格式不正确' }).optional(),
);

/** Hazardous cargo (spec 000 §3). The text fields are all optional here; cargoInfoErrors says which a hazardous load needs. */
const cargoTextKeys = [
  'cargo_number',
  'cargo_name',
  'cargo_unit',
  'enterprise',
  'unified_social_credit_code',
  'business_license_number',
  'license_plate_color',
  'vehicle_transport_license',
  'trailer_license',
  'trailer_trasport_license',
  'tank_report',
  'driver',
  'driver_qualification_certificate',
  'supercargo',
  'supercargo_qualification_certificate',
  'shipper',
  'recipient',
  'carrier',
  'shipment_date',
  'shipment_addr',
  'destination',
] as const;
const cargoPhoneKeys = ['contact_phone', 'driver_phone', 'supercargo_phone', 'shipper_phone', 'recipient_phone', 'carrier_phone'] as const;
const nonNegative = (msg: string) => optionalField(z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), z.number({ error: msg }).min(0, { error: msg })));
const optionalPhone = optionalField(z.string().trim().regex(TELEPHONE_PATTERN, { error: '电话格式不正确' }));

const cargoInfo = z.preprocess(
  jsonObject,
  z
    .object(
      {
        ...(Object.fromEntries(cargoTextKeys.map((k) => [k, optText(100)])) as Record<(typeof cargoTextKeys)[number], ReturnType<typeof optText>>),
        ...(Object.fromEntries(cargoPhoneKeys.map((k) => [k, optionalPhone])) as Record<(typeof cargoPhoneKeys)[number], typeof optionalPhone>),
        cargo_quantity: nonNegative('货物数量必须是不小于0的数字'),
        tank_volume: nonNegative('罐体容积必须是不小于0的数字'),
        annex: imagesField(),
      },
      { error: '危险货物信息格式不正确' },
    )
    .optional(),
);

/** The fields a hazardous load must carry, with their messages. */
export const requiredCargoInfo: Array<[key: string, message: string]> = [
  ['cargo_name', '请输入货物名称'],
  ['cargo_quantity', '请输入货物数量'],
  ['cargo_unit', '请选择货物单位'],
  ['enterprise', '请输入托运企业'],
  ['driver', '请输入驾驶员姓名'],
  ['driver_phone', '请输入驾驶员电话'],
];

const carPerson = z
  .object({
    car_person_id: optionalField(intField('司乘人员ID不正确')),
    name: optText(30),
    idcard_type: optionalField(codeField('请选择证件类型', 'idcardType')),
    id_card: optionalText(30, '证件号码格式不正确').transform((s) => s.toUpperCase()),
    gender: optionalField(choice01('请选择性别')),
    phone: optionalField(z.string().trim().regex(MOBILE_PATTERN, { error: '手机号格式不正确' })),
    type: optionalField(codeField('请选择人员类型', 'driverType')),
    face_photo: imagesField(1),
    pqc_number: optText(50),
  })
  .superRefine(idNumberCheck('id_card', 'idcard_type'), always);

const carFields = {
  license_plate: requiredText('请输入车牌号', 10, '车牌号格式不正确').toUpperCase().regex(PLATE_PATTERN, { error: '车牌号格式不正确' }),
  license_plate_color: codeField('请选择车牌颜色', 'plateColor'),
  vehicle_type_id: intField('请选择车型').pipe(z.number().min(1, { error: '请选择车型' })),
  applicant_name: reqText('请输入申请人姓名', 30),
  applicant_idcard: idNumberField(),
  applicant_gender: choice01('请选择性别'),
  applicant_phone: mobileField('请输入手机号'),
  applicant_face_photo: imagesField(1),
  visitor_idcard_type: codeField('请选择证件类型', 'idcardType'),
  visit_area: codeField('请选择园区', 'visitArea'),
  visitor_type: codeField('请选择申请类型', 'carVisitorType'),
  visitor_company: reqText('请输入来访单位', 50),
  visitor_content: reqText('请输入来访事由', 200),
  visitor_begin_time: visitTimeField('begin'),
  visitor_end_time: visitTimeField('end'),
  interviewee_name: reqText('请输入被访人姓名', 30),
  interviewee_phone: telephoneField('请输入被访人电话', '被访人电话格式不正确'),
  interviewee_depart_id: intField('请选择被访部门').pipe(z.number().min(1, { error: '请选择被访部门' })),
  vehicle_license_number: optText(50),
  engine_number: optText(50),
  trailer_license: optText(20),
  cargo_type: optionalField(choice01('请选择货物类型')),
  cargo_name: optText(50),
  car_load: nonNegative('载重必须是不小于0的数字'),
  remark: optText(200),
  vehicle_img: imagesField(),
  img12123: imagesField(),
  blind_video_photo: imagesField(),
  register_record_photo: imagesField(),
  dump_truck_file: dumpTruckFile,
  cargo_info: cargoInfo,
  carPersonList: optionalField(z.array(carPerson, { error: '司乘人员格式不正确' }).max(MAX_CAR_PERSONS, { error: `最多添加${MAX_CAR_PERSONS}名司乘人员` })),
};

const applicantIdCheck = idNumberCheck('applicant_idcard', 'visitor_idcard_type');
export const carApplicationSave = z.object(carFields).superRefine(applicantIdCheck, always);
export const carApplicationEdit = z.object({ ...carFields, car_application_id: idField('车辆预约ID') }).superRefine(applicantIdCheck, always);

export type CarApplicationSave = z.infer<typeof carApplicationSave>;
export type CarApplicationSaveInput = z.input<typeof carApplicationSave>;
export type CarApplicationEdit = z.infer<typeof carApplicationEdit>;
export type CarApplicationEditInput = z.input<typeof carApplicationEdit>;
export type CargoInfo = NonNullable<CarApplicationSave['cargo_info']>;
export type DumpTruckFile = NonNullable<CarApplicationSave['dump_truck_file']>;
export type CarPerson = z.infer<typeof carPerson>;

// ---------------------------------------------------------------- model-dependent rules (spec 000 §5)

export interface VehicleModelFlags {
  name: string;
  need_blind_video: number;
  need_record: number;
  show_cargo_type: number;
}

const cargoKeys = ['cargo_type', 'cargo_name', 'car_load', 'cargo_info'] as const;

/** Drops the cargo fields when the model does not show them, so they are never stored. */
export function stripHiddenCargo<T extends object>(values: T, model: Pick<VehicleModelFlags, 'show_cargo_type'> | null): T {
  if (!model || model.show_cargo_type !== 0) return values;
  const copy = { ...values } as Record<string, unknown>;
  for (const k of cargoKeys) delete copy[k];
  return copy as T;
}

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Required hazardous-cargo fields; errors name the nested field as 'cargo_info.<key>'. */
export function cargoInfoErrors(info: Record<string, unknown> | null | undefined): FieldError[] {
  if (!info) return [{ field: 'cargo_info', message: '请填写危险货物信息' }];
  return requiredCargoInfo.filter(([k]) => blank(info[k])).map(([k, message]) => ({ field: `cargo_info.${k}`, message }));
}

export interface CarRuleValues {
  blind_video_photo?: string | null;
  register_record_photo?: string | null;
  dump_truck_file?: Partial<Record<DumpTruckFileKey, string | null>> | null;
  cargo_type?: number | null;
  cargo_info?: Record<string, unknown> | null;
}

/** The rules that depend on the chosen vehicle model and on cargo_type. */
export function carApplicationRuleErrors(values: CarRuleValues, model: VehicleModelFlags | null): FieldError[] {
  const errors: FieldError[] = [];
  const v = stripHiddenCargo(values, model);
  if (model?.need_blind_video === 1 && imageCount(v.blind_video_photo) === 0) {
    errors.push({ field: 'blind_video_photo', message: '请上传盲区视频监控图片' });
  }
  if (model?.need_record === 1 && imageCount(v.register_record_photo) === 0) {
    errors.push({ field: 'register_record_photo', message: '请上传备案登记照片' });
  }
  if (model && isDumpTruckModel(model.name)) {
    for (const k of requiredDumpTruckFiles) {
      if (imageCount(v.dump_truck_file?.[k]) === 0) errors.push({ field: `dump_truck_file.${k}`, message: `请上传${dumpTruckFileLabels[k]}` });
    }
  }
  if (v.cargo_type === 1) errors.push(...cargoInfoErrors(v.cargo_info));
  return errors;
}

// ---------------------------------------------------------------- lists and queues

const timeRange = { begin_time: filterTimeField('begin'), end_time: filterTimeField('end') };

export const carApplicationListQuery = pageQuery.extend({
  application_number: optionalFilterText,
  license_plate: optionalFilterText,
  applicant_name: optionalFilterText,
  applicant_phone: optionalFilterText,
  applicant_idcard: optionalFilterText,
  visitor_company: optionalFilterText,
  interviewee_name: optionalFilterText,
  interviewee_phone: optionalFilterText,
  visit_area: optionalFilterInt,
  state: optionalFilterInt,
  visitor_type: optionalFilterInt,
  is_delayed: optionalFilterInt,
  ...timeRange,
});

/** Spec 000 §2 queue filters. The park filter's default of 1 is the screen's; absent here means every park. */
export const carTaskQuery = pageQuery.extend({
  application_number: optionalFilterText,
  license_plate: optionalFilterText,
  visitor_company: optionalFilterText,
  interviewee_name: optionalFilterText,
  interviewee_phone: optionalFilterText,
  interviewee_depart_id: optionalFilterInt,
  applicant_name: optionalFilterText,
  applicant_phone: optionalFilterText,
  applicant_idcard: optionalFilterText,
  visitor_type: optionalFilterInt,
  visit_area: optionalFilterInt,
  ...timeRange,
});
export const QUEUE_DEFAULT_AREA = 1;

// ---------------------------------------------------------------- action bodies

export const idBody = z.object({ id: idField('申请ID') });
export const revokeBody = z.object({ id: idField('申请ID'), reason: reqText('请输入撤销理由', 200) });

export const delayBody = z.object({
  id: idField('申请ID'),
  visitor_begin_time: visitTimeField('begin', '请选择延期时间', '延期时间格式不正确'),
  visitor_end_time: visitTimeField('end', '请选择延期时间', '延期时间格式不正确'),
  delay_reason: reqText('请输入延期理由', 200),
});

/** Approval (spec 000 §3 "approval payload", §4): an approval without opinion reads 同意; a rejection needs one. */
export const checkBody = z
  .object({
    taskIds: idListField('请选择要审核的任务'),
    result: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? TaskResult.APPROVE : v),
      intField('请选择审核结果').refine((n) => n === TaskResult.APPROVE || n === TaskResult.REJECT, { error: '请选择审核结果' }),
    ),
    remark: optText(200),
  })
  .superRefine((v, ctx) => {
    if (v.result !== TaskResult.APPROVE && !v.remark) ctx.addIssue({ code: 'custom', path: ['remark'], message: '请输入审批意见' });
  }, always)
  .transform((v) => ({ ...v, remark: v.remark || APPROVED_TEXT }));

export const returnBody = z.object({ carApplicationId: idField('车辆预约ID'), remark: reqText('请输入审批意见', 200) });
export const returnSubmitBody = z.object({ carApplicationId: idField('车辆预约ID') });

export const canAmendBody = z.object({
  car_application_id: idField('车辆预约ID'),
  process_instance_id: idField('流程实例ID'),
});
export const amendBody = canAmendBody.extend({
  visitor_begin_time: visitTimeField('begin'),
  visitor_end_time: visitTimeField('end'),
});

/** A code chosen from a table whose filter has an 'all' (-1) option: -1 (and any negative) is not a choice. */
const notAll = (fallback: number, required: string) =>
  z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? fallback : v),
    intField(required).refine((n) => n >= 0, { error: required }),
  );

export const labelBody = z.object({
  car_application_ids: idListField('请先选择要标记的车辆'),
  color_id: notAll(2, '请选择标记颜色'),
  label_type_id: notAll(1, '请选择标记类型'),
  alarm_id: notAll(3, '请选择报警方式'),
  remark: reqText('请输入标记原因', 200),
  photo: imagesField(MAX_LABEL_PHOTOS),
});

export type CarApplicationListQuery = z.infer<typeof carApplicationListQuery>;
export type CarTaskQuery = z.infer<typeof carTaskQuery>;
export type IdBody = z.infer<typeof idBody>;
export type RevokeBody = z.infer<typeof revokeBody>;
export type CarDelayBody = z.infer<typeof delayBody>;
export type CheckBody = z.infer<typeof checkBody>;
export type CarReturnBody = z.infer<typeof returnBody>;
export type CarAmendBody = z.infer<typeof amendBody>;
export type LabelBody = z.infer<typeof labelBody>;

// ---------------------------------------------------------------- labels for server messages

export const carApplicationLabels: Record<string, string> = {
  ...recordLabels,
  id: '申请ID',
  car_application_id: '车辆预约ID',
  carApplicationId: '车辆预约ID',
  process_instance_id: '流程实例ID',
  application_number: '预约单号',
  license_plate: '车牌号',
  license_plate_color: '车牌颜色',
  vehicle_type_id: '车型',
  vehicle_type_name: '车型',
  applicant_name: '申请人姓名',
  applicant_idcard: '证件号码',
  applicant_gender: '性别',
  applicant_phone: '手机号',
  applicant_face_photo: '人脸照片',
  visitor_idcard_type: '证件类型',
  visit_area: '园区',
  visitor_type: '申请类型',
  visitor_company: '来访单位',
  visitor_content: '来访事由',
  visitor_begin_time: '来访开始时间',
  visitor_end_time: '来访结束时间',
  interviewee_name: '被访人姓名',
  interviewee_phone: '被访人电话',
  interviewee_depart_id: '被访部门',
  vehicle_license_number: '行驶证号',
  engine_number: '发动机号',
  trailer_license: '挂车牌照',
  cargo_type: '货物类型',
  cargo_name: '货物名称',
  car_load: '载重',
  remark: '备注',
  vehicle_img: '车辆照片',
  img12123: '交管12123截图',
  blind_video_photo: '盲区视频监控图片',
  register_record_photo: '备案登记照片',
  dump_truck_file: '自卸车资料',
  ...Object.fromEntries(dumpTruckFileKeys.map((k) => [`dump_truck_file.${k}`, dumpTruckFileLabels[k]])),
  cargo_info: '危险货物信息',
  'cargo_info.cargo_name': '货物名称',
  'cargo_info.cargo_quantity': '货物数量',
  'cargo_info.cargo_unit': '货物单位',
  'cargo_info.enterprise': '托运企业',
  'cargo_info.driver': '驾驶员',
  'cargo_info.driver_phone': '驾驶员电话',
  update_user_name: '最后修改人',
  photos_removed_at: '照片删除时间',
  anonymised_at: '匿名化时间',
  carPersonList: '司乘人员',
  // A passenger's own fields, by path without its index (the form's lines read these).
  'carPersonList.name': '姓名',
  'carPersonList.type': '人员类型',
  'carPersonList.idcard_type': '证件类型',
  'carPersonList.id_card': '证件号码',
  'carPersonList.gender': '性别',
  'carPersonList.phone': '手机号',
  'carPersonList.pqc_number': '从业资格证号',
  'carPersonList.face_photo': '人脸照片',
  reason: '撤销理由',
  delay_reason: '延期理由',
  taskIds: '审核任务',
  result: '审核结果',
  car_application_ids: '标记车辆',
  color_id: '标记颜色',
  label_type_id: '标记类型',
  alarm_id: '报警方式',
  photo: '标记照片',
  begin_time: '开始时间',
  end_time: '结束时间',
  label_status: '是否标记',
  label_remark: '标记原因',
};

/** The same with remark read as the approval opinion (check, return) or as the flag reason (label). */
export const carApprovalLabels: Record<string, string> = { ...carApplicationLabels, remark: '审批意见' };
export const carLabelLabels: Record<string, string> = { ...carApplicationLabels, remark: '标记原因' };

// Each body carries the labels its messages name fields by (server/core/validate.ts, the API description).
// idBody and revokeBody serve both kinds: their fields read the same in personApplicationLabels.
for (const s of [carApplicationSave, carApplicationEdit, carApplicationListQuery, carTaskQuery, idBody, revokeBody, delayBody, canAmendBody, amendBody]) labelled(s, carApplicationLabels);
for (const s of [checkBody, returnBody, returnSubmitBody]) labelled(s, carApprovalLabels);
labelled(labelBody, carLabelLabels);

// ---------------------------------------------------------------- rows as the API answers them

/** A driver or passenger of a vehicle application, as the detail answers it. */
export const carPersonRow = z.object({
  car_person_id: col.id,
  name: col.text,
  idcard_type: col.int.nullable(),
  id_card: col.text,
  gender: col.int.nullable(),
  phone: col.text,
  type: col.int.nullable(),
  face_photo: col.text,
  pqc_number: col.text,
});
export type CarPersonRow = z.infer<typeof carPersonRow>;

/** The dump-truck documents as stored from the form: file names by document (empty when not uploaded). */
export const dumpTruckFileRow = z.partialRecord(z.enum(dumpTruckFileKeys), col.text);
/** The hazardous cargo as stored from the form: every text optional, the two amounts numbers. */
export const cargoInfoRow = z.object({
  ...(Object.fromEntries([...cargoTextKeys, ...cargoPhoneKeys, 'annex'].map((k) => [k, col.text.optional()])) as Record<
    (typeof cargoTextKeys)[number] | (typeof cargoPhoneKeys)[number] | 'annex',
    z.ZodOptional<z.ZodString>
  >),
  cargo_quantity: col.num.optional(),
  tank_volume: col.num.optional(),
});

/** A vehicle application as lists and queues answer it: its columns, the names beside the ids, JSON columns parsed. */
export const carApplicationRow = z.object({
  car_application_id: col.id,
  application_number: col.text,
  state: col.int,
  process_type: col.int,
  process_instance_id: col.id.nullable(),
  license_plate: col.text,
  license_plate_color: col.int,
  vehicle_type_id: col.id,
  vehicle_type_name: col.text.nullable(),
  applicant_name: col.text,
  applicant_idcard: col.text,
  applicant_gender: col.int,
  applicant_phone: col.text,
  applicant_face_photo: col.text,
  visitor_idcard_type: col.int,
  visit_area: col.int,
  visitor_type: col.int,
  visitor_company: col.text,
  visitor_content: col.text,
  visitor_begin_time: col.time,
  visitor_end_time: col.time,
  interviewee_name: col.text,
  interviewee_phone: col.text,
  interviewee_depart_id: col.id,
  interviewee_depart_name: col.text.nullable(),
  label_status: col.flag,
  label_remark: col.text,
  in_black_list: col.flag,
  revoke_reason: col.text,
  is_delayed: col.flag,
  delay_reason: col.text,
  color_id: col.int.nullable(),
  vehicle_license_number: col.text,
  engine_number: col.text,
  trailer_license: col.text,
  cargo_type: col.int.nullable(),
  cargo_name: col.text,
  car_load: col.num.nullable(),
  remark: col.text,
  vehicle_img: col.text,
  img12123: col.text,
  blind_video_photo: col.text,
  register_record_photo: col.text,
  dump_truck_file: dumpTruckFileRow.nullable(),
  cargo_info: cargoInfoRow.nullable(),
  car_info_id: col.id.nullable(),
  /** When retention removed the row's personal photos, and anonymised its personal fields (docs/retention.md); null until then. */
  photos_removed_at: col.time.nullable(),
  anonymised_at: col.time.nullable(),
  is_deleted: col.flag,
  create_user_id: col.id,
  update_user_name: col.text,
  create_time: col.time,
  update_time: col.time,
});
/** The detail (detail, get, task detail): the row with its drivers and passengers. */
export const carApplicationDetail = carApplicationRow.extend({ carPersonList: z.array(carPersonRow) });
export type CarApplicationRow = z.infer<typeof carApplicationRow> & { carPersonList?: CarPersonRow[] };
export type CarApplicationDetail = z.infer<typeof carApplicationDetail>;
