import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { equipmentKindList } from '../../domain/schemas/equipment';
import { ok } from '../core/errors';
import type { ZodTypeProvider } from '../core/route-schema';

/** One line of the device overview: a kind's live devices and how many of them are online. */
export interface DeviceCount {
  /** The equipment kind (the path segment of /equipment/{kind}), or 'total' on the last line. */
  kind: string;
  title: string;
  total: number;
  online: number;
  offline: number;
}

/**
 * 数据看板 (spec 002 §2 Dashboard, §7 /board/…). The dashboard is an `open`
 * menu (every role holder sees it), so its calls are open to every role
 * holder too (docs/decisions.md).
 */
export async function boardRoutes(appInstance: FastifyInstance) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx;

  // 设备概况: per kind, live devices and those online, as the device API and the silence timer left them (DESIGN.md §8).
  app.get('/board/deviceCounts', { config: { permission: 'role' }, schema: { summary: '设备概况：各类设备总数、在线数与离线数（含合计）', querystring: z.object({}) } }, async () => {
    const rows = await db
      .selectFrom('equipment')
      .select((eb) => ['kind', eb.fn.countAll().as('total'), eb.fn.sum(eb.case().when('state', '=', 1).then(1).else(0).end()).as('online')])
      .where('deleted', '=', 0)
      .groupBy('kind')
      .execute();
    // PostgreSQL answers count and sum as bigint strings.
    const byKind = new Map(rows.map((r) => [r.kind, { total: Number(r.total), online: Number(r.online ?? 0) }]));
    const lines: DeviceCount[] = equipmentKindList.map((k) => {
      const { total, online } = byKind.get(k.kind) ?? { total: 0, online: 0 };
      return { kind: k.kind, title: k.title, total, online, offline: total - online };
    });
    const sum = (key: 'total' | 'online' | 'offline') => lines.reduce((n, l) => n + l[key], 0);
    lines.push({ kind: 'total', title: '合计', total: sum('total'), online: sum('online'), offline: sum('offline') });
    return ok(lines);
  });
}
