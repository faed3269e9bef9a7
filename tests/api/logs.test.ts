import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../domain/envelope';
import type { LoginLogRow, OperationLogRow } from '../../domain/schemas/logs';
import { addMinutes } from '../../domain/time';
import { auditJson, redactAuditText } from '../../server/core/redact';
import { Client, DEMO_PASSWORD, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, unknown>;

/**
 * 登录日志 and 操作日志 (spec 002 §2 Logs, §7 POST /log/login/page and
 * /log/user/page) on each dialect: what sign-ins and mutating calls leave in
 * the logs, read back through the lists with their defaults (the last 24
 * hours), filters and refusals; and that no password, SMS code, token or key
 * is ever in an answer, whether the rule caught it when the row was written
 * or only when it is read.
 */
for (const dialect of await dialects()) {
  describe(`login and operation logs on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client, auditor: Client, contact: Client;
    let now = '';
    const tag = `lg${dialect.slice(0, 2)}`;
    const ago = (minutes: number) => addMinutes(now, -minutes);

    const logins = async (q: Row, as: Client = auditor) => {
      const r = await as.post<Page<LoginLogRow>>('/log/login/page', { size: 100, pn: 1, ...q });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    const operations = async (q: Row, as: Client = auditor) => {
      const r = await as.post<Page<OperationLogRow>>('/log/user/page', { size: 100, pn: 1, ...q });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };

    beforeAll(async () => {
      server = await startServer(dialect);
      [admin, auditor, contact] = await Promise.all(['admin', 'auditor', 'contact'].map((a) => new Client(server).as(a)));
      const { db } = server.app.ctx;
      now = server.app.ctx.time();
      const admin_ = await db.selectFrom('sys_user').select(['user_id', 'depart_id', 'user_name']).where('account', '=', 'admin').executeTakeFirstOrThrow();
      // Sign-ins of the test's own accounts: inside the default 24 hours, and one just outside it.
      const login = (account: string, minutesAgo: number, result: 0 | 1, o: Row = {}) => ({
        user_id: null,
        user_name: '',
        account,
        depart_id: null,
        ip: '10.0.0.9',
        result,
        login_time: ago(minutesAgo),
        remark: result ? '登录成功' : '密码错误',
        ...o,
      });
      await db
        .insertInto('sys_login_log')
        .values([
          login(`${tag}_a`, 60, 1, { user_id: admin_.user_id, user_name: '日志甲', depart_id: admin_.depart_id }),
          login(`${tag}_a`, 120, 0, { user_name: '日志甲' }),
          login(`${tag}_b`, 180, 0),
          login(`${tag}_a`, 25 * 60, 1, { user_name: '日志甲' }),
          login(`${tag}_a`, 40 * 24 * 60, 1, { user_name: '日志甲' }),
        ])
        .execute();
      const op = (account: string, minutesAgo: number, result: 0 | 1, operation: string, params: Row | string = {}) => ({
        user_id: admin_.user_id,
        account,
        // As the server writes it (migration 018): the name the user had then.
        user_name: admin_.user_name,
        depart_id: admin_.depart_id,
        operation,
        result,
        operate_time: ago(minutesAgo),
        api: '/api/test/op',
        method: 'POST',
        params: typeof params === 'string' ? params : JSON.stringify(params),
      });
      await db
        .insertInto('sys_operation_log')
        .values([
          op(`${tag}_op`, 30, 1, '日志测试甲', { name: '甲' }),
          op(`${tag}_op`, 90, 0, '日志测试乙'),
          op(`${tag}_op2`, 100, 1, '日志测试丙'),
          op(`${tag}_op`, 26 * 60, 1, '日志测试丁'),
          // An account some user holds: its whole name reaches back past the 31-day cap.
          op('auditor', 60 * 24 * 60, 1, '日志测试旧'),
        ])
        .execute();
    });
    afterAll(async () => server?.close());

    it('refuses callers without the list codes: 403 naming the code, 1004 without a role, 401 signed out', async () => {
      for (const [path, code] of [
        ['/log/login/page', 'loginLog:list'],
        ['/log/user/page', 'operationLog:list'],
      ] as const) {
        const r = await contact.post(path, {});
        expect(r.status).toBe(403);
        expect(r.body.msg).toContain(code);
        const none = await (await new Client(server).as('norole')).post(path, {});
        expect(none.status).toBe(403);
        expect(none.body.code).toBe(1004);
        expect((await new Client(server).post(path, {})).status).toBe(401);
        expect((await admin.post(path, {})).status).toBe(200);
      }
      // The auditor, who holds both codes, finds both screens in the menu.
      const info = await auditor.get<{ menus: unknown }>('/user/info');
      expect(JSON.stringify(info.body.data.menus)).toContain('/system/login-logs');
      expect(JSON.stringify(info.body.data.menus)).toContain('/system/operation-logs');
    });

    it('lists sign-ins of the last 24 hours newest first, with the department name; state and name filter them', async () => {
      const page = await logins({ userName: `${tag}_` });
      expect(page.list.map((r) => [r.account, r.login_time])).toEqual([
        [`${tag}_a`, ago(60)],
        [`${tag}_a`, ago(120)],
        [`${tag}_b`, ago(180)],
      ]);
      expect(page.total).toBe(3);
      expect(page.list[0]).toMatchObject({ user_name: '日志甲', ip: '10.0.0.9', result: 1, remark: '登录成功', depart_name: expect.any(String) });
      expect(page.list[0]!.depart_name).not.toBe('');
      expect(page.list[2]).toMatchObject({ user_id: null, depart_id: null, depart_name: null });
      // 登录状态: 1 the screen's default, 0, and -1 (全部) the same as none.
      expect((await logins({ userName: `${tag}_`, result: 1 })).list.map((r) => r.login_time)).toEqual([ago(60)]);
      expect((await logins({ userName: `${tag}_`, result: 0 })).total).toBe(2);
      expect((await logins({ userName: `${tag}_`, result: -1 })).total).toBe(3);
      // The name filter matches the person's name or the account, in part, any case.
      expect((await logins({ userName: '日志甲' })).total).toBe(2);
      expect((await logins({ userName: `${tag.toUpperCase()}_B` })).total).toBe(1);
      // A window of the query's own: the 25-hour-old attempt, and not the 40-day-old one.
      const older = await logins({ userName: `${tag}_a`, start_time: ago(30 * 60), end_time: ago(20 * 60) });
      expect(older.list.map((r) => r.login_time)).toEqual([ago(25 * 60)]);
      // Only a start: until now. Only an end: the 24 hours before it. A bare date is its whole day.
      expect((await logins({ userName: `${tag}_a`, start_time: ago(26 * 60) })).total).toBe(3);
      expect((await logins({ userName: `${tag}_a`, end_time: ago(24 * 60) })).list.map((r) => r.login_time)).toEqual([ago(25 * 60)]);
      const day = ago(40 * 24 * 60).slice(0, 10);
      expect((await logins({ userName: `${tag}_a`, start_time: day, end_time: day })).total).toBe(1);
      // Real sign-ins land too: the three clients of beforeAll, newest first.
      const real = await logins({ result: 1 }, admin);
      expect(real.list.map((r) => r.account)).toEqual(expect.arrayContaining(['admin', 'auditor', 'contact']));
      const times = real.list.map((r) => r.login_time);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('lists operations of the last day newest first; account, result and window filter them', async () => {
      const page = await operations({ account: `${tag}_op` });
      // Part of an account is a contains: the _op2 row matches too.
      expect(page.list.map((r) => r.operation)).toEqual(['日志测试甲', '日志测试乙', '日志测试丙']);
      expect(page.list[0]).toMatchObject({ account: `${tag}_op`, result: 1, api: '/api/test/op', method: 'POST', user_name: '系统管理员', params: '{"name":"甲"}', depart_name: expect.any(String) });
      expect((await operations({ account: `${tag}_op`, result: 0 })).list.map((r) => r.operation)).toEqual(['日志测试乙']);
      expect((await operations({ account: `${tag}_op`, result: -1 })).total).toBe(3);
      expect((await operations({ account: `${tag}_op`, start_time: ago(27 * 60), end_time: ago(25 * 60) })).list.map((r) => r.operation)).toEqual(['日志测试丁']);
      // A whole account matches only itself and may reach back further than 31 days.
      const whole = await operations({ account: 'auditor', start_time: ago(61 * 24 * 60), end_time: now });
      expect(whole.list.map((r) => r.operation)).toEqual(['日志测试旧']);
      // Real calls land with the caller's name: the admin's own operations of today.
      await admin.post('/user/bindRole', { userId: 'x' });
      // The row is written once the answer has gone (an onResponse hook): wait for it rather than race it.
      await expect
        .poll(async () => (await operations({ account: 'admin', result: 0 }, admin)).list[0], { timeout: 10_000 })
        .toMatchObject({ operation: '绑定角色', api: '/api/user/bindRole', result: 0, user_name: '系统管理员' });
    });

    it('answers bad filters with 400 naming the field, in Chinese', async () => {
      const bad = async (path: string, body: Row, pattern: RegExp) => {
        const r = await auditor.post(path, body);
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body.code).toBe(1001);
        expect(r.body.msg).toMatch(pattern);
      };
      await bad('/log/login/page', { start_time: '2026-13-01 00:00:00' }, /^开始时间.*YYYY-MM-DD HH:mm:ss/);
      await bad('/log/user/page', { end_time: 'yesterday' }, /^结束时间.*YYYY-MM-DD HH:mm:ss/);
      await bad('/log/login/page', { start_time: ago(10), end_time: ago(20) }, /结束时间不能早于开始时间/);
      await bad('/log/login/page', { result: 3 }, /^登录状态：只能是1（成功）、0（失败）/);
      await bad('/log/user/page', { result: 'x' }, /^操作结果：/);
      await bad('/log/user/page', { account: { $ne: 1 } }, /^账号：/);
      await bad('/log/login/page', { size: 'many' }, /^每页条数/);
      await bad('/log/login/page', { start_time: ago(40 * 24 * 60) }, /^开始时间：时间范围不能超过31天/);
      await bad('/log/user/page', { account: `${tag}_op`, start_time: ago(40 * 24 * 60), end_time: now }, /时间范围不能超过31天/);
      // Pages are capped like every other list.
      const r = await auditor.post<Page<LoginLogRow>>('/log/login/page', { size: 100000, start_time: ago(30 * 24 * 60) });
      expect(r.status).toBe(200);
      expect(r.body.data.list.length).toBeLessThanOrEqual(100);
    });

    it('shows no password, SMS code, token or key in either log, whether caught when written or when read', async () => {
      // A user created with a password signs in with it and a code, then changes it.
      const account = `${tag}_secret`;
      const first = 'Secret9Word';
      const second = 'Newer8Secret';
      const created = await admin.post('/user/save', { content: await admin.encrypt({ userName: '日志保密', account, password: first, gender: 0, phone: '13900000111', departId: 1, status: 1 }) });
      expect(created.body.success, JSON.stringify(created.body)).toBe(true);
      const bindRoles = await admin.post<Array<{ role_id: number; code: string }>>('/role/all', {});
      const auditorRole = bindRoles.body.data.find((r) => r.code === 'auditor')!;
      const userId = (created.body.data as { user_id: number }).user_id;
      expect((await admin.post('/user/bindRole', { userId, roleIds: [auditorRole.role_id] })).body.success).toBe(true);
      const person = new Client(server);
      const signedIn = await person.login(account, first);
      expect(signedIn.body.success, JSON.stringify(signedIn.body)).toBe(true);
      const code = person.latestCode(account)!;
      const changed = await person.post('/user/updateSelf', { content: await person.encrypt({ userName: '日志保密', gender: 0, phone: '13900000111', password: second }) });
      expect(changed.body.success, JSON.stringify(changed.body)).toBe(true);
      // A refused sign-in with a wrong password and code.
      await new Client(server).post('/user/v2login', { content: await person.encrypt({ account, password: 'Wrong1Guess', captcha: '999999' }) });
      // Plain secrets sent to a logged call that refuses them: caught when written.
      const plain = {
        userId: 'x',
        password: first,
        captcha: code,
        smsCode: '123789',
        token: person.token,
        deviceKey: 'dk-4f1e2d3c',
        device_key: 'dk-5a6b7c8d',
        key: 'dk-9e8d7c6b',
        keys: { p256dh: 'BPushP256dhKey', auth: 'pushAuthSecret' },
        note: `Bearer ${person.token}`,
      };
      expect((await admin.post('/user/bindRole', plain)).status).toBe(400);
      // Rows written before the rule knew a name (or by a path that skipped it), whole and cut off at 4000 characters: caught when read.
      const { db } = server.app.ctx;
      const legacy = {
        userName: '旧记录',
        password: first,
        captcha: code,
        token: person.token,
        keys: { p256dh: 'BPushP256dhKey', auth: 'pushAuthSecret' },
        deviceKey: 'dk-4f1e2d3c',
        jwe: await person.encrypt({ password: first }),
      };
      const rowOf = (params: string) => ({
        user_id: null,
        account: `${tag}_legacy`,
        depart_id: null,
        operation: '旧记录',
        result: 1,
        operate_time: ago(5),
        api: '/api/test/legacy',
        method: 'POST',
        params,
      });
      const whole = JSON.stringify(legacy);
      const cut = JSON.stringify({ ...legacy, filler: 'x'.repeat(20) }).slice(0, -30) + '…';
      await db
        .insertInto('sys_operation_log')
        .values([rowOf(whole), rowOf(cut)])
        .execute();

      // Six-digit codes are looked for as JSON strings: bare, one could be part of a phone number by chance.
      const secrets = [
        first,
        second,
        'Wrong1Guess',
        DEMO_PASSWORD,
        `"${code}"`,
        '"999999"',
        '"123789"',
        person.token!,
        admin.token!,
        'dk-4f1e2d3c',
        'dk-5a6b7c8d',
        'dk-9e8d7c6b',
        'BPushP256dhKey',
        'pushAuthSecret',
      ];
      const answers = JSON.stringify([
        await logins({}),
        await logins({ userName: account }),
        await operations({}),
        await operations({ account: `${tag}_legacy` }),
        await operations({ account: 'admin' }),
      ]);
      for (const secret of secrets) expect(answers, `an answer shows ${secret}`).not.toContain(secret);
      expect(answers).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}\./);
      // What is not secret still reads: the account, the operations, the legacy row's name.
      const ops = await operations({ account: `${tag}_legacy` });
      expect(ops.list).toHaveLength(2);
      for (const r of ops.list) expect(r.params).toContain('旧记录');
      const self = await operations({ account });
      expect(self.list.map((r) => r.operation)).toContain('修改个人信息');
      expect(self.list.find((r) => r.operation === '修改个人信息')!.params).toContain('"password":"***"');
      const attempts = await logins({ userName: account, result: -1 });
      expect(attempts.list.map((r) => [r.result, r.remark])).toEqual(
        expect.arrayContaining([
          [1, '登录成功'],
          [0, '验证码已过期或未获取'],
        ]),
      );
    });
  });
}

describe('the redaction rule', () => {
  it('masks secrets by name at any depth and credential-shaped text anywhere, and keeps the rest', () => {
    const masked = JSON.parse(
      auditJson({
        account: 'a',
        password: 'p',
        nested: { smsCode: '1', verifyCode: '2', deviceKey: 'k', device_key: 'k', key: 'k', keys: { auth: 'a' }, p256dh: 'x', accessToken: 't' },
        monkey: 'ok',
        code: 'ROLE_CODE',
        auth: 'Bearer abc',
        hdr: 'Device GATE-1:abc',
      }),
    );
    expect(masked).toEqual({
      account: 'a',
      password: '***',
      nested: { smsCode: '***', verifyCode: '***', deviceKey: '***', device_key: '***', key: '***', keys: '***', p256dh: '***', accessToken: '***' },
      monkey: 'ok',
      code: 'ROLE_CODE',
      auth: '***',
      hdr: '***',
    });
    expect(redactAuditText('{"a":"eyJhbGciOiJSU0EtT0FFUC0yNTYi.eyJhbGciOiJSU0EtT0FFUC0yNTYi.abc.def.ghi"}')).toBe('{"a":"***"}');
    // Cut-off JSON: masked in the text.
    expect(redactAuditText('{"userName":"甲","password":"p1","keys":{"p256dh":"x","auth":"y"},"token":"abc…')).toBe('{"userName":"甲","password":"***","keys":"***","auth":"***"},"token":"***"');
  });
});
