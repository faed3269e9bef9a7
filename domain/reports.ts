import { z } from 'zod';
import { binary, col, defineCall, type Call } from './contract';
import { enumLabel } from './enums';
import type { MenuCode } from './permissions';
import { labelled, optionalFilterText, type FieldLabels } from './schemas/common';
import { addDays, diffDays, isValidDate } from './visit-rules';

/**
 * The statistics reports of spec 002 §2 (issue 26, DESIGN.md §10), each one
 * declaration: its calls (data and export, under the spec's paths), its
 * filters with their defaults and Chinese messages, its columns from the
 * label catalogue, its export's file name and an optional chart. The server
 * registers both calls of every declaration (server/modules/reports/) and
 * adds only the query; one report screen renders any declaration
 * (src/features/reports/). Every signed-in user may read them (spec 002 §6
 * "always allowed").
 *
 * What each figure counts is written in docs/decisions.md (issue 26); the
 * days are park days (PARK_TZ), the parks 1 化工区, 2 港区, 3 both.
 */

export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The longest range a report counts at once: a year of days, so an answer stays small (DESIGN.md §11). */
export const REPORT_MAX_DAYS = 366;

/** The label catalogue of the reports: filters, columns, export headers. */
export const reportLabels = {
  start_time: '开始日期',
  end_time: '结束日期',
  visit_area: '园区类型',
  type: '园区类型',
  date: '日期',
  count_date: '日期',
  stat_date: '日期',
  direction: '进出方向',
  depart_name: '部门名称',
  user_name: '审批人',
  in_count: '入园',
  out_count: '出园',
  refused: '未开闸',
  total: '合计',
  area: '来访园区',
  added: '当日新增',
  company_check_pending: '企业待审核',
  company_check_disagree: '企业驳回',
  company_check_agree: '企业通过',
  check_pending: '小队待审核',
  check_disagree: '小队驳回',
  check_agree: '小队通过',
  person_pass: '人员审核通过',
  person_fail: '人员审核驳回',
  car_pass: '车辆审核通过',
  car_fail: '车辆审核驳回',
  registration_pass: '严格车辆备案审核通过',
  registration_fail: '严格车辆备案审核驳回',
  proprietor: '业主',
  facilitator: '服务商',
  construction_unit: '建设单位',
  temporary_visitor: '临时访客',
  build: '施工',
  maintain: '维保',
  temporary: '临时',
  ordinary_car: '普通车辆',
  hazardous_chemicals_car: '危化品车辆',
  vehicle_type: '车辆类型',
  new_vehicles: '新增车辆',
  vehicles: '去重车辆',
  gate_name: '闸口名称',
  entrances_type: '入口归属',
} as const satisfies FieldLabels;
export type ReportLabel = keyof typeof reportLabels;

// ---------------------------------------------------------------- filters

const emptyToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** A park day 'YYYY-MM-DD', named in its message. */
export const reportDay = (label: string) =>
  z.preprocess(
    emptyToUndefined,
    z
      .string({ error: (i) => (i.input === undefined ? `请选择${label}` : `${label}必须是文本`) })
      .refine((v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && isValidDate(v), { error: `${label}格式不正确，应为YYYY-MM-DD` }),
  );

/** A park filter: 1 化工区, 2 港区, 3 both (absent reads as both). */
export const reportPark = (label: string) =>
  z.preprocess(
    (v) => (v === '' || v === null || v === undefined ? 3 : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v),
    z.union([z.literal(1), z.literal(2), z.literal(3)], { error: `${label}只能是1（化工区）、2（港区）或3（化工区和港区）` }),
  );

/** A date range of at most REPORT_MAX_DAYS days, the end not before the start; the error names the end. */
const dayRange = <T extends { start_time: string; end_time: string }>(q: T, ctx: z.RefinementCtx) => {
  if (q.end_time < q.start_time) ctx.addIssue({ code: 'custom', path: ['end_time'], message: '结束日期不能早于开始日期' });
  else if (diffDays(q.start_time, q.end_time) >= REPORT_MAX_DAYS) ctx.addIssue({ code: 'custom', path: ['end_time'], message: `统计时间范围不能超过${REPORT_MAX_DAYS}天` });
};

const range = { start_time: reportDay(reportLabels.start_time), end_time: reportDay(reportLabels.end_time) };
const areaRangeQuery = labelled(z.object({ ...range, visit_area: reportPark(reportLabels.visit_area) }).superRefine(dayRange), reportLabels);
const noFilters = z.object({});

/** How the screen asks for a filter; the wire name is the input schema's. */
export type ReportFilter =
  | { kind: 'dateRange'; keys: readonly [string, string]; label: string }
  | { kind: 'date'; key: string; label: string; /** The spec's approval date cannot be cleared. */ required?: boolean }
  | { kind: 'park'; key: string; label: string }
  | { kind: 'text'; key: string; label: string }
  | { kind: 'choice'; key: string; label: string; options: ReadonlyArray<{ value: string; label: string }> };

const rangeFilter: ReportFilter = { kind: 'dateRange', keys: ['start_time', 'end_time'], label: '统计日期' };
const parkFilter = (key: 'visit_area' | 'type'): ReportFilter => ({ kind: 'park', key, label: reportLabels[key] });
/** The spec's default range (§9): the last 7 days, today included. */
const last7Days = (today: string) => ({ start_time: addDays(today, -6), end_time: today });

// ---------------------------------------------------------------- columns and rows

export type ColumnKind = 'date' | 'text' | 'count' | 'park';
export interface ReportColumn {
  key: string;
  label: string;
  kind: ColumnKind;
}
const column = (key: ReportLabel, kind: ColumnKind = 'count'): ReportColumn => ({ key, label: reportLabels[key], kind });

/** A row's schema from its columns: what the data call answers, so the declaration and the answer cannot disagree. */
function rowOf(columns: readonly ReportColumn[]) {
  return z.object(Object.fromEntries(columns.map((c) => [c.key, c.kind === 'count' || c.kind === 'park' ? col.int : col.text])));
}

/** The one chart a report may draw: the series (column keys) against the x column. */
export interface ReportChart {
  type: 'bar' | 'line';
  x: string;
  series: readonly string[];
  stacked?: boolean;
}

// ---------------------------------------------------------------- the declaration

export interface ReportCalls {
  data: Call;
  export: Call;
}

export interface ReportDef<F extends z.ZodType = z.ZodType> {
  key: string;
  /** Its menu entry (domain/permissions.ts, under 统计报表). */
  screen: MenuCode;
  title: string;
  filters: readonly ReportFilter[];
  input: F;
  /** Filter values when none are given, from the park day it is ('YYYY-MM-DD'): the screen's and the server's. */
  defaults: (today: string) => Partial<z.input<F>>;
  columns: readonly ReportColumn[];
  /** Columns that follow the fixed ones, named by the answer's `title` (车型进出报表). */
  dynamicColumns?: boolean;
  /** The data and export calls; a report whose filter picks the path (车型进出报表's direction) names that filter and its calls per value. */
  calls: ReportCalls;
  variants?: { filter: string; calls: Record<string, ReportCalls> };
  /** The export's name, from the filters it was made with. */
  fileName: (filters: z.output<F>, today: string) => string;
  chart?: ReportChart;
  /** Desktop table width when the columns need more than the page (the spec's 3300 for 车型进出报表). */
  scrollWidth?: number;
}

/** A dynamic column of 车型进出报表: a vehicle type the cameras reported in the range. */
export const reportTitle = z.object({ key: col.text, label: col.text });
export type ReportTitle = z.infer<typeof reportTitle>;

/** The data call's answer: the rows (paged on the client, spec 002 §9), and the dynamic columns where there are any. */
export const reportAnswer = (row: z.ZodType) => z.object({ list: z.array(row), title: z.array(reportTitle).optional() });
export type ReportAnswer = { list: Array<Record<string, string | number>>; title?: ReportTitle[] };

const parkName = (v: number) => enumLabel('visitArea', v);
const span = (f: { start_time: string; end_time: string }) => `${f.start_time}至${f.end_time}`;

function calls(title: string, path: string, exportPath: string, input: z.ZodType, row: z.ZodType): ReportCalls {
  return {
    data: defineCall({ method: 'GET', path, permission: 'signed-in', summary: title, input, answer: reportAnswer(row) }),
    export: defineCall({ method: 'GET', path: exportPath, permission: 'signed-in', summary: `导出${title}（.xlsx，筛选同统计）`, input, answer: binary(XLSX) }),
  };
}

/** Declares a report; the data call's row is built from the columns. */
function defineReport<F extends z.ZodType>(
  def: Omit<ReportDef<F>, 'calls' | 'variants'> & { path: string; exportPath: string } & { variants?: { filter: string; paths: Record<string, { path: string; exportPath: string }> } },
): ReportDef<F> {
  const row = def.dynamicColumns ? rowOf(def.columns).catchall(col.int) : rowOf(def.columns);
  const { path, exportPath, variants, ...rest } = def;
  return {
    ...rest,
    calls: calls(def.title, path, exportPath, def.input, row),
    variants: variants && {
      filter: variants.filter,
      calls: Object.fromEntries(Object.entries(variants.paths).map(([v, p]) => [v, calls(def.title, p.path, p.exportPath, def.input, row)])),
    },
  };
}

const inOutColumns = [column('stat_date', 'date'), column('in_count'), column('out_count'), column('total')];
const stateColumns = [
  column('stat_date', 'date'),
  column('area', 'park'),
  column('added'),
  column('company_check_pending'),
  column('company_check_disagree'),
  column('company_check_agree'),
  column('check_pending'),
  column('check_disagree'),
  column('check_agree'),
];

export const vehicleInOutReport = defineReport({
  key: 'vehicleInOut',
  screen: 'menu:statVehicleInOut',
  title: '车辆进出统计',
  // The spec names no path for this one (§7): ours, beside 人员进出统计's.
  path: '/statistics/car/counts',
  exportPath: '/statistics/car/countsExport',
  filters: [rangeFilter, parkFilter('visit_area')],
  input: areaRangeQuery,
  defaults: (today) => ({ ...last7Days(today), visit_area: 1 }),
  columns: inOutColumns,
  fileName: (f) => `车辆进出统计_${span(f)}_${parkName(f.visit_area)}.xlsx`,
  chart: { type: 'bar', x: 'stat_date', series: ['in_count', 'out_count'] },
});

export const carReservationReport = defineReport({
  key: 'carReservation',
  screen: 'menu:statCarReservation',
  title: '车辆预约统计',
  path: '/v3/statistics/car_application_state/statistics',
  exportPath: '/v3/statistics/car_application_state/export',
  filters: [rangeFilter, parkFilter('visit_area')],
  input: areaRangeQuery,
  defaults: (today) => ({ ...last7Days(today), visit_area: 3 }),
  columns: stateColumns,
  fileName: (f) => `车辆预约统计_${span(f)}_${parkName(f.visit_area)}.xlsx`,
  chart: { type: 'bar', x: 'stat_date', series: ['added', 'check_agree'] },
});

const applicationCountsQuery = labelled(z.object({ date: reportDay(reportLabels.date), type: reportPark(reportLabels.type) }), reportLabels);
export const applicationCountsReport = defineReport({
  key: 'applicationCounts',
  screen: 'menu:statApplicationCounts',
  title: '申请数量统计',
  path: '/statistics/application/counts',
  exportPath: '/statistics/application/countsExport',
  filters: [{ kind: 'date', key: 'date', label: reportLabels.date, required: true }, parkFilter('type')],
  input: applicationCountsQuery,
  defaults: (today) => ({ date: today, type: 3 }),
  columns: [column('date', 'date'), column('person_pass'), column('person_fail'), column('car_pass'), column('car_fail'), column('registration_pass'), column('registration_fail')],
  fileName: (f) => `申请数量统计_${f.date}_${parkName(f.type)}.xlsx`,
});

export const personReservationReport = defineReport({
  key: 'personReservation',
  screen: 'menu:statPersonReservation',
  title: '人员预约统计',
  path: '/v3/statistics/person_application_state/statistics',
  exportPath: '/v3/statistics/person_application_state/export',
  filters: [rangeFilter, parkFilter('visit_area')],
  input: areaRangeQuery,
  defaults: (today) => ({ ...last7Days(today), visit_area: 3 }),
  columns: stateColumns,
  fileName: (f) => `人员预约统计_${span(f)}_${parkName(f.visit_area)}.xlsx`,
  chart: { type: 'bar', x: 'stat_date', series: ['added', 'check_agree'] },
});

export const departPersonReport = defineReport({
  key: 'departPerson',
  screen: 'menu:statDepartPerson',
  title: '部门人员申请统计',
  path: '/statistics/depart_person_application/statistics',
  exportPath: '/statistics/depart_person_application/export',
  filters: [],
  input: noFilters,
  defaults: () => ({}),
  columns: [column('depart_name', 'text'), column('proprietor'), column('facilitator'), column('construction_unit'), column('temporary_visitor'), column('total')],
  fileName: (_f, today) => `部门人员申请统计_${today}.xlsx`,
});

export const departCarReport = defineReport({
  key: 'departCar',
  screen: 'menu:statDepartCar',
  title: '部门车辆预约统计',
  path: '/statistics/depart_car_application/statistics',
  exportPath: '/statistics/depart_car_application/export',
  filters: [],
  input: noFilters,
  defaults: () => ({}),
  columns: [column('depart_name', 'text'), column('proprietor'), column('build'), column('maintain'), column('temporary'), column('ordinary_car'), column('hazardous_chemicals_car'), column('total')],
  fileName: (_f, today) => `部门车辆预约统计_${today}.xlsx`,
});

const vehicleTypeQuery = labelled(
  z
    .object({
      ...range,
      type: reportPark(reportLabels.type),
      // The screen's direction filter picks the path; a direct call may leave it out.
      direction: z.preprocess(emptyToUndefined, z.enum(['in', 'out'], { error: '进出方向只能是in（入园）或out（出园）' }).optional()),
    })
    .superRefine(dayRange),
  reportLabels,
);
export const vehicleTypeReport = defineReport({
  key: 'vehicleType',
  screen: 'menu:statVehicleType',
  title: '车型进出报表',
  path: '/v2/statistics/vehicleType/inCounts',
  exportPath: '/v2/statistics/vehicleType/inCountsExport',
  variants: {
    filter: 'direction',
    paths: {
      in: { path: '/v2/statistics/vehicleType/inCounts', exportPath: '/v2/statistics/vehicleType/inCountsExport' },
      out: { path: '/v2/statistics/vehicleType/outCounts', exportPath: '/v2/statistics/vehicleType/outCountsExport' },
    },
  },
  filters: [
    rangeFilter,
    parkFilter('type'),
    {
      kind: 'choice',
      key: 'direction',
      label: reportLabels.direction,
      options: [
        { value: 'in', label: '入园' },
        { value: 'out', label: '出园' },
      ],
    },
  ],
  input: vehicleTypeQuery,
  defaults: (today) => ({ ...last7Days(today), type: 1, direction: 'in' }),
  columns: [column('stat_date', 'date'), column('total')],
  dynamicColumns: true,
  // Named as the screen is, then the direction its filter picked.
  fileName: (f) => `车型进出报表_${f.direction === 'out' ? '出园' : '入园'}_${span(f)}_${parkName(f.type)}.xlsx`,
  scrollWidth: 3300,
});

export const vehicleIncreaseReport = defineReport({
  key: 'vehicleIncrease',
  screen: 'menu:statVehicleIncrease',
  title: '车型新增及去重统计',
  path: '/statistics/vehicle_type_increase/statistics/',
  exportPath: '/statistics/vehicle_type_increase/export',
  filters: [rangeFilter, parkFilter('visit_area')],
  input: areaRangeQuery,
  defaults: (today) => ({ ...last7Days(today), visit_area: 3 }),
  columns: [column('stat_date', 'date'), column('vehicle_type', 'text'), column('new_vehicles'), column('vehicles')],
  fileName: (f) => `车型新增及去重统计_${span(f)}_${parkName(f.visit_area)}.xlsx`,
});

export const personInOutReport = defineReport({
  key: 'personInOut',
  screen: 'menu:statPersonInOut',
  title: '人员进出统计',
  path: '/statistics/person/counts',
  exportPath: '/statistics/person/countsExport',
  filters: [rangeFilter, parkFilter('visit_area')],
  input: areaRangeQuery,
  defaults: (today) => ({ ...last7Days(today), visit_area: 3 }),
  columns: inOutColumns,
  fileName: (f) => `人员进出统计_${span(f)}_${parkName(f.visit_area)}.xlsx`,
  chart: { type: 'bar', x: 'stat_date', series: ['in_count', 'out_count'] },
});

const approvalQuery = labelled(z.object({ count_date: reportDay(reportLabels.count_date), depart_name: optionalFilterText, user_name: optionalFilterText }), reportLabels);
export const approvalReport = defineReport({
  key: 'approval',
  screen: 'menu:statApproval',
  title: '审批统计',
  path: '/statistics/user_check/statistics',
  exportPath: '/statistics/user_check/export',
  filters: [
    { kind: 'date', key: 'count_date', label: reportLabels.count_date, required: true },
    { kind: 'text', key: 'depart_name', label: reportLabels.depart_name },
    { kind: 'text', key: 'user_name', label: reportLabels.user_name },
  ],
  input: approvalQuery,
  // Yesterday, and it cannot be cleared (spec 002 §5).
  defaults: (today) => ({ count_date: addDays(today, -1) }),
  columns: [column('count_date', 'date'), column('depart_name', 'text'), column('user_name', 'text'), column('total')],
  fileName: () => '审批统计导出.xlsx',
});

export const vehicleGateTimesReport = defineReport({
  key: 'vehicleGateTimes',
  screen: 'menu:statVehicleGateTimes',
  title: '车辆过闸次数统计',
  path: '/statistics/vehicle_gate_times/statistics',
  exportPath: '/statistics/vehicle_gate_times/export',
  filters: [rangeFilter, parkFilter('visit_area')],
  input: areaRangeQuery,
  defaults: (today) => ({ ...last7Days(today), visit_area: 3 }),
  columns: [column('gate_name', 'text'), column('entrances_type', 'park'), column('in_count'), column('out_count'), column('refused'), column('total')],
  fileName: (f) => `车辆过闸次数统计_${span(f)}_${parkName(f.visit_area)}.xlsx`,
  chart: { type: 'bar', x: 'gate_name', series: ['in_count', 'out_count'], stacked: true },
});

/** Every report, in the menu's order. */
export const reports = [
  vehicleInOutReport,
  carReservationReport,
  applicationCountsReport,
  personReservationReport,
  departPersonReport,
  departCarReport,
  vehicleTypeReport,
  vehicleIncreaseReport,
  personInOutReport,
  approvalReport,
  vehicleGateTimesReport,
] as const;

export type ReportKey = (typeof reports)[number]['key'];

/** The data and export calls of a report for the filters on screen (a variant's, when its filter picks one). */
export function reportCallsFor(def: ReportDef, filters: Record<string, unknown>): ReportCalls {
  if (!def.variants) return def.calls;
  return def.variants.calls[String(filters[def.variants.filter])] ?? def.calls;
}

/** Every call the reports declare, once each (a variant may repeat the default's). */
export function allReportCalls(): Call[] {
  const seen = new Map<string, Call>();
  for (const r of reports) for (const c of [r.calls, ...Object.values(r.variants?.calls ?? {})]) for (const call of [c.data, c.export]) seen.set(`${call.method} ${call.path}`, call);
  return [...seen.values()];
}
