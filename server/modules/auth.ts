import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import { buildMenuTree } from '../../domain/permissions';
import { authApi, CAPTCHA_TTL_SECONDS, captchaPayload, loginPayload } from '../../domain/schemas/auth';
import { bearerToken } from '../core/auth';
import { deliverSms, enqueueSms } from '../core/sms-outbox';
import { decryptContent, newToken, sha256, verifyPassword } from '../core/crypto';
import { AppError, ok } from '../core/errors';
import { clear, hit, limitHits, minutesUntil, peek } from '../core/rate-limit';
import { route } from '../core/route';
import { parse } from '../core/validate';
import { userSummary } from './users';

/** Wrong tries one address may make at one code; the code then stops answering that address (docs/decisions.md). */
export const MAX_CODE_ATTEMPTS = 5;
/** The wait between codes once an account has had its hourly share (rateLimits.captchaPerAccount). */
export const SLOW_CAPTCHA_COOLDOWN_SECONDS = 600;
const HOUR_MS = 3600_000;
const LOGIN_WINDOW_MS = 15 * 60_000;
const maskPhone = (p: string) => (p.length >= 7 ? `${p.slice(0, 3)}****${p.slice(-4)}` : '****');

/**
 * Sign-in limits (docs/decisions.md, "Sign-in limits"), all counted in the
 * database so that several servers share them. Nothing an attacker can do
 * without the SMS code counts against the account: wrong codes count per
 * code and address, wrong passwords only after a correct code.
 */
const bucket = {
  captchaIp: (ip: string) => `captcha:ip:${ip}`,
  // Keyed by a digest: whatever was typed as the account (a password, by mistake) is not kept in clear (issue 23).
  captchaAccount: (account: string) => `captcha:acct:${sha256(account)}`,
  captchaCooldown: (account: string) => `captcha:wait:${sha256(account)}`,
  loginIp: (ip: string) => `login:ip:${ip}`,
  codeTries: (captchaId: number, ip: string) => `login:code:${captchaId}:${ip}`,
  wrongPasswords: (account: string) => `login:password:${account}`,
};

/**
 * What the 登录日志 keeps of a typed account (issue 23): the account when it
 * names a live user, else nothing, since a password typed into the account
 * field by mistake would otherwise be kept for every auditor to read. The
 * remark says the account was unknown.
 */
const UNKNOWN_ACCOUNT_REMARK = '账号不存在';

