/**
 * Person appointment (person application) payloads, spec 000 §3, §5 and §7.
 * Field names are the spec's snake_case wire names, which are also the columns.
 */
import { z } from 'zod';
import { col } from '../contract';
import { choice01, idField, intField, labelled, optionalFilterInt, optionalFilterText, pageQuery, recordLabels } from './common';
import {
  always,
  checkBody,
  codeField,
  filterTimeField,
  idBody,
  idNumberCheck,
  idNumberField,
  imagesField,
  mobileField,
  optText,
  reqText,
  revokeBody,
  telephoneField,
  visitTimeField,
} from './car-application';

export { checkBody, idBody, revokeBody };

const personFields = {
  visitor_name: reqText('请输入访客姓名', 30),
  visitor_gender: choice01('请选择性别'),
  visitor_nation: optText(20),
  visitor_phone: mobileField('请输入手机号'),
  visitor_company: reqText('请输入来访单位', 50),
  visitor_address: optText(100),
  visitor_type: codeField('请选择申请类型', 'personVisitorType'),
  visitor_idcard_type: codeField('请选择证件类型', 'idcardType'),
  visitor_idcard: idNumberField(),
  visitor_face_photo: imagesField(1),
  visitor_idcard_photo1: imagesField(1),
  visitor_idcard_photo2: imagesField(1),
  visit_content: reqText('请输入来访事由', 200),
  visit_begin_time: visitTimeField('begin'),
  visit_end_time: visitTimeField('end'),
  visit_area: codeField('请选择园区', 'visitArea'),
  interviewee_name: reqText('请输入被访人姓名', 30),
  interviewee_phone: telephoneField('请输入被访人电话', '被访人电话格式不正确'),
  interviewee_depart_id: intField('请选择被访部门').pipe(z.number().min(1, { error: '请选择被访部门' })),
};

const visitorIdCheck = idNumberCheck('visitor_idcard', 'visitor_idcard_type');
export const personApplicationSave = z.object(personFields).superRefine(visitorIdCheck, always);
export const personApplicationEdit = z.object({ ...personFields, person_application_id: idField('人员预约ID') }).superRefine(visitorIdCheck, always);

export type PersonApplicationSave = z.infer<typeof personApplicationSave>;
export type PersonApplicationSaveInput = z.input<typeof personApplicationSave>;
export type PersonApplicationEdit = z.infer<typeof personApplicationEdit>;
export type PersonApplicationEditInput = z.input<typeof personApplicationEdit>;

const timeRange = { begin_time: filterTimeField('begin'), end_time: filterTimeField('end') };

export const personApplicationListQuery = pageQuery.extend({
  application_number: optionalFilterText,
  visitor_name: optionalFilterText,
  visitor_company: optionalFilterText,
  visitor_idcard: optionalFilterText,
  visitor_phone: optionalFilterText,
  interviewee_depart_id: optionalFilterInt,
  interviewee_name: optionalFilterText,
  interviewee_phone: optionalFilterText,
  visit_area: optionalFilterInt,
  state: optionalFilterInt,
  visitor_type: optionalFilterInt,
  is_delayed: optionalFilterInt,
  ...timeRange,
});

/** Spec 000 §2 queue filters. The visit-area default of 1 is the screen's; absent here means every area. */
export const personTaskQuery = pageQuery.extend({
  application_number: optionalFilterText,
  visitor_name: optionalFilterText,
  visitor_company: optionalFilterText,
  visitor_idcard: optionalFilterText,
  visitor_phone: optionalFilterText,
  interviewee_depart_id: optionalFilterInt,
  interviewee_name: optionalFilterText,
  interviewee_phone: optionalFilterText,
  visitor_type: optionalFilterInt,
  visit_area: optionalFilterInt,
  ...timeRange,
});

export const delayBody = z.object({
  id: idField('申请ID'),
  visit_begin_time: visitTimeField('begin', '请选择延期时间', '延期时间格式不正确'),
  visit_end_time: visitTimeField('end', '请选择延期时间', '延期时间格式不正确'),
  delay_reason: reqText('请输入延期理由', 200),
});

