import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import {
  BUILTIN_LOCKED,
  isBuiltinPermission,
  permissionBranch,
  permissionApi,
  permissionLabels,
  permissionRules,
  PERMISSION_TYPE,
  type PermissionCreate,
  type PermissionRow,
} from '../../domain/schemas/permission';
import { isBuiltinRole } from '../../domain/schemas/role';
import type { AppContext } from '../core/context';
import { AppError, notFound, ok } from '../core/errors';
import { containsText } from '../core/paging';
import type { Db, RowValues } from '../core/repository';
import { defineResource, registerResource } from '../core/resource';
import { route } from '../core/route';
import { ruleFailure } from '../core/validate';

/**
 * 权限管理 (spec 002 §2 Permission tree, §5, §7; codes perm:*): a declared
 * register (get, save, edit) whose rules are its hooks: the code is unique,
 * a parent is live and not a 权限, a node does not move into its own branch,
 * and a built-in node (the codes of domain/permissions.ts, isBuiltinPermission)
 * keeps all but its remark. The tree (answered as an array the client builds
 * from permission_id and pid, as the department tree is), a role's
 * permissions and the delete, which answers how many bindings went, are
 * declared calls beside it.
 */

const columns = ['p.permission_id', 'p.pid', 'p.name', 'p.code', 'p.type', 'p.route', 'p.icon', 'p.status', 'p.remark', 'p.sort', 'p.create_time', 'p.update_time'] as const;

/** Live permissions with the number of live roles holding each, in the tree's order. */
function rowsWithRoleCount(db: Db) {
  return db
    .selectFrom('sys_permission as p')
    .select(columns)
    .select((eb) =>
      eb
        .selectFrom('sys_role_permission as rp')
        .innerJoin('sys_role as r', 'r.role_id', 'rp.role_id')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('rp.permission_id', '=', 'p.permission_id')
        .where('r.deleted', '=', 0)
        .as('role_count'),
    )
    .where('p.deleted', '=', 0);
}

const answer = <R extends { code: string; role_count: unknown; type: number }>(r: R) => ({
  ...r,
  type: r.type as PermissionRow['type'],
  builtin: isBuiltinPermission(r.code) ? 1 : 0,
  role_count: Number(r.role_count ?? 0),
});

const fail = (field: keyof typeof permissionLabels, message: string) => ruleFailure([{ field, message }], permissionLabels);
const conflict = (message: string) => new AppError(ErrorCode.STATE_CONFLICT, message);

