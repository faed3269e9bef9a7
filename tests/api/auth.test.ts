import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, DEMO_PASSWORD, dialects, readLog, startServer, type TestServer } from './harness';

for (const dialect of await dialects()) {
  describe(`sign-in on ${dialect}`, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer(dialect);
    });
    afterAll(async () => server?.close());

    it('publishes an RSA public key of at least 2048 bits as SPKI PEM', async () => {
      const r = await new Client(server).get<{ publicKey: string }>('/user/publicKey');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ success: true, code: 1000 });
      expect(r.body.data.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      const { createPublicKey } = await import('node:crypto');
      const key = createPublicKey(r.body.data.publicKey);
      expect(key.asymmetricKeyType).toBe('rsa');
      expect(key.asymmetricKeyDetails?.modulusLength).toBeGreaterThanOrEqual(2048);
    });

    it('sends a 6-digit code to the account phone, signs in, answers info and signs out', async () => {
      const c = new Client(server);
      const cap = await c.requestCaptcha('admin');
      expect(cap.body.data.expireOfSeconds).toBeTypeOf('number');
      expect(c.latestCode('admin')).toMatch(/^\d{6}$/);
      const r = await c.login('admin');
      expect(r.status).toBe(200);
      expect(r.body.data.token.length).toBeGreaterThan(20);
      const info = await c.get<{ user: { account: string }; roleNames: string[]; permissions: string[]; menus: Array<{ code: string; children?: unknown[] }> }>('/user/info');
      expect(info.body.data.user.account).toBe('admin');
      expect(info.body.data.roleNames).toContain('系统管理员');
      expect(info.body.data.permissions).toEqual(expect.arrayContaining(['user:list', 'modal:add', 'processNode:delet', 'carApplyApproval:batch']));
      expect(info.body.data.menus.map((m) => m.code)).toContain('dir:system');
      const out = await c.post('/user/logout');
      expect(out.status).toBe(200);
      const after = await c.get('/user/info');
      expect(after.status).toBe(401);
      expect(after.body.code).toBe(1002);
    });

    it('answers a wrong password with 401 and a Chinese message, and logs the attempt', async () => {
      const c = new Client(server);
      const r = await c.login('contact', 'wrong-password-1');
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ success: false, code: 1014, msg: '账号或密码错误', message: '账号或密码错误' });
      const row = await server.app.ctx.db.selectFrom('sys_login_log').selectAll().where('account', '=', 'contact').orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ result: 0, remark: '密码错误', ip: '127.0.0.1' });
    });

    it('accepts a code once only and refuses a wrong one', async () => {
      const c = new Client(server);
      await c.requestCaptcha('reviewer');
      const code = c.latestCode('reviewer')!;
      const wrong = code === '000000' ? '111111' : '000000';
      const bad = await c.post('/user/v2login', { content: await c.encrypt({ account: 'reviewer', password: DEMO_PASSWORD, captcha: wrong }) });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe(1013);
      const good = await c.post('/user/v2login', { content: await c.encrypt({ account: 'reviewer', password: DEMO_PASSWORD, captcha: code }) });
      expect(good.status).toBe(200);
      const again = await c.post('/user/v2login', { content: await c.encrypt({ account: 'reviewer', password: DEMO_PASSWORD, captcha: code }) });
      expect(again.status).toBe(400);
      expect(again.body.msg).toContain('验证码');
    });

    it('validates the decrypted fields with the spec messages', async () => {
      const c = new Client(server);
      const r = await c.post('/user/v2login', { content: await c.encrypt({ account: 'admin', password: 'x', captcha: '12a' }) });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(1001);
      expect(r.body.msg).toBe('验证码为6位数字');
      const empty = await c.post('/user/v2login', { content: await c.encrypt({ account: '', password: '', captcha: '123456' }) });
      expect(empty.body.msg).toBe('请输入用户名');
    });

    it('refuses content that is not a JWE for this key', async () => {
      const r = await new Client(server).post('/user/v2login', { content: 'not-a-jwe' });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(1015);
      const missing = await new Client(server).post('/user/v2login', {});
      expect(missing.body.msg).toBe('缺少加密内容');
    });

    it('lets a user with no role sign in and read info, and answers 403 elsewhere', async () => {
      const c = await new Client(server).as('norole');
      const info = await c.get<{ permissions: string[]; roleNames: string[] }>('/user/info');
      expect(info.status).toBe(200);
      expect(info.body.data.roleNames).toEqual([]);
      expect(info.body.data.permissions).toEqual([]);
      const r = await c.post('/vehicleType/page', {});
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 1004, msg: '当前账号没有操作角色，请联系管理员。' });
    });

    it('keeps passwords, tokens and codes out of the log and the operation log', async () => {
      const c = await new Client(server).as('admin');
      const code = c.latestCode('admin')!;
      const created = await c.post('/user/save', { content: await c.encrypt({ userName: '日志检查', account: 'logcheck', password: 'Secret9Word', gender: 0, phone: '13900000001', departId: 1 }) });
      expect(created.status).toBe(200);
      await c.post('/user/logout');
      const ops = await server.app.ctx.db.selectFrom('sys_operation_log').select(['params', 'operation']).execute();
      const logins = await server.app.ctx.db.selectFrom('sys_login_log').select('remark').execute();
      const haystack = readLog(server) + JSON.stringify(ops) + JSON.stringify(logins);
      expect(ops.map((o) => o.operation)).toEqual(expect.arrayContaining(['新增用户', '退出登录']));
      expect(JSON.stringify(ops)).toContain('logcheck');
      for (const secret of ['Secret9Word', DEMO_PASSWORD, c.token!, code]) expect(haystack).not.toContain(secret);
    });
  });

  describe(`sign-in limits on ${dialect}`, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer(dialect, { captchaCooldownSeconds: 60, rateLimits: { captchaPerAccount: 100, captchaPerIp: 100, loginPerAccount: 3, loginPerIp: 100 } });
    });
    afterAll(async () => server?.close());

    it('answers a second code request within the cooldown with 429 and the seconds to wait', async () => {
      const c = new Client(server);
      const first = await c.requestCaptcha('patrol');
      expect(first.body.data.expireOfSeconds).toBe(60);
      const second = await c.requestCaptcha('patrol');
      expect(second.status).toBe(429);
      expect(second.body.code).toBe(1012);
      expect(second.body.msg).toMatch(/请\d+秒后再获取/);
    });
  });

  describe(`sign-in under attack on ${dialect}`, () => {
    let server: TestServer;
    beforeAll(async () => {
      // The test client stands behind a proxy at 127.0.0.1, so X-Forwarded-For names the address each request comes from.
      server = await startServer(dialect, {
        trustProxy: '127.0.0.1',
        captchaCooldownSeconds: 0,
        rateLimits: { captchaPerAccount: 2, captchaPerIp: 3, loginPerAccount: 3, loginPerIp: 200 },
      });
    });
    afterAll(async () => server?.close());

    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const send = async (c: Client, path: string, payload: unknown, ip: string) => c.call('POST', path, { content: await c.encrypt(payload) }, from(ip));

    it('believes X-Forwarded-For only from a configured proxy', async () => {
      const direct = await startServer(dialect, { captchaCooldownSeconds: 0, rateLimits: { captchaPerAccount: 100, captchaPerIp: 3, loginPerAccount: 3, loginPerIp: 100 } });
      try {
        const c = new Client(direct);
        const answers = [];
        // A new forged address on every request: without a trusted proxy they are all 127.0.0.1.
        for (let i = 0; i < 5; i++) answers.push((await send(c, '/user/captcha', { account: `nobody${i}` }, `203.0.113.${i}`)).status);
        expect(answers).toEqual([200, 200, 200, 429, 429]);
        const logged = await direct.app.ctx.db.selectFrom('sys_login_log').select('ip').execute();
        for (const row of logged) expect(row.ip).toBe('127.0.0.1');
      } finally {
        await direct.close();
      }
      // Behind the configured proxy each address counts on its own.
      const c = new Client(server);
      for (let i = 0; i < 4; i++) expect((await send(c, '/user/captcha', { account: `nobody${i}` }, `198.51.100.${i}`)).status).toBe(200);
    });

    it('compares five wrong codes from one address, however many arrive at once, and the code then stops working there', async () => {
      const c = new Client(server);
      expect((await send(c, '/user/captcha', { account: 'reviewer' }, '192.0.2.10')).status).toBe(200);
      const code = c.latestCode('reviewer')!;
      const wrong = code === '000000' ? '111111' : '000000';
      const answers = await Promise.all(Array.from({ length: 100 }, () => send(c, '/user/v2login', { account: 'reviewer', password: DEMO_PASSWORD, captcha: wrong }, '192.0.2.20')));
      const messages = answers.map((a) => a.body.msg);
      expect(answers.every((a) => a.status === 400)).toBe(true);
      expect(messages.filter((m) => m === '验证码错误，请重新输入')).toHaveLength(5);
      expect(messages.filter((m) => m === '验证码错误次数过多，请重新获取')).toHaveLength(95);
      const right = await send(c, '/user/v2login', { account: 'reviewer', password: DEMO_PASSWORD, captcha: code }, '192.0.2.20');
      expect(right.status).toBe(400);
      expect(right.body.msg).toBe('验证码错误次数过多，请重新获取');
      // The owner, typing the code on a phone elsewhere, still signs in with it.
      const owner = await send(c, '/user/v2login', { account: 'reviewer', password: DEMO_PASSWORD, captcha: code }, '192.0.2.10');
      expect(owner.status).toBe(200);
    });

    it('cannot be locked out by someone who has only the account name', async () => {
      const attacker = new Client(server);
      for (let i = 0; i < 20; i++) {
        const r = await send(attacker, '/user/v2login', { account: 'lead', password: `guess-${i}-A1`, captcha: String(100000 + i) }, '192.0.2.66');
        expect(r.status).toBe(400);
      }
      const owner = new Client(server);
      expect((await send(owner, '/user/captcha', { account: 'lead' }, '192.0.2.77')).status).toBe(200);
      const r = await send(owner, '/user/v2login', { account: 'lead', password: DEMO_PASSWORD, captcha: owner.latestCode('lead') }, '192.0.2.77');
      expect(r.status).toBe(200);
      expect(r.body.data).toHaveProperty('token');
    });

    it('counts wrong passwords only when typed with a correct code, and then locks the account', async () => {
      const c = new Client(server);
      const attempt = async (password: string) => {
        await send(c, '/user/captcha', { account: 'hazard' }, '192.0.2.40');
        return send(c, '/user/v2login', { account: 'hazard', password, captcha: c.latestCode('hazard') }, '192.0.2.40');
      };
      for (let i = 0; i < 3; i += 1) expect((await attempt('nope-nope-1')).status).toBe(401);
      const locked = await attempt(DEMO_PASSWORD);
      expect(locked.status).toBe(429);
      expect(locked.body.msg).toMatch(/密码错误次数过多，请\d+分钟后再试/);
    });
    it('slows codes for an account past its hourly share instead of refusing its owner', async () => {
      const c = new Client(server);
      const ask = async (ip: string) => send(c, '/user/captcha', { account: 'auditor' }, ip);
      expect((await ask('192.0.2.30')).body.data).toEqual({ expireOfSeconds: 0 });
      expect((await ask('192.0.2.31')).body.data).toEqual({ expireOfSeconds: 0 });
      // Past the share of 2: the next code goes out, with a long wait before the one after.
      const third = await ask('192.0.2.32');
      expect(third.status).toBe(200);
      expect(third.body.data).toEqual({ expireOfSeconds: 600 });
      const fourth = await ask('192.0.2.33');
      expect(fourth.status).toBe(429);
      expect((fourth.body.data as { expireOfSeconds: number }).expireOfSeconds).toBeGreaterThan(590);
      // The code that did go out still signs its owner in.
      const r = await send(c, '/user/v2login', { account: 'auditor', password: DEMO_PASSWORD, captcha: c.latestCode('auditor') }, '192.0.2.34');
      expect(r.status).toBe(200);
    });
  });
}

