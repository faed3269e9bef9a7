import { randomInt } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import { buildMenuTree } from '../../domain/permissions';
import { CAPTCHA_TTL_SECONDS, authLabels, captchaPayload, encryptedBody, loginPayload } from '../../domain/schemas/auth';
import { bearerToken } from '../core/auth';
import { decryptContent, newToken, sha256, verifyPassword } from '../core/crypto';
import { AppError, ok } from '../core/errors';
import { RateLimiter } from '../core/rate-limit';
import { parse } from '../core/validate';
import { userSummary } from './users';

const MAX_CODE_ATTEMPTS = 5;
const maskPhone = (p: string) => (p.length >= 7 ? `${p.slice(0, 3)}****${p.slice(-4)}` : '****');

export async function authRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const limits = config.rateLimits;
  const cooldownMs = config.captchaCooldownSeconds * 1000;
  const captchaByAccount = new RateLimiter(limits.captchaPerAccount, 3600_000);
  const captchaByIp = new RateLimiter(limits.captchaPerIp, 3600_000);
  const loginByAccount = new RateLimiter(limits.loginPerAccount, 15 * 60_000);
  const loginByIp = new RateLimiter(limits.loginPerIp, 15 * 60_000);

  const decrypt = async (req: FastifyRequest) => decryptContent(app.ctx.keys, parse(encryptedBody, req.body, authLabels).content);

  app.get('/user/publicKey', { config: { permission: 'public' } }, async () => ok({ publicKey: app.ctx.keys.publicKeyPem }));

  app.post('/user/captcha', { config: { permission: 'public' } }, async (req) => {
    const { account } = parse(captchaPayload, await decrypt(req), authLabels);
    const now = Date.now();
    const last = await db.selectFrom('sys_captcha').select('created_at').where('account', '=', account).orderBy('created_at', 'desc').limit(1).executeTakeFirst();
    if (last && now - last.created_at < cooldownMs) {
      const wait = Math.ceil((last.created_at + cooldownMs - now) / 1000);
      throw new AppError(ErrorCode.RATE_LIMITED, `验证码已发送，请${wait}秒后再获取`, { expireOfSeconds: wait });
    }
    captchaByIp.hit(`ip:${req.ip}`, '获取验证码');
    captchaByAccount.hit(`acct:${account}`, '获取验证码');
    const user = await db.selectFrom('sys_user').select(['phone', 'status']).where('account', '=', account).where('deleted', '=', 0).executeTakeFirst();
    // An unknown or disabled account gets the same answer, so the endpoint does not reveal which accounts exist.
    if (user && user.status === 1) {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await db.updateTable('sys_captcha').set({ used: 1 }).where('account', '=', account).where('used', '=', 0).execute();
      await db.insertInto('sys_captcha').values({ account, code_hash: sha256(`${account}:${code}`), created_at: now, expires_at: now + CAPTCHA_TTL_SECONDS * 1000 }).execute();
      await app.ctx.sms.send({
        phone: user.phone,
        account,
        code,
        text: `【园区出入管理】您的登录验证码为${code}，${CAPTCHA_TTL_SECONDS / 60}分钟内有效，请勿泄露给他人。`,
        time: app.ctx.time(),
      });
      req.log.info({ account, phone: maskPhone(user.phone) }, 'captcha sent');
    } else {
      await db.insertInto('sys_captcha').values({ account, code_hash: '-', created_at: now, expires_at: now, used: 1 }).execute();
    }
    return ok({ expireOfSeconds: config.captchaCooldownSeconds }, '验证码发送成功');
  });

  app.post('/user/v2login', { config: { permission: 'public' } }, async (req) => {
    const payload = parse(loginPayload, await decrypt(req), authLabels);
    const { account, password, captcha } = payload;
    const user = await db
      .selectFrom('sys_user')
      .select(['user_id', 'user_name', 'depart_id', 'password_hash', 'status'])
      .where('account', '=', account)
      .where('deleted', '=', 0)
      .executeTakeFirst();
    const logAttempt = (result: 0 | 1, remark: string) =>
      db
        .insertInto('sys_login_log')
        .values({ user_id: user?.user_id ?? null, user_name: user?.user_name ?? '', account, depart_id: user?.depart_id ?? null, ip: req.ip, result, login_time: app.ctx.time(), remark })
        .execute();
    try {
      loginByIp.hit(`ip:${req.ip}`, '登录尝试');
      loginByAccount.hit(`acct:${account}`, '登录尝试');
    } catch (e) {
      await logAttempt(0, '登录尝试过于频繁，已限制');
      throw e;
    }

    const now = Date.now();
    const code = await db
      .selectFrom('sys_captcha')
      .selectAll()
      .where('account', '=', account)
      .where('used', '=', 0)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!code || code.code_hash !== sha256(`${account}:${captcha}`)) {
      if (code) {
        const attempts = code.attempts + 1;
        await db.updateTable('sys_captcha').set({ attempts, used: attempts >= MAX_CODE_ATTEMPTS ? 1 : 0 }).where('captcha_id', '=', code.captcha_id).execute();
      }
      await logAttempt(0, code ? '验证码错误' : '验证码已过期或未获取');
      throw new AppError(ErrorCode.CAPTCHA_INVALID, code ? '验证码错误，请重新输入' : '验证码已过期或未获取，请重新获取');
    }
    // A code is good for one attempt: consume it before the password check so one code cannot test many passwords.
    const consumed = await db.updateTable('sys_captcha').set({ used: 1 }).where('captcha_id', '=', code.captcha_id).where('used', '=', 0).executeTakeFirst();
    if (Number(consumed.numUpdatedRows) !== 1) {
      await logAttempt(0, '验证码已被使用');
      throw new AppError(ErrorCode.CAPTCHA_INVALID, '验证码已被使用，请重新获取');
    }
    if (!user || !(await verifyPassword(password, user.password_hash))) {
      await logAttempt(0, user ? '密码错误' : '账号不存在');
      throw new AppError(ErrorCode.BAD_CREDENTIALS);
    }
    if (user.status !== 1) {
      await logAttempt(0, '账号已停用');
      throw new AppError(ErrorCode.ACCOUNT_DISABLED);
    }
    const token = newToken();
    await db
      .insertInto('sys_session')
      .values({
        token_hash: sha256(token),
        user_id: user.user_id,
        ip: req.ip,
        user_agent: String(req.headers['user-agent'] ?? '').slice(0, 300),
        created_at: now,
        last_seen_at: now,
        expires_at: now + app.ctx.config.sessionIdleMs,
      })
      .execute();
    loginByAccount.reset(`acct:${account}`);
    await logAttempt(1, '登录成功');
    return ok({ token }, '登录成功');
  });

  app.post('/user/logout', { config: { permission: 'signed-in', operation: '退出登录' } }, async (req) => {
    const token = bearerToken(req);
    if (token) await db.deleteFrom('sys_session').where('token_hash', '=', sha256(token)).execute();
    return ok(null, '已退出登录');
  });

  app.get('/user/info', { config: { permission: 'signed-in' } }, async (req) => {
    const auth = req.auth!;
    const user = await userSummary(db, auth.userId);
    const rows = await db.selectFrom('sys_permission').select(['permission_id', 'pid', 'code', 'name', 'type', 'route', 'icon']).where('deleted', '=', 0).where('status', '=', 1).orderBy('sort').orderBy('permission_id').execute();
    const codeById = new Map(rows.map((r) => [r.permission_id, r.code]));
    const menus = buildMenuTree(
      rows.map((r) => ({ ...r, parentCode: r.pid ? codeById.get(r.pid) ?? null : null })),
      auth.permissions,
    );
    return ok({ user, roleNames: auth.roleNames, permissions: [...auth.permissions].sort(), menus });
  });
}
