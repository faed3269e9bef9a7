import { z } from 'zod';
import { binary, col, defineCall, defineUpload } from '../contract';
import { defineRegister, standardPaths } from '../registers';
import { PLATE_PATTERN } from '../identity';
import { dateOf } from '../visit-rules';
import { always, codeField, idNumberCheck, idNumberField, imagesField, optionalField, reqText } from './car-application';
import { idField, intField, labelled, optionalFilterInt, optionalFilterText, pageQuery, recordLabels, requiredText } from './common';
import type { FieldError } from '../visit-rules';

/**
 * Vehicle and person black/white lists (spec 001 §2, §3, §5). An entry is
 * filed as a draft, submitted, and in force once approved for its dates
 * (domain/registers.ts inForce).
 */

const listLabels = {
  ...recordLabels,
  id: '名单ID',
  type: '名单类型',
  start_time: '开始时间',
  end_time: '结束时间',
  in_reason: '原因',
  status: '状态',
  validity: '有效状态',
  reason: '撤销理由',
  remark: '审批意见',
};

export const carListLabels = { ...listLabels, license_plate: '车牌号', vehicle_type_id: '车型', vehicle_type_name: '车型' };
export const personListLabels = { ...listLabels, name: '姓名', gender: '性别', idcard_type: '证件类型', idcard: '证件号码', face_photo: '人脸照片' };

const startField = requiredText('请选择开始时间', 19, '开始时间格式不正确');
const endField = requiredText('请选择结束时间', 19, '结束时间格式不正确');
const dayStart = (s: string) => `${dateOf(s)} 00:00:00`;
const dayEnd = (s: string) => `${dateOf(s)} 23:59:59`;
const DATE_PREFIX = /^\d{4}-\d{2}-\d{2}/;

const common = {
  type: codeField('请选择名单类型', 'blackWhiteType'),
  start_time: startField.regex(DATE_PREFIX, { error: '开始时间格式不正确' }).transform(dayStart),
  end_time: endField.regex(DATE_PREFIX, { error: '结束时间格式不正确' }).transform(dayEnd),
  in_reason: reqText('请输入原因', 200),
};

const carFields = {
  license_plate: requiredText('请输入车牌号', 10, '车牌号格式不正确').toUpperCase().regex(PLATE_PATTERN, { error: '车牌号格式不正确' }),
  vehicle_type_id: optionalField(intField('请选择车型').pipe(z.number().min(1, { error: '请选择车型' }))),
  ...common,
};

const personFields = {
  name: reqText('请输入姓名', 30),
  gender: codeField('请选择性别', 'gender'),
  idcard_type: codeField('请选择证件类型', 'idcardType'),
  idcard: idNumberField(),
  face_photo: imagesField(1),
  ...common,
};

const personIdCheck = idNumberCheck('idcard', 'idcard_type');
const id = { id: idField(listLabels.id) };

export const carListCreate = labelled(z.object(carFields), carListLabels);
export const carListUpdate = labelled(z.object({ ...carFields, ...id }), carListLabels);
export const personListCreate = labelled(z.object(personFields).superRefine(personIdCheck, always), personListLabels);
export const personListUpdate = labelled(z.object({ ...personFields, ...id }).superRefine(personIdCheck, always), personListLabels);

/** Validity filter (spec 001 "validity type"; codes ours): 1 in force today, 2 not yet, 3 ended. */
export const Validity = { CURRENT: 1, FUTURE: 2, ENDED: 3 } as const;

const listFilters = { type: optionalFilterInt, status: optionalFilterInt, validity: optionalFilterInt };
export const carListQuery = labelled(pageQuery.extend({ license_plate: optionalFilterText, ...listFilters }), carListLabels);
export const personListQuery = labelled(pageQuery.extend({ name: optionalFilterText, idcard: optionalFilterText, ...listFilters }), personListLabels);

/** Pickers disable dates before today (spec 001 §5); the server holds the same rule, and the end after the start. */
export function listDateErrors(v: { start_time?: string | null; end_time?: string | null }, today: string): FieldError[] {
  const errors: FieldError[] = [];
  const day = dateOf(today);
  // Each rule is reported on its own (issue 24): a past end that is also before the start names both.
  if (v.start_time && dateOf(v.start_time) < day) errors.push({ field: 'start_time', message: '开始时间不能早于今天' });
  if (v.end_time && dateOf(v.end_time) < day) errors.push({ field: 'end_time', message: '结束时间不能早于今天' });
  if (v.start_time && v.end_time && v.end_time < v.start_time) errors.push({ field: 'end_time', message: '结束时间不能早于开始时间' });
  return errors;
}

