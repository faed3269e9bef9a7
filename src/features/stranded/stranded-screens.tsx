import { ALL } from '../../../domain/enums';
import { isAlarmHandled, strandedApi, strandedLabels, strandedStatApi, type AlarmList, type StrandedAlarmRow } from '../../../domain/schemas/stranded';
import { formatInZone } from '../../../domain/time';
import { addDays, dateOf } from '../../../domain/visit-rules';
import { downloadFile } from '../../lib/download';
import { defineScreen, type DeclaredField, type FieldDef, type Row, type Values } from '../../list-screen';
import { buildListParams } from '../../list-screen/conventions';
import { alarmDealModalFor } from './alarm-deal-modal';
import { alarmKinds, waitingDeal } from './alarm-kinds';
import { fetchAlarm, HandledState, StrandedDetail, strandedDetailModalFor } from './stranded-detail';

/**
 * 人员滞留告警, 车辆滞留告警 and 车辆滞留统计 (spec 001 §2 "Stranded alarms",
 * §7): the alarms detection raised (DESIGN.md §8), newest first, read only
 * but for their handling (the statistics are stranded-stats.tsx); and
 * 偏离路线告警, one alarm per visit whose vehicle crossed a gate off its route.
 */

const dash = (v: string | null | undefined) => v || '-';
const EXPORT_FILE = '车辆滞留导出.xlsx';

/** Park days, read whenever the filters start or are reset, so a screen left open overnight moves on. */
const today = () => dateOf(formatInZone(new Date()));

/** The alarm time range: from 7 days ago to tomorrow (spec 001 §9 defaults), sent as begin_time and end_time. */
const alarmRange = <R extends Row>(): DeclaredField<R> => ({
  name: 'alarm_range',
  label: strandedLabels.alarm_time,
  kind: 'dateRange',
  hideInTable: true,
  hideInCard: true,
  hideInDetail: true,
  search: {
    rangeKeys: ['begin_time', 'end_time'],
    get default() {
      return [addDays(today(), -7), addDays(today(), 1)];
    },
  },
});

const visitArea = <R extends Row>(search: boolean): DeclaredField<R> => ({
  name: 'visit_area',
  kind: 'enum',
  options: 'visitArea',
  width: 110,
  ...(search ? { search: { default: ALL } } : { hideInSearch: true }),
});

/** POSTs the list's filters to the export and saves '车辆滞留导出.xlsx' (the appointment exports' way). */
async function exportStranded<R extends Row>(filters: Values, fields: FieldDef<R>[]): Promise<void> {
  const { size: _size, pn: _pn, ...body } = buildListParams(filters, fields, { pn: 1, size: 10 });
  await downloadFile({ method: 'post', path: strandedStatApi.export.path, body, fallbackName: EXPORT_FILE, loadingText: '正在导出…' });
}

/** The columns every alarm list shares, after who or what is stranded (a route deviation's level is its list's name, so that list leaves it out). */
function alarmFields(list: AlarmList): DeclaredField<StrandedAlarmRow>[] {
  const deviation = alarmKinds[list].deviation;
  // The handled state next to the type, so the table shows it before it scrolls sideways to the rest.
  return [
    ...(deviation ? [] : [{ name: 'level_type', kind: 'enum', options: 'strandedLevel', tag: true, hideInSearch: true, width: 124 } satisfies DeclaredField<StrandedAlarmRow>]),
    { name: 'handled', kind: 'custom', hideInSearch: true, width: 96, render: (r) => <HandledState list={list} row={r} /> },
    ...(deviation ? [] : [{ name: 'entry_time', kind: 'text', hideInSearch: true, hideInCard: true, width: 166 } satisfies DeclaredField<StrandedAlarmRow>]),
    { name: 'alarm_time', kind: 'text', hideInSearch: true, width: 166 },
    { name: 'exit_time', kind: 'text', hideInSearch: true, width: 166, render: (r) => dash(r.exit_time) },
    { name: 'handle_user_name', kind: 'text', hideInSearch: true, hideInCard: true, width: 90, render: (r) => dash(r.handle_user_name) },
    { name: 'false_alarm', kind: 'custom', hideInSearch: true, hideInCard: true, width: 90, render: (r) => (isAlarmHandled(r) && r.false_alarm !== null ? (r.false_alarm === 1 ? '是' : '否') : '-') },
  ];
}

function alarmScreen(list: AlarmList, s: { title: string; lead: DeclaredField<StrandedAlarmRow>[]; card: { title: string; extra: string }; toolbar?: boolean }) {
  const k = alarmKinds[list];
  const key = `stranded.${list}`;
  const fields = [...s.lead, ...alarmFields(list), alarmRange<StrandedAlarmRow>()];
  const def = defineScreen<StrandedAlarmRow>({
    key,
    title: s.title,
    labels: strandedLabels,
    list: { path: strandedApi[list].calls.list, permission: k.list },
    rowKey: 'id',
    card: s.card,
    fields,
    rowActions: [
      { key: 'detail', label: '详情', type: 'detail' },
      // Once: a handled alarm (or one whose handling waits in this device's outbox) is not handled again.
      { key: 'deal', label: '处理告警', type: 'modal', permission: k.deal, visible: (r) => !isAlarmHandled(r) && !waitingDeal(list, r.id), component: alarmDealModalFor(list) },
    ],
    detail: {
      title: `${k.noun}详情`,
      fetch: fetchAlarm(list),
      render: (r) => <StrandedDetail list={list} row={r} />,
      width: 760,
      // A tap (or a notification's link) opens the detail with 处理告警 at hand.
      component: strandedDetailModalFor(list, key),
    },
    invalidates: [['detail', key]],
  });
  if (s.toolbar) {
    def.toolbar = [{ key: 'export', label: '导出', type: 'run', run: ({ filters }) => exportStranded(filters, def.fields) }];
  }
  return def;
}

export const personStrandedScreen = alarmScreen('person', {
  title: '人员滞留告警',
  card: { title: 'person_name', extra: 'handled' },
  lead: [
    { name: 'person_name', kind: 'text', width: 100, fixed: 'left', render: (r) => dash(r.person_name) },
    { name: 'idcard', kind: 'text', hideInSearch: true, width: 170 },
    visitArea<StrandedAlarmRow>(false),
  ],
});

export const carStrandedScreen = alarmScreen('car', {
  title: '车辆滞留告警',
  card: { title: 'license_plate', extra: 'handled' },
  toolbar: true,
  // The spec's filter order: park, plate, time range.
  lead: [visitArea<StrandedAlarmRow>(true), { name: 'license_plate', kind: 'text', width: 110 }],
});

/** 偏离路线告警: one row per visit, its first gate off the route and how often it crossed off it; the vehicle list's filters. */
export const routeDeviationScreen = alarmScreen('deviation', {
  title: '偏离路线告警',
  card: { title: 'license_plate', extra: 'handled' },
  lead: [
    visitArea<StrandedAlarmRow>(true),
    { name: 'license_plate', kind: 'text', width: 110 },
    { name: 'route_name', kind: 'custom', hideInSearch: true, width: 200, render: (r) => dash(r.application_info?.route_name) },
    { name: 'deviation_gate', kind: 'custom', hideInSearch: true, width: 140, render: (r) => dash(r.crossings[0]?.gate) },
    { name: 'deviation_count', kind: 'custom', hideInSearch: true, width: 90, render: (r) => `${r.crossings.length} 次` },
  ],
});