export async function authRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const limits = config.rateLimits;

  // The route checks the envelope (encryptedBody); what it carries is parsed once decrypted.
  const decrypt = async (body: { content: string }) => decryptContent(app.ctx.keys, body.content);

  route(app, authApi.publicKey, async () => ok({ publicKey: app.ctx.keys.publicKeyPem }));

  route(app, authApi.captcha, async (req) => {
    const { account } = parse(captchaPayload, await decrypt(req.body));
    const now = Date.now();
    await limitHits(db, bucket.captchaIp(req.ip), limits.captchaPerIp, HOUR_MS, '获取验证码', now);
    // Throttled, never blocked: past its hourly share an account waits longer between codes, so texts
    // cannot be sent to its phone in bulk, yet its owner can always get one (every code reaches that phone).
    const sentThisHour = (await peek(db, bucket.captchaAccount(account), now))?.count ?? 0;
    const cooldownSeconds = sentThisHour >= limits.captchaPerAccount ? Math.max(SLOW_CAPTCHA_COOLDOWN_SECONDS, config.captchaCooldownSeconds) : config.captchaCooldownSeconds;
    const cooldown = await hit(db, bucket.captchaCooldown(account), cooldownSeconds * 1000, now);
    if (cooldown.count > 1) {
      const wait = Math.max(1, Math.ceil((cooldown.resetAt - now) / 1000));
      throw new AppError(ErrorCode.RATE_LIMITED, `验证码已发送，请${wait}秒后再获取`, { expireOfSeconds: wait });
    }
    await hit(db, bucket.captchaAccount(account), HOUR_MS, now);
    const user = await db.selectFrom('sys_user').select(['phone', 'status']).where('account', '=', account).where('deleted', '=', 0).executeTakeFirst();
    // An unknown or disabled account gets the same answer, so the endpoint does not reveal which accounts exist.
    if (user && user.status === 1) {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      // The code and its text are written together; the text leaves only after the commit, through the outbox (core/sms-outbox.ts).
      const messageId = await db.transaction().execute(async (trx) => {
        await trx.updateTable('sys_captcha').set({ used: 1 }).where('account', '=', account).where('used', '=', 0).execute();
        await trx
          .insertInto('sys_captcha')
          .values({ account, code_hash: sha256(`${account}:${code}`), created_at: now, expires_at: now + CAPTCHA_TTL_SECONDS * 1000 })
          .execute();
        const text = `【园区出入管理】您的登录验证码为${code}，${CAPTCHA_TTL_SECONDS / 60}分钟内有效，请勿泄露给他人。`;
        return enqueueSms(trx, 'captcha', null, [{ phone: user.phone, account, code, text, time: app.ctx.time() }], now);
      });
      // Sent now, with no transaction open and bounded by the outbox's timeout: the answer says whether the code went out.
      const outcome = await deliverSms(app.ctx, messageId);
      if (outcome && !outcome.sent) {
        req.log.error({ account, phone: maskPhone(user.phone), sms: outcome.errors.map((e) => e.replace(user.phone, maskPhone(user.phone))) }, 'captcha sms failed');
        throw new AppError(ErrorCode.INTERNAL);
      }
      req.log.info({ account, phone: maskPhone(user.phone) }, 'captcha sent');
    } else {
      // The same write as for a known account, so the answer's timing does not tell; the typed text is not kept.
      await db.insertInto('sys_captcha').values({ account: '', code_hash: '-', created_at: now, expires_at: now, used: 1 }).execute();
    }
    return ok({ expireOfSeconds: cooldownSeconds }, '验证码发送成功');
  });

  route(app, authApi.login, async (req) => {
    const payload = parse(loginPayload, await decrypt(req.body));
    const { account, password, captcha } = payload;
    const user = await db.selectFrom('sys_user').select(['user_id', 'user_name', 'depart_id', 'password_hash', 'status']).where('account', '=', account).where('deleted', '=', 0).executeTakeFirst();
    const logAttempt = (result: 0 | 1, remark: string) =>
      db
        .insertInto('sys_login_log')
        .values({
          user_id: user?.user_id ?? null,
          user_name: user?.user_name ?? '',
          account: user ? account : '',
          depart_id: user?.depart_id ?? null,
          ip: req.ip,
          result,
          login_time: app.ctx.time(),
          remark: user || remark === UNKNOWN_ACCOUNT_REMARK ? remark : `${remark}（${UNKNOWN_ACCOUNT_REMARK}）`,
        })
        .execute();
    const now = Date.now();
    /** Logs the failed attempt and answers the error to throw. */
    const refuse = async (remark: string, err: AppError): Promise<AppError> => {
      await logAttempt(0, remark);
      return err;
    };
    const fromIp = await hit(db, bucket.loginIp(req.ip), LOGIN_WINDOW_MS, now);
    if (fromIp.count > limits.loginPerIp) {
      throw await refuse('登录尝试过于频繁，已限制', new AppError(ErrorCode.RATE_LIMITED, `登录尝试过于频繁，请${minutesUntil(fromIp.resetAt, now)}分钟后再试`));
    }
    // Only wrong passwords typed with a correct code count here, and only the phone's holder has codes.
    const wrongPasswords = await peek(db, bucket.wrongPasswords(account), now);
    if (wrongPasswords && wrongPasswords.count >= limits.loginPerAccount) {
      throw await refuse('密码错误次数过多，已锁定', new AppError(ErrorCode.RATE_LIMITED, `密码错误次数过多，请${minutesUntil(wrongPasswords.resetAt, now)}分钟后再试`));
    }

    const code = await db
      .selectFrom('sys_captcha')
      .select(['captcha_id', 'code_hash'])
      .where('account', '=', account)
      .where('used', '=', 0)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!code) throw await refuse('验证码已过期或未获取', new AppError(ErrorCode.CAPTCHA_INVALID, '验证码已过期或未获取，请重新获取'));
    // Counted before the comparison, atomically: of any number of concurrent tries from one address, five are compared.
    const tries = await hit(db, bucket.codeTries(code.captcha_id, req.ip), CAPTCHA_TTL_SECONDS * 1000, now);
    await db
      .updateTable('sys_captcha')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('captcha_id', '=', code.captcha_id)
      .execute();
    if (tries.count > MAX_CODE_ATTEMPTS) {
      throw await refuse('验证码错误次数过多', new AppError(ErrorCode.CAPTCHA_INVALID, '验证码错误次数过多，请重新获取'));
    }
    if (code.code_hash !== sha256(`${account}:${captcha}`)) {
      throw await refuse('验证码错误', new AppError(ErrorCode.CAPTCHA_INVALID, '验证码错误，请重新输入'));
    }
    // A code is good for one attempt: consume it before the password check so one code cannot test many passwords.
    const consumed = await db.updateTable('sys_captcha').set({ used: 1 }).where('captcha_id', '=', code.captcha_id).where('used', '=', 0).executeTakeFirst();
    if (Number(consumed.numUpdatedRows) !== 1) throw await refuse('验证码已被使用', new AppError(ErrorCode.CAPTCHA_INVALID, '验证码已被使用，请重新获取'));
    if (!user || !(await verifyPassword(password, user.password_hash))) {
      if (user) await hit(db, bucket.wrongPasswords(account), LOGIN_WINDOW_MS, now);
      throw await refuse(user ? '密码错误' : UNKNOWN_ACCOUNT_REMARK, new AppError(ErrorCode.BAD_CREDENTIALS));
    }
    if (user.status !== 1) throw await refuse('账号已停用', new AppError(ErrorCode.ACCOUNT_DISABLED));
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
    await clear(db, bucket.wrongPasswords(account));
    await logAttempt(1, '登录成功');
    return ok({ token }, '登录成功');
  });

  route(app, authApi.logout, async (req) => {
    const token = bearerToken(req);
    if (token) await db.deleteFrom('sys_session').where('token_hash', '=', sha256(token)).execute();
    return ok(null, '已退出登录');
  });

  route(app, authApi.info, async (req) => {
    const auth = req.auth!;
    const user = await userSummary(db, auth.userId);
    const rows = await db
      .selectFrom('sys_permission')
      .select(['permission_id', 'pid', 'code', 'name', 'type', 'route', 'icon'])
      .where('deleted', '=', 0)
      .where('status', '=', 1)
      .orderBy('sort')
      .orderBy('permission_id')
      .execute();
    const codeById = new Map(rows.map((r) => [r.permission_id, r.code]));
    const menus = buildMenuTree(
      rows.map((r) => ({ ...r, parentCode: r.pid ? (codeById.get(r.pid) ?? null) : null })),
      auth.permissions,
    );
    return ok({ user, roleNames: auth.roleNames, permissions: [...auth.permissions].sort(), menus });
  });
}
