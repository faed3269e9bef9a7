import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../../domain/errors';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { CLAIM_LEASE_MS, KEY_RETENTION_MS, jsonFingerprint } from '../../server/core/idempotency';
import type { DB } from '../../server/db/schema';
import { startCleanupJob } from '../../server/jobs/cleanup';
import { carApplicationBody } from './fixtures';
import { Client, DEMO_PASSWORD, dialects, startServer, type TestServer } from './harness';

/**
 * Idempotency-Key on mutating calls (DESIGN.md §3), counted on the vehicle
 * flag: every call that acts inserts one vehicle_mark row per flagged
 * application, so the marks with a test's own remark count how often it acted.
 */

const FLAG = '/label/vehicle/label';
const FLAG_ROUTE = `POST /api${FLAG}`;

interface Sent {
  status: number;
  replayed: string | null;
  body: { success: boolean; code: number; msg: string; message: string; data: unknown };
}

/**
 * Holds the next transaction of the server before it begins, so a request
 * stays in flight (its key claimed, nothing committed) until the test lets it
 * go; release(err) makes that transaction fail instead.
 */
function holdNextTransaction(db: Kysely<DB>) {
  const original = db.transaction;
  let reached!: () => void;
  let open!: (err?: Error) => void;
  const atGate = new Promise<void>((r) => (reached = r));
  const gate = new Promise<Error | undefined>((r) => (open = r));
  db.transaction = (() => {
    db.transaction = original;
    const builder = original.call(db);
    const execute = builder.execute.bind(builder);
    return Object.assign(builder, {
      async execute<T>(callback: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
        reached();
        const err = await gate;
        if (err) throw err;
        return execute(callback);
      },
    });
  }) as typeof db.transaction;
  return { atGate, release: (err?: Error) => open(err), restore: () => (db.transaction = original) };
}

