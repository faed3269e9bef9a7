import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import { searchIcons } from '../../domain/icons';
import { iconListQuery } from '../../domain/schemas/permission';
import type { ZodTypeProvider } from '../core/route-schema';

/**
 * 图标库 (spec 002 §2 Icon gallery, §7 Icons): pages of the one icon set that
 * menus and the permission form use (domain/icons.ts). The spec's client reads
 * `data` (the page) and `totalCount` beside it, so the envelope carries both.
 */
export async function iconRoutes(appInstance: FastifyInstance) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  app.get('/icon/getList', { config: { permission: 'sys:manage' }, schema: { summary: '图标库（current、pageSize 默认72、title 按名称或编码搜索）', querystring: iconListQuery } }, async (req) => {
    const { current, pageSize, title } = req.query;
    const { data, totalCount } = searchIcons(title, current, pageSize);
    return { success: true, code: ErrorCode.OK, msg: '操作成功', message: '操作成功', data, totalCount };
  });
}