export const returnBody = z.object({ personApplicationId: idField('人员预约ID'), remark: reqText('请输入审批意见', 200) });
export const returnSubmitBody = z.object({ personApplicationId: idField('人员预约ID') });

export const canAmendBody = z.object({
  person_application_id: idField('人员预约ID'),
  process_instance_id: idField('流程实例ID'),
});
export const amendBody = canAmendBody.extend({
  visit_begin_time: visitTimeField('begin'),
  visit_end_time: visitTimeField('end'),
});

export type PersonApplicationListQuery = z.infer<typeof personApplicationListQuery>;
export type PersonTaskQuery = z.infer<typeof personTaskQuery>;
export type PersonDelayBody = z.infer<typeof delayBody>;
export type PersonReturnBody = z.infer<typeof returnBody>;
export type PersonAmendBody = z.infer<typeof amendBody>;

export const personApplicationLabels: Record<string, string> = {
  ...recordLabels,
  id: '申请ID',
  person_application_id: '人员预约ID',
  personApplicationId: '人员预约ID',
  process_instance_id: '流程实例ID',
  application_number: '申请单号',
  visitor_name: '访客姓名',
  visitor_gender: '性别',
  visitor_nation: '民族',
  visitor_phone: '手机号',
  visitor_company: '来访单位',
  visitor_address: '地址',
  visitor_type: '申请类型',
  visitor_idcard_type: '证件类型',
  visitor_idcard: '证件号码',
  visitor_face_photo: '人脸照片',
  visitor_idcard_photo1: '证件人像面',
  visitor_idcard_photo2: '证件国徽面',
  visit_content: '来访事由',
  visit_begin_time: '来访开始时间',
  visit_end_time: '来访结束时间',
  visit_area: '园区',
  interviewee_name: '被访人姓名',
  interviewee_phone: '被访人电话',
  interviewee_depart_id: '被访部门',
  update_user_name: '最后修改人',
  photos_removed_at: '照片删除时间',
  anonymised_at: '匿名化时间',
  reason: '撤销理由',
  delay_reason: '延期理由',
  taskIds: '审核任务',
  result: '审核结果',
  remark: '审批意见',
  begin_time: '开始时间',
  end_time: '结束时间',
};

// Each body carries the labels its messages name fields by (server/core/validate.ts, the API description).
for (const s of [personApplicationSave, personApplicationEdit, personApplicationListQuery, personTaskQuery, delayBody, returnBody, returnSubmitBody, canAmendBody, amendBody])
  labelled(s, personApplicationLabels);

/** A person application as lists, details and queues answer it: its columns and the visited department's name. */
export const personApplicationRow = z.object({
  person_application_id: col.id,
  application_number: col.text,
  state: col.int,
  process_instance_id: col.id.nullable(),
  visitor_name: col.text,
  visitor_gender: col.int,
  visitor_nation: col.text,
  visitor_phone: col.text,
  visitor_company: col.text,
  visitor_address: col.text,
  visitor_type: col.int,
  visitor_idcard_type: col.int,
  visitor_idcard: col.text,
  visitor_face_photo: col.text,
  visitor_idcard_photo1: col.text,
  visitor_idcard_photo2: col.text,
  visit_content: col.text,
  visit_begin_time: col.time,
  visit_end_time: col.time,
  visit_area: col.int,
  interviewee_name: col.text,
  interviewee_phone: col.text,
  interviewee_depart_id: col.id,
  interviewee_depart_name: col.text.nullable(),
  revoke_reason: col.text,
  in_black_list: col.flag,
  is_delayed: col.flag,
  delay_reason: col.text,
  /** When retention removed the row's personal photos, and anonymised its personal fields (docs/retention.md); null until then. */
  photos_removed_at: col.time.nullable(),
  anonymised_at: col.time.nullable(),
  is_deleted: col.flag,
  create_user_id: col.id,
  update_user_name: col.text,
  create_time: col.time,
  update_time: col.time,
});
export type PersonApplicationRow = z.infer<typeof personApplicationRow>;
