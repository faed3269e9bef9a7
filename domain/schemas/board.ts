import { z } from 'zod';
import { col, defineCall } from '../contract';

/**
 * 数据看板 (spec 002 §2 Dashboard, §7 /board/…). The dashboard is an `open`
 * menu (every role holder sees it), so its calls are open to every role
 * holder too (docs/decisions.md).
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
};