for (const dialect of await dialects()) {
  describe(`web push keys on ${dialect}`, () => {
    it('generates VAPID keys once and keeps them across restarts', async () => {
      const server = await startServer(dialect);
      try {
        const c = await new Client(server).as('patrol');
        const first = await c.get<{ publicKey: string }>('/push/vapidPublicKey');
        expect(first.body.data.publicKey).toMatch(/^[A-Za-z0-9_-]{80,}$/);
        const { loadVapidKeys } = await import('../../server-push/vapid');
        const { pushStore } = await import('../../server/modules/push-store');
        expect((await loadVapidKeys(pushStore(server.app.ctx.db, server.app.ctx.dialect))).publicKey).toBe(first.body.data.publicKey);
      } finally {
        await server.close();
      }
    });
  });
}

for (const dialect of await dialects()) {
  describe(`code tables on ${dialect}`, () => {
    it('answers one table by name and all tables at once, to role holders only', async () => {
      const server = await startServer(dialect);
      try {
        const c = await new Client(server).as('contact');
        const one = await c.get<Array<{ value: number; label: string }>>('/common/enum/visitArea');
        expect(one.body.data).toEqual([
          { value: 1, label: '化工区' },
          { value: 2, label: '港区' },
          { value: 3, label: '化工区和港区' },
        ]);
        const all = await c.get<Record<string, unknown[]>>('/common/enums');
        expect(all.body.data.visitArea).toEqual(one.body.data);
        expect(Object.keys(all.body.data).length).toBeGreaterThan(15);
        const missing = await c.get('/common/enum/nope');
        expect(missing.status).toBe(404);
        expect(missing.body.msg).toBe('枚举不存在：nope');
      } finally {
        await server.close();
      }
    });
  });
}
