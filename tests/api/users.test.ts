import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../domain/envelope';
import type { UserRow } from '../../domain/schemas/user';
import { Client, dialects, startServer, type TestServer } from './harness';

for (const dialect of await dialects()) {
  describe(`users on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client;
    let departs: Array<{ depart_id: number; pid: number; code: string }>;
    beforeAll(async () => {
      server = await startServer(dialect);
      admin = await new Client(server).as('admin');
      departs = (await admin.post<typeof departs>('/depart/all')).body.data;
    });
    afterAll(async () => server?.close());
    const dept = (code: string) => departs.find((d) => d.code === code)!.depart_id;
    const save = async (v: Record<string, unknown>) => admin.post<{ user_id: number }>('/user/save', { content: await admin.encrypt(v) });
    const update = async (v: Record<string, unknown>) => admin.post('/user/update', { content: await admin.encrypt(v) });
    const base = () => ({ userName: '测试用户', account: `u${Math.random().toString(36).slice(2, 9)}`, password: 'Passw0rdX', gender: 1, phone: '13912345678', departId: dept('CNOOC_SHELL') });

    it('pages users with filters, the department filter covering the branch below it', async () => {
      const all = await admin.post<Page<UserRow>>('/user/page', { size: 10, pn: 1, status: -1 });
      expect(all.body.data.total).toBeGreaterThanOrEqual(10);
      expect(all.body.data.list).toHaveLength(10);
      const branch = await admin.post<Page<UserRow>>('/user/page', { size: 50, pn: 1, departId: dept('ENTERPRISES') });
      expect(branch.body.data.list.map((u) => u.account)).toEqual(expect.arrayContaining(['contact', 'reviewer', 'portcontact']));
      expect(branch.body.data.list.map((u) => u.account)).not.toContain('admin');
      const phone = await admin.post<Page<UserRow>>('/user/page', { size: 10, pn: 1, phone: '13800000002' });
      expect(phone.body.data.list.map((u) => u.account)).toEqual(['contact']);
      expect(phone.body.data.list[0]).toMatchObject({ user_name: '王芳', depart_name: '中海壳牌石油化工有限公司', roleNames: ['企业联系人'] });
      const page2 = await admin.post<Page<UserRow>>('/user/page', { size: 3, pn: 2 });
      expect(page2.body.data.list).toHaveLength(3);
      const bad = await admin.post('/user/page', { size: 'x', pn: 1 });
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toContain('每页条数');
    });

    it('creates with the spec rules and messages, and keeps the account unique', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ userName: '' }, '请输入用户名'],
        [{ userName: '名'.repeat(31) }, '用户名：不能超过30个文字'],
        [{ account: 'bad account!' }, '账号：仅限阿拉伯数字、英文字母'],
        [{ account: 'a'.repeat(51) }, '账号：不能超过50个字符'],
        [{ password: '' }, '请输入密码'],
        [{ phone: '12345' }, '请输入11位手机号'],
        [{ departId: undefined }, '请选择部门'],
        [{ gender: 5 }, '请选择性别'],
      ];
      for (const [patch, msg] of cases) {
        const r = await save({ ...base(), ...patch });
        expect(r.status, msg).toBe(400);
        expect(r.body.msg).toBe(msg);
      }
      const v = base();
      const ok = await save(v);
      expect(ok.status).toBe(200);
      expect(ok.body.msg).toBe('创建成功！');
      const dup = await save({ ...base(), account: v.account });
      expect(dup.status).toBe(409);
      expect(dup.body.msg).toContain('已存在');
      const login = await new Client(server).login(v.account, v.password);
      expect(login.status).toBe(200);
    });

    it('edits a user; an empty password keeps the old one and a new one signs the user out everywhere', async () => {
      const v = base();
      const { user_id } = (await save(v)).body.data;
      const them = new Client(server);
      expect((await them.login(v.account, v.password)).status).toBe(200);
      const r1 = await update({ ...v, userId: user_id, userName: '改名了', password: '' });
      expect(r1.status).toBe(200);
      expect(r1.body.msg).toBe('编辑成功！');
      expect((await them.get('/user/info')).status).toBe(200);
      const r2 = await update({ ...v, userId: user_id, password: 'NewPassw0rd' });
      expect(r2.status).toBe(200);
      expect((await them.get('/user/info')).status).toBe(401);
      expect((await new Client(server).login(v.account, 'NewPassw0rd')).status).toBe(200);
      const missing = await update({ ...v, userId: 999999 });
      expect(missing.status).toBe(404);
    });

    it('binds roles, and refuses unknown roles', async () => {
      const { user_id } = (await save(base())).body.data;
      const roles = (await admin.post<Array<{ role_id: number; code: string }>>('/role/all')).body.data;
      const reviewer = roles.find((r) => r.code === 'enterprise_reviewer')!;
      const r = await admin.post('/user/bindRole', { userId: user_id, roleIds: String(reviewer.role_id) });
      expect(r.body.msg).toBe('绑定角色成功！');
      const bound = await admin.post<Array<{ role_id: number }>>('/role/findByUserId', { userId: user_id });
      expect(bound.body.data.map((x) => x.role_id)).toEqual([reviewer.role_id]);
      const bad = await admin.post('/user/bindRole', { userId: user_id, roleIds: [987654] });
      expect(bad.status).toBe(400);
      expect((await admin.post<Array<unknown>>('/role/findByUserId', { userId: user_id })).body.data).toHaveLength(1);
      // A body without roleIds strips nothing, and nobody rebinds their own roles.
      const bare = await admin.post('/user/bindRole', { userId: user_id });
      expect(bare).toMatchObject({ status: 400, body: { msg: '请选择角色' } });
      expect((await admin.post<Array<unknown>>('/role/findByUserId', { userId: user_id })).body.data).toHaveLength(1);
      const me = (await admin.get<{ user: { user_id: number } }>('/user/info')).body.data.user.user_id;
      const self = await admin.post('/user/bindRole', { userId: me, roleIds: [] });
      expect(self).toMatchObject({ status: 409, body: { msg: '不能修改当前登录账号自己的角色，请由其他管理员操作' } });
      expect((await admin.get<{ permissions: string[] }>('/user/info')).body.data.permissions).toContain('user:bindRole');
    });

    it('deletes a user and ends their sessions, but never the caller', async () => {
      const v = base();
      const { user_id } = (await save(v)).body.data;
      const them = new Client(server);
      await them.login(v.account, v.password);
      const r = await admin.post('/user/delete', { userId: user_id });
      expect(r.body.msg).toBe('删除成功！');
      expect((await them.get('/user/info')).status).toBe(401);
      expect((await admin.post('/user/delete', { userId: user_id })).status).toBe(404);
      const me = (await admin.get<{ user: { user_id: number } }>('/user/info')).body.data.user.user_id;
      const self = await admin.post('/user/delete', { userId: me });
      expect(self.status).toBe(409);
      expect(self.body.msg).toBe('不能删除当前登录的账号');
    });

    it('lets a person read and update their own profile, account and department read-only', async () => {
      const c = await new Client(server).as('auditor');
      const self = await c.post<{ account: string; roleNames: string[]; departName: string }>('/user/self');
      expect(self.body.data).toMatchObject({ account: 'auditor', roleNames: ['审计员'], departName: '大亚湾石化区园区管理委员会' });
      const r = await c.post('/user/updateSelf', { content: await c.encrypt({ userName: '孙丽丽', gender: 1, phone: '13800000018', password: '', account: 'hacker', departId: 1 }) });
      expect(r.status).toBe(200);
      const after = await c.post<{ account: string; userName: string; phone: string }>('/user/self');
      expect(after.body.data).toMatchObject({ account: 'auditor', userName: '孙丽丽', phone: '138****0018' });
      const weak = await c.post('/user/updateSelf', { content: await c.encrypt({ userName: '孙丽', gender: 1, phone: '13800000008', password: 'short' }) });
      expect(weak.status).toBe(400);
      expect(weak.body.msg).toContain('密码');
    });
  });
}