for (const dialect of await dialects()) {
  describe(`idempotency keys (${dialect})`, () => {
    let server: TestServer;
    let patrol: Client;
    let admin: Client;
    let carId = 0;
    let patrolId = 0;
    let adminId = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      [patrol, admin] = await Promise.all([new Client(server).as('patrol'), new Client(server).as('admin')]);
      const contact = await new Client(server).as('contact');
      const { db } = server.app.ctx;
      const model = await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow();
      const depart = await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow();
      const saved = await contact.post<{ id: number }>('/v2/carApplications/save', {
        ...carApplicationBody({
          today: server.app.ctx.time().slice(0, 10),
          license_plate: `粤L9${dialect === 'sqlite' ? '001' : '002'}K`,
          applicant_idcard: '441302199001011231',
          vehicle_type_id: model.id,
          interviewee_depart_id: depart.depart_id,
        }),
      });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      carId = saved.body.data.id;
      for (const u of await db.selectFrom('sys_user').select(['user_id', 'account']).where('account', 'in', ['patrol', 'admin']).execute()) {
        if (u.account === 'patrol') patrolId = u.user_id;
        else adminId = u.user_id;
      }
    });
    afterAll(async () => server?.close());

    const flagBody = (remark: string) => ({ car_application_ids: String(carId), remark });
    async function send(who: Client, key: string | null, body: unknown, url = FLAG, base = server.base): Promise<Sent> {
      const res = await fetch(`${base}/api${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${who.token}`, ...(key === null ? {} : { 'idempotency-key': key }) },
        body: JSON.stringify(body),
      });
      return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as Sent['body'] };
    }
    const marks = async (remark: string) =>
      Number(
        (
          await server.app.ctx.db
            .selectFrom('vehicle_mark')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('remark', '=', remark)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const keyRow = (userId: number, key: string) => server.app.ctx.db.selectFrom('idempotency_key').selectAll().where('user_id', '=', userId).where('idem_key', '=', key).executeTakeFirst();
    /** A key row as another process would have left it. */
    const plantRow = (key: string, remark: string, o: { state: string; created_at?: number; updated_at: number; route?: string; http_status?: number | null; response?: string | null }) =>
      server.app.ctx.db
        .insertInto('idempotency_key')
        .values({
          user_id: patrolId,
          idem_key: key,
          route: o.route ?? FLAG_ROUTE,
          body_hash: jsonFingerprint(flagBody(remark)),
          state: o.state,
          owner: randomUUID(),
          http_status: o.http_status ?? null,
          response: o.response ?? null,
          created_at: o.created_at ?? o.updated_at,
          updated_at: o.updated_at,
        })
        .execute();

    it('replays the first answer without acting again', async () => {
      const key = randomUUID();
      const first = await send(patrol, key, flagBody('重放-1'));
      expect(first).toMatchObject({ status: 200, replayed: null, body: { success: true, code: 1000, msg: '标记成功' } });
      const again = await send(patrol, key, flagBody('重放-1'));
      expect(again.status).toBe(200);
      expect(again.replayed).toBe('true');
      expect(again.body).toEqual(first.body);
      // Key order does not make another body.
      const reordered = await send(patrol, key, { remark: '重放-1', car_application_ids: String(carId) });
      expect(reordered).toMatchObject({ status: 200, replayed: 'true' });
      expect(await marks('重放-1')).toBe(1);
      expect(await keyRow(patrolId, key)).toMatchObject({ state: 'done', http_status: 200, route: FLAG_ROUTE });
      // Without a key every call acts.
      await send(patrol, null, flagBody('重放-2'));
      await send(patrol, null, flagBody('重放-2'));
      expect(await marks('重放-2')).toBe(2);
    });

    it('answers 422 for the same key with another body or on another route', async () => {
      const key = randomUUID();
      expect((await send(patrol, key, flagBody('不符-1'))).status).toBe(200);
      const otherBody = await send(patrol, key, flagBody('不符-2'));
      expect(otherBody.status).toBe(422);
      expect(otherBody.body).toMatchObject({ success: false, code: ErrorCode.IDEMPOTENCY_MISMATCH });
      expect(otherBody.body.msg).toContain('Idempotency-Key');
      expect(otherBody.body.msg).toBe(otherBody.body.message);
      const otherRoute = await send(patrol, key, flagBody('不符-1'), '/label/vehicle/queryRemark');
      expect(otherRoute.status).toBe(422);
      expect(otherRoute.body.code).toBe(ErrorCode.IDEMPOTENCY_MISMATCH);
      expect(await marks('不符-1')).toBe(1);
      expect(await marks('不符-2')).toBe(0);
    });

    it('refuses a malformed key with 400 naming the header', async () => {
      for (const bad of ['a'.repeat(256), 'caf\u00e9']) {
        const r = await send(patrol, bad, flagBody('坏键'));
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ success: false, code: ErrorCode.VALIDATION });
        expect(r.body.msg).toContain('Idempotency-Key');
      }
      expect(await marks('坏键')).toBe(0);
      expect((await send(patrol, 'k'.repeat(255), flagBody('坏键'))).status).toBe(200);
      expect(await marks('坏键')).toBe(1);
    });

    it('scopes keys to the user and ignores them on anonymous calls', async () => {
      const key = randomUUID();
      expect((await send(patrol, key, flagBody('用户-A'))).body.success).toBe(true);
      // Another body under the same key is no conflict for another user: it is their key.
      const b = await send(admin, key, flagBody('用户-B'));
      expect(b).toMatchObject({ status: 200, replayed: null, body: { success: true } });
      expect(await marks('用户-A')).toBe(1);
      expect(await marks('用户-B')).toBe(1);
      expect((await keyRow(adminId, key))?.route).toBe(FLAG_ROUTE);

      // Sign-in has no user to scope a key to: two callers sending one key each get their own session.
      const tokens: string[] = [];
      for (let i = 0; i < 2; i++) {
        const c = new Client(server);
        const captcha = await c.call('POST', '/user/captcha', { content: await c.encrypt({ account: 'patrol' }) }, { 'idempotency-key': key });
        expect(captcha.status).toBe(200);
        const login = await c.call<{ token: string }>(
          'POST',
          '/user/v2login',
          { content: await c.encrypt({ account: 'patrol', password: DEMO_PASSWORD, captcha: c.latestCode('patrol') }) },
          { 'idempotency-key': key },
        );
        expect(login.body.success).toBe(true);
        tokens.push(login.body.data.token);
      }
      expect(new Set(tokens).size).toBe(2);
      expect(await server.app.ctx.db.selectFrom('idempotency_key').select('user_id').where('idem_key', '=', key).orderBy('user_id').execute()).toEqual(
        [{ user_id: patrolId }, { user_id: adminId }].sort((x, y) => x.user_id - y.user_id),
      );
    });

    it('replays an upload by its key, comparing what is known before the multipart body is read', async () => {
      const png = (extra: number) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32 + extra, 1)]);
      const upload = async (key: string, bytes: Buffer) => {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'photo.png');
        const res = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${patrol.token}`, 'idempotency-key': key } });
        return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as { code: number; data: { name: string } } };
      };
      const key = randomUUID();
      const first = await upload(key, png(0));
      expect(first).toMatchObject({ status: 200, replayed: null });
      // A fresh FormData draws a new boundary; the same file is still the same request.
      const again = await upload(key, png(0));
      expect(again).toMatchObject({ status: 200, replayed: 'true' });
      expect(again.body.data.name).toBe(first.body.data.name);
      expect((await upload(key, png(100))).status).toBe(422);
    });

    it('replays a failed validation with the same 400', async () => {
      const key = randomUUID();
      const first = await send(patrol, key, { car_application_ids: String(carId) });
      expect(first.status).toBe(400);
      expect(first.body.msg).toContain('请输入标记原因');
      const again = await send(patrol, key, { car_application_ids: String(carId) });
      expect(again).toMatchObject({ status: 400, replayed: 'true' });
      expect(again.body).toEqual(first.body);
      expect(await keyRow(patrolId, key)).toMatchObject({ state: 'done', http_status: 400 });
    });

    it('answers 409 to a duplicate while the first request still runs', async () => {
      const key = randomUUID();
      const hold = holdNextTransaction(server.app.ctx.db);
      try {
        const first = send(patrol, key, flagBody('进行中'));
        await hold.atGate;
        expect(await keyRow(patrolId, key)).toMatchObject({ state: 'claimed' });
        const dup = await send(patrol, key, flagBody('进行中'));
        expect(dup.status).toBe(409);
        expect(dup.body).toMatchObject({ success: false, code: ErrorCode.IDEMPOTENCY_IN_PROGRESS });
        expect(dup.body.msg).toContain('正在处理中');
        hold.release();
        expect(await first).toMatchObject({ status: 200, replayed: null, body: { success: true } });
      } finally {
        hold.release();
        hold.restore();
      }
      expect(await send(patrol, key, flagBody('进行中'))).toMatchObject({ status: 200, replayed: 'true' });
      expect(await marks('进行中')).toBe(1);
    });

    it('releases the key after a server error so that a retry acts', async () => {
      const key = randomUUID();
      const hold = holdNextTransaction(server.app.ctx.db);
      try {
        const first = send(patrol, key, flagBody('服务错误'));
        await hold.atGate;
        hold.release(new Error('simulated database failure'));
        expect((await first).status).toBe(500);
      } finally {
        hold.restore();
      }
      expect(await keyRow(patrolId, key)).toBeUndefined();
      expect(await send(patrol, key, flagBody('服务错误'))).toMatchObject({ status: 200, replayed: null, body: { success: true } });
      expect(await marks('服务错误')).toBe(1);
    });

    it('acts exactly once per key in a replay storm (100 keys × 5 concurrent sends)', async () => {
      const keys = Array.from({ length: 100 }, () => randomUUID());
      const results = await Promise.all(keys.flatMap((key) => Array.from({ length: 5 }, () => send(patrol, key, flagBody('风暴')).then((r) => ({ key, ...r })))));
      for (const r of results) {
        const fine = (r.status === 200 && r.body.success) || (r.status === 409 && r.body.code === ErrorCode.IDEMPOTENCY_IN_PROGRESS);
        expect(fine, JSON.stringify(r)).toBe(true);
      }
      // Exactly one computed (not replayed) success per key.
      const originals = results.filter((r) => r.status === 200 && r.replayed === null);
      expect(originals.length).toBe(100);
      expect(new Set(originals.map((r) => r.key)).size).toBe(100);
      expect(await marks('风暴')).toBe(100);
      // Once the storm is over, every key replays its success.
      const after = await Promise.all(keys.map((key) => send(patrol, key, flagBody('风暴'))));
      for (const r of after) expect(r).toMatchObject({ status: 200, replayed: 'true', body: { success: true, msg: '标记成功' } });
      expect(await marks('风暴')).toBe(100);
    });

    it('takes over a claim whose request died before committing, and recovers a commit whose answer was lost', async () => {
      const now = server.app.ctx.now();
      const crashed = randomUUID();
      await plantRow(crashed, '接管', { state: 'claimed', updated_at: now - CLAIM_LEASE_MS - 1000 });
      const taken = await send(patrol, crashed, flagBody('接管'));
      expect(taken).toMatchObject({ status: 200, replayed: null, body: { success: true } });
      expect(await marks('接管')).toBe(1);
      expect(await keyRow(patrolId, crashed)).toMatchObject({ state: 'done', http_status: 200 });

      // A claim inside its lease belongs to a request still running (here: in another server).
      const running = randomUUID();
      await plantRow(running, '接管', { state: 'claimed', updated_at: now - 1000 });
      expect((await send(patrol, running, flagBody('接管'))).body.code).toBe(ErrorCode.IDEMPOTENCY_IN_PROGRESS);

      // Committed, answer never stored: the change happened, so it is not done again.
      const lost = randomUUID();
      await plantRow(lost, '接管', { state: 'committed', updated_at: now - CLAIM_LEASE_MS - 1000 });
      const recovered = await send(patrol, lost, flagBody('接管'));
      expect(recovered).toMatchObject({ status: 200, replayed: 'true', body: { success: true, code: 1000, data: null } });
      expect(recovered.body.msg).toContain('该操作已完成');
      // Committed just now: the answer is about to be stored, so the client is asked to come back for it.
      const storing = randomUUID();
      await plantRow(storing, '接管', { state: 'committed', updated_at: now - 1000 });
      expect((await send(patrol, storing, flagBody('接管'))).body.code).toBe(ErrorCode.IDEMPOTENCY_IN_PROGRESS);
      expect(await marks('接管')).toBe(1);
    });

    it('rolls back a request whose key was taken over after its lease ran out', async () => {
      const key = randomUUID();
      const hold = holdNextTransaction(server.app.ctx.db);
      try {
        const slow = send(patrol, key, flagBody('租约'));
        await hold.atGate;
        // The slow request looks dead to everyone else now.
        await server.app.ctx.db
          .updateTable('idempotency_key')
          .set({ updated_at: server.app.ctx.now() - CLAIM_LEASE_MS - 1000 })
          .where('user_id', '=', patrolId)
          .where('idem_key', '=', key)
          .execute();
        const retry = await send(patrol, key, flagBody('租约'));
        expect(retry).toMatchObject({ status: 200, replayed: null, body: { success: true } });
        hold.release();
        const late = await slow;
        expect(late.status).toBe(409);
        expect(late.body.code).toBe(ErrorCode.IDEMPOTENCY_IN_PROGRESS);
      } finally {
        hold.release();
        hold.restore();
      }
      expect(await marks('租约')).toBe(1);
      expect(await send(patrol, key, flagBody('租约'))).toMatchObject({ status: 200, replayed: 'true', body: { success: true } });
    });

    it('forgets keys after 7 days: the cleanup job removes them and claims treat them as absent', async () => {
      const now = server.app.ctx.now();
      const stale = randomUUID();
      // Used a week ago for something else: today it is a new key.
      await plantRow(stale, '过期', { state: 'done', updated_at: now - KEY_RETENTION_MS - 1000, route: 'POST /api/carApplications/delete', http_status: 200, response: '{}' });
      expect(await send(patrol, stale, flagBody('过期'))).toMatchObject({ status: 200, replayed: null, body: { success: true } });
      expect(await marks('过期')).toBe(1);

      const old = [randomUUID(), randomUUID()];
      for (const key of old) await plantRow(key, '过期', { state: 'done', updated_at: now - KEY_RETENTION_MS - 60_000, http_status: 200, response: '{}' });
      const young = randomUUID();
      await plantRow(young, '过期', { state: 'done', updated_at: now - KEY_RETENTION_MS + 3600_000, http_status: 200, response: '{}' });
      const stop = startCleanupJob(server.app, 3600_000);
      try {
        await vi.waitFor(
          async () => {
            for (const key of old) expect(await keyRow(patrolId, key)).toBeUndefined();
          },
          { timeout: 5000, interval: 20 },
        );
      } finally {
        stop();
      }
      expect(await keyRow(patrolId, young)).toBeDefined();
      expect(await keyRow(patrolId, stale)).toBeDefined();
    });

    if (dialect === 'postgres') {
      it('acts once when two servers sharing the database get the same keys at once', async () => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-api-second-'));
        const config = loadConfig(
          { DATA_DIR: dataDir, DATABASE_URL: server.app.ctx.config.databaseUrl, SMS_PROVIDER: 'file', DEMO_PASSWORD, PORT: '0' },
          { staticDir: undefined, logLevel: 'warn', seedDemo: false },
        );
        let second: FastifyInstance | undefined;
        try {
          second = await buildApp(config);
          await second.listen({ port: 0, host: '127.0.0.1' });
          const addr = second.server.address();
          const secondBase = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
          const keys = Array.from({ length: 20 }, () => randomUUID());
          const results = await Promise.all(
            keys.flatMap((key) =>
              [server.base, secondBase, server.base, secondBase, server.base, secondBase].map((base) => send(patrol, key, flagBody('双实例'), FLAG, base).then((r) => ({ key, ...r }))),
            ),
          );
          for (const r of results) expect(r.status === 200 || (r.status === 409 && r.body.code === ErrorCode.IDEMPOTENCY_IN_PROGRESS), JSON.stringify(r)).toBe(true);
          const originals = results.filter((r) => r.status === 200 && r.replayed === null);
          expect(new Set(originals.map((r) => r.key)).size).toBe(20);
          expect(originals.length).toBe(20);
          expect(await marks('双实例')).toBe(20);
          for (const base of [server.base, secondBase]) {
            expect(await send(patrol, keys[0]!, flagBody('双实例'), FLAG, base)).toMatchObject({ status: 200, replayed: 'true', body: { success: true } });
          }
        } finally {
          await second?.close();
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      });
    }
  });
}
