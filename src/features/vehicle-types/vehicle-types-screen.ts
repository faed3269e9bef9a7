import { vehicleTypeApi, vehicleTypeCreate, vehicleTypeLabels, vehicleTypeUpdate, type VehicleTypeRow } from '../../../domain/schemas/vehicle-type';
import { call } from '../../lib/http';
import { vehicleTypesQuery } from '../../lib/preloads';
import { defineScreen } from '../../list-screen';

const { calls } = vehicleTypeApi;

/** 车型管理 (spec 002 §2 Vehicle model list, §5 Vehicle model, §6 modal:*). */
export const vehicleTypesScreen = defineScreen<VehicleTypeRow>({
  key: 'system.vehicle-types',
  title: '车型列表',
  labels: vehicleTypeLabels,
  list: { path: calls.list },
  rowKey: 'id',
  // The appointment forms read the models from this preload: an edit shows there at once.
  invalidates: [vehicleTypesQuery.queryKey],
  card: { title: 'name' },
  fields: [
    { name: 'name', kind: 'text', dataIndex: 'name', width: 140 },
    { name: 'speed', label: '车速(km/h)', kind: 'number', dataIndex: 'speed', unit: 'km/h', hideInSearch: true, width: 110, render: (r) => String(r.speed), form: { label: '车速' } },
    { name: 'needRecord', kind: 'yesNo', dataIndex: 'need_record', hideInSearch: true, width: 150 },
    { name: 'showCargoType', kind: 'yesNo', dataIndex: 'show_cargo_type', hideInSearch: true, width: 170 },
    { name: 'checkOverweight', kind: 'yesNo', dataIndex: 'check_overweight', hideInSearch: true, width: 150 },
    { name: 'needBlindVideo', kind: 'yesNo', dataIndex: 'need_blind_video', hideInSearch: true, width: 240 },
    {
      name: 'dwellLimitMinutes',
      label: '停留时限(分钟)',
      kind: 'number',
      dataIndex: 'dwell_limit_minutes',
      unit: '分钟',
      hideInSearch: true,
      width: 130,
      render: (r) => (r.dwell_limit_minutes == null ? '至来访结束' : String(r.dwell_limit_minutes)),
      form: { label: '停留时限', placeholder: '留空则以来访结束时间为准', help: '危化品等车型在园停留超过此时限即告警' },
    },
    { name: 'updateTime', kind: 'text', dataIndex: 'update_time', hideInSearch: true, hideInTable: true, hideInCard: true, hideInForm: true },
  ],
  toolbar: [{ key: 'add', label: '新增车型', type: 'create', permission: 'modal:add' }],
  rowActions: [
    { key: 'edit', label: '编辑', type: 'edit', permission: 'modal:edit' },
    { key: 'delete', label: '删除', type: 'delete', permission: 'modal:delete', path: calls.delete, body: (r) => ({ id: r.id }) },
  ],
  form: {
    schema: { create: vehicleTypeCreate, edit: vehicleTypeUpdate },
    create: { path: calls.save, title: '新增车型', success: '创建车型成功！' },
    edit: { path: calls.edit, title: '编辑车型', success: '编辑车型成功！', idParam: 'id' },
    width: 680,
  },
  detail: { title: '车型详情', fetch: (r) => call(calls.get, { id: r.id }) },
});
