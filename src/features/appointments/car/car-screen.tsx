import { AddOutline, UploadOutline } from 'antd-mobile-icons';
import { appointmentKinds, kindCalls } from '../../../../domain/appointment-kinds';
import { canDo, type AppointmentAction } from '../../../../domain/appointments';
import { carApplicationLabels, type CarApplicationRow } from '../../../../domain/schemas/car-application';
import { call } from '../../../lib/http';
import { defineScreen, type Can, type RowAction } from '../../../list-screen';
import { revokeModalFor } from '../shared/action-modals';
import { ApplicationDetailWithProcess } from '../shared/application-detail';
import { CarDelayModal } from '../shared/delay-modal';
import { visitRange } from '../shared/visit-time';
import { processDrawerFor } from '../shared/process-drawer';
import { CarCopyModal, CarCreateModal, CarEditModal } from './car-form';
import { CarImportModal, canImport } from './car-import';

type R = CarApplicationRow;
const { codes } = appointmentKinds.car;
const calls = kindCalls.car;
/** Each button shows with the same state rule the server refuses the call with (spec 000 §4). */
const when = (action: AppointmentAction) => (r: R, can: Can) => canDo('car', action, r.state, can);

const rowActions: RowAction<R>[] = [
  { key: 'detail', label: '详情', type: 'detail' },
  { key: 'edit', label: '编辑', type: 'modal', component: CarEditModal, permission: codes.edit, visible: when('edit') },
  {
    key: 'submit',
    label: '提交',
    type: 'call',
    permission: codes.commit,
    visible: when('submit'),
    confirm: (r) => `确认提交车辆“${r.license_plate}”的预约申请？提交后将进入审批流程。`,
    path: calls.push,
    body: (r) => ({ id: r.car_application_id }),
    success: '提交成功！',
    failure: '提交失败',
  },
  { key: 'copy', label: '复制', type: 'modal', component: CarCopyModal, permission: codes.add, visible: when('copy') },
  { key: 'delay', label: '延期申请', type: 'modal', component: CarDelayModal, permission: codes.edit, visible: when('delay') },
  { key: 'process', label: '审批流程', type: 'modal', component: processDrawerFor<R>('car'), visible: when('process') },
  // 催办 (docs/approvals.md): reminds the current approvers; the server answers how often is allowed (429 with when the next may be).
  {
    key: 'urge',
    label: '催办',
    type: 'call',
    permission: codes.revoke,
    visible: when('urge'),
    path: calls.urge,
    body: (r) => ({ id: r.car_application_id }),
    success: '催办成功，已通知审核人',
    failure: '催办失败',
  },
  { key: 'revoke', label: '撤销审核', type: 'modal', component: revokeModalFor<R>('car'), permission: codes.revoke, visible: when('revoke'), danger: true },
  { key: 'delete', label: '删除', type: 'delete', permission: codes.delete, visible: when('delete'), path: calls.delete, body: (r) => ({ id: r.car_application_id }) },
];

/** 园区企业车辆预约 (spec 000 §2 car application list): a wide table with a row number. */
export const carApplicationsScreen = defineScreen<R>({
  key: 'appointments.car',
  title: '车辆预约列表',
  labels: carApplicationLabels,
  list: { path: calls.list, permission: codes.list },
  rowKey: 'car_application_id',
  rowNumber: true,
  card: { title: 'license_plate', extra: 'state' },
  // Order serves the table (status and validity before the details); the filters follow it.
  fields: [
    { name: 'application_number', kind: 'text', width: 180 },
    { name: 'license_plate', kind: 'text', width: 110 },
    { name: 'state', kind: 'enum', options: 'applicationState', tag: true, width: 100 },
    { name: 'visitor_type', kind: 'enum', options: 'carVisitorType', width: 90 },
    {
      name: 'visit_time',
      label: '有效时间',
      kind: 'dateRange',
      width: 210,
      search: { rangeKeys: ['begin_time', 'end_time'] },
      render: (r) => visitRange(r.visitor_begin_time, r.visitor_end_time),
    },
    { name: 'vehicle_type_id', kind: 'text', hideInSearch: true, width: 130, render: (r) => r.vehicle_type_name ?? '-' },
    { name: 'license_plate_color', kind: 'enum', options: 'plateColor', hideInSearch: true, hideInCard: true, width: 110 },
    { name: 'applicant_name', label: '申请人', kind: 'text', width: 96, search: { placeholder: '请输入申请人姓名' } },
    { name: 'applicant_phone', kind: 'text', width: 130, hideInCard: true },
    { name: 'applicant_idcard', kind: 'text', hideInTable: true },
    { name: 'visitor_company', kind: 'text', width: 180 },
    { name: 'interviewee_name', label: '被访人', kind: 'text', width: 96, hideInCard: true, search: { placeholder: '请输入被访人姓名' } },
    { name: 'interviewee_phone', label: '被访电话', kind: 'text', width: 130, hideInCard: true, search: { placeholder: '请输入被访人电话' } },
    { name: 'visit_area', kind: 'enum', options: 'visitArea', width: 120, hideInCard: true },
    { name: 'is_delayed', kind: 'enum', options: 'delayed', width: 86, hideInCard: true },
    { name: 'create_time', kind: 'text', hideInSearch: true, hideInCard: true, width: 170 },
  ],
  toolbar: [
    { key: 'add', label: '新增预约', type: 'modal', component: CarCreateModal, permission: codes.add, primary: true, icon: <AddOutline /> },
    { key: 'import', label: '导入', type: 'modal', component: CarImportModal, visible: canImport, icon: <UploadOutline /> },
  ],
  rowActions,
  detail: {
    title: '车辆预约详情',
    width: 920,
    fetch: (r) => call(calls.detail, { id: r.car_application_id }),
    render: (r) => <ApplicationDetailWithProcess kind="car" row={r} />,
  },
});
