import { z } from 'zod';
import { col, defineCall } from '../contract';

/**
 * 数据看板 (spec 002 §2 Dashboard, §7 /board/…). The dashboard is an `open`
 * menu (every role holder sees it), so its calls are open to every role
 * holder too (docs/decisions.md). What each figure counts: docs/decisions.md
 * "Dashboard (issue 26)". Days and hours are the park's (PARK_TZ).
 */

/** One line of the device overview: a kind's live devices and how many of them are online. */
export const deviceCount = z.object({
  /** The equipment kind (the path segment of /equipment/{kind}), or 'total' on the last line. */
  kind: col.text,
  title: col.text,
  total: col.int,
  online: col.int,
  offline: col.int,
});
export type DeviceCount = z.infer<typeof deviceCount>;

/** A chart's answer (spec 002 §3 "chart responses carry xAxis and series"). */
export const boardChart = z.object({
  xAxis: z.array(col.text),
  series: z.array(z.object({ name: col.text, data: z.array(col.int) })),
});
export type BoardChart = z.infer<typeof boardChart>;

/** 进出园区: opened crossings today and who is inside now, vehicles and persons. */
export const parkCounts = z.object({
  car_in_count: col.int,
  car_out_count: col.int,
  car_inside_count: col.int,
  person_in_count: col.int,
  person_out_count: col.int,
  person_inside_count: col.int,
});
export type ParkCounts = z.infer<typeof parkCounts>;

/** 今日统计 (the top bar), with today's gate refusals (安检告警). */
export const todayOtherCounts = z.object({
  car_in_count: col.int,
  car_out_count: col.int,
  person_in_count: col.int,
  person_out_count: col.int,
  device_alarm_count: col.int,
  application_count: col.int,
  car_denied_count: col.int,
  person_denied_count: col.int,
});
export type TodayOtherCounts = z.infer<typeof todayOtherCounts>;

/** 今日预约: 申请, 登记, 通过, 驳回 of one kind. */
export const applicationDayCounts = z.object({ apply: col.int, register: col.int, agree: col.int, disagree: col.int });
export const todayApplicationCounts = z.object({ car: applicationDayCounts, person: applicationDayCounts });
export type TodayApplicationCounts = z.infer<typeof todayApplicationCounts>;

/** 超时未离场 / 超时未入园, vehicles and persons. */
export const parkInOutCheckCounts = z.object({
  car_overtime_count: col.int,
  person_overtime_count: col.int,
  car_not_entered_count: col.int,
  person_not_entered_count: col.int,
});
export type ParkInOutCheckCounts = z.infer<typeof parkInOutCheckCounts>;

/** A chart's `type`: 1 or 2, what each means named in the message. */
const chartType = (meaning: string) => z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v), z.union([z.literal(1), z.literal(2)], { error: `类型只能是${meaning}` }));

export const boardApi = {
  // 设备概况: per kind, live devices and those online, as the device API and the silence timer left them (DESIGN.md §8).
  deviceCounts: defineCall({
    method: 'GET',
    path: '/board/deviceCounts',
    permission: 'role',
    summary: '设备概况：各类设备总数、在线数与离线数（含合计）',
    input: z.object({}),
    answer: z.array(deviceCount),
  }),
  parkCounts: defineCall({
    method: 'GET',
    path: '/board/parkCounts',
    permission: 'role',
    summary: '进出园区：今日车辆与人员入园、出园次数及当前在园数',
    input: z.object({}),
    answer: parkCounts,
  }),
  todayOtherCounts: defineCall({
    method: 'GET',
    path: '/board/todayOtherCounts',
    permission: 'role',
    summary: '今日统计：车辆与人员入园、出园，设备告警，预约总数，闸机拒绝通行',
    input: z.object({}),
    answer: todayOtherCounts,
  }),
  todayApplicationCounts: defineCall({
    method: 'GET',
    path: '/board/todayApplicationCounts',
    permission: 'role',
    summary: '今日预约：车辆与人员的申请、登记、通过、驳回数',
    input: z.object({}),
    answer: todayApplicationCounts,
  }),
  parkInOutCheckCounts: defineCall({
    method: 'GET',
    path: '/board/parkInOutCheckCounts',
    permission: 'role',
    summary: '超时统计：车辆与人员超时未离场、超时未入园数',
    input: z.object({}),
    answer: parkInOutCheckCounts,
  }),
  applicationCounts: defineCall({
    method: 'GET',
    path: '/board/applicationCounts',
    permission: 'role',
    summary: '预约趋势：近7天每日车辆与人员预约提交数',
    input: z.object({}),
    answer: boardChart,
  }),
  // The spec names neither chart's path (§7 "not shown"); these follow its style.
  parkInOutChart: defineCall({
    method: 'GET',
    path: '/board/parkInOutChart',
    permission: 'role',
    summary: '进出园趋势：今日每小时车辆与人员入园（type=1）或出园（type=2）次数',
    input: z.object({ type: chartType('1（入园）或2（出园）') }),
    answer: boardChart,
  }),
  overtimeChart: defineCall({
    method: 'GET',
    path: '/board/overtimeChart',
    permission: 'role',
    summary: '超时未离场分布：在园车辆（type=1）或人员（type=2）按超时时长分组',
    input: z.object({ type: chartType('1（车辆）或2（人员）') }),
    answer: boardChart,
  }),
};
