import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { BoardChart as Chart } from '../../../domain/schemas/board';

const COLOURS = ['#36cfc9', '#ffc53d', '#597ef7', '#ff7a45'];
const AXIS = { stroke: '#3d5a80', tick: { fill: '#8fb3d9', fontSize: 12 } };
/** A day's hours are labelled every third (00:00, 03:00 … 21:00): evenly spaced, and eight labels fit a phone's width. */
const HOUR_LABEL_EVERY = 3;

/**
 * How a board chart draws: `hours`, a day's 24 hourly counts as bars, one
 * bar per hour and kind (each bar is that hour's count, nothing drawn
 * between hours); `bar`, a week's days; `hbar`, categories down the side.
 */
export type ChartKind = 'hours' | 'bar' | 'hbar';

/**
 * One board chart ({ xAxis, series }, spec 002 §3) on the dark board. The
 * dashboard loads this file lazily, so recharts comes with the /dashboard
 * route only; the chart follows its container's size, at most once per
 * 100 ms (spec 002 §9).
 */
export default function BoardChart({ chart, type }: { chart: Chart; type: ChartKind }) {
  const data = chart.xAxis.map((x, i) => ({ x: /^\d{4}-\d{2}-\d{2}$/.test(x) ? x.slice(5) : x, ...Object.fromEntries(chart.series.map((s) => [s.name, s.data[i] ?? 0])) }));
  // Horizontal bars put the categories (overtime bands) down the side, where their words fit in a narrow column.
  const across = type === 'hbar';
  const hours = type === 'hours';
  return (
    <ResponsiveContainer width="100%" height="100%" debounce={100}>
      <BarChart data={data} margin={{ top: 8, right: 12, bottom: 0, left: across ? 0 : -18 }} barCategoryGap={hours ? '18%' : '10%'} {...(across ? { layout: 'vertical' as const } : {})}>
        <CartesianGrid stroke="#1f3a5c" strokeDasharray="3 3" vertical={across} horizontal={!across} />
        {across ? (
          <>
            <XAxis type="number" allowDecimals={false} {...AXIS} />
            <YAxis type="category" dataKey="x" width={64} interval={0} {...AXIS} />
          </>
        ) : (
          <>
            {/* Every label at a fixed step, never recharts' own thinning, which leaves uneven gaps (18:00, then 23:00). */}
            <XAxis dataKey="x" {...AXIS} interval={hours ? HOUR_LABEL_EVERY - 1 : 0} tick={{ ...AXIS.tick, fontSize: hours ? 11 : 10 }} />
            <YAxis allowDecimals={false} {...AXIS} />
          </>
        )}
        <Tooltip contentStyle={{ background: '#0d2137', border: '1px solid #2b4f7a', color: '#e6f1ff' }} labelStyle={{ color: '#e6f1ff' }} cursor={{ fill: 'rgba(54, 207, 201, 0.08)' }} />
        {chart.series.length > 1 && <Legend itemSorter={null} wrapperStyle={{ fontSize: 12, color: '#c8dcf5' }} />}
        {chart.series.map((s, i) => (
          <Bar
            key={s.name}
            dataKey={s.name}
            fill={across ? COLOURS[(i + 3) % COLOURS.length] : COLOURS[i % COLOURS.length]}
            radius={across ? [0, 3, 3, 0] : [2, 2, 0, 0]}
            maxBarSize={across ? 14 : 28}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
