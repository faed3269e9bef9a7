import { ErrorCode } from '../../domain/errors';
import { openCodes } from '../../domain/permissions';
import { ADMIN_ROLE_CODE, isBuiltinRole, roleLabels, roleRules } from '../../domain/schemas/role';
import type { AppContext, AuthContext } from '../core/context';
import { AppError, notFound } from '../core/errors';
import type { Db } from '../core/repository';
import { ruleFailure } from '../core/validate';

/**
 * The rules of roles and their bindings (spec 002 §2, §5; issue 23): the
 * built-in administrator's lock, nobody changes their own access, a granter
 * grants only what they hold; and the two binding services, a role's
 * permissions and a role's users, which the role routes (roles.ts) and the
 * user routes (users.ts) call. Nothing caches what a role grants
 * (core/auth.ts reads it on every call), so a bind reaches its users' next
 * call on every server.
 */

const conflict = (message: string) => new AppError(ErrorCode.STATE_CONFLICT, message);

/** The live role, locked until the transaction ends on PostgreSQL (SQLite runs one transaction at a time). */
export async function lockRole(trx: Db, ctx: AppContext, roleId: number) {
  const q = trx.selectFrom('sys_role').select(['role_id', 'name', 'code', 'status']).where('role_id', '=', roleId).where('deleted', '=', 0);
  const row = await (ctx.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
  if (!row) notFound('角色');
  return row!;
}

/**
 * roleRules.adminLastUser, for every change that can leave the built-in
 * administrator role without an enabled user: binding the role's users,
 * binding the roles of, disabling or deleting a user who holds it (a park
 * whose role has no enabled user yet can still manage its other users).
 * Called inside the change's transaction after the change. The role's row lock comes first, so
 * of two administrators taking each other out at once the second waits,
 * then counts the first one's change (PostgreSQL reads committed rows at each
 * statement) and is refused; SQLite runs one write transaction at a time.
 */
export async function assertAdministratorKept(trx: Db, ctx: Pick<AppContext, 'dialect'>): Promise<void> {
  const q = trx.selectFrom('sys_role').select('role_id').where('code', '=', ADMIN_ROLE_CODE).where('deleted', '=', 0);
  const role = await (ctx.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
  if (!role) return;
  const enabled = await trx
    .selectFrom('sys_user_role as ur')
    .innerJoin('sys_user as u', 'u.user_id', 'ur.user_id')
    .select('u.user_id')
    .where('ur.role_id', '=', role.role_id)
    .where('u.deleted', '=', 0)
    .where('u.status', '=', 1)
    .executeTakeFirst();
  if (!enabled) throw conflict(roleRules.adminLastUser);
}

/** Whether the user holds the built-in administrator role: only a change to such a user can need assertAdministratorKept. */
export const holdsAdministratorRole = async (db: Db, userId: number) =>
  !!(await db
    .selectFrom('sys_user_role as ur')
    .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
    .select('ur.user_id')
    .where('ur.user_id', '=', userId)
    .where('r.code', '=', ADMIN_ROLE_CODE)
    .where('r.deleted', '=', 0)
    .executeTakeFirst());

/** Does the caller hold this role now (enabled or not)? Their own membership is not theirs to change. */
export const holdsRole = async (db: Db, auth: AuthContext, roleId: number) =>
  !!(await db.selectFrom('sys_user_role').select('role_id').where('user_id', '=', auth.userId).where('role_id', '=', roleId).executeTakeFirst());

/**
 * The codes the caller may hand on (issue 23): those of their own enabled
 * roles, disabled permissions included (binding one would widen the role the
 * day it is enabled), and the open codes; null for a holder of the built-in
 * role, which holds every code. Read inside the change's transaction, not from
 * the session, so a role narrowed a moment ago narrows what its holder grants.
 */
async function grantableCodes(db: Db, auth: AuthContext): Promise<Set<string> | null> {
  const roles = await db
    .selectFrom('sys_user_role as ur')
    .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
    .select(['r.role_id', 'r.code'])
    .where('ur.user_id', '=', auth.userId)
    .where('r.deleted', '=', 0)
    .where('r.status', '=', 1)
    .execute();
  if (roles.some(isBuiltinRole)) return null;
  const held = new Set(openCodes);
  if (!roles.length) return held;
  const rows = await db
    .selectFrom('sys_role_permission as rp')
    .innerJoin('sys_permission as p', 'p.permission_id', 'rp.permission_id')
    .select('p.code')
    .where(
      'rp.role_id',
      'in',
      roles.map((r) => r.role_id),
    )
    .where('p.deleted', '=', 0)
    .execute();
  for (const r of rows) held.add(r.code);
  return held;
}

/** What a role hands to whoever holds it: the built-in role every live code, another role its bound ones. */
const codesOfRole = async (db: Db, role: { role_id: number; code: string }) => {
  let q = db.selectFrom('sys_permission as p').select(['p.code', 'p.name']).where('p.deleted', '=', 0);
  if (!isBuiltinRole(role)) q = q.where('p.permission_id', 'in', db.selectFrom('sys_role_permission').select('permission_id').where('role_id', '=', role.role_id));
  return q.orderBy('p.sort').orderBy('p.permission_id').execute();
};

/**
 * A granter grants only codes the granter holds: binding permissions to a
 * role, users to a role, roles to a user or enabling a role all hand codes on,
 * and a delegated administrator must not pass on (or, through an accomplice,
 * get back) more than they have. Answers 403 naming the first few codes.
 */
async function assertGrantable(db: Db, auth: AuthContext, granted: ReadonlyArray<{ code: string; name: string }>): Promise<void> {
  if (!granted.length) return;
  const held = await grantableCodes(db, auth);
  if (!held) return;
  const lacking = granted.filter((p) => !held.has(p.code));
  if (!lacking.length) return;
  const shown = lacking
    .slice(0, 5)
    .map((p) => `${p.name}（${p.code}）`)
    .join('、');
  throw new AppError(ErrorCode.FORBIDDEN, `${roleRules.grantLacking}${shown}${lacking.length > 5 ? `等${lacking.length}项` : ''}`);
}

/** assertGrantable for handing whole roles to someone (their users gain every code they grant). */
export async function assertRolesGrantable(db: Db, auth: AuthContext, roles: ReadonlyArray<{ role_id: number; code: string }>): Promise<void> {
  const codes = new Map<string, { code: string; name: string }>();
  for (const role of roles) for (const p of await codesOfRole(db, role)) codes.set(p.code, p);
  await assertGrantable(db, auth, [...codes.values()]);
}

// ---------------------------------------------------------------- the role register's hooks

/**
 * An edit of a role, under its lock (the resource's beforeUpdate): the
 * built-in role keeps its code and stays enabled; nobody disables or enables
 * a role of their own; enabling hands the role's codes to its holders again,
 * the same widening as binding them.
 */
export async function checkRoleEdit(trx: Db, ctx: AppContext, auth: AuthContext, roleId: number, next: { code: string; status?: number }): Promise<void> {
  const role = await lockRole(trx, ctx, roleId);
  if (isBuiltinRole(role)) {
    if (next.code !== role.code) throw ruleFailure([{ field: 'code', message: roleRules.adminCode }], roleLabels);
    if (next.status === 0) throw conflict(roleRules.adminDisable);
  }
  // As with one's own account and one's own roles: nobody switches off their own access by mistake.
  if (next.status === 0 && role.status === 1 && (await holdsRole(trx, auth, roleId))) throw conflict('不能停用当前登录账号自己的角色，请由其他管理员操作');
  if (next.status === 1 && role.status === 0) {
    if (await holdsRole(trx, auth, roleId)) throw new AppError(ErrorCode.FORBIDDEN, roleRules.ownRoleEnable);
    await assertRolesGrantable(trx, auth, [role]);
  }
}

/**
 * Before a role goes (the resource's beforeDelete): the built-in role stays;
 * a role users hold or an approval node names is in use. Bindings of deleted
 * users (kept for their history) and the role's permissions go with it.
 */
export async function clearRoleForDelete(trx: Db, ctx: AppContext, roleId: number): Promise<void> {
  const role = await lockRole(trx, ctx, roleId);
  if (isBuiltinRole(role)) throw conflict(roleRules.adminDelete);
  const users = await trx
    .selectFrom('sys_user_role as ur')
    .innerJoin('sys_user as u', 'u.user_id', 'ur.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('ur.role_id', '=', roleId)
    .where('u.deleted', '=', 0)
    .executeTakeFirst();
  const held = Number(users?.n ?? 0);
  if (held > 0) throw new AppError(ErrorCode.IN_USE, roleRules.usersHold(held));
  // An approval node finds its candidates by role: a deleted role would leave the node without reviewers.
  const nodes = await trx.selectFrom('process_node').select('name').where('role_id', '=', roleId).where('deleted', '=', 0).orderBy('process_node_id').execute();
  if (nodes.length) throw new AppError(ErrorCode.IN_USE, roleRules.nodesUse(nodes.map((n) => n.name).join('、')));
  await trx.deleteFrom('sys_user_role').where('role_id', '=', roleId).execute();
  await trx.deleteFrom('sys_role_permission').where('role_id', '=', roleId).execute();
}

// ---------------------------------------------------------------- bindings

/** The role holds exactly these permissions from now on (parent and child are not linked). */
export async function bindRolePermissions(ctx: AppContext, auth: AuthContext, roleId: number, permissionIds: number[]): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const role = await lockRole(trx, ctx, roleId);
    if (isBuiltinRole(role)) throw conflict(roleRules.adminPermissions);
    // Else a holder of role:bindPerm alone binds the whole catalogue to the role they work with.
    if (await holdsRole(trx, auth, roleId)) throw new AppError(ErrorCode.FORBIDDEN, roleRules.ownRolePermissions);
    if (permissionIds.length) {
      // Shared locks: a permission deleted meanwhile cannot leave a binding behind.
      const q = trx.selectFrom('sys_permission').select(['permission_id', 'code', 'name']).where('permission_id', 'in', permissionIds).where('deleted', '=', 0);
      const found = await (ctx.dialect === 'postgres' ? q.forShare() : q).execute();
      if (found.length !== permissionIds.length) throw ruleFailure([{ field: 'permissionIds', message: '所选权限不存在或已删除，请刷新后重试' }], roleLabels);
      // Only what is added is granted: a role's codes the granter lacks may stay on it, or be taken off.
      const bound = new Set((await trx.selectFrom('sys_role_permission').select('permission_id').where('role_id', '=', roleId).execute()).map((r) => r.permission_id));
      await assertGrantable(
        trx,
        auth,
        found.filter((p) => !bound.has(p.permission_id)),
      );
    }
    await trx.deleteFrom('sys_role_permission').where('role_id', '=', roleId).execute();
    if (permissionIds.length) {
      await trx
        .insertInto('sys_role_permission')
        .values(permissionIds.map((permission_id) => ({ role_id: roleId, permission_id })))
        .onConflict((oc) => oc.columns(['role_id', 'permission_id']).doNothing())
        .execute();
    }
  });
}

