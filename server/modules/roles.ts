import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { optionalFilterInt, optionalFilterText } from '../../domain/schemas/common';
import { ok } from '../core/errors';
import { containsText } from '../core/paging';
import { parse } from '../core/validate';

const roleAllQuery = z.object({ name: optionalFilterText, status: optionalFilterInt });

export async function roleRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  app.post('/role/all', { config: { permission: 'role' } }, async (req) => {
    const q = parse(roleAllQuery, req.body, { name: '角色名', status: '状态' });
    let query = db.selectFrom('sys_role').select(['role_id', 'name', 'code', 'remark', 'status', 'create_time']).where('deleted', '=', 0);
    if (q.name) query = query.where(containsText('name', q.name));
    if (q.status !== undefined) query = query.where('status', '=', q.status);
    return ok(await query.orderBy('role_id').execute());
  });
}