/** The columns both lists answer, and the filer's name beside them (modules/registers/lists.ts withNames). */
const listRowBase = {
  id: col.id,
  type: col.int,
  start_time: col.time.nullable(),
  end_time: col.time.nullable(),
  status: col.int,
  in_reason: col.text,
  revoke_reason: col.text,
  process_instance_id: col.id.nullable(),
  create_user_id: col.id.nullable(),
  update_user_id: col.id.nullable(),
  create_user_name: col.text.nullable(),
  create_time: col.time,
  update_time: col.time,
};

/** A vehicle list entry as answered, with its model's name. */
export const carListRow = z.object({ ...listRowBase, license_plate: col.text, vehicle_type_id: col.id.nullable(), vehicle_type_name: col.text.nullable() });
export type CarListRow = z.infer<typeof carListRow>;

/** A person list entry as answered. */
export const personListRow = z.object({ ...listRowBase, name: col.text, gender: col.int.nullable(), idcard_type: col.int.nullable(), idcard: col.text, face_photo: col.text });
export type PersonListRow = z.infer<typeof personListRow>;

const LIST_CODES = (prefix: 'carList' | 'personList') =>
  ({
    // "list always allowed" (spec 001 §6): whoever has the screen lists it.
    list: `menu:${prefix}`,
    add: `${prefix}:add`,
    edit: `${prefix}:edit`,
    delete: `${prefix}:delete`,
    commit: `${prefix}:commit`,
    revoke: `${prefix}:revoke`,
  }) as const;

/** 车辆黑白名单 on the wire (spec 001 §2, §7). */
export const carListApi = defineRegister({
  noun: '车辆黑白名单',
  labels: carListLabels,
  row: carListRow,
  queue: 'car_list',
  wrapper: 'carBlackWhiteList',
  paths: standardPaths('/carBlackWhiteList'),
  codes: LIST_CODES('carList'),
  schemas: { list: carListQuery, create: carListCreate, update: carListUpdate },
  taskFilters: ['license_plate'],
});

/** 人员黑白名单 on the wire (spec 001 §2, §7). */
export const personListApi = defineRegister({
  noun: '人员黑白名单',
  labels: personListLabels,
  row: personListRow,
  queue: 'person_list',
  wrapper: 'personBlackWhiteList',
  paths: standardPaths('/personBlackWhiteList'),
  codes: LIST_CODES('personList'),
  schemas: { list: personListQuery, create: personListCreate, update: personListUpdate },
  taskFilters: ['name', 'idcard'],
});

/** Vehicle list import (spec 001 §2 "batch Excel import", §7): limits of the upload. */
export const carListImportLimits = { maxBytes: 5 * 1024 * 1024, maxRows: 500 } as const;
/** What the xlsx reader unpacks at most (server/core/xlsx-reader.ts MAX_UNZIPPED_BYTES), said in the upload's description. */
const UNZIPPED_MB = 30;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The import's template and upload; imported rows are the caller's drafts, whose ids the dialog can submit at once (全部提交). */
export const carListImportApi = {
  template: defineCall({
    method: 'GET',
    path: '/carBlackWhiteList/excelTemplate',
    permission: carListApi.codes.add,
    summary: '下载车辆黑白名单导入模板（.xlsx）',
    input: z.object({}),
    answer: binary(XLSX),
  }),
  upload: defineUpload({
    method: 'POST',
    path: '/carBlackWhiteList/excelImport',
    permission: carListApi.codes.add,
    summary: '车辆黑白名单导入',
    operation: '车辆黑白名单导入',
    multipart: {
      file: `按导入模板填写的 .xlsx 文件（≤${carListImportLimits.maxBytes / 1024 / 1024}MB，解压后≤${UNZIPPED_MB}MB，≤${carListImportLimits.maxRows}行；每人同时一个导入）`,
    },
    answer: z.object({ count: col.int, ids: z.array(col.id) }),
  }),
};
