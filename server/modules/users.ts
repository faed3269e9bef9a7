import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { ErrorCode } from '../../domain/errors';
import { profileUpdate, userApi, userLabels, type UserUpdate } from '../../domain/schemas/user';
import { decryptContent, hashPassword } from '../core/crypto';
import { AppError, notFound, ok } from '../core/errors';
import { rememberedTotal, tableChanged } from '../core/paging';
import type { Db, FilterMatch, ListFilter, RowValues } from '../core/repository';
import { defineResource, registerResource } from '../core/resource';
import { route } from '../core/route';
import { parse } from '../core/validate';
import { departmentBranch } from '../core/department-branch';
import { afterCommit } from '../core/transactions';
import { readRule } from './access';
import { assertAdministratorKept, bindUserRoles, holdsAdministratorRole } from './role-rules';
import { keepStoredWhereMasked } from '../core/personal-data';

/** The signed-in person as info and profile show them: user fields and department name. */
export function userSummary(db: Kysely<DB>, userId: number) {
  return db
    .selectFrom('sys_user as u')
    .leftJoin('sys_department as d', 'd.depart_id', 'u.depart_id')
    .select(['u.user_id', 'u.user_name', 'u.account', 'u.gender', 'u.phone', 'u.depart_id', 'd.name as depart_name'])
    .where('u.user_id', '=', userId)
    .executeTakeFirstOrThrow();
}

const withoutPassword = <T extends { password?: string }>(v: T) => ({ ...v, password: v.password ? '***' : '' });

/** A page of users with their department's name and their roles' names. */
async function withNames(rows: RowValues[], db: Db): Promise<RowValues[]> {
  const ids = rows.map((u) => Number(u.user_id));
  const departIds = [...new Set(rows.map((u) => Number(u.depart_id)))];
  const [roles, departs] = await Promise.all([
    ids.length
      ? db.selectFrom('sys_user_role as ur').innerJoin('sys_role as r', 'r.role_id', 'ur.role_id').select(['ur.user_id', 'r.name']).where('ur.user_id', 'in', ids).where('r.deleted', '=', 0).execute()
      : [],
    departIds.length ? db.selectFrom('sys_department').select(['depart_id', 'name']).where('depart_id', 'in', departIds).execute() : [],
  ]);
  const departName = new Map(departs.map((d) => [d.depart_id, d.name]));
  return rows.map((u) => ({ ...u, depart_name: departName.get(Number(u.depart_id)) ?? null, roleNames: roles.filter((r) => r.user_id === u.user_id).map((r) => r.name) }));
}

const filters: Record<string, ListFilter> = {
  userName: { column: 'user_name', match: 'contains' },
  account: { column: 'account', match: 'contains' },
  phone: { column: 'phone', match: 'equals' },
  status: { column: 'status', match: 'equals' },
  departId: { column: 'depart_id', match: async (q, departId, db) => q.where('depart_id', 'in', await departmentBranch(db as Kysely<DB>, Number(departId))) },
};

