import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  applicationCountsReport,
  approvalReport,
  carReservationReport,
  departCarReport,
  departPersonReport,
  personInOutReport,
  personReservationReport,
  REPORT_MAX_DAYS,
  reportCallsFor,
  reportLabels,
  reports,
  vehicleGateTimesReport,
  vehicleIncreaseReport,
  vehicleInOutReport,
  vehicleTypeReport,
  type ReportDef,
} from '../../domain/reports';
import { addDays } from '../../domain/visit-rules';

/** The report declarations of domain/reports.ts (issue 26): defaults, filter messages, variants, columns and file names. */

const TODAY = '2026-11-27';
const rangeReports = [vehicleInOutReport, carReservationReport, personReservationReport, vehicleTypeReport, vehicleIncreaseReport, personInOutReport, vehicleGateTimesReport] as const;
const parkKey = (def: ReportDef) => (def.filters.find((f) => f.kind === 'park') as { key: string } | undefined)?.key;

/** The issues of a parse, as field → messages. */
function issues(def: ReportDef, input: Record<string, unknown>): Record<string, string[]> {
  const r = (def.input as z.ZodType).safeParse(input);
  if (r.success) return {};
  const out: Record<string, string[]> = {};
  for (const i of r.error.issues) (out[i.path.join('.')] ??= []).push(i.message);
  return out;
}
const parse = (def: ReportDef, input: Record<string, unknown>) => (def.input as z.ZodType).parse(input) as Record<string, unknown>;

describe('report defaults', () => {
  it('gives the last 7 days, today included, to every range report, and each park its spec default', () => {
    const expected: Record<string, number> = { vehicleInOut: 1, vehicleType: 1, carReservation: 3, personReservation: 3, vehicleIncrease: 3, personInOut: 3, vehicleGateTimes: 3 };
    for (const def of rangeReports) {
      const d = (def as ReportDef).defaults(TODAY) as Record<string, unknown>;
      expect(d.start_time, def.key).toBe('2026-11-21');
      expect(d.end_time, def.key).toBe(TODAY);
      expect(d[parkKey(def as ReportDef)!], def.key).toBe(expected[def.key]);
    }
    expect(vehicleTypeReport.defaults(TODAY)).toMatchObject({ direction: 'in' });
  });

  it('gives 审批统计 yesterday, 申请数量统计 today and both parks, the department reports nothing', () => {
    expect(approvalReport.defaults(TODAY)).toEqual({ count_date: '2026-11-26' });
    // Across a month and a year boundary.
    expect(approvalReport.defaults('2026-01-01')).toEqual({ count_date: '2025-12-31' });
    expect(vehicleInOutReport.defaults('2026-03-03')).toMatchObject({ start_time: '2026-02-25', end_time: '2026-03-03' });
    expect(applicationCountsReport.defaults(TODAY)).toEqual({ date: TODAY, type: 3 });
    expect(departPersonReport.defaults(TODAY)).toEqual({});
    expect(departCarReport.defaults(TODAY)).toEqual({});
  });

  it('passes its own defaults through its input schema', () => {
    for (const def of reports as readonly ReportDef[]) expect(issues(def, def.defaults(TODAY) as Record<string, unknown>), def.key).toEqual({});
  });
});

