import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { departQuery } from '../../domain/schemas/department';
import type { DB } from '../db/schema';
import { ok } from '../core/errors';
import { containsText } from '../core/paging';
import { parse } from '../core/validate';

/** A department and everything under it, for filters that pick a branch of the tree. */
export async function departmentBranch(db: Kysely<DB>, departId: number): Promise<number[]> {
  const rows = await db.selectFrom('sys_department').select(['depart_id', 'pid']).where('deleted', '=', 0).execute();
  const children = new Map<number, number[]>();
  for (const r of rows) children.set(r.pid, [...(children.get(r.pid) ?? []), r.depart_id]);
  const out: number[] = [];
  const stack = [departId];
  while (stack.length) {
    const id = stack.pop()!;
    if (out.includes(id)) continue;
    out.push(id);
    stack.push(...(children.get(id) ?? []));
  }
  return out;
}

export async function departmentRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  app.post('/depart/all', { config: { permission: 'role' } }, async (req) => {
    const q = parse(departQuery, req.body, { name: '部门名称' });
    let query = db
      .selectFrom('sys_department')
      .select(['depart_id', 'pid', 'name', 'code', 'visit_area', 'remark', 'create_time'])
      .where('deleted', '=', 0);
    if (q.name) query = query.where(containsText('name', q.name));
    return ok(await query.orderBy('pid').orderBy('depart_id').execute());
  });
}
