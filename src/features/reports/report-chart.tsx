import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ReportChart as Chart, ReportColumn } from '../../../domain/reports';

const COLOURS = ['#1677ff', '#fa8c16', '#52c41a', '#eb2f96', '#722ed1', '#13c2c2'];

/**
 * A report's chart (ReportDef.chart): its series against its x column, named
 * from the same catalogue as the table's headers. The report screen loads it
 * lazily, so recharts is fetched with the statistics routes only (DESIGN.md §10).
 */
export default function ReportChart({ chart, rows, columns }: { chart: Chart; rows: Array<Record<string, string | number>>; columns: readonly ReportColumn[] }) {
  const label = (key: string) => columns.find((c) => c.key === key)?.label ?? key;
  // Dates read best without their year on a narrow axis.
  const data = rows.map((r) => ({ ...r, __x: typeof r[chart.x] === 'string' && /^\d{4}-/.test(String(r[chart.x])) ? String(r[chart.x]).slice(5) : r[chart.x] }));
  const common = { data, margin: { top: 8, right: 8, bottom: 0, left: -16 } };
  const axes = (
    <>
      <CartesianGrid strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey="__x" tick={{ fontSize: 12 }} interval="preserveStartEnd" />
      <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
      <Tooltip labelFormatter={(_l, p) => String(p?.[0]?.payload?.[chart.x] ?? '')} />
      <Legend wrapperStyle={{ fontSize: 12 }} />
    </>
  );
  return (
    <ResponsiveContainer width="100%" height={240}>
      {chart.type === 'line' ? (
        <LineChart {...common}>
          {axes}
          {chart.series.map((s, i) => (
            <Line key={s} dataKey={s} name={label(s)} stroke={COLOURS[i % COLOURS.length]} dot={false} isAnimationActive={false} />
          ))}
        </LineChart>
      ) : (
        <BarChart {...common}>
          {axes}
          {chart.series.map((s, i) => (
            <Bar key={s} dataKey={s} name={label(s)} stackId={chart.stacked ? 'all' : undefined} fill={COLOURS[i % COLOURS.length]} isAnimationActive={false} />
          ))}
        </BarChart>
      )}
    </ResponsiveContainer>
  );
}