describe('report filters', () => {
  const bad = ['2026-13-01', '2026-02-30', 'abc', 20260101, '2026-2-01', '2026-02-01 00:00:00'];

  it('refuses a malformed date with a message naming the field', () => {
    for (const def of rangeReports) {
      const ok = (def as ReportDef).defaults(TODAY) as Record<string, unknown>;
      for (const v of bad) {
        const start = issues(def as ReportDef, { ...ok, start_time: v });
        expect(start.start_time?.[0], `${def.key} start ${v}`).toMatch(/^开始日期/);
        const end = issues(def as ReportDef, { ...ok, end_time: v });
        expect(end.end_time?.[0], `${def.key} end ${v}`).toMatch(/^结束日期/);
      }
    }
    for (const v of bad) {
      expect(issues(applicationCountsReport, { date: v, type: 3 }).date?.[0], String(v)).toMatch(/^日期/);
      expect(issues(approvalReport, { count_date: v }).count_date?.[0], String(v)).toMatch(/^日期/);
    }
    expect(issues(approvalReport, { count_date: '2026-13-01' }).count_date).toEqual(['日期格式不正确，应为YYYY-MM-DD']);
    expect(issues(approvalReport, { count_date: 20260101 }).count_date).toEqual(['日期必须是文本']);
    // Absent (after defaults were not applied): asks for it.
    expect(issues(applicationCountsReport, { type: 3 }).date).toEqual(['请选择日期']);
    expect(issues(vehicleInOutReport, { end_time: TODAY }).start_time).toEqual(['请选择开始日期']);
    // A leap day is a day.
    expect(issues(approvalReport, { count_date: '2028-02-29' })).toEqual({});
  });

  it('refuses an end before the start on end_time, and a range over a year of days', () => {
    for (const def of rangeReports) {
      const ok = (def as ReportDef).defaults(TODAY) as Record<string, unknown>;
      expect(issues(def as ReportDef, { ...ok, start_time: TODAY, end_time: addDays(TODAY, -1) }), def.key).toEqual({ end_time: ['结束日期不能早于开始日期'] });
      expect(issues(def as ReportDef, { ...ok, start_time: TODAY, end_time: TODAY }), def.key).toEqual({});
      expect(issues(def as ReportDef, { ...ok, start_time: addDays(TODAY, -(REPORT_MAX_DAYS - 1)), end_time: TODAY }), def.key).toEqual({});
      expect(issues(def as ReportDef, { ...ok, start_time: addDays(TODAY, -REPORT_MAX_DAYS), end_time: TODAY }), def.key).toEqual({ end_time: [`统计时间范围不能超过${REPORT_MAX_DAYS}天`] });
    }
  });

  it('takes parks 1, 2 and 3 (as numbers or query text) and refuses anything else with the message', () => {
    for (const def of [...rangeReports, applicationCountsReport] as ReportDef[]) {
      const key = parkKey(def)!;
      const ok = def.defaults(TODAY) as Record<string, unknown>;
      for (const v of [1, 2, 3]) {
        expect(parse(def, { ...ok, [key]: v })[key]).toBe(v);
        expect(parse(def, { ...ok, [key]: String(v) })[key]).toBe(v);
      }
      // Absent or empty: both parks.
      expect(parse(def, { ...ok, [key]: '' })[key]).toBe(3);
      expect(parse(def, { ...ok, [key]: undefined })[key]).toBe(3);
      for (const v of [0, 4, -1, '4', 'x', 1.5, '1,2']) expect(issues(def, { ...ok, [key]: v })[key], `${def.key} ${v}`).toEqual(['园区类型只能是1（化工区）、2（港区）或3（化工区和港区）']);
    }
  });

  it('takes direction in or out on 车型进出报表 and refuses others', () => {
    const ok = vehicleTypeReport.defaults(TODAY) as Record<string, unknown>;
    expect(parse(vehicleTypeReport, { ...ok, direction: 'out' }).direction).toBe('out');
    expect(parse(vehicleTypeReport, { ...ok, direction: '' }).direction).toBeUndefined();
    expect(issues(vehicleTypeReport, { ...ok, direction: 'up' }).direction).toEqual(['进出方向只能是in（入园）或out（出园）']);
  });

  it('trims 审批统计’s text filters and bounds their length', () => {
    expect(parse(approvalReport, { count_date: TODAY, depart_name: '  中海 ', user_name: '' })).toEqual({ count_date: TODAY, depart_name: '中海' });
    expect(issues(approvalReport, { count_date: TODAY, user_name: 'x'.repeat(101) }).user_name).toEqual(['筛选条件不能超过100个字符']);
  });
});

