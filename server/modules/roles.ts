import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { labelled, optionalFilterInt, optionalFilterText } from '../../domain/schemas/common';
import { ok } from '../core/errors';
import { containsText } from '../core/paging';
import type { ZodTypeProvider } from '../core/route-schema';

const roleAllQuery = labelled(z.object({ name: optionalFilterText, status: optionalFilterInt }), { name: '角色名', status: '状态' });

export async function roleRoutes(appInstance: FastifyInstance) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx;
  app.post('/role/all', { config: { permission: 'role' }, schema: { summary: '全部角色（可按名称、状态筛选）', body: roleAllQuery } }, async (req) => {
    const q = req.body;
    let query = db.selectFrom('sys_role').select(['role_id', 'name', 'code', 'remark', 'status', 'create_time']).where('deleted', '=', 0);
    if (q.name) query = query.where(containsText('name', q.name));
    if (q.status !== undefined) query = query.where('status', '=', q.status);
    return ok(await query.orderBy('role_id').execute());
  });
}
