import { FlagOutline } from 'antd-mobile-icons';
import type { CarApplicationRow } from '../../../../domain/schemas/car-application';
import type { PersonApplicationRow } from '../../../../domain/schemas/person-application';
import type { FieldDef } from '../../../list-screen';
import { visitRange } from '../shared/visit-time';
import '../shared/action-modals.css';

const TIME_RANGE_KEYS: [string, string] = ['begin_time', 'end_time'];

function Plate({ row }: { row: CarApplicationRow }) {
  if (row.label_status !== 1) return <>{row.license_plate || '-'}</>;
  return (
    <span className="ah-flag" title={row.label_remark ? `已标记：${row.label_remark}` : '已标记'}>
      <FlagOutline className="ah-flag__icon" aria-label="已标记" />
      {row.license_plate}
    </span>
  );
}

/** Red rows: vehicles whose label_status is 1 (spec 000 §2). */
export const flaggedRowClass = (r: CarApplicationRow) => (r.label_status === 1 ? 'ah-flagged' : undefined);

/**
 * Vehicle history columns and the car application list's filters (spec 000
 * §2). The widths add up to 1500 px, the spec's scroll width, where there is
 * room; a narrower pane fits them (src/list-screen fitColumnWidths).
 */
export const carHistoryFields: FieldDef<CarApplicationRow>[] = [
  { name: 'application_number', label: '预约单号', kind: 'text', width: 180, fixed: 'left', hideInCard: true },
  { name: 'license_plate', label: '车牌号', kind: 'text', width: 120, render: (r) => <Plate row={r} /> },
  { name: 'vehicle_type_name', label: '车型', kind: 'text', width: 120, hideInSearch: true, hideInCard: true },
  { name: 'applicant_name', label: '申请人', kind: 'text', width: 90 },
  { name: 'applicant_phone', label: '手机号', kind: 'text', width: 125 },
  { name: 'applicant_idcard', label: '身份证号', kind: 'text', hideInTable: true },
  { name: 'visitor_company', label: '来访单位', kind: 'text', width: 150 },
  { name: 'interviewee_name', label: '被访人', kind: 'text', width: 90, hideInCard: true },
  { name: 'interviewee_phone', label: '被访电话', kind: 'text', width: 125, hideInCard: true },
  { name: 'visit_area', label: '园区', kind: 'enum', options: 'visitArea', width: 110, hideInCard: true },
  { name: 'state', label: '审核状态', kind: 'enum', options: 'applicationState', tag: true, width: 100 },
  { name: 'visitor_type', label: '申请类型', kind: 'enum', options: 'carVisitorType', width: 80 },
  { name: 'is_delayed', label: '是否延期', kind: 'enum', options: 'delayed', hideInTable: true },
  {
    name: 'visitTime',
    label: '来访时间',
    kind: 'dateRange',
    width: 210,
    search: { rangeKeys: TIME_RANGE_KEYS },
    render: (r) => <span className="ah-range">{visitRange(r.visitor_begin_time, r.visitor_end_time)}</span>,
  },
];

/** Person history columns and the person application list's filters (spec 000 §2). */
export const personHistoryFields: FieldDef<PersonApplicationRow>[] = [
  { name: 'application_number', label: '申请单号', kind: 'text', width: 180, fixed: 'left', hideInCard: true },
  { name: 'visitor_name', label: '访客姓名', kind: 'text', width: 100 },
  { name: 'visitor_company', label: '来访单位', kind: 'text', width: 150 },
  { name: 'visitor_idcard', label: '证件号码', kind: 'text', width: 180, hideInCard: true },
  { name: 'visitor_phone', label: '手机号', kind: 'text', width: 125 },
  {
    name: 'interviewee_depart_id',
    label: '被访部门',
    kind: 'department',
    width: 150,
    render: (r) => r.interviewee_depart_name ?? '-',
  },
  { name: 'interviewee_name', label: '被访人', kind: 'text', width: 90, hideInCard: true },
  { name: 'interviewee_phone', label: '被访电话', kind: 'text', width: 125, hideInCard: true },
  { name: 'state', label: '审核状态', kind: 'enum', options: 'applicationState', tag: true, width: 100 },
  { name: 'visitor_type', label: '申请类型', kind: 'enum', options: 'personVisitorType', width: 90 },
  { name: 'visit_area', label: '园区', kind: 'enum', options: 'visitArea', width: 110, hideInSearch: true, hideInCard: true },
  { name: 'is_delayed', label: '是否延期', kind: 'enum', options: 'delayed', hideInTable: true },
  {
    name: 'visitTime',
    label: '来访时间',
    kind: 'dateRange',
    width: 210,
    search: { rangeKeys: TIME_RANGE_KEYS },
    render: (r) => <span className="ah-range">{visitRange(r.visit_begin_time, r.visit_end_time)}</span>,
  },
];
