import { z } from 'zod';
import { col, defineResourceContract } from '../contract';
import { choice01, idField, intField, labelled, optionalFilterText, pageQuery, requiredText, stampLabels } from './common';

export const SPEED_MIN = 0;
export const SPEED_MAX = 300;
/** The longest dwell limit a model may set: seven days, longer than any visit the appointment rules allow. */
export const DWELL_LIMIT_MAX = 7 * 24 * 60;
const DWELL_LIMIT_MSG = `停留时限范围为1-${DWELL_LIMIT_MAX}分钟`;

const fields = {
  name: requiredText('请输入车型名', 30, '不能超过30个文字'),
  speed: intField('请输入车速').pipe(z.number().min(SPEED_MIN, { error: '车速范围为0-300 km/h' }).max(SPEED_MAX, { error: '车速范围为0-300 km/h' })),
  needRecord: choice01('请选择预约是否需要备案'),
  showCargoType: choice01('请选择页面是否显示货物类型'),
  checkOverweight: choice01('请选择是否需要判断超重'),
  needBlindVideo: choice01('请选择页面是否需要上传盲区视频监控图片'),
  // Stranded detection (DESIGN.md §8): a stay of this model alarms after these minutes, or at the visit's end when left empty.
  dwellLimitMinutes: z.preprocess(
    (v) => (v === '' || v === undefined ? null : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v),
    z.number({ error: DWELL_LIMIT_MSG }).int({ error: DWELL_LIMIT_MSG }).min(1, { error: DWELL_LIMIT_MSG }).max(DWELL_LIMIT_MAX, { error: DWELL_LIMIT_MSG }).nullable(),
  ),
};

export const vehicleTypeLabels = {
  ...stampLabels,
  id: '车型ID',
  name: '车型名',
  speed: '车速',
  needRecord: '预约是否需要备案',
  showCargoType: '页面是否显示货物类型',
  checkOverweight: '是否需要判断超重',
  needBlindVideo: '是否需要上传盲区视频监控图片',
  dwellLimitMinutes: '停留时限',
};

export const vehicleTypeCreate = labelled(z.object(fields), vehicleTypeLabels);
export const vehicleTypeUpdate = labelled(z.object({ ...fields, id: idField(vehicleTypeLabels.id) }), vehicleTypeLabels);
export const vehicleTypeId = labelled(z.object({ id: idField(vehicleTypeLabels.id) }), vehicleTypeLabels);
export const vehicleTypePageQuery = labelled(pageQuery.extend({ name: optionalFilterText }), vehicleTypeLabels);

export type VehicleTypeCreate = z.infer<typeof vehicleTypeCreate>;

export const vehicleTypeRow = z.object({
  id: col.id,
  name: col.text,
  speed: col.int,
  need_record: col.flag,
  show_cargo_type: col.flag,
  check_overweight: col.flag,
  need_blind_video: col.flag,
  dwell_limit_minutes: col.int.nullable(),
  create_time: col.time,
  update_time: col.time,
});
export type VehicleTypeRow = z.infer<typeof vehicleTypeRow>;

/** 车型管理 on the wire (spec 002 §2, §5; codes modal:*). */
export const vehicleTypeApi = defineResourceContract({
  noun: '车型',
  key: 'id',
  labels: vehicleTypeLabels,
  row: vehicleTypeRow,
  paths: { list: '/vehicleType/page', all: '/vehicleType/options', get: '/vehicleType/get', save: '/vehicleType/save', edit: '/vehicleType/update', delete: '/vehicleType/delete' },
  permissions: { list: 'role', get: 'role', save: 'modal:add', edit: 'modal:edit', delete: 'modal:delete' },
  schemas: { list: vehicleTypePageQuery, create: vehicleTypeCreate, update: vehicleTypeUpdate },
  operations: { save: '新增车型', edit: '编辑车型', delete: '删除车型' },
  messages: { save: '创建车型成功！', edit: '编辑车型成功！' },
});
