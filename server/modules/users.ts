import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { encryptedBody, authLabels } from '../../domain/schemas/auth';
import { ErrorCode } from '../../domain/errors';
import { profileUpdate, userBindRole, userCreate, userDelete, userLabels, userPageQuery, userRolesQuery, userUpdate } from '../../domain/schemas/user';
import { decryptContent, hashPassword } from '../core/crypto';
import { AppError, notFound, ok } from '../core/errors';
import { containsText, pageOf } from '../core/paging';
import { parse } from '../core/validate';
import { departmentBranch } from './departments';

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

export async function userRoutes(app: FastifyInstance) {
  const { db } = app.ctx;

  const decrypted = async (req: FastifyRequest) => decryptContent(app.ctx.keys, parse(encryptedBody, req.body, authLabels).content);

  const assertAccountFree = async (account: string, exceptId?: number) => {
    let q = db.selectFrom('sys_user').select('user_id').where('account', '=', account).where('deleted', '=', 0);
    if (exceptId) q = q.where('user_id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw new AppError(ErrorCode.DUPLICATE, `账号“${account}”已存在`, { errors: [{ field: 'account', label: '账号', message: '账号已存在' }] });
  };
  const assertDepartment = async (departId: number) => {
    const d = await db.selectFrom('sys_department').select('depart_id').where('depart_id', '=', departId).where('deleted', '=', 0).executeTakeFirst();
    if (!d) throw new AppError(ErrorCode.VALIDATION, '部门：所选部门不存在', { errors: [{ field: 'departId', label: '部门', message: '所选部门不存在' }] });
  };

  app.post('/user/page', { config: { permission: 'user:list' } }, async (req) => {
    const q = parse(userPageQuery, req.body, userLabels);
    const branch = q.departId ? await departmentBranch(db, q.departId) : null;
    const filtered = () => {
      let s = db.selectFrom('sys_user as u').where('u.deleted', '=', 0);
      if (q.userName) s = s.where(containsText('u.user_name', q.userName));
      if (q.account) s = s.where(containsText('u.account', q.account));
      if (q.phone) s = s.where('u.phone', '=', q.phone);
      if (q.status !== undefined) s = s.where('u.status', '=', q.status);
      if (branch) s = s.where('u.depart_id', 'in', branch);
      return s;
    };
    const page = await pageOf(
      q,
      () => filtered().select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst(),
      (limit, offset) =>
        filtered()
          .leftJoin('sys_department as d', 'd.depart_id', 'u.depart_id')
          .select(['u.user_id', 'u.user_name', 'u.account', 'u.gender', 'u.phone', 'u.depart_id', 'd.name as depart_name', 'u.status', 'u.uuid', 'u.create_time'])
          .orderBy('u.user_id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
    );
    const ids = page.list.map((u) => u.user_id);
    const roles = ids.length
      ? await db.selectFrom('sys_user_role as ur').innerJoin('sys_role as r', 'r.role_id', 'ur.role_id').select(['ur.user_id', 'r.name']).where('ur.user_id', 'in', ids).where('r.deleted', '=', 0).execute()
      : [];
    return ok({ total: page.total, list: page.list.map((u) => ({ ...u, roleNames: roles.filter((r) => r.user_id === u.user_id).map((r) => r.name) })) });
  });

  app.post('/user/options', { config: { permission: 'role' } }, async () =>
    ok(await db.selectFrom('sys_user').select(['user_id', 'user_name']).where('deleted', '=', 0).orderBy('user_id').execute()),
  );

  app.post('/user/save', { config: { permission: 'user:add', operation: '新增用户' } }, async (req) => {
    const v = parse(userCreate, await decrypted(req), userLabels);
    req.auditParams = withoutPassword(v);
    await assertAccountFree(v.account);
    await assertDepartment(v.departId);
    const now = app.ctx.time();
    const row = await db
      .insertInto('sys_user')
      .values({
        user_name: v.userName,
        account: v.account,
        password_hash: await hashPassword(v.password),
        gender: v.gender,
        phone: v.phone,
        depart_id: v.departId,
        status: v.status ?? 1,
        uuid: randomUUID(),
        create_user_id: req.auth!.userId,
        create_time: now,
        update_time: now,
      })
      .returning('user_id')
      .executeTakeFirstOrThrow();
    return ok({ user_id: row.user_id }, '创建成功！');
  });

  app.post('/user/update', { config: { permission: 'user:edit', operation: '编辑用户' } }, async (req) => {
    const v = parse(userUpdate, await decrypted(req), userLabels);
    req.auditParams = withoutPassword(v);
    const existing = await db.selectFrom('sys_user').select(['user_id', 'status']).where('user_id', '=', v.userId).where('deleted', '=', 0).executeTakeFirst();
    if (!existing) notFound('用户');
    if (v.userId === req.auth!.userId && v.status === 0) throw new AppError(ErrorCode.STATE_CONFLICT, '不能停用当前登录的帐号');
    await assertAccountFree(v.account, v.userId);
    await assertDepartment(v.departId);
    const passwordHash = v.password ? await hashPassword(v.password) : null;
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('sys_user')
        .set({
          user_name: v.userName,
          account: v.account,
          gender: v.gender,
          phone: v.phone,
          depart_id: v.departId,
          ...(v.status !== undefined ? { status: v.status } : {}),
          ...(passwordHash ? { password_hash: passwordHash } : {}),
          update_time: app.ctx.time(),
        })
        .where('user_id', '=', v.userId)
        .execute();
      // A disabled account or a reset password must not keep old sessions alive.
      if (v.password || v.status === 0) await trx.deleteFrom('sys_session').where('user_id', '=', v.userId).execute();
    });
    return ok(null, '编辑成功！');
  });

  app.post('/user/delete', { config: { permission: 'user:delete', operation: '删除用户' } }, async (req) => {
    const { userId } = parse(userDelete, req.body, userLabels);
    if (userId === req.auth!.userId) throw new AppError(ErrorCode.STATE_CONFLICT, '不能删除当前登录的帐号');
    await db.transaction().execute(async (trx) => {
      const res = await trx.updateTable('sys_user').set({ deleted: 1, update_time: app.ctx.time() }).where('user_id', '=', userId).where('deleted', '=', 0).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) notFound('用户');
      await trx.deleteFrom('sys_session').where('user_id', '=', userId).execute();
      await trx.deleteFrom('sys_user_role').where('user_id', '=', userId).execute();
    });
    return ok(null, '删除成功！');
  });

  app.post('/role/findByUserId', { config: { permission: 'user:bindRole' } }, async (req) => {
    const { userId } = parse(userRolesQuery, req.body, userLabels);
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

  app.post('/user/bindRole', { config: { permission: 'user:bindRole', operation: '绑定角色' } }, async (req) => {
    const { userId, roleIds } = parse(userBindRole, req.body, userLabels);
    // As with disabling or deleting: an administrator cannot take their own access away by mistake.
    if (userId === req.auth!.userId) throw new AppError(ErrorCode.STATE_CONFLICT, '不能修改当前登录帐号自己的角色，请由其他管理员操作');
    if (!(await db.selectFrom('sys_user').select('user_id').where('user_id', '=', userId).where('deleted', '=', 0).executeTakeFirst())) notFound('用户');
    const unique = [...new Set(roleIds)];
    if (unique.length) {
      const found = await db.selectFrom('sys_role').select('role_id').where('role_id', 'in', unique).where('deleted', '=', 0).execute();
      if (found.length !== unique.length) throw new AppError(ErrorCode.VALIDATION, '角色：所选角色不存在或已删除');
    }
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('sys_user_role').where('user_id', '=', userId).execute();
      if (unique.length) await trx.insertInto('sys_user_role').values(unique.map((role_id) => ({ user_id: userId, role_id }))).execute();
    });
    return ok(null, '绑定角色成功！');
  });

  app.post('/user/self', { config: { permission: 'signed-in' } }, async (req) => {
    const auth = req.auth!;
    const u = await userSummary(db, auth.userId);
    return ok({ userId: u.user_id, userName: u.user_name, account: u.account, roleNames: auth.roleNames, departId: u.depart_id, departName: u.depart_name, gender: u.gender, phone: u.phone });
  });

  app.post('/user/updateSelf', { config: { permission: 'signed-in', operation: '修改个人信息' } }, async (req) => {
    const v = parse(profileUpdate, await decrypted(req), userLabels);
    req.auditParams = withoutPassword(v);
    const auth = req.auth!;
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
