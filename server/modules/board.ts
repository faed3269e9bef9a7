import type { FastifyInstance } from 'fastify';
import { boardApi, type DeviceCount } from '../../domain/schemas/board';
import { equipmentKindList } from '../../domain/schemas/equipment';
import { ok } from '../core/errors';
import { route } from '../core/route';

export type { DeviceCount };

/** 数据看板 (spec 002 §2 Dashboard, §7 /board/…): its calls are declared in domain/schemas/board.ts. */
export async function boardRoutes(app: FastifyInstance) {
  const { db } = app.ctx;

  route(app, boardApi.deviceCounts, async () => {
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
