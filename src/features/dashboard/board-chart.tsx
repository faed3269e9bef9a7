import { Area, AreaChart, Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { BoardChart as Chart } from '../../../domain/schemas/board';

const COLOURS = ['#36cfc9', '#ffc53d', '#597ef7', '#ff7a45'];
const AXIS = { stroke: '#3d5a80', tick: { fill: '#8fb3d9', fontSize: 12 } };

/**
 * One board chart ({ xAxis, series }, spec 002 §3) on the dark board: an area
 * chart for a day's hours, bars otherwise. The dashboard loads this file
 * lazily, so recharts comes with the /dashboard route only; the chart follows
 * its container's size, at most once per 100 ms (spec 002 §9).
 */
export default function BoardChart({ chart, type, height }: { chart: Chart; type: 'area' | 'bar' | 'hbar'; height: number | '100%' }) {
  const data = chart.xAxis.map((x, i) => ({ x: /^\d{4}-\d{2}-\d{2}$/.test(x) ? x.slice(5) : x, ...Object.fromEntries(chart.series.map((s) => [s.name, s.data[i] ?? 0])) }));
  // Horizontal bars put the categories (overtime bands) down the side, where their words fit in a narrow column.
  const across = type === 'hbar';
  const common = { data, margin: { top: 8, right: 12, bottom: 0, left: across ? 0 : -18 }, ...(across ? { layout: 'vertical' as const } : {}) };
  const parts = (
    <>
      <CartesianGrid stroke="#1f3a5c" strokeDasharray="3 3" vertical={across} horizontal={!across} />
      {across ? (
        <>
          <XAxis type="number" allowDecimals={false} {...AXIS} />
          <YAxis type="category" dataKey="x" width={64} interval={0} {...AXIS} />
        </>
      ) : (
        <>
          {/* A week's days each keep their label; a day's 24 hours show as many as fit. */}
          <XAxis dataKey="x" {...AXIS} {...(data.length <= 7 ? { interval: 0, tick: { ...AXIS.tick, fontSize: 10 } } : { interval: 'preserveStartEnd' as const, minTickGap: 8 })} />
          <YAxis allowDecimals={false} {...AXIS} />
        </>
      )}
      <Tooltip contentStyle={{ background: '#0d2137', border: '1px solid #2b4f7a', color: '#e6f1ff' }} labelStyle={{ color: '#e6f1ff' }} cursor={{ fill: 'rgba(54, 207, 201, 0.08)' }} />
      {chart.series.length > 1 && <Legend itemSorter={null} wrapperStyle={{ fontSize: 12, color: '#c8dcf5' }} />}
    </>
  );
  return (
    <ResponsiveContainer width="100%" height={height} debounce={100}>
      {type === 'area' ? (
        <AreaChart {...common}>
          {parts}
          {chart.series.map((s, i) => (
            <Area key={s.name} type="monotone" dataKey={s.name} stroke={COLOURS[i % COLOURS.length]} fill={COLOURS[i % COLOURS.length]} fillOpacity={0.18} strokeWidth={2} isAnimationActive={false} />
          ))}
        </AreaChart>
      ) : (
        <BarChart {...common}>
          {parts}
          {chart.series.map((s, i) => (
            <Bar
              key={s.name}
              dataKey={s.name}
              fill={across ? COLOURS[(i + 3) % COLOURS.length] : COLOURS[i % COLOURS.length]}
              radius={across ? [0, 3, 3, 0] : [3, 3, 0, 0]}
              maxBarSize={across ? 14 : 28}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      )}
    </ResponsiveContainer>
  );
}