/** Exactly these users hold the role from now on. */
export async function bindRoleUsers(ctx: AppContext, auth: AuthContext, roleId: number, userIds: number[]): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const role = await lockRole(trx, ctx, roleId);
    if (userIds.length) {
      const found = await trx.selectFrom('sys_user').select('user_id').where('user_id', 'in', userIds).where('deleted', '=', 0).execute();
      if (found.length !== userIds.length) throw ruleFailure([{ field: 'userIds', message: '所选用户不存在或已删除，请刷新后重试' }], roleLabels);
    }
    // The same rule as /user/bindRole: one's own roles are another administrator's to change.
    if ((await holdsRole(trx, auth, roleId)) !== userIds.includes(auth.userId)) throw conflict(roleRules.ownRoles);
    if (userIds.length) {
      const bound = new Set((await trx.selectFrom('sys_user_role').select('user_id').where('role_id', '=', roleId).execute()).map((r) => r.user_id));
      if (userIds.some((u) => !bound.has(u))) await assertRolesGrantable(trx, auth, [role]);
    }
    await trx.deleteFrom('sys_user_role').where('role_id', '=', roleId).execute();
    if (userIds.length) {
      await trx
        .insertInto('sys_user_role')
        .values(userIds.map((user_id) => ({ user_id, role_id: roleId })))
        .onConflict((oc) => oc.columns(['user_id', 'role_id']).doNothing())
        .execute();
    }
    if (isBuiltinRole(role)) await assertAdministratorKept(trx, ctx);
  });
}