/** 用户管理 (spec 002 §2, §5; codes user:*): a declared register whose writes arrive encrypted. */
export const users = defineResource({
  contract: userApi,
  table: 'sys_user',
  softDelete: 'deleted',
  columns: ['user_id', 'user_name', 'account', 'gender', 'phone', 'depart_id', 'status', 'uuid', 'create_time'],
  readable: readRule('user'),
  filters,
  unique: [{ field: 'account', column: 'account' }],
  stamps: { createUser: 'create_user_id' },
  decorate: withNames,
  // The unfiltered list's total (every live user: 200,000 in the bench) is remembered briefly and forgotten on any write
  // through this server (afterWrite, beforeDelete); a filtered list counts exactly. The repository is this server's.
  count: (q, repo, values) =>
    Object.keys(filters).some((f) => values[f] !== undefined && values[f] !== null && values[f] !== '')
      ? repo.count(q)
      : rememberedTotal({ db: repo, table: 'sys_user', scope: 'live' }, async () => ({ total: await repo.count(q) }))().then((r) => r.total),
  decode: async (body, req) => decryptContent(req.server.ctx.keys, (body as { content: string }).content),
  auditParams: (v) => withoutPassword(v as { password?: string }),
  check: async (values, { mode, id, auth }, db) => {
    if (mode === 'edit' && id === auth.userId && values.status === 0) throw new AppError(ErrorCode.STATE_CONFLICT, '不能停用当前登录的账号');
    const d = await db.selectFrom('sys_department').select('depart_id').where('depart_id', '=', Number(values.departId)).where('deleted', '=', 0).executeTakeFirst();
    if (!d) throw new AppError(ErrorCode.VALIDATION, '部门：所选部门不存在', { errors: [{ field: 'departId', label: userLabels.departId, message: '所选部门不存在' }] });
  },
  toRow: async (values, { mode }) => {
    const v = values as Omit<UserUpdate, 'userId'>;
    const passwordHash = v.password ? await hashPassword(v.password) : null;
    return {
      user_name: v.userName,
      account: v.account,
      gender: v.gender,
      phone: v.phone,
      depart_id: v.departId,
      ...(mode === 'create' ? { status: v.status ?? 1, uuid: randomUUID() } : v.status !== undefined ? { status: v.status } : {}),
      ...(passwordHash ? { password_hash: passwordHash } : {}),
    };
  },
  // A disabled account or a reset password must not keep old sessions alive.
  afterWrite: async (trx, values, { mode, id, req }) => {
    afterCommit(trx, () => tableChanged('sys_user'));
    if (mode === 'edit' && (values.password || values.status === 0)) await trx.deleteFrom('sys_session').where('user_id', '=', id).execute();
    if (mode === 'edit' && values.status === 0 && (await holdsAdministratorRole(trx, id))) await assertAdministratorKept(trx, req.server.ctx);
  },
  beforeDelete: async (trx, id, auth, req) => {
    if (id === auth.userId) throw new AppError(ErrorCode.STATE_CONFLICT, '不能删除当前登录的账号');
    afterCommit(trx, () => tableChanged('sys_user'));
    const wasAdministrator = await holdsAdministratorRole(trx, id);
    await trx.deleteFrom('sys_session').where('user_id', '=', id).execute();
    await trx.deleteFrom('sys_user_role').where('user_id', '=', id).execute();
    if (wasAdministrator) await assertAdministratorKept(trx, req.server.ctx);
  },
});

export async function userRoutes(app: FastifyInstance) {
  await registerResource(app, users);
  const { db } = app.ctx;

  const decrypted = async (req: FastifyRequest) => decryptContent(app.ctx.keys, (req.body as { content: string }).content);

  route(app, userApi.options, async () =>
    // Account and department tell apart two people of one name in 绑定用户 (issue 24), bound or not.
    ok(
      await db
        .selectFrom('sys_user as u')
        .leftJoin('sys_department as d', 'd.depart_id', 'u.depart_id')
        .select(['u.user_id', 'u.user_name', 'u.account', 'd.name as depart_name'])
        .where('u.deleted', '=', 0)
        .orderBy('u.user_id')
        .execute(),
    ),
  );

  route(app, userApi.roles, async (req) => {
    const { userId } = req.body;
    return ok(
      await db
        .selectFrom('sys_user_role as ur')
        .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
        .select(['r.role_id', 'r.name', 'r.code'])
        .where('ur.user_id', '=', userId)
        .where('r.deleted', '=', 0)
        .orderBy('r.role_id')
        .execute(),
    );
  });

  route(app, userApi.bindRole, async (req) => {
    await bindUserRoles(app.ctx, req.auth!, req.body.userId, req.body.roleIds);
    return ok(null, '绑定角色成功！');
  });

  route(app, userApi.self, async (req) => {
    const auth = req.auth!;
    const u = await userSummary(db, auth.userId);
    return ok({ userId: u.user_id, userName: u.user_name, account: u.account, roleNames: auth.roleNames, departId: u.depart_id, departName: u.depart_name, gender: u.gender, phone: u.phone });
  });

  route(app, userApi.updateSelf, async (req) => {
    const auth = req.auth!;
    // The profile shows the phone masked like everywhere else: sent back unchanged, it keeps the stored number.
    const stored = await db.selectFrom('sys_user').select('phone').where('user_id', '=', auth.userId).executeTakeFirst();
    const v = parse(profileUpdate, keepStoredWhereMasked(await decrypted(req), stored, userLabels));
    req.auditParams = withoutPassword(v);
    const passwordHash = v.password ? await hashPassword(v.password) : null;
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('sys_user')
        .set({ user_name: v.userName, gender: v.gender, phone: v.phone, ...(passwordHash ? { password_hash: passwordHash } : {}), update_time: app.ctx.time() })
        .where('user_id', '=', auth.userId)
        .execute();
      // A new password signs out the person's other devices, not this one.
      if (v.password) await trx.deleteFrom('sys_session').where('user_id', '=', auth.userId).where('session_id', '!=', auth.sessionId).execute();
    });
    return ok(null, '编辑成功！');
  });
}
