import { exportTitleOf, kindCalls } from '../../../../domain/appointment-kinds';
import { appointmentCodes, canDo, type AppointmentKind } from '../../../../domain/appointments';
import type { CarApplicationRow } from '../../../../domain/schemas/car-application';
import type { PersonApplicationRow } from '../../../../domain/schemas/person-application';
import { call } from '../../../lib/http';
import { DESKTOP_QUERY } from '../../../lib/use-media';
import { defineScreen, type RowAction, type ScreenDef } from '../../../list-screen';
import { ApplicationDetailWithProcess } from '../shared/application-detail';
import { flagModalFor, rejectModalFor, resumeModalFor, revokeModalFor } from '../shared/action-modals';
import { processDrawerFor } from '../shared/process-drawer';
import { exportList } from './export-history';
import { carHistoryFields, flaggedRowClass, personHistoryFields } from './history-fields';

const car = appointmentCodes.car;
const person = appointmentCodes.person;

type AnyRow = CarApplicationRow | PersonApplicationRow;

/** Detail and approval process, the first two actions of every history row. */
function viewActions<R extends AnyRow>(kind: AppointmentKind): RowAction<R>[] {
  return [
    // A phone card already ends in 查看详情; the same link again in its one inline slot would crowd out a real action.
    { key: 'detail', label: '详情', type: 'detail', visible: () => window.matchMedia(DESKTOP_QUERY).matches },
    { key: 'process', label: '审批流程', type: 'modal', component: processDrawerFor<R>(kind), visible: (r, can) => canDo(kind, 'process', r.state, can) },
  ];
}

/** 驳回, 继续审批 and 撤销 of the all-history screens (spec 000 §4: state 1; state 3 or 4; state 1 or 2). */
function allHistoryActions<R extends AnyRow>(kind: AppointmentKind): RowAction<R>[] {
  const code = appointmentCodes[kind].allRevoke;
  return [
    { key: 'reject', label: '驳回', type: 'modal', permission: code, danger: true, component: rejectModalFor<R>(kind), visible: (r, can) => canDo(kind, 'reject', r.state, can) },
    { key: 'resume', label: '继续审批', type: 'modal', permission: code, component: resumeModalFor<R>(kind), visible: (r, can) => canDo(kind, 'resume', r.state, can) },
    {
      key: 'revoke',
      label: '撤销',
      type: 'modal',
      permission: code,
      danger: true,
      component: revokeModalFor<R>(kind, 'allRevoke'),
      visible: (r, can) => canDo(kind, 'allRevoke', r.state, can),
    },
  ];
}

/** The all-history screens read details through their own path: their users may not hold the history list code. */
const carDetail = (read: 'historyDetail' | 'allDetail'): ScreenDef<CarApplicationRow>['detail'] => ({
  title: '车辆预约详情',
  width: 880,
  fetch: (r) => call(kindCalls.car[read], { id: r.car_application_id }),
  render: (r) => <ApplicationDetailWithProcess kind="car" row={r} />,
});

const personDetail = (read: 'historyDetail' | 'allDetail'): ScreenDef<PersonApplicationRow>['detail'] => ({
  title: '人员预约详情',
  width: 820,
  fetch: (r) => call(kindCalls.person[read], { id: r.person_application_id }),
  render: (r) => <ApplicationDetailWithProcess kind="person" row={r} />,
});

/** 人员预约记录 (spec 000 §2 history screens). */
export const personHistoryScreen = defineScreen<PersonApplicationRow>({
  key: 'appointments.person-history',
  title: '人员预约记录',
  list: { path: kindCalls.person.historyList, permission: person.historyList },
  rowKey: 'person_application_id',
  card: { title: 'visitor_name', extra: 'state' },
  fields: personHistoryFields,
  rowActions: [
    ...viewActions<PersonApplicationRow>('person'),
    {
      key: 'revoke',
      label: '撤销',
      type: 'modal',
      permission: person.historyRevoke,
      danger: true,
      component: revokeModalFor<PersonApplicationRow>('person', 'historyRevoke'),
      visible: (r, can) => canDo('person', 'historyRevoke', r.state, can),
    },
  ],
  detail: personDetail('historyDetail'),
});

/** 车辆预约记录. */
export const carHistoryScreen = defineScreen<CarApplicationRow>({
  key: 'appointments.car-history',
  title: '车辆预约记录',
  list: { path: kindCalls.car.historyList, permission: car.historyList },
  rowKey: 'car_application_id',
  card: { title: 'license_plate', extra: 'state' },
  fields: carHistoryFields,
  rowActions: [
    ...viewActions<CarApplicationRow>('car'),
    {
      key: 'revoke',
      label: '撤销',
      type: 'modal',
      permission: car.historyRevoke,
      danger: true,
      component: revokeModalFor<CarApplicationRow>('car', 'historyRevoke'),
      visible: (r, can) => canDo('car', 'historyRevoke', r.state, can),
    },
  ],
  detail: carDetail('historyDetail'),
  rowClassName: flaggedRowClass,
});

/** 车辆预约总记录: every vehicle application, with flag, reject, resume, revoke and export. */
export const carAllHistoryScreen = defineScreen<CarApplicationRow>({
  key: 'appointments.car-all-history',
  title: '车辆预约总记录',
  list: { path: kindCalls.car.allList, permission: car.allList },
  rowKey: 'car_application_id',
  card: { title: 'license_plate', extra: 'state' },
  fields: carHistoryFields,
  rowActions: [
    ...viewActions<CarApplicationRow>('car'),
    { key: 'flag', label: '标记', type: 'modal', permission: car.label, component: flagModalFor<CarApplicationRow>() },
    ...allHistoryActions<CarApplicationRow>('car'),
  ],
  batch: [{ key: 'flag', label: '批量标记', type: 'modal', permission: car.label, component: flagModalFor<CarApplicationRow>() }],
  toolbar: [
    {
      key: 'export',
      label: '导出',
      type: 'run',
      permission: car.allExport,
      run: ({ filters }) => exportList(kindCalls.car.export, filters, carHistoryFields, `${exportTitleOf('car')}.xlsx`),
    },
  ],
  detail: carDetail('allDetail'),
  rowClassName: flaggedRowClass,
});

/** 人员预约总记录: every person application, with reject, resume, revoke and export. */
export const personAllHistoryScreen = defineScreen<PersonApplicationRow>({
  key: 'appointments.person-all-history',
  title: '人员预约总记录',
  list: { path: kindCalls.person.allList, permission: person.allList },
  rowKey: 'person_application_id',
  card: { title: 'visitor_name', extra: 'state' },
  fields: personHistoryFields,
  rowActions: [...viewActions<PersonApplicationRow>('person'), ...allHistoryActions<PersonApplicationRow>('person')],
  toolbar: [
    {
      key: 'export',
      label: '导出',
      type: 'run',
      permission: person.allExport,
      run: ({ filters }) => exportList(kindCalls.person.export, filters, personHistoryFields, `${exportTitleOf('person')}.xlsx`),
    },
  ],
  detail: personDetail('allDetail'),
});