describe('report calls, columns and files', () => {
  it('picks outCounts for direction out and inCounts otherwise; other reports have one pair', () => {
    expect(reportCallsFor(vehicleTypeReport, { direction: 'out' }).data.path).toBe('/v2/statistics/vehicleType/outCounts');
    expect(reportCallsFor(vehicleTypeReport, { direction: 'out' }).export.path).toBe('/v2/statistics/vehicleType/outCountsExport');
    expect(reportCallsFor(vehicleTypeReport, { direction: 'in' }).data.path).toBe('/v2/statistics/vehicleType/inCounts');
    expect(reportCallsFor(vehicleTypeReport, {}).data.path).toBe('/v2/statistics/vehicleType/inCounts');
    expect(reportCallsFor(vehicleInOutReport, { direction: 'out' })).toBe(vehicleInOutReport.calls);
    for (const def of reports as readonly ReportDef[]) {
      expect(def.calls.data.permission, def.key).toBe('signed-in');
      expect(def.calls.export.permission, def.key).toBe('signed-in');
    }
  });

  it('labels every column from the catalogue', () => {
    const labels = reportLabels as Record<string, string>;
    for (const def of reports as readonly ReportDef[]) {
      expect(def.columns.length, def.key).toBeGreaterThan(0);
      for (const c of def.columns) expect(c.label, `${def.key}.${c.key}`).toBe(labels[c.key]);
      for (const f of def.filters) if ('key' in f) expect(f.label, `${def.key} filter ${f.key}`).toBe(labels[f.key]);
      if (def.chart)
        for (const s of [def.chart.x, ...def.chart.series])
          expect(
            def.columns.map((c) => c.key),
            `${def.key} chart`,
          ).toContain(s);
    }
    expect(vehicleTypeReport.columns.map((c) => c.label)).toEqual(['日期', '合计']);
  });

  it('names each export by its range (or date) and park; 审批统计 exactly as the spec', () => {
    const name = (def: ReportDef, f: Record<string, unknown>) => def.fileName(parse(def, f) as never, TODAY);
    const range = { start_time: '2026-11-21', end_time: TODAY };
    expect(name(vehicleInOutReport, { ...range, visit_area: 1 })).toBe('车辆进出统计_2026-11-21至2026-11-27_化工区.xlsx');
    expect(name(personInOutReport, { ...range, visit_area: 2 })).toBe('人员进出统计_2026-11-21至2026-11-27_港区.xlsx');
    expect(name(carReservationReport, { ...range, visit_area: 3 })).toBe('车辆预约统计_2026-11-21至2026-11-27_化工区和港区.xlsx');
    expect(name(personReservationReport, { ...range, visit_area: 1 })).toBe('人员预约统计_2026-11-21至2026-11-27_化工区.xlsx');
    expect(name(vehicleIncreaseReport, { ...range, visit_area: 2 })).toBe('车型新增及去重统计_2026-11-21至2026-11-27_港区.xlsx');
    expect(name(vehicleGateTimesReport, { ...range, visit_area: 3 })).toBe('车辆过闸次数统计_2026-11-21至2026-11-27_化工区和港区.xlsx');
    expect(name(vehicleTypeReport, { ...range, type: 1, direction: 'in' })).toBe('车型进出报表_入园_2026-11-21至2026-11-27_化工区.xlsx');
    expect(name(vehicleTypeReport, { ...range, type: 2, direction: 'out' })).toBe('车型进出报表_出园_2026-11-21至2026-11-27_港区.xlsx');
    expect(name(applicationCountsReport, { date: '2026-11-20', type: 2 })).toBe('申请数量统计_2026-11-20_港区.xlsx');
    expect(name(departPersonReport, {})).toBe(`部门人员申请统计_${TODAY}.xlsx`);
    expect(name(departCarReport, {})).toBe(`部门车辆预约统计_${TODAY}.xlsx`);
    expect(name(approvalReport, { count_date: '2026-11-20', user_name: '李' })).toBe('审批统计导出.xlsx');
  });

  it('starts every export name with its screen title, so a downloaded file is found by the screen it came from', () => {
    for (const def of reports) expect(def.fileName(parse(def, def.defaults(TODAY)) as never, TODAY), def.key).toMatch(new RegExp(`^${def.title}(_|导出)`));
  });
});
