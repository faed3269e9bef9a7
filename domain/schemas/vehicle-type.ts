import { z } from 'zod';
import { choice01, idField, intField, labelled, optionalFilterText, pageQuery, requiredText, stampLabels } from './common';

export const SPEED_MIN = 0;
export const SPEED_MAX = 300;

const fields = {
  name: requiredText('请输入车型名', 30, '不能超过30个文字'),
  speed: intField('请输入车速').pipe(z.number().min(SPEED_MIN, { error: '车速范围为0-300 km/h' }).max(SPEED_MAX, { error: '车速范围为0-300 km/h' })),
  needRecord: choice01('请选择预约是否需要备案'),
  showCargoType: choice01('请选择页面是否显示货物类型'),
  checkOverweight: choice01('请选择是否需要判断超重'),
  needBlindVideo: choice01('请选择页面是否需要上传盲区视频监控图片'),
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
};

export const vehicleTypeCreate = labelled(z.object(fields), vehicleTypeLabels);
export const vehicleTypeUpdate = labelled(z.object({ ...fields, id: idField(vehicleTypeLabels.id) }), vehicleTypeLabels);
export const vehicleTypeId = labelled(z.object({ id: idField(vehicleTypeLabels.id) }), vehicleTypeLabels);
export const vehicleTypePageQuery = labelled(pageQuery.extend({ name: optionalFilterText }), vehicleTypeLabels);

export type VehicleTypeCreate = z.infer<typeof vehicleTypeCreate>;

export interface VehicleTypeRow {
  id: number;
  name: string;
  speed: number;
  need_record: number;
  show_cargo_type: number;
  check_overweight: number;
  need_blind_video: number;
  create_time: string;
  update_time: string;
}
