import type { FastifyInstance } from 'fastify';
import { envelopeOf } from '../../domain/contract';
import { ErrorCode } from '../../domain/errors';
import { iconApi, searchIcons } from '../../domain/icons';
import { routeSchema } from '../core/route';

/**
 * 图标库 (spec 002 §2 Icon gallery, §7 Icons): pages of the one icon set that
 * menus and the permission form use (domain/icons.ts). The spec's client reads
 * `data` (the page) and `totalCount` beside it, so the envelope carries both:
 * the route is registered from its declaration with that envelope as its
 * answer (core/route.ts's `route` answers the plain envelope only).
 */
export async function iconRoutes(app: FastifyInstance) {
  const call = iconApi.list;
  const schema = routeSchema(call);
  app.route({
    method: call.method,
    url: call.path,
    config: { permission: call.permission },
    schema: { ...schema, response: { 200: envelopeOf(call.answer).extend(iconApi.envelopeExtra) } },
    handler: async (req) => {
      const { current, pageSize, title } = req.query as { current: number; pageSize: number; title?: string };
      const { data, totalCount } = searchIcons(title, current, pageSize);
      return { success: true, code: ErrorCode.OK, msg: '操作成功', message: '操作成功', data, totalCount };
    },
  });
}
