import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { BoardChart as Chart, DeviceCount } from '../../../domain/schemas/board';
import type { ChartKind } from './board-chart';
import { formatInZone } from '../../../domain/time';
import { useOnline } from '../../lib/use-online';
import { useDashboardFigures } from './use-figures';
import './dashboard.css';

// recharts comes with this route only, and after the figures: the numbers paint first.
const BoardChart = lazy(() => import('./board-chart'));

/** A figure, or a dash before the first answer; later refreshes keep the last figure (use-figures.ts). */
const show = (v: number | undefined) => (v === undefined ? '—' : v.toLocaleString('zh-CN'));

function Panel({ title, extra, children, testId, className = '' }: { title: string; extra?: ReactNode; children: ReactNode; testId?: string; className?: string }) {
  return (
    <section className={`db-panel ${className}`} data-testid={testId}>
      <header className="db-panel-head">
        <h2>{title}</h2>
        {extra}
      </header>
      {children}
    </section>
  );
}

function Toggle<T extends number>({ value, options, onChange, label }: { value: T; options: ReadonlyArray<{ value: T; label: string }>; onChange: (v: T) => void; label: string }) {
  return (
    <div className="db-toggle" role="group" aria-label={label}>
      {options.map((o) => (
        <button key={o.value} type="button" aria-pressed={o.value === value} className={o.value === value ? 'on' : ''} onClick={() => onChange(o.value)}>
          {o.label}
        </button>
      ))}
    </div>
  );
}

function Stat({ label, value, tone, testId }: { label: string; value: number | undefined; tone?: 'in' | 'out' | 'warn' | 'alarm'; testId?: string }) {
  return (
    <div className={`db-stat ${tone ?? ''}`}>
      <span className="db-stat-value" data-testid={testId}>
        {show(value)}
      </span>
      <span className="db-stat-label">{label}</span>
    </div>
  );
}

/** A chart panel's body: as tall as the board's CSS makes it (the column's share on a desktop, a set height stacked). */
function ChartBox({ chart, type, empty }: { chart: Chart | undefined; type: ChartKind; empty: string }) {
  const blank = <div className="db-chart-blank" />;
  const nothing = chart && chart.series.every((s) => s.data.every((v) => v === 0));
  return (
    <div className="db-chart">
      <div className="db-chart-abs">{chart ? <Suspense fallback={blank}>{<BoardChart chart={chart} type={type} />}</Suspense> : blank}</div>
      {nothing && <span className="db-chart-empty">{empty}</span>}
    </div>
  );
}

