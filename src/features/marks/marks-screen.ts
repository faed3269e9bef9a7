import { MAX_LABEL_PHOTOS } from '../../../domain/schemas/car-application';
import { markAllows, markStatusOptions, vehicleMarkCreate, vehicleMarkLabels, vehicleMarkUpdate, vehicleMarkApi, type VehicleMarkRow } from '../../../domain/schemas/vehicle-mark';
import { VehicleTypeSelect } from '../../components/vehicle-type-select';
import { isNetworkFailure } from '../../lib/files';
import { call } from '../../lib/http';
import { defineScreen } from '../../list-screen';
import { CancelMarkModal } from './cancel-mark-modal';

const dash = (v: string | null | undefined) => v || '-';

/**
 * 车辆标记 (spec 001 §2 Vehicle marking, §4, §5): the park's flagged plates,
 * made here or by flagging on the vehicle all-history screen. Edit and cancel
 * while a mark is active (markAllows, the rule the server refuses by); the
 * cancel takes a reason and rectification photos, offline too.
 */
const { calls } = vehicleMarkApi;

export const vehicleMarksScreen = defineScreen<VehicleMarkRow>({
  key: 'marks.vehicle',
  title: '车辆标记',
  labels: vehicleMarkLabels,
  list: { path: calls.list, permission: 'carMark:list' },
  rowKey: 'id',
  card: { title: 'license_plate', extra: 'status' },
  fields: [
    { name: 'license_plate', kind: 'text', width: 110, fixed: 'left' },
    {
      name: 'vehicle_type_id',
      kind: 'custom',
      input: VehicleTypeSelect,
      hideInSearch: true,
      hideInTable: true,
      hideInCard: true,
      render: (r) => dash(r.vehicle_type_name),
      form: { placeholder: '请选择车型（选填）' },
    },
    { name: 'visitor_company', kind: 'text', width: 160, render: (r) => dash(r.visitor_company) },
    { name: 'color_id', kind: 'enum', options: 'markColor', tag: true, width: 96, search: { default: -1 } },
    { name: 'label_type_id', kind: 'enum', options: 'markLabelType', width: 100, search: { default: -1 } },
    { name: 'alarm_id', kind: 'enum', options: 'markAlarmType', width: 100, search: { default: -1 } },
    { name: 'status', kind: 'enum', options: markStatusOptions, tag: true, hideInForm: true, width: 90, search: { default: -1 } },
    { name: 'remark', kind: 'textarea', hideInSearch: true, width: 180 },
    { name: 'photo', kind: 'images', max: MAX_LABEL_PHOTOS, hideInSearch: true, hideInCard: true, width: 90 },
    { name: 'application_number', kind: 'text', hideInSearch: true, hideInTable: true, hideInCard: true, hideInForm: true, render: (r) => dash(r.application_number) },
    { name: 'cancel_reason', kind: 'text', hideInSearch: true, hideInTable: true, hideInCard: true, hideInForm: true, render: (r) => dash(r.cancel_reason) },
    { name: 'cancel_photo', kind: 'images', hideInSearch: true, hideInTable: true, hideInCard: true, hideInForm: true },
    { name: 'create_user_name', kind: 'text', hideInSearch: true, hideInForm: true, hideInCard: true, width: 90, render: (r) => dash(r.create_user_name) },
    { name: 'create_time', kind: 'text', hideInSearch: true, hideInForm: true, width: 170 },
  ],
  toolbar: [{ key: 'add', label: '新增标记', type: 'create', permission: 'carMark:add' }],
  rowActions: [
    { key: 'detail', label: '详情', type: 'detail' },
    { key: 'edit', label: '编辑', type: 'edit', permission: 'carMark:edit', visible: (r) => markAllows('edit', r.status) },
    // Cancelling changes the mark: the edit code's (docs/decisions.md).
    { key: 'cancel', label: '取消标记', type: 'modal', permission: 'carMark:edit', visible: (r) => markAllows('cancel', r.status), component: CancelMarkModal },
    { key: 'delete', label: '删除', type: 'delete', permission: 'carMark:delete', path: calls.delete, body: (r) => ({ id: r.id }) },
  ],
  form: {
    schema: { create: vehicleMarkCreate, edit: vehicleMarkUpdate },
    create: { path: calls.save, title: '新增车辆标记' },
    edit: { path: calls.edit, title: '编辑车辆标记', idParam: 'id' },
    // The flag form's defaults (domain/enums.ts): yellow, 重点关注, 仅提示.
    initialValues: { color_id: 2, label_type_id: 1, alarm_id: 3 },
    width: 620,
  },
  detail: {
    title: '车辆标记详情',
    // Without a signal the list's own row (it carries every field) stands in for the detail.
    fetch: (r) => call(calls.detail, { id: r.id }).catch((e: unknown) => (isNetworkFailure(e) ? r : Promise.reject(e))),
  },
});
