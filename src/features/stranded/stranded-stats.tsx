import { useQuery } from '@tanstack/react-query';
import { Button } from 'antd-mobile';
import { lazy, Suspense, useState } from 'react';
import { enumLabel } from '../../../domain/enums';
import { strandedHandlingOptions, strandedKinds, strandedLabels, strandedStatApi } from '../../../domain/schemas/stranded';
import { formatInZone } from '../../../domain/time';
import { addDays, dateOf } from '../../../domain/visit-rules';
import { DateRangeInput } from '../../components/date-inputs';
import { downloadFile } from '../../lib/download';
import { call } from '../../lib/http';

const StrandedChart = lazy(() => import('./stranded-chart'));

const EXPORT_FILE = '车辆滞留导出.xlsx';
/** The lists' default range (spec 001 §9): from 7 days ago to tomorrow, read when the screen opens. */
const defaultRange = (): [string, string] => {
  const today = dateOf(formatInZone(new Date()));
  return [addDays(today, -7), addDays(today, 1)];
};

function CountList({ title, rows }: { title: string; rows: Array<{ label: string; total: number }> }) {
  return (
    <section className="ss-card" aria-label={title}>
      <h4 className="sd-title">{title}</h4>
      {rows.length ? (
        <ul className="ss-counts">
          {rows.map((r) => (
            <li key={r.label}>
              <span>{r.label}</span>
              <b>{r.total}</b>
            </li>
          ))}
        </ul>
      ) : (
        <p className="sd-note ss-empty">暂无告警</p>
      )}
    </section>
  );
}

/**
 * 滞留统计 (issue 24 item 6): the alarms of the chosen range counted per park
 * day (the chart), per kind and level, per handling state and per entry gate;
 * the export is the vehicle alarm list with every column.
 */
export function StrandedStatsScreen() {
  const [range, setRange] = useState<[string, string]>(defaultRange);
  const [begin_time, end_time] = range;
  const { data, error, isFetching } = useQuery({
    queryKey: ['stranded', 'stats', begin_time, end_time],
    queryFn: () => call(strandedStatApi.summary, { begin_time, end_time }),
    placeholderData: (prev) => prev,
  });
  const pick = (v: unknown) => {
    const pair = Array.isArray(v) ? v : [];
    const fallback = defaultRange();
    setRange([typeof pair[0] === 'string' ? pair[0] : fallback[0], typeof pair[1] === 'string' ? pair[1] : fallback[1]]);
  };
  const exportFile = () => downloadFile({ method: 'post', path: strandedStatApi.export.path, body: { begin_time, end_time }, fallbackName: EXPORT_FILE, loadingText: '正在导出…' });
  const stateTotal = (v: number) => data?.states.find((s) => s.state === v)?.total ?? 0;
  return (
    <div className="ss" data-testid="stranded-stats">
      <div className="ss-bar">
        <label className="ss-range">
          <span>{strandedLabels.alarm_time}</span>
          <DateRangeInput value={range} onChange={pick} aria-label={strandedLabels.alarm_time} />
        </label>
        <Button size="small" color="primary" fill="outline" onClick={() => void exportFile()}>
          导出
        </Button>
      </div>
      {error ? <p className="ss-error">{(error as Error).message}</p> : null}
      <div className="ss-tiles" aria-busy={isFetching}>
        <div className="ss-tile" data-testid="stat-total">
          <span>告警总数</span>
          <b>{data?.total ?? '-'}</b>
        </div>
        {strandedHandlingOptions.map((o) => (
          <div key={String(o.value)} className={`ss-tile ss-tile--${o.color ?? 'default'}`} data-testid={`stat-state-${String(o.value)}`}>
            <span>{o.label}</span>
            <b>{data ? stateTotal(o.value as number) : '-'}</b>
          </div>
        ))}
      </div>
      <section className="ss-card" aria-label="每日告警">
        <h4 className="sd-title">每日告警</h4>
        <div className="ss-chart" data-testid="stranded-chart">
          <Suspense fallback={null}>{data ? <StrandedChart days={data.days} /> : null}</Suspense>
        </div>
      </section>
      <div className="ss-grid">
        <CountList title="按告警类型" rows={(data?.kinds ?? []).map((k) => ({ label: `${strandedKinds[k.kind].word}·${enumLabel('strandedLevel', k.level_type)}`, total: k.total }))} />
        <CountList title="按处理状态" rows={(data?.states ?? []).map((s) => ({ label: strandedHandlingOptions.find((o) => o.value === s.state)?.label ?? String(s.state), total: s.total }))} />
        <CountList title="按入园闸口" rows={(data?.gates ?? []).map((g) => ({ label: g.gate ?? '未知闸口', total: g.total }))} />
      </div>
    </div>
  );
}
