import { AddOutline } from 'antd-mobile-icons';
import { appointmentKinds, kindCalls } from '../../../../domain/appointment-kinds';
import { canDo, type AppointmentAction } from '../../../../domain/appointments';
import { personApplicationLabels, type PersonApplicationRow } from '../../../../domain/schemas/person-application';
import { call } from '../../../lib/http';
import { defineScreen, type Can, type RowAction } from '../../../list-screen';
import { ApplicationDetailWithProcess } from '../shared/application-detail';
import { revokeModalFor } from '../shared/action-modals';
import { PersonDelayModal } from '../shared/delay-modal';
import { visitRange } from '../shared/visit-time';
import { processDrawerFor } from '../shared/process-drawer';
import { PersonCopyModal, PersonCreateModal, PersonEditModal } from './person-form';

type R = PersonApplicationRow;
const { codes } = appointmentKinds.person;
const calls = kindCalls.person;
/** Each button shows with the same state rule the server refuses the call with (spec 000 §4). */
const when = (action: AppointmentAction) => (r: R, can: Can) => canDo('person', action, r.state, can);

const rowActions: RowAction<R>[] = [
  { key: 'detail', label: '详情', type: 'detail' },
  { key: 'edit', label: '编辑', type: 'modal', component: PersonEditModal, permission: codes.edit, visible: when('edit') },
  {
    key: 'submit',
    label: '提交',
    type: 'call',
    permission: codes.commit,
    visible: when('submit'),
    confirm: (r) => `确认提交“${r.visitor_name}”的预约申请？提交后将进入审批流程。`,
    path: calls.push,
    body: (r) => ({ id: r.person_application_id }),
    success: '提交成功！',
    failure: '提交失败',
  },
  { key: 'copy', label: '复制', type: 'modal', component: PersonCopyModal, permission: codes.add, visible: when('copy') },
  { key: 'delay', label: '延期申请', type: 'modal', component: PersonDelayModal, permission: codes.edit, visible: when('delay') },
  { key: 'process', label: '审批流程', type: 'modal', component: processDrawerFor<R>('person'), visible: when('process') },
  // 催办 (docs/approvals.md): reminds the current approvers; the server answers how often is allowed (429 with when the next may be).
  {
    key: 'urge',
    label: '催办',
    type: 'call',
    permission: codes.revoke,
    visible: when('urge'),
    path: calls.urge,
    body: (r) => ({ id: r.person_application_id }),
    success: '催办成功，已通知审核人',
    failure: '催办失败',
  },
  { key: 'revoke', label: '撤销', type: 'modal', component: revokeModalFor<R>('person'), permission: codes.revoke, visible: when('revoke'), danger: true },
  { key: 'delete', label: '删除', type: 'delete', permission: codes.delete, visible: when('delete'), path: calls.delete, body: (r) => ({ id: r.person_application_id }) },
];

/** 园区企业访客预约 (spec 000 §2 person application list). */
export const personApplicationsScreen = defineScreen<R>({
  key: 'appointments.person',
  title: '人员预约列表',
  labels: personApplicationLabels,
  list: { path: calls.list, permission: codes.list },
  rowKey: 'person_application_id',
  card: { title: 'visitor_name', extra: 'state' },
  // Order serves the table (status and validity before the details); the filters follow it.
  fields: [
    { name: 'application_number', kind: 'text', width: 180 },
    { name: 'visitor_name', kind: 'text', width: 100 },
    { name: 'state', label: '状态', kind: 'enum', options: 'applicationState', tag: true, width: 96 },
    { name: 'visitor_type', kind: 'enum', options: 'personVisitorType', width: 96 },
    {
      name: 'visit_time',
      label: '有效时间',
      kind: 'dateRange',
      width: 210,
      search: { rangeKeys: ['begin_time', 'end_time'] },
      render: (r) => visitRange(r.visit_begin_time, r.visit_end_time),
    },
    { name: 'visitor_company', kind: 'text', width: 180 },
    { name: 'visitor_idcard', kind: 'text', hideInTable: true },
    { name: 'visitor_phone', kind: 'text', width: 130, hideInCard: true },
    { name: 'interviewee_depart_id', kind: 'department', width: 170, hideInCard: true, render: (r) => r.interviewee_depart_name ?? '-' },
    { name: 'interviewee_name', label: '被访人', kind: 'text', width: 96, search: { placeholder: '请输入被访人姓名' } },
    { name: 'interviewee_phone', label: '被访电话', kind: 'text', width: 130, hideInCard: true, search: { placeholder: '请输入被访人电话' } },
    { name: 'is_delayed', kind: 'enum', options: 'delayed', width: 86, hideInCard: true },
    { name: 'visitor_gender', kind: 'enum', options: 'gender', hideInSearch: true, hideInCard: true, width: 64 },
    { name: 'create_time', kind: 'text', hideInSearch: true, hideInCard: true, width: 170 },
  ],
  toolbar: [{ key: 'add', label: '新增预约', type: 'modal', component: PersonCreateModal, permission: codes.add, primary: true, icon: <AddOutline /> }],
  rowActions,
  detail: {
    title: '人员预约详情',
    width: 880,
    fetch: (r) => call(calls.detail, { id: r.person_application_id }),
    render: (r) => <ApplicationDetailWithProcess kind="person" row={r} />,
  },
});