/** The user holds exactly these roles from now on (POST /user/bindRole). */
export async function bindUserRoles(ctx: AppContext, auth: AuthContext, userId: number, roleIds: number[]): Promise<void> {
  const { db } = ctx;
  // As with disabling or deleting: an administrator cannot take their own access away by mistake.
  if (userId === auth.userId) throw conflict('不能修改当前登录账号自己的角色，请由其他管理员操作');
  if (!(await db.selectFrom('sys_user').select('user_id').where('user_id', '=', userId).where('deleted', '=', 0).executeTakeFirst())) notFound('用户');
  const unique = [...new Set(roleIds)];
  if (unique.length) {
    const found = await db.selectFrom('sys_role').select('role_id').where('role_id', 'in', unique).where('deleted', '=', 0).execute();
    if (found.length !== unique.length) throw new AppError(ErrorCode.VALIDATION, '角色：所选角色不存在或已删除');
  }
  await db.transaction().execute(async (trx) => {
    const current = new Set((await trx.selectFrom('sys_user_role').select('role_id').where('user_id', '=', userId).execute()).map((r) => r.role_id));
    const added = unique.filter((id) => !current.has(id));
    if (added.length) await assertRolesGrantable(trx, auth, await trx.selectFrom('sys_role').select(['role_id', 'code']).where('role_id', 'in', added).execute());
    const wasAdministrator = await holdsAdministratorRole(trx, userId);
    await trx.deleteFrom('sys_user_role').where('user_id', '=', userId).execute();
    if (unique.length)
      await trx
        .insertInto('sys_user_role')
        .values(unique.map((role_id) => ({ user_id: userId, role_id })))
        .execute();
    if (wasAdministrator) await assertAdministratorKept(trx, ctx);
  });
}
