import { useQuery } from '@tanstack/react-query';
import { Button, Input, Selector } from 'antd-mobile';
import { lazy, Suspense, useMemo, useState } from 'react';
import { enums } from '../../../domain/enums';
import { reportCallsFor, type ReportAnswer, type ReportColumn, type ReportDef, type ReportFilter } from '../../../domain/reports';
import { formatInZone } from '../../../domain/time';
import { dateOf } from '../../../domain/visit-rules';
import { DateInput, DateRangeInput } from '../../components/date-inputs';
import { downloadFile } from '../../lib/download';
import { call } from '../../lib/http';
import { useIsDesktop } from '../../lib/use-media';
import type { FieldDef } from '../../list-screen';
import { CardList } from '../../list-screen/card-list';
import { DataTable } from '../../list-screen/data-table';
import { Pager, SimplePager } from '../../list-screen/pager';
import './reports.css';

const ReportChart = lazy(() => import('./report-chart'));

type Filters = Record<string, unknown>;
type Row = Record<string, string | number>;

const today = () => dateOf(formatInZone(new Date()));
const storageKey = (key: string) => `report:${key}`;

/** The filters on screen when it opens: the declaration's defaults, then what was last searched here (spec 002 §2, restored on re-entry). */
function initialFilters(def: ReportDef): Filters {
  const base = def.defaults(today()) as Filters;
  try {
    const kept = JSON.parse(sessionStorage.getItem(storageKey(def.key)) ?? 'null') as Filters | null;
    return kept && typeof kept === 'object' ? { ...base, ...kept } : base;
  } catch {
    return base;
  }
}

/** A report column as the list screens' table and cards read a field. */
const fieldOf = (c: ReportColumn): FieldDef<Row> => ({
  name: c.key,
  label: c.label,
  kind: c.kind === 'park' ? 'enum' : c.kind === 'count' ? 'number' : 'text',
  options: c.kind === 'park' ? 'visitArea' : undefined,
  align: c.kind === 'count' ? 'right' : undefined,
});

function FilterInput({ filter, values, set }: { filter: ReportFilter; values: Filters; set: (patch: Filters) => void }) {
  switch (filter.kind) {
    case 'dateRange': {
      const [from, to] = filter.keys;
      return (
        <DateRangeInput
          aria-label={filter.label}
          value={[values[from], values[to]]}
          onChange={(v) => {
            const pair = Array.isArray(v) ? v : [];
            set({ [from]: pair[0] ?? undefined, [to]: pair[1] ?? undefined });
          }}
        />
      );
    }
    case 'date':
      return <DateInput aria-label={filter.label} value={values[filter.key]} onChange={(v) => set({ [filter.key]: v || (filter.required ? values[filter.key] : undefined) })} />;
    case 'park':
    case 'choice': {
      const options = filter.kind === 'park' ? enums.visitArea.map((o) => ({ value: String(o.value), label: o.label })) : [...filter.options];
      return (
        <Selector
          className="rp-choice"
          aria-label={filter.label}
          showCheckMark={false}
          options={options}
          value={[String(values[filter.key] ?? '')]}
          onChange={(v) => v.length && set({ [filter.key]: filter.kind === 'park' ? Number(v[0]) : v[0] })}
        />
      );
    }
    case 'text':
      return (
        <Input className="rp-text" aria-label={filter.label} clearable placeholder={`请输入${filter.label}`} value={String(values[filter.key] ?? '')} onChange={(v) => set({ [filter.key]: v })} />
      );
  }
}

const filterKey = (f: ReportFilter) => (f.kind === 'dateRange' ? f.keys.join('-') : f.key);

/**
 * One screen for every report of domain/reports.ts (issue 26 item 2): the
 * declaration's filters, its chart where it has one (recharts, loaded with
 * this screen only), the rows in a table on desktop and cards on a phone,
 * paged here (spec 002 §9: statistics page on the client), and 导出.
 */
