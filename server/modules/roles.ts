import type { FastifyInstance } from 'fastify';
import { roleApi, type RoleUpdate } from '../../domain/schemas/role';
import type { AppContext } from '../core/context';
import { notFound, ok } from '../core/errors';
import type { Db, RowValues } from '../core/repository';
import { defineResource, registerResource } from '../core/resource';
import { route } from '../core/route';
import { bindRolePermissions, bindRoleUsers, checkRoleEdit, clearRoleForDelete } from './role-rules';

/**
 * 角色管理 (spec 002 §2, §5, §7; codes role:*): a declared register whose
 * rules are its hooks (role-rules.ts): the code is unique, the built-in
 * administrator is locked, a role in use is not deleted, nobody changes their
 * own access. Its two bindings (permissions, users) are declared calls over
 * the binding services of role-rules.ts.
 */

/** Live users bound to each role. */
async function withUserCounts(rows: RowValues[], db: Db): Promise<RowValues[]> {
  const ids = rows.map((r) => Number(r.role_id));
  const counts = ids.length
    ? await db
        .selectFrom('sys_user_role as ur')
        .innerJoin('sys_user as u', 'u.user_id', 'ur.user_id')
        .select(['ur.role_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('ur.role_id', 'in', ids)
        .where('u.deleted', '=', 0)
        .groupBy('ur.role_id')
        .execute()
    : [];
  const byRole = new Map(counts.map((c) => [c.role_id, Number(c.n)]));
  return rows.map((r) => ({ ...r, user_count: byRole.get(Number(r.role_id)) ?? 0 }));
}

export const rolesDef = (ctx: AppContext) =>
  defineResource({
    contract: roleApi,
    table: 'sys_role',
    softDelete: 'deleted',
    columns: ['role_id', 'name', 'code', 'remark', 'status', 'create_time'],
    orderBy: [['role_id', 'asc']],
    // Read by any role holder (the list's code): it is also the preload of the user's bind-role form and the process node form.
    readable: async (_db, auth) => auth.roleIds.length > 0,
    filters: { name: { column: 'name', match: 'contains' }, status: { column: 'status', match: 'equals' } },
    unique: [{ field: 'code', column: 'code' }],
    decorate: withUserCounts,
    // A new role is enabled; an edit leaves the status as it is unless it names one.
    toRow: (values, { mode }) => {
      const v = values as Omit<RoleUpdate, 'roleId'>;
      return { name: v.name, code: v.code, remark: v.remark, ...(mode === 'create' ? { status: 1 } : v.status !== undefined ? { status: v.status } : {}) };
    },
    beforeUpdate: async (trx, id, w) => checkRoleEdit(trx, ctx, w.auth, id, w.req.body as RoleUpdate),
    beforeDelete: async (trx, id) => clearRoleForDelete(trx, ctx, id),
  });

export async function roleRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;
  await registerResource(app, rolesDef(ctx));

  route(app, roleApi.bindPermissions, async (req) => {
    await bindRolePermissions(ctx, req.auth!, req.body.roleId, req.body.permissionIds);
    return ok(null, '绑定权限成功！');
  });

  route(app, roleApi.bindUsers, async (req) => {
    await bindRoleUsers(ctx, req.auth!, req.body.roleId, req.body.userIds);
    return ok(null, '绑定用户成功！');
  });

  route(app, roleApi.users, async (req) => {
    const { roleId } = req.body;
    if (!(await db.selectFrom('sys_role').select('role_id').where('role_id', '=', roleId).where('deleted', '=', 0).executeTakeFirst())) notFound('角色');
    return ok(
      await db
        .selectFrom('sys_user_role as ur')
        .innerJoin('sys_user as u', 'u.user_id', 'ur.user_id')
        .select(['u.user_id', 'u.user_name', 'u.account', 'u.status'])
        .where('ur.role_id', '=', roleId)
        .where('u.deleted', '=', 0)
        .orderBy('u.user_id')
        .execute(),
    );
  });
}