/** The live row, locked until the transaction ends on PostgreSQL. */
async function lockPermission(trx: Db, ctx: AppContext, id: number) {
  const q = trx.selectFrom('sys_permission').select(['permission_id', 'pid', 'name', 'code', 'type', 'route', 'icon', 'remark']).where('permission_id', '=', id).where('deleted', '=', 0);
  const row = await (ctx.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
  if (!row) notFound('权限');
  return row!;
}

/** The parent a node may hang under: the root, or a live node that is not of type 权限 (and, when moving, not in its own branch). */
async function checkParent(trx: Db, ctx: AppContext, pid: number, self?: number) {
  if (pid === 0) return;
  const q = trx.selectFrom('sys_permission').select(['permission_id', 'type']).where('permission_id', '=', pid).where('deleted', '=', 0);
  // Locked so that the parent cannot be deleted while the child is being written under it.
  const parent = await (ctx.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
  if (!parent) throw fail('pid', permissionRules.parentMissing);
  if (parent.type === PERMISSION_TYPE.PERMISSION) throw fail('pid', permissionRules.parentIsPermission);
  if (self !== undefined) {
    const rows = await trx.selectFrom('sys_permission').select(['permission_id', 'pid']).where('deleted', '=', 0).execute();
    if (permissionBranch(rows, self).includes(pid)) throw fail('pid', permissionRules.parentLoop);
  }
}

const hasChildren = async (db: Db, id: number) => !!(await db.selectFrom('sys_permission').select('permission_id').where('pid', '=', id).where('deleted', '=', 0).executeTakeFirst());

const columnsOf = (v: PermissionCreate) => ({ pid: v.pid, name: v.name, code: v.code, type: v.type, route: v.route, icon: v.icon, remark: v.remark });

/** Each row's live roles holding it, and whether it is a built-in code. */
async function withRoleCounts(rows: RowValues[], db: Db): Promise<RowValues[]> {
  const ids = rows.map((r) => Number(r.permission_id));
  const counts = ids.length
    ? await db
        .selectFrom('sys_role_permission as rp')
        .innerJoin('sys_role as r', 'r.role_id', 'rp.role_id')
        .select(['rp.permission_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('rp.permission_id', 'in', ids)
        .where('r.deleted', '=', 0)
        .groupBy('rp.permission_id')
        .execute()
    : [];
  const byId = new Map(counts.map((c) => [c.permission_id, Number(c.n)]));
  return rows.map((r) => ({ ...r, builtin: isBuiltinPermission(String(r.code)) ? 1 : 0, role_count: byId.get(Number(r.permission_id)) ?? 0 }));
}

export const permissionsDef = (ctx: AppContext) =>
  defineResource({
    contract: permissionApi,
    table: 'sys_permission',
    softDelete: 'deleted',
    columns: ['permission_id', 'pid', 'name', 'code', 'type', 'route', 'icon', 'status', 'remark', 'sort', 'create_time', 'update_time'],
    orderBy: [
      ['sort', 'asc'],
      ['permission_id', 'asc'],
    ],
    readable: async (_db, auth) => auth.permissions.has('perm:list'),
    unique: [{ field: 'code', column: 'code' }],
    decorate: withRoleCounts,
    stamps: { createUser: 'create_user_id' },
    check: async (values, w, db) => {
      if (w.mode === 'create') await checkParent(db, ctx, Number(values.pid));
    },
    // A new node comes last in the tree's order, enabled.
    toRow: async (values, w) => {
      const v = columnsOf(values as PermissionCreate);
      if (w.mode === 'edit') return v;
      const last = await ctx.db
        .selectFrom('sys_permission')
        .select((eb) => eb.fn.max('sort').as('s'))
        .executeTakeFirst();
      return { ...v, open: 0, sort: Number(last?.s ?? 0) + 1, status: 1 };
    },
    beforeUpdate: async (trx, id, w) => {
      const row = await lockPermission(trx, ctx, id);
      const next = columnsOf(w.req.body as PermissionCreate);
      if (isBuiltinPermission(row.code)) {
        // The product's routes check this code and the seed rewrites the rest on every start: only the remark is the park's.
        const same = (a: unknown, b: unknown) => (a ?? null) === (b ?? null);
        if (BUILTIN_LOCKED.some((f) => !same(row[f], next[f]))) throw conflict(permissionRules.builtinEdit);
        return;
      }
      if (next.pid !== row.pid) await checkParent(trx, ctx, next.pid, row.permission_id);
      if (next.type === PERMISSION_TYPE.PERMISSION && (await hasChildren(trx, row.permission_id))) throw fail('type', permissionRules.childrenKeepType);
    },
    // The parent again under its lock: it cannot be deleted while the child is being written under it.
    afterWrite: async (trx, values, w) => {
      if (w.mode === 'create') await checkParent(trx, ctx, Number(values.pid));
    },
  });

export async function permissionRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;
  await registerResource(app, permissionsDef(ctx));

  /**
   * The whole tree: the permission screen's list (perm:list) and the tree a
   * role's permissions are ticked in (role:bindPerm); either code opens it,
   * which one guard code cannot say, so the route is checked here.
   */
  route(app, permissionApi.tree, async (req) => {
    const held = req.auth!.permissions;
    if (!held.has('perm:list') && !held.has('role:bindPerm')) throw new AppError(ErrorCode.FORBIDDEN, '没有操作权限：缺少权限 perm:list（权限查询）或 role:bindPerm（绑定权限）');
    let q = rowsWithRoleCount(db);
    if (req.body.name) q = q.where(containsText('p.name', req.body.name));
    const rows = await q.orderBy('p.sort').orderBy('p.permission_id').execute();
    return ok(rows.map(answer));
  });

  route(app, permissionApi.byRole, async (req) => {
    const role = await db.selectFrom('sys_role').select(['role_id', 'code']).where('role_id', '=', req.body.roleId).where('deleted', '=', 0).executeTakeFirst();
    if (!role) notFound('角色');
    let q = db.selectFrom('sys_permission as p').select(['p.permission_id', 'p.pid', 'p.code', 'p.name', 'p.type']).where('p.deleted', '=', 0);
    // The built-in administrator holds every permission whatever is bound (core/auth.ts): the tree shows it so.
    if (!isBuiltinRole(role!)) q = q.where('p.permission_id', 'in', (eb) => eb.selectFrom('sys_role_permission').select('permission_id').where('role_id', '=', role!.role_id));
    return ok(await q.orderBy('p.sort').orderBy('p.permission_id').execute());
  });

  route(app, permissionApi.delete, async (req) => {
    const removed = await db.transaction().execute(async (trx) => {
      const row = await lockPermission(trx, ctx, req.body.permissionId);
      if (isBuiltinPermission(row.code)) throw conflict(permissionRules.builtinDelete);
      if (await hasChildren(trx, row.permission_id)) throw conflict(permissionRules.hasChildren);
      const gone = await trx.deleteFrom('sys_role_permission').where('permission_id', '=', row.permission_id).executeTakeFirst();
      await trx.updateTable('sys_permission').set({ deleted: 1, update_time: ctx.time() }).where('permission_id', '=', row.permission_id).execute();
      return Number(gone.numDeletedRows);
    });
    return ok({ removedBindings: removed }, '删除成功！');
  });
}
