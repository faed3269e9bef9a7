import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../domain/errors';
import { formatInZone } from '../../domain/time';
import type { AppContext } from '../../server/core/context';
import { ok } from '../../server/core/errors';
import { jsonFingerprint } from '../../server/core/idempotency';
import { fileStoreOf } from '../../server/core/storage';
import { scrubSecretAnswers } from '../../server/db/migrations/017-device-files';
import { rgbPng } from '../../server/seed/seed-appointments';
import { cleanupOnce } from '../../server/jobs/cleanup';
import { idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, unknown>;
type Answer = { status: number; replayed: string | null; body: { success: boolean; code: number; msg: string; data: any } };

/**
 * Issue 23: a device key is never kept in clear (not in an Idempotency-Key
 * answer either), an event names only its own device's files, device files
 * no event took are removed after a day, a device's uploads are limited per
 * day, and an upload holds exactly one file.
 */
for (const dialect of await dialects()) {
  describe(`device keys and device files on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, contact: Client, patrol: Client;
    let adminId = 0;
    const gates = { w: { id: 0, number: 'GATE-W-01', key: '' }, n: { id: 0, number: 'GATE-N-01', key: '' }, e: { id: 0, number: 'GATE-E-01', key: '' } };
    type Gate = (typeof gates)['w'];
    let seq = 0;

    const at = (minutesAgo = 0) => formatInZone(ctx.now() - minutesAgo * 60_000, ctx.config.tz);
    const eventId = () => `${dialect}-files-${++seq}`;
    const vehicle = (o: Row = {}): Row => ({ event_id: eventId(), type: 'vehicle', capture_time: at(1), license_plate: '粤L12345', license_plate_color: 2, direction: 1, open_result: 1, ...o });
    const person = (o: Row = {}): Row => ({ event_id: eventId(), type: 'person', capture_time: at(1), idcard: idNumber(9300 + seq), person_name: '王五', direction: 1, open_result: 1, ...o });
    const png = () => new Blob([new Uint8Array(rgbPng(3, 3, () => [(seq * 7) % 255, 120, 60]))], { type: 'image/png' });

    async function send(url: string, init: { auth: string; body: FormData | Row; key?: string }): Promise<Answer> {
      const json = !(init.body instanceof FormData);
      const r = await fetch(`${server.base}/api${url}`, {
        method: 'POST',
        headers: { authorization: init.auth, ...(json ? { 'content-type': 'application/json' } : {}), ...(init.key ? { 'idempotency-key': init.key } : {}) },
        body: json ? JSON.stringify(init.body) : (init.body as FormData),
      });
      return { status: r.status, replayed: r.headers.get('idempotent-replayed'), body: (await r.json()) as Answer['body'] };
    }
    const deviceAuth = (g: Gate) => `Device ${g.number}:${g.key}`;
    const oneFile = () => {
      const form = new FormData();
      form.append('file', png(), 'shot.png');
      return form;
    };
    const deviceUpload = async (g: Gate) => {
      const r = await send('/device/files', { auth: deviceAuth(g), body: oneFile() });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data.name as string;
    };
    const userUpload = async (c: Client) => {
      const r = await send('/file/upload', { auth: `Bearer ${c.token}`, body: oneFile() });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data.name as string;
    };
    const events = async (g: Gate, list: Row[]) => {
      const r = await send('/device/events', { auth: deviceAuth(g), body: { events: list } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data as { accepted: number; duplicates: number; rejected: Array<{ event_id: string; msg: string }> };
    };
    const fileRow = (name: string) => ctx.db.selectFrom('file_object').selectAll().where('name', '=', name).executeTakeFirst();
    const onDisk = (name: string) => fileStoreOf(ctx).exists(name);
    const storedFiles = () => {
      const root = path.join(ctx.config.dataDir, 'files');
      return fs.existsSync(root) ? fs.readdirSync(root, { recursive: true }).filter((f) => String(f).endsWith('.png')).length : 0;
    };
    const readAs = async (c: Client, name: string) => (await fetch(`${server.base}/api/file/${name}`, { headers: { authorization: `Bearer ${c.token}` } })).status;

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      [admin, contact, patrol] = await Promise.all(['admin', 'contact', 'patrol'].map((a) => new Client(server).as(a)));
      adminId = (await ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'admin').executeTakeFirstOrThrow()).user_id;
      for (const g of Object.values(gates)) {
        g.id = (await ctx.db.selectFrom('equipment').select('id').where('number', '=', g.number).executeTakeFirstOrThrow()).id;
        const issued = await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: g.id });
        expect(issued.body, JSON.stringify(issued.body)).toMatchObject({ success: true });
        g.key = issued.body.data.key;
      }
    });
    afterAll(async () => server?.close());

    it('answers a repeated issueKey with the same Idempotency-Key without the key, and stores no key', async () => {
      const idem = randomUUID();
      const issue = () => send('/equipment/gate/issueKey', { auth: `Bearer ${admin.token}`, body: { id: gates.n.id }, key: idem });
      const first = await issue();
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const key = first.body.data.key as string;
      gates.n.key = key;
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const again = await issue();
      expect(again).toMatchObject({ status: 409, replayed: 'true', body: { success: false, code: ErrorCode.STATE_CONFLICT } });
      expect(again.body.msg).toContain('只在首次答复中显示一次');
      expect(JSON.stringify(again.body)).not.toContain(key);
      // The replay acted no second time: the key of the first answer is the device's key.
      expect((await events(gates.n, [vehicle()])).accepted).toBe(1);

      const stored = await ctx.db.selectFrom('idempotency_key').select(['state', 'http_status', 'response']).where('user_id', '=', adminId).where('idem_key', '=', idem).executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ state: 'done', http_status: 409 });
      expect(stored.response).not.toContain(key);
      for (const r of await ctx.db.selectFrom('idempotency_key').select('response').execute()) expect(r.response ?? '').not.toContain(key);

      // A refusal holds no secret and replays as it was.
      const missing = randomUUID();
      const gone = await send('/equipment/gate/issueKey', { auth: `Bearer ${admin.token}`, body: { id: 99999999 }, key: missing });
      expect(gone.status).toBe(404);
      expect(await send('/equipment/gate/issueKey', { auth: `Bearer ${admin.token}`, body: { id: 99999999 }, key: missing })).toMatchObject({ status: 404, replayed: 'true' });
    });

    it('keeps no file access token in an Idempotency-Key answer: the upload replays its name, the token request refuses', async () => {
      const idem = randomUUID();
      const form = oneFile();
      const first = await send('/file/upload', { auth: `Bearer ${contact.token}`, body: form, key: idem });
      expect(first.status).toBe(200);
      const access = new URL(first.body.data.url as string, server.base).searchParams.get('access')!;
      expect(access).toBeTruthy();
      const again = await send('/file/upload', { auth: `Bearer ${contact.token}`, body: form, key: idem });
      expect(again).toMatchObject({ status: 200, replayed: 'true', body: { data: { name: first.body.data.name, url: `/api/file/${first.body.data.name}` } } });

      const tokenKey = randomUUID();
      const token = await send('/file/accessToken', { auth: `Bearer ${contact.token}`, body: {}, key: tokenKey });
      expect(token.status).toBe(200);
      expect((await send('/file/accessToken', { auth: `Bearer ${contact.token}`, body: {}, key: tokenKey })).status).toBe(409);
      for (const r of await ctx.db.selectFrom('idempotency_key').select('response').execute()) {
        expect(r.response ?? '').not.toContain(access);
        expect(r.response ?? '').not.toContain(token.body.data.access as string);
      }
    });

    it('migration 017 scrubs the keys and tokens stored in answers before it, and leaves other answers alone', async () => {
      const now = ctx.now();
      const row = (idem_key: string, route: string, body: unknown, response: unknown, http_status = 200) => ({
        user_id: adminId,
        idem_key,
        route,
        body_hash: jsonFingerprint(body),
        state: 'done',
        owner: randomUUID(),
        http_status,
        response: JSON.stringify(response),
        created_at: now,
        updated_at: now,
      });
      const secretKey = 'OLDKEY_abcdefghijklmnopqrstuvwxyz0123456789';
      const upload = { name: `${'a'.repeat(32)}.png`, url: `/api/file/${'a'.repeat(32)}.png?access=1.2.3.OLDTOKEN`, size: 3, type: 'image/png' };
      const idem = { key: `old-${dialect}-key`, upload: `old-${dialect}-upload`, other: `old-${dialect}-other` };
      await ctx.db
        .insertInto('idempotency_key')
        .values([
          row(idem.key, 'POST /api/equipment/gate/issueKey', { id: gates.e.id }, ok({ key: secretKey }, '密钥已签发')),
          row(idem.upload, 'POST /api/file/upload', {}, ok(upload, '上传成功')),
          row(idem.other, 'POST /api/label/vehicle/label', {}, ok({ key: 'not a secret' })),
        ])
        .execute();

      expect(await scrubSecretAnswers(ctx.db)).toBe(2);
      const rows = await ctx.db.selectFrom('idempotency_key').select(['idem_key', 'http_status', 'response']).where('idem_key', 'in', Object.values(idem)).execute();
      const by = Object.fromEntries(rows.map((r) => [r.idem_key, r]));
      expect(by[idem.key]!.http_status).toBe(409);
      expect(by[idem.key]!.response).not.toContain(secretKey);
      expect(by[idem.upload]!.response).not.toContain('OLDTOKEN');
      expect(JSON.parse(by[idem.upload]!.response!).data).toEqual({ ...upload, url: `/api/file/${upload.name}` });
      expect(JSON.parse(by[idem.other]!.response!).data).toEqual({ key: 'not a secret' });
      // Again: nothing left to change.
      expect(await scrubSecretAnswers(ctx.db)).toBe(0);

      // The old key's replay now refuses without the key, and issued nothing.
      const replay = await send('/equipment/gate/issueKey', { auth: `Bearer ${admin.token}`, body: { id: gates.e.id }, key: idem.key });
      expect(replay).toMatchObject({ status: 409, replayed: 'true' });
      expect(JSON.stringify(replay.body)).not.toContain(secretKey);
    });

    it('stores an event only with files its own device uploaded: not another device’s, not a user’s, not a missing one', async () => {
      const own = await deviceUpload(gates.w);
      const ownShot = await deviceUpload(gates.w);
      const otherGate = await deviceUpload(gates.n);
      const users = await userUpload(contact);
      const missing = `${'0'.repeat(32)}.jpg`;
      expect(await fileRow(own)).toMatchObject({ uploader_user_id: 0, uploader_device_id: gates.w.id });

      const good = [vehicle({ plate_image: own }), person({ snapshot: ownShot })];
      const bad = [
        [vehicle({ plate_image: otherGate }), '车牌图片：文件不存在或不是本设备上传的'],
        [vehicle({ plate_image: own, vehicle_image: users }), '车辆图片：文件不存在或不是本设备上传的'],
        [vehicle({ plate_image: missing }), '车牌图片：文件不存在或不是本设备上传的'],
        [person({ snapshot: users }), '抓拍图片：文件不存在或不是本设备上传的'],
      ] as const;
      const result = await events(gates.w, [...good, ...bad.map(([e]) => e)]);
      expect(result).toMatchObject({ accepted: 2, duplicates: 0 });
      expect(result.rejected).toEqual(bad.map(([e, msg]) => ({ event_id: e.event_id, msg })));

      const badIds = bad.map(([e]) => e.event_id as string);
      expect(await ctx.db.selectFrom('gate_record_car').select('id').where('event_id', 'in', badIds).execute()).toEqual([]);
      expect(await ctx.db.selectFrom('gate_record_person').select('id').where('event_id', 'in', badIds).execute()).toEqual([]);
      expect(await ctx.db.selectFrom('device_event').select('event_id').where('event_id', 'in', badIds).execute()).toEqual([]);
      expect(await ctx.db.selectFrom('file_ref').select('file_name').where('file_name', 'in', [otherGate, users]).execute()).toEqual([]);
      // So the patrol, who reads gate records, still cannot read the contact's file; the gate's own image it can.
      expect(await readAs(patrol, users)).toBe(404);
      expect(await readAs(patrol, own)).toBe(200);
      // The other gate names its own file.
      expect((await events(gates.n, [vehicle({ plate_image: otherGate })])).accepted).toBe(1);
    });

    it('removes device files no event named within a day, on disk too, once across two servers, and keeps the rest', async () => {
      const stale = await deviceUpload(gates.w);
      const staleToo = await deviceUpload(gates.n);
      const named = await deviceUpload(gates.w);
      const users = await userUpload(contact);
      expect((await events(gates.w, [vehicle({ plate_image: named })])).accepted).toBe(1);

      // An hour on, nothing is old enough.
      await cleanupOnce(ctx, ctx.now() + 3600_000);
      for (const name of [stale, staleToo, named, users]) expect(await fileRow(name), name).toBeTruthy();

      // A day and more on: the two servers' hourly runs at once remove each file once.
      const later = ctx.now() + 25 * 3600_000;
      const [a, b] = await Promise.all([cleanupOnce(ctx, later), cleanupOnce(ctx, later)]);
      expect(a.files + b.files).toBe(2);
      for (const name of [stale, staleToo]) {
        expect(await fileRow(name), name).toBeUndefined();
        expect(await onDisk(name), name).toBe(false);
      }
      for (const name of [named, users]) {
        expect(await fileRow(name), name).toBeTruthy();
        expect(await onDisk(name), name).toBe(true);
      }
      expect(await readAs(patrol, named)).toBe(200);
      expect((await cleanupOnce(ctx, later)).files).toBe(0);
    });

    it('refuses a device’s uploads past its daily quota with 429, counted per device', async () => {
      const quota = ctx.config.deviceDailyUploads;
      expect(quota).toBe(5000);
      // The count is in the database; a small quota for the test shows where it stops.
      ctx.config.deviceDailyUploads = 2;
      try {
        const before = await ctx.db.selectFrom('file_object').select('name').where('uploader_device_id', '=', gates.e.id).execute();
        expect(before).toEqual([]);
        await deviceUpload(gates.e);
        await deviceUpload(gates.e);
        const refused = await send('/device/files', { auth: deviceAuth(gates.e), body: oneFile() });
        expect(refused).toMatchObject({ status: 429, body: { success: false, code: ErrorCode.RATE_LIMITED } });
        expect(refused.body.msg).toBe('本设备今日上传的图片已达上限（每台设备每天2个），请次日再上传');
        expect(await ctx.db.selectFrom('file_object').select('name').where('uploader_device_id', '=', gates.e.id).execute()).toHaveLength(2);
        // Another device has its own count.
        ctx.config.deviceDailyUploads = 1000;
        await deviceUpload(gates.n);
      } finally {
        ctx.config.deviceDailyUploads = quota;
      }
    });

    it('answers 400 to an upload with two files and stores neither', async () => {
      const two = () => {
        const form = new FormData();
        form.append('file', png(), 'a.png');
        form.append('file2', png(), 'b.png');
        return form;
      };
      const rows = async () => (await ctx.db.selectFrom('file_object').select('name').execute()).length;
      const [countBefore, diskBefore] = [await rows(), storedFiles()];
      for (const [url, auth] of [
        ['/device/files', deviceAuth(gates.w)],
        ['/file/upload', `Bearer ${contact.token}`],
      ] as const) {
        const r = await send(url, { auth, body: two() });
        expect(r.status, `${url} ${JSON.stringify(r.body)}`).toBe(400);
        expect(r.body).toMatchObject({ success: false, code: ErrorCode.VALIDATION });
        expect(r.body.msg).toContain('一次只能上传一个文件');
      }
      expect(await rows()).toBe(countBefore);
      expect(storedFiles()).toBe(diskBefore);
      // One file and a plain field is still one upload.
      const withField = oneFile();
      withField.append('remark', 'x');
      expect((await send('/device/files', { auth: deviceAuth(gates.w), body: withField })).status).toBe(200);
    });
  });
}