function DeviceLines({ lines }: { lines: DeviceCount[] | undefined }) {
  if (!lines) return <div className="db-chart-blank" style={{ height: 160 }} />;
  return (
    <table className="db-devices">
      <thead>
        <tr>
          <th>设备类型</th>
          <th>总数</th>
          <th>离线</th>
        </tr>
      </thead>
      <tbody>
        {lines
          .filter((l) => l.kind !== 'total')
          .map((l) => (
            <tr key={l.kind} data-testid={`device-${l.kind}`}>
              <td>{l.title}</td>
              <td>{l.total}</td>
              {/* Spec 002 §2: an offline count is red when non-zero, else green. */}
              <td className={l.offline > 0 ? 'db-offline' : 'db-online'}>{l.offline}</td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}

const IN_OUT = [
  { value: 1, label: '入园' },
  { value: 2, label: '出园' },
] as const;
const CAR_PERSON = [
  { value: 1, label: '车辆' },
  { value: 2, label: '人员' },
] as const;

/**
 * 数据看板 (spec 002 §2 Dashboard, issue 26 item 4): dark, three columns on a
 * desktop and one on a phone; every figure live (use-figures.ts), stamped
 * with when it was true, and kept on screen with a stale badge offline.
 */
export default function DashboardPage() {
  const [inOutType, setInOutType] = useState<1 | 2>(1);
  const [overtimeType, setOvertimeType] = useState<1 | 2>(1);
  const online = useOnline();
  const f = useDashboardFigures(inOutType, overtimeType);
  const park = f.park.data;
  const other = f.other.data;
  const apps = f.applications.data;
  const check = f.check.data;
  const devices = f.devices.data;
  const deviceTotal = devices?.find((l) => l.kind === 'total');
  const trend = f.trend.data;
  const weekTotal = trend?.series.reduce((n, s) => n + s.data.reduce((a, b) => a + b, 0), 0);
  const stale = !online || f.fromCopy || f.failed;

  return (
    <div className="db" data-testid="dashboard">
      <div className="db-top">
        <h1>园区数据看板</h1>
        <div className="db-top-meta">
          {stale && (
            <span className="db-stale" data-testid="dashboard-stale">
              {online ? '数据未更新' : '离线 · 数据可能已过期'}
            </span>
          )}
          <span className="db-updated" data-testid="dashboard-updated">
            {f.updatedAt ? `更新于 ${formatInZone(f.updatedAt).slice(11)}` : '加载中…'}
          </span>
          <Link to="/big-screen" className="db-link">
            大屏
          </Link>
          <Link to="/map-board" className="db-link">
            地图
          </Link>
        </div>
      </div>

      <div className="db-grid">
        <div className="db-col db-left">
          <Panel
            title="设备概况"
            testId="panel-devices"
            extra={
              deviceTotal && (
                <span className="db-panel-extra">
                  共 {deviceTotal.total} 台 · 离线 <b className={deviceTotal.offline > 0 ? 'db-offline' : 'db-online'}>{deviceTotal.offline}</b>
                </span>
              )
            }
          >
            <DeviceLines lines={devices} />
          </Panel>
          <Panel title="今日预约" testId="panel-applications" extra={<span className="db-panel-extra">预约总数 {show(other?.application_count)}</span>}>
            <table className="db-apps">
              <thead>
                <tr>
                  <th />
                  <th>申请</th>
                  <th>登记</th>
                  <th>通过</th>
                  <th>驳回</th>
                </tr>
              </thead>
              <tbody>
                {(['car', 'person'] as const).map((k) => (
                  <tr key={k}>
                    <th>{k === 'car' ? '车辆' : '人员'}</th>
                    <td>{show(apps?.[k].apply)}</td>
                    <td>{show(apps?.[k].register)}</td>
                    <td className="db-agree">{show(apps?.[k].agree)}</td>
                    <td className="db-disagree">{show(apps?.[k].disagree)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Panel>
          <Panel title="预约统计" testId="panel-trend" className="db-flex" extra={<span className="db-panel-extra">近7天共 {show(weekTotal)} 次</span>}>
            <ChartBox chart={trend} type="bar" empty="近7天暂无预约" />
          </Panel>
        </div>

        <div className="db-col db-centre">
          {/* 进出园区: today's entries and exits and who is inside now, each figure once on the page. */}
          <section className="db-panel db-totals" data-testid="panel-today" aria-label="进出园区">
            <Stat label="车辆入园" value={park?.car_in_count} tone="in" testId="today-car-in" />
            <Stat label="车辆出园" value={park?.car_out_count} tone="out" />
            <Stat label="在园车辆" value={park?.car_inside_count} />
            <Stat label="人员入园" value={park?.person_in_count} tone="in" />
            <Stat label="人员出园" value={park?.person_out_count} tone="out" />
            <Stat label="在园人员" value={park?.person_inside_count} />
          </section>
          <Panel title="今日进出园趋势" testId="panel-in-out" className="db-main" extra={<Toggle label="进出方向" value={inOutType} options={IN_OUT} onChange={setInOutType} />}>
            <ChartBox chart={f.inOut.data} type="hours" empty={inOutType === 1 ? '今日暂无入园' : '今日暂无出园'} />
          </Panel>
        </div>

        <div className="db-col db-right">
          <Panel title="超时统计" testId="panel-overtime-counts">
            <div className="db-stats db-stats-2">
              <Stat label="车辆超时未离场" value={check?.car_overtime_count} tone="warn" />
              <Stat label="人员超时未离场" value={check?.person_overtime_count} tone="warn" />
              <Stat label="车辆超时未入园" value={check?.car_not_entered_count} />
              <Stat label="人员超时未入园" value={check?.person_not_entered_count} />
            </div>
          </Panel>
          <Panel title="今日安检告警" testId="panel-security">
            <div className="db-stats db-stats-3">
              <Stat label="车辆拒绝通行" value={other?.car_denied_count} tone="alarm" />
              <Stat label="人员拒绝通行" value={other?.person_denied_count} tone="alarm" />
              <Stat label="设备告警" value={other?.device_alarm_count} tone="alarm" />
            </div>
          </Panel>
          <Panel title="超时未离场" testId="panel-overtime" className="db-flex" extra={<Toggle label="超时对象" value={overtimeType} options={CAR_PERSON} onChange={setOvertimeType} />}>
            <ChartBox chart={f.overtime.data} type="hbar" empty={overtimeType === 1 ? '暂无超时未离场车辆' : '暂无超时未离场人员'} />
          </Panel>
        </div>
      </div>
    </div>
  );
}
