import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { StrandedStats } from '../../../domain/schemas/stranded';

/**
 * 滞留统计's chart: the alarms per park day, vehicles and persons stacked. The
 * only module that imports recharts, loaded lazily by stranded-stats.tsx, so
 * no other route pays for it (DESIGN.md §10).
 */
export default function StrandedChart({ days }: { days: StrandedStats['days'] }) {
  const data = days.map((d) => ({ ...d, day: d.date.slice(5) }));
  return (
    <ResponsiveContainer width="100%" height={240}>
      <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -24 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="day" tick={{ fontSize: 12 }} interval="preserveStartEnd" />
        <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
        <Tooltip labelFormatter={(_l, p) => String(p?.[0]?.payload?.date ?? '')} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        <Bar dataKey="car" name="车辆" stackId="k" fill="#1677ff" isAnimationActive={false} />
        <Bar dataKey="person" name="人员" stackId="k" fill="#fa8c16" isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
