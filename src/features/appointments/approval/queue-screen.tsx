import { Tag } from 'antd-mobile';
import type { ReactNode } from 'react';
import type { AppointmentKind, QueueName } from '../../../../domain/appointments';
import { enums } from '../../../../domain/enums';
import { QUEUE_DEFAULT_AREA } from '../../../../domain/schemas/car-application';
import { TaskFlags } from '../../../components/approval/task-flags';
import { optionLabel } from '../../../components/enum-options';
import { defineScreen, type FieldDef, type ScreenDef } from '../../../list-screen';
import { stateLabels, useOutbox, waitingItemOfTask, waitingTaskIds } from '../../../lib/outbox';
import { AmendVisitModal } from './amend-visit-modal';
import { queueOf, type Queue } from './queue-of';
import { BatchReviewModal, ReviewModal } from './review-modal';
import { carOf, personOf, reviewable, visitRange, type TaskRow } from './task-row';

type F = FieldDef<TaskRow>;

/** Filter-only fields: never a column, a card line or a detail line. */
const filter = (f: Omit<F, 'hideInTable' | 'hideInCard' | 'hideInForm' | 'hideInDetail'>): F => ({ ...f, hideInTable: true, hideInCard: true, hideInForm: true, hideInDetail: true });
/** Column-only fields: the row holds the application nested, so every cell renders. */
const column = (f: Omit<F, 'hideInSearch' | 'hideInForm' | 'kind'> & { kind?: F['kind'] }): F => ({ kind: 'text', ...f, hideInSearch: true, hideInForm: true });

const dash = (v: unknown) => (v === undefined || v === null || v === '' ? '-' : String(v));
const timeRange = (kind: AppointmentKind) => (r: TaskRow) => {
  const [b, e] = visitRange(kind, r);
  if (!b && !e) return '-';
  return (
    <span className="aq-range">
      <span>{dash(b)}</span>
      <span className="aq-range__to">至 {dash(e)}</span>
    </span>
  );
};
/** A task whose decision waits in the outbox stays listed, marked 待发送 (or 发送失败 / 有冲突) beside its plate or visitor, never as decided. */
function OutboxMark({ taskId }: { taskId: number }) {
  const item = waitingItemOfTask(taskId, useOutbox());
  if (!item) return null;
  const state = item.state === 'sending' ? 'pending' : item.state;
  return (
    <Tag color={state === 'pending' ? 'warning' : 'danger'} fill="solid" className="ls-tag aq-outbox-tag">
      {stateLabels[state]}
    </Tag>
  );
}

const taskState = (r: TaskRow) => (
  <Tag color={enums.processTaskState.find((o) => o.value === r.state)?.color ?? 'default'} fill="outline" className="ls-tag">
    {optionLabel(enums.processTaskState, r.state)}
  </Tag>
);
/** 已催办 N 次 and 已超时 (docs/approvals.md): the card's extra, so at the right of a phone card's title and the column after the title's on a desktop. */
const flagsColumn = () => column({ name: 'flags', label: '催办/超时', width: 160, render: (r) => <TaskFlags task={r} dash /> });
const withSub = (main: unknown, sub: unknown, mark?: ReactNode) => (
  <span className="aq-two">
    <span>
      {dash(main)}
      {mark}
    </span>
    {sub ? <span className="aq-two__sub">{String(sub)}</span> : null}
  </span>
);

const timeFilter: F = filter({ name: 'time', label: '提交时间', kind: 'dateRange', search: { rangeKeys: ['begin_time', 'end_time'] } });
const areaDefault = { default: QUEUE_DEFAULT_AREA };

/** Spec 000 §2 vehicle queue filters and the columns a reviewer decides by. */
function carFields(showDept: boolean): F[] {
  return [
    filter({ name: 'application_number', label: '预约单号', kind: 'text' }),
    filter({ name: 'license_plate', label: '车牌号', kind: 'text' }),
    filter({ name: 'visitor_company', label: '来访单位', kind: 'text' }),
    filter({ name: 'interviewee_name', label: '被访人', kind: 'text', search: { placeholder: '请输入被访人姓名' } }),
    filter({ name: 'interviewee_phone', label: '被访电话', kind: 'text', search: { placeholder: '请输入被访人电话' } }),
    ...(showDept ? [filter({ name: 'interviewee_depart_id', label: '被访部门', kind: 'department' })] : []),
    filter({ name: 'applicant_name', label: '申请人', kind: 'text', search: { placeholder: '请输入申请人姓名' } }),
    filter({ name: 'applicant_phone', label: '申请电话', kind: 'text', search: { placeholder: '请输入申请人电话' } }),
    filter({ name: 'applicant_idcard', label: '身份证号', kind: 'text' }),
    filter({ name: 'visitor_type', label: '申请类型', kind: 'enum', options: 'carVisitorType' }),
    filter({ name: 'visit_area', label: '园区', kind: 'enum', options: 'visitArea', search: areaDefault }),
    timeFilter,

    column({ name: 'plate', label: '车牌号', width: 130, fixed: 'left', render: (r) => withSub(carOf(r).license_plate, carOf(r).vehicle_type_name, <OutboxMark taskId={r.process_task_id} />) }),
    flagsColumn(),
    column({ name: 'applicant', label: '申请人', width: 120, render: (r) => withSub(carOf(r).applicant_name, carOf(r).applicant_phone) }),
    column({ name: 'company', label: '来访单位', width: 150, render: (r) => dash(carOf(r).visitor_company) }),
    column({ name: 'interviewee', label: '被访人', width: 150, render: (r) => withSub(carOf(r).interviewee_name, carOf(r).interviewee_depart_name) }),
    column({ name: 'visit', label: '来访时间', width: 170, render: timeRange('car') }),
    column({ name: 'submit', label: '提交时间', width: 150, render: (r) => dash(r.submit_time) }),
    column({ name: 'state', label: '状态', width: 90, hideInTable: true, render: taskState }),
  ];
}

