import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, DEMO_PASSWORD, dialects, startServer, type TestServer } from './harness';

const concrete = (url: string) => url.replace(':name', 'gender');

for (const dialect of await dialects()) {
  describe(`route guards on ${dialect}`, () => {
    let server: TestServer;
    let bare: Client;
    let noRole: Client;
    beforeAll(async () => {
      server = await startServer(dialect);
      // A user whose only role holds no permission codes at all.
      const admin = await new Client(server).as('admin');
      const { db } = server.app.ctx;
      const now = server.app.ctx.time();
      const role = await db.insertInto('sys_role').values({ name: '空角色', code: 'empty', remark: '', status: 1, create_time: now, update_time: now }).returning('role_id').executeTakeFirstOrThrow();
      const created = await admin.post<{ user_id: number }>('/user/save', {
        content: await admin.encrypt({ userName: '空权限', account: 'bare', password: DEMO_PASSWORD + 'x1', gender: 0, phone: '13900000002', departId: 1 }),
      });
      await admin.post('/user/bindRole', { userId: created.body.data.user_id, roleIds: [role.role_id] });
      bare = new Client(server);
      const r = await bare.login('bare', DEMO_PASSWORD + 'x1');
      expect(r.status).toBe(200);
      noRole = await new Client(server).as('norole');
    });
    afterAll(async () => server?.close());

    it('registers every /api route with a declared permission', () => {
      const routes = server.app.ctx.routes;
      expect(routes.length).toBeGreaterThan(15);
      for (const r of routes) expect(r.permission, `${r.method} ${r.url}`).toBeTruthy();
    });

    it('refuses every route that needs a code to a caller without it, naming the code', async () => {
      const coded = server.app.ctx.routes.filter((r) => !['public', 'signed-in', 'role', 'device'].includes(r.permission));
      expect(coded.length).toBeGreaterThan(8);
      for (const r of coded) {
        const res = await bare.call(r.method, concrete(r.url).replace(/^\/api/, ''), r.method === 'GET' ? undefined : {});
        expect(res.status, `${r.method} ${r.url}`).toBe(403);
        expect(res.body.code).toBe(1003);
        expect(res.body.msg).toContain(r.permission);
      }
    });

    it('refuses every non-public route to a user without a role, except info, logout and profile', async () => {
      for (const r of server.app.ctx.routes.filter((x) => x.permission !== 'public' && x.permission !== 'signed-in' && x.permission !== 'device')) {
        const res = await noRole.call(r.method, concrete(r.url).replace(/^\/api/, ''), r.method === 'GET' ? undefined : {});
        expect(res.status, `${r.method} ${r.url}`).toBe(403);
        expect(res.body.code).toBe(1004);
      }
    });

    it('answers 401 to a user session on every device route: only a device key opens them', async () => {
      const device = server.app.ctx.routes.filter((x) => x.permission === 'device');
      expect(device.length).toBeGreaterThanOrEqual(3);
      for (const r of device) {
        const res = await bare.call(r.method, r.url.replace(/^\/api/, ''), r.method === 'GET' ? undefined : {});
        expect(res.status, `${r.method} ${r.url}`).toBe(401);
        expect(res.body.msg).toContain('设备认证失败');
      }
    });

    it('answers 401 to every non-public route without a session', async () => {
      const anon = new Client(server);
      for (const r of server.app.ctx.routes.filter((x) => x.permission !== 'public')) {
        const res = await anon.call(r.method, concrete(r.url).replace(/^\/api/, ''), r.method === 'GET' ? undefined : {});
        expect(res.status, `${r.method} ${r.url}`).toBe(401);
        expect(res.body).toMatchObject({ success: false, code: 1002 });
      }
    });

    it('answers unknown API paths with a 404 envelope', async () => {
      const res = await new Client(server).get('/no/such/thing');
      expect(res.status).toBe(404);
      expect(res.body.code).toBe(1005);
    });
  });
}
