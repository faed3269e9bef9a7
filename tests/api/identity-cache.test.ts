import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityCacheCounts } from '../../server/core/auth';
import { Client, dialects, startSecondServer, startServer, type TestServer } from './harness';

/**
 * Issue 14 item 2: each server process keeps the identities it looked up
 * (core/auth.ts) and trusts one only while the auth epoch it was read under
 * holds (migration 016). Every change below is made by hand in the database,
 * as another server, a script or an administrator's SQL would make it, and
 * must show on the very next call on both servers.
 */
for (const dialect of await dialects()) {
  describe(`the identity cache on ${dialect}`, () => {
    let server: TestServer;
    let second: TestServer;
    let reviewer: Client;
    let onSecond: Client;
    beforeAll(async () => {
      server = await startServer(dialect);
      second = await startSecondServer(server);
      reviewer = await new Client(server).as('reviewer');
      onSecond = new Client(second);
      onSecond.token = reviewer.token;
    });
    afterAll(async () => {
      await second?.close();
      await server?.close();
    });

    const db = () => server.app.ctx.db;
    const reviewerId = async () => (await db().selectFrom('sys_user').select('user_id').where('account', '=', 'reviewer').executeTakeFirstOrThrow()).user_id;
    const status = async (c: Client) => (await c.post('/carApplications/task/page', { size: 10, pn: 1 })).status;

    it('serves repeated calls from the cache, with one lookup per process', async () => {
      expect(await status(reviewer)).toBe(200);
      const before = identityCacheCounts(server.app.ctx.db);
      for (let i = 0; i < 5; i++) expect(await status(reviewer)).toBe(200);
      const after = identityCacheCounts(server.app.ctx.db);
      expect(after.cached - before.cached).toBe(5);
      expect(after.looked - before.looked).toBe(0);
    });

    it('sees a role losing a code, a role disabled and roles unbound on the next call, on both servers', async () => {
      const id = await reviewerId();
      const roleIds = (await db().selectFrom('sys_user_role').select('role_id').where('user_id', '=', id).execute()).map((r) => r.role_id);
      const needed = server.app.ctx.routes.find((r) => r.url === '/api/carApplications/task/page')!.permission;
      const code = await db().selectFrom('sys_permission').select('permission_id').where('code', '=', String(needed)).executeTakeFirst();
      expect(code, `the queue's code ${String(needed)} is a permission`).toBeTruthy();
      expect(await status(reviewer)).toBe(200);
      expect(await status(onSecond)).toBe(200);

      if (code) {
        const held = await db().selectFrom('sys_role_permission').selectAll().where('permission_id', '=', code.permission_id).where('role_id', 'in', roleIds).execute();
        await sql`delete from sys_role_permission where permission_id = ${code.permission_id} and role_id in (${sql.join(roleIds)})`.execute(db());
        expect(await status(reviewer)).toBe(403);
        expect(await status(onSecond)).toBe(403);
        if (held.length) await db().insertInto('sys_role_permission').values(held).execute();
        expect(await status(reviewer)).toBe(200);
      }

      await sql`update sys_role set status = 0 where role_id in (${sql.join(roleIds)})`.execute(db());
      expect(await status(reviewer)).toBe(403);
      expect(await status(onSecond)).toBe(403);
      await sql`update sys_role set status = 1 where role_id in (${sql.join(roleIds)})`.execute(db());
      expect(await status(reviewer)).toBe(200);
      expect(await status(onSecond)).toBe(200);
    });

    it('sees a session ended or cut short by hand, and a user disabled, on the next call', async () => {
      const c = await new Client(server).as('reviewer');
      const other = new Client(second);
      other.token = c.token;
      expect(await status(c)).toBe(200);
      expect(await status(other)).toBe(200);
      await sql`update sys_session set expires_at = 0 where user_id = ${await reviewerId()} and last_seen_at = (select max(last_seen_at) from sys_session where user_id = ${await reviewerId()})`.execute(
        db(),
      );
      expect(await status(c)).toBe(401);
      expect(await status(other)).toBe(401);

      const d = await new Client(server).as('reviewer');
      expect(await status(d)).toBe(200);
      await sql`update sys_user set status = 0 where user_id = ${await reviewerId()}`.execute(db());
      try {
        expect(await status(d)).toBe(401);
      } finally {
        await sql`update sys_user set status = 1 where user_id = ${await reviewerId()}`.execute(db());
      }
      expect(await status(d)).toBe(200);
      await sql`delete from sys_session where user_id = ${await reviewerId()}`.execute(db());
      expect(await status(d)).toBe(401);
      expect(await status(reviewer)).toBe(401);
    });
  });
}