/** Spec 000 §2 person queue filters and columns. */
function personFields(showDept: boolean): F[] {
  return [
    filter({ name: 'application_number', label: '申请单号', kind: 'text' }),
    filter({ name: 'visitor_name', label: '访客姓名', kind: 'text' }),
    filter({ name: 'visitor_company', label: '来访单位', kind: 'text' }),
    filter({ name: 'visitor_idcard', label: '身份证号', kind: 'text' }),
    filter({ name: 'visitor_phone', label: '手机号', kind: 'text' }),
    ...(showDept ? [filter({ name: 'interviewee_depart_id', label: '被访部门', kind: 'department' })] : []),
    filter({ name: 'interviewee_name', label: '被访人', kind: 'text', search: { placeholder: '请输入被访人姓名' } }),
    filter({ name: 'interviewee_phone', label: '被访电话', kind: 'text', search: { placeholder: '请输入被访人电话' } }),
    filter({ name: 'visitor_type', label: '申请类型', kind: 'enum', options: 'personVisitorType' }),
    filter({ name: 'visit_area', label: '来访区域', kind: 'enum', options: 'visitArea', search: areaDefault }),
    timeFilter,

    column({ name: 'visitor', label: '访客', width: 130, fixed: 'left', render: (r) => withSub(personOf(r).visitor_name, personOf(r).visitor_phone, <OutboxMark taskId={r.process_task_id} />) }),
    flagsColumn(),
    column({ name: 'company', label: '来访单位', width: 150, render: (r) => dash(personOf(r).visitor_company) }),
    column({ name: 'interviewee', label: '被访人', width: 150, render: (r) => withSub(personOf(r).interviewee_name, personOf(r).interviewee_depart_name) }),
    column({ name: 'type', label: '申请类型', width: 90, hideInCard: true, render: (r) => dash(optionLabel(enums.personVisitorType, personOf(r).visitor_type)) }),
    column({ name: 'visit', label: '来访时间', width: 170, render: timeRange('person') }),
    column({ name: 'submit', label: '提交时间', width: 150, render: (r) => dash(r.submit_time) }),
    column({ name: 'state', label: '状态', width: 90, hideInTable: true, render: taskState }),
  ];
}

/** Each kind's queue columns and filters, and the column a phone card is titled by. */
const fieldsOf = { car: { fields: carFields, cardTitle: 'plate' }, person: { fields: personFields, cardTitle: 'visitor' } } as const;

export function queueFields(queue: Queue, showDept: boolean): F[] {
  return fieldsOf[queue.kind].fields(showDept);
}

const lists = new Map<QueueName, ScreenDef<TaskRow>['list']>();
/** One list object per queue, so a rebuilt screen description keeps the same query params. */
function listOf(queue: Queue): ScreenDef<TaskRow>['list'] {
  let l = lists.get(queue.name);
  if (!l) lists.set(queue.name, (l = { path: queue.calls.page, permission: queue.list }));
  return l;
}

export interface QueueScreenOptions {
  fields: F[];
  /** The per-row can-amend answer (spec 000 §4); unknown rows have no amend button yet. */
  amendable: (row: TaskRow) => boolean;
}

/** One screen description per queue, built from the domain `queues` table (no copy per queue). */
export function queueScreen(name: QueueName, { fields, amendable }: QueueScreenOptions): ScreenDef<TaskRow> {
  const queue = queueOf(name);
  return defineScreen<TaskRow>({
    key: `approval.${name}`,
    title: queue.title,
    list: listOf(queue),
    rowKey: 'process_task_id',
    card: { title: fieldsOf[queue.kind].cardTitle, extra: 'flags' },
    fields,
    rowActions: [
      { key: 'review', label: '审核', type: 'modal', permission: queue.check, visible: (r) => reviewable(queue.kind, r) && !waitingTaskIds().has(r.process_task_id), component: ReviewModal(name) },
      { key: 'amend', label: '修改来访时间', type: 'modal', visible: amendable, component: AmendVisitModal(name) },
    ],
    batch: [{ key: 'batch', label: '批量审核', type: 'modal', permission: queue.batch, component: BatchReviewModal(name) }],
    // Tap / double-click opens the review itself (spec 000 §2), read-only for those who may not decide.
    detail: { component: ReviewModal(name) },
    autoRefresh: 60_000,
  });
}
