import { z } from 'zod';
import { col, defineCall, defineResourceContract, none } from '../contract';
import type { EnumOption } from '../enums';
import { PLATE_PATTERN } from '../identity';
import { MAX_LABEL_PHOTOS, codeField, imagesField, optText, optionalField, reqText } from './car-application';
import { idField, intField, labelled, optionalFilterInt, optionalFilterText, pageQuery, requiredText, stampLabels } from './common';

/**
 * Vehicle marks (车辆标记, spec 001 §2, §3, §4, §5): a plate flagged with a
 * colour, a type and an alarm, made on the marks screen or by flagging from
 * the vehicle all-history screen (POST /label/vehicle/label). Active (1) it
 * shows on the scan screen; edited or cancelled only while active.
 */

export const vehicleMarkLabels = {
  ...stampLabels,
  id: '标记ID',
  car_application_id: '车辆预约ID',
  application_number: '来源预约单号',
  license_plate: '车牌号',
  vehicle_type_id: '车型',
  vehicle_type_name: '车型',
  visitor_company: '来访单位',
  color_id: '标记颜色',
  label_type_id: '标记类型',
  alarm_id: '报警方式',
  remark: '标记原因',
  status: '状态',
  photo: '现场照片',
  cancel_reason: '取消理由',
  cancel_photo: '整改照片',
  create_user_name: '标记人',
  size: '每页条数',
  pn: '页码',
};

/** Status of a mark (spec 001 §4: 1 active; "cancelled" is ours: 2, as the table's migration says). */
export const MarkStatus = { ACTIVE: 1, CANCELLED: 2 } as const;
export const markStatusOptions: EnumOption[] = [
  { value: MarkStatus.ACTIVE, label: '标记中', color: 'danger' },
  { value: MarkStatus.CANCELLED, label: '已取消', color: 'default' },
];

export type MarkAction = 'edit' | 'cancel' | 'delete';

/** The state rule of spec 001 §4, one function for the screen's buttons and the server's refusal: edit and cancel while active; delete always. */
export const markAllows = (action: MarkAction, status: number): boolean => action === 'delete' || status === MarkStatus.ACTIVE;

export const markConflictMessage = (action: MarkAction): string => (action === 'cancel' ? '该标记已取消，不能重复取消' : '该标记已取消，不能编辑');

export const CANCEL_PHOTO_REQUIRED = '请上传整改照片';

const fields = {
  license_plate: requiredText('请输入车牌号', 10, '车牌号格式不正确').toUpperCase().regex(PLATE_PATTERN, { error: '车牌号格式不正确' }),
  vehicle_type_id: optionalField(intField('请选择车型').pipe(z.number().min(1, { error: '请选择车型' }))).transform((v) => v ?? null),
  visitor_company: optText(60),
  color_id: codeField('请选择标记颜色', 'markColor'),
  label_type_id: codeField('请选择标记类型', 'markLabelType'),
  alarm_id: codeField('请选择报警方式', 'markAlarmType'),
  remark: reqText('请输入标记原因', 200),
  // Spec 001 §5 / §9: photos max 9 on the marking form.
  photo: imagesField(MAX_LABEL_PHOTOS),
};
const id = { id: idField(vehicleMarkLabels.id) };

export const vehicleMarkCreate = labelled(z.object(fields), vehicleMarkLabels);
export const vehicleMarkUpdate = labelled(z.object({ ...fields, ...id }), vehicleMarkLabels);

/** Cancel (spec 001 §5): a reason '请输入取消理由' and 1 to 9 rectification photos. */
export const vehicleMarkCancel = labelled(
  z.object({
    ...id,
    cancel_reason: reqText('请输入取消理由', 200),
    cancel_photo: imagesField(MAX_LABEL_PHOTOS).refine((s) => s !== '', { error: CANCEL_PHOTO_REQUIRED }),
  }),
  vehicleMarkLabels,
);

/** List filters (spec 001 §2): plate, visiting company, status, colour, mark type, alarm type; the codes default to -1 (all). */
export const vehicleMarkQuery = labelled(
  pageQuery.extend({
    license_plate: optionalFilterText,
    visitor_company: optionalFilterText,
    status: optionalFilterInt,
    color_id: optionalFilterInt,
    label_type_id: optionalFilterInt,
    alarm_id: optionalFilterInt,
  }),
  vehicleMarkLabels,
);

export type VehicleMarkCreate = z.infer<typeof vehicleMarkCreate>;
export type VehicleMarkCancel = z.infer<typeof vehicleMarkCancel>;

/** A mark as the list and the detail answer it. */
export const vehicleMarkRow = z.object({
  id: col.id,
  car_application_id: col.id.nullable(),
  /** The flagged appointment's number, when the mark came from one. */
  application_number: col.text.nullable(),
  license_plate: col.text,
  vehicle_type_id: col.id.nullable(),
  vehicle_type_name: col.text.nullable(),
  visitor_company: col.text,
  remark: col.text,
  color_id: col.int,
  label_type_id: col.int,
  alarm_id: col.int,
  status: col.int,
  photo: col.text,
  cancel_reason: col.text,
  cancel_photo: col.text,
  /** The photos as the spec's files: type 1 site photos, 2 cancel (rectification) photos. */
  files: z.array(z.object({ url: col.text, type: z.union([z.literal(1), z.literal(2)]) })),
  create_user_id: col.id.nullable(),
  create_user_name: col.text.nullable(),
  update_user_id: col.id.nullable(),
  create_time: col.time,
  update_time: col.time,
});
export type VehicleMarkRow = z.infer<typeof vehicleMarkRow>;

const CODES = { list: 'carMark:list', add: 'carMark:add', edit: 'carMark:edit', delete: 'carMark:delete' } as const;

/** 车辆标记 on the wire (spec 001 §2, §5, §7). */
export const vehicleMarkApi = {
  ...defineResourceContract({
    noun: '车辆标记',
    key: 'id',
    labels: vehicleMarkLabels,
    row: vehicleMarkRow,
    paths: { list: '/label/vehicle/list', detail: '/label/vehicle/detail', save: '/label/vehicle/save', edit: '/v2/label/vehicle/edit', delete: '/label/vehicle/delete' },
    permissions: { list: CODES.list, detail: CODES.list, save: CODES.add, edit: CODES.edit, delete: CODES.delete },
    schemas: { list: vehicleMarkQuery, create: vehicleMarkCreate, update: vehicleMarkUpdate },
    operations: { save: '新增车辆标记', edit: '编辑车辆标记', delete: '删除车辆标记' },
  }),
  // Cancelling changes the mark, so it is the edit code's (docs/decisions.md); spec 001 names no code of its own.
  cancel: defineCall({
    method: 'POST',
    path: '/label/vehicle/cancel',
    permission: CODES.edit,
    summary: '取消车辆标记（取消理由与整改照片）',
    operation: '取消车辆标记',
    input: vehicleMarkCancel,
    answer: none,
  }),
};