export function ReportScreen({ def }: { def: ReportDef }) {
  const desktop = useIsDesktop();
  const [draft, setDraft] = useState<Filters>(() => initialFilters(def));
  const [filters, setFilters] = useState<Filters>(draft);
  const [page, setPage] = useState({ pn: 1, size: 10 });
  const calls = reportCallsFor(def, filters);
  // The variant's filter picks the path; it is not sent.
  const params = useMemo(
    () => Object.fromEntries(Object.entries(filters).filter(([k, v]) => k !== def.variants?.filter && v !== undefined && v !== '')) as Record<string, string | number>,
    [filters, def],
  );
  const { data, error, isFetching } = useQuery({
    queryKey: ['report', def.key, filters],
    queryFn: () => call(calls.data, params) as Promise<ReportAnswer>,
    // A new search keeps the last figures on screen until the new ones arrive.
    placeholderData: (prev) => prev,
  });
  const rows = (data?.list ?? []) as Row[];
  const columns = useMemo(() => {
    const dynamic = (data?.title ?? []).map((t): ReportColumn => ({ key: t.key, label: t.label, kind: 'count' }));
    const fixed = def.columns.filter((c) => c.key !== 'total' || !def.dynamicColumns);
    return [...fixed, ...dynamic, ...(def.dynamicColumns ? def.columns.filter((c) => c.key === 'total') : [])];
  }, [data, def]);
  const fields = useMemo(() => columns.map(fieldOf), [columns]);
  const shown = rows.slice((page.pn - 1) * page.size, page.pn * page.size).map((r, i) => ({ ...r, __key: (page.pn - 1) * page.size + i }));

  const search = () => {
    setFilters(draft);
    setPage((p) => ({ ...p, pn: 1 }));
    sessionStorage.setItem(storageKey(def.key), JSON.stringify(draft));
  };
  const reset = () => {
    const base = def.defaults(today()) as Filters;
    setDraft(base);
    setFilters(base);
    setPage((p) => ({ ...p, pn: 1 }));
    sessionStorage.removeItem(storageKey(def.key));
  };
  const exportFile = () => downloadFile({ method: 'get', path: calls.export.path, params, fallbackName: def.fileName(filters as never, today()), loadingText: '正在导出…' });

  const chartRows = def.chart ? rows : [];
  return (
    <div className="rp" data-testid={`report-${def.key}`}>
      <form
        className="rp-bar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          search();
        }}
      >
        {def.filters.map((f) => (
          <label key={filterKey(f)} className={`rp-filter rp-filter--${f.kind}`}>
            <span className="rp-label">{f.label}</span>
            <FilterInput filter={f} values={draft} set={(patch) => setDraft((d) => ({ ...d, ...patch }))} />
          </label>
        ))}
        <div className="rp-buttons">
          {def.filters.length ? (
            <>
              <Button size="small" color="primary" type="submit">
                查询
              </Button>
              <Button size="small" onClick={reset}>
                重置
              </Button>
            </>
          ) : null}
          <Button size="small" color="primary" fill="outline" onClick={() => void exportFile()}>
            导出
          </Button>
        </div>
      </form>
      {error ? <p className="rp-error">{(error as Error).message}</p> : null}
      {def.chart && chartRows.length ? (
        <section className="rp-card rp-chart" aria-label={`${def.title}图表`} data-testid="report-chart">
          <Suspense fallback={null}>
            <ReportChart chart={def.chart} rows={chartRows} columns={columns} />
          </Suspense>
        </section>
      ) : null}
      {/* A refused search (a range too long) has no figures to wait for: its message stands alone. */}
      {error && !data ? null : (
        <section className="rp-card rp-table" aria-busy={isFetching}>
          {desktop ? (
            <div
              className="rp-scroll"
              role="region"
              aria-label={`${def.title}表格`}
              tabIndex={0}
              style={def.scrollWidth && columns.length > 8 ? { ['--rp-min-width' as string]: `${def.scrollWidth}px` } : undefined}
            >
              <DataTable
                label={def.title}
                rows={shown}
                rowKey="__key"
                fields={fields as FieldDef<(typeof shown)[number]>[]}
                hasActions={false}
                busy={isFetching}
                placeholder={!rows.length ? <p className="rp-empty">{data ? '暂无数据' : '加载中…'}</p> : undefined}
              />
            </div>
          ) : rows.length ? (
            <CardList rows={shown} rowKey="__key" fields={fields as FieldDef<(typeof shown)[number]>[]} onMore={() => {}} />
          ) : (
            <p className="rp-empty">{data ? '暂无数据' : '加载中…'}</p>
          )}
          {rows.length > 0 &&
            (desktop ? (
              <Pager pn={page.pn} size={page.size} total={rows.length} onPage={(pn) => setPage((p) => ({ ...p, pn }))} onSize={(size) => setPage({ pn: 1, size })} />
            ) : (
              <SimplePager pn={page.pn} size={page.size} total={rows.length} onPage={(pn) => setPage((p) => ({ ...p, pn }))} onSize={(size) => setPage({ pn: 1, size })} />
            ))}
        </section>
      )}
    </div>
  );
}
