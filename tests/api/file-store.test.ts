import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { ImportStatus } from '../../domain/schemas/person-import';
import type { Readiness } from '../../domain/schemas/health';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import { buildApp } from '../../server/app';
import { loadConfig, type Config } from '../../server/config';
import { databaseFileStore, FILE_CHUNK_BYTES, fileStoreOf, localFileStore } from '../../server/core/storage';
import { openDatabase, type Database_ } from '../../server/db/index';
import { migrate } from '../../server/db/migrate';
import { cleanupOnce } from '../../server/jobs/cleanup';
import { DEVICE_FILE_RETENTION_MS } from '../../server/modules/devices/device-files';
import { importRunnerOf } from '../../server/modules/person-import/job';
import { moveFileStore } from '../../server/ops/files-move';
import { takeBackup } from '../../server/ops/backup';
import { restoreBackup, RestoreRefusedError } from '../../server/ops/restore';
import { rgbPng } from '../../server/seed/seed-appointments';
import { createDatabase } from '../../scripts/pg-database';
import { idNumber } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * FILE_STORE=postgres (core/storage.ts databaseFileStore): two servers on two
 * machines, each with its own DATA_DIR, share only PostgreSQL; whatever is
 * uploaded through one is read, served and deleted through the other: user
 * uploads, device images, person-import zips and notice attachments. A big
 * file goes through in pieces, byte for byte; an upload that fails leaves
 * nothing. Backups carry the files in the dump; `npm run files:move` moves a
 * park's files from one store to the other and back.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const covered = await dialects();
if (!covered.includes('postgres')) console.warn('[file-store] PostgreSQL unreachable: the FILE_STORE=postgres suite is SKIPPED (the database store needs PostgreSQL).');

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const mkTemp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
/** Every regular file under `dir`, as paths relative to it. */
const filesUnder = (dir: string): string[] => (fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort() : []);

describe('FILE_STORE setting', () => {
  it('is disk by default, postgres when asked, and refuses postgres without DATABASE_URL or any other value', () => {
    expect(loadConfig({ DATA_DIR: '/tmp/x' }).fileStore).toBe('disk');
    expect(loadConfig({ DATA_DIR: '/tmp/x', FILE_STORE: 'disk' }).fileStore).toBe('disk');
    expect(loadConfig({ DATA_DIR: '/tmp/x', FILE_STORE: 'postgres', DATABASE_URL: 'postgres://u@h/db' }).fileStore).toBe('postgres');
    expect(() => loadConfig({ DATA_DIR: '/tmp/x', FILE_STORE: 'postgres' })).toThrow(/FILE_STORE=postgres 要求同时设置 DATABASE_URL/);
    expect(() => loadConfig({ DATA_DIR: '/tmp/x' }, { fileStore: 'postgres' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ DATA_DIR: '/tmp/x', FILE_STORE: 's3' })).toThrow("FILE_STORE 只能是 disk 或 postgres，收到 's3'");
  });
});

/** A server of `config` on a loopback port, as a second machine would run one: its own DATA_DIR, logging there. */
async function serverOn(config: Config): Promise<TestServer> {
  const app: FastifyInstance = await buildApp({ ...config, logLevel: 'info' }, { logFile: path.join(config.dataDir, 'server.log') });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  return {
    app,
    base: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    dataDir: config.dataDir,
    dialect: 'postgres',
    async close() {
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
    },
  };
}

// Skipped only where no PostgreSQL is reachable (never in CI: dialects() fails there instead).
describe.skipIf(!covered.includes('postgres'))('FILE_STORE=postgres: two servers with their own DATA_DIR on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  const onA: Record<string, Client> = {};
  const onB: Record<string, Client> = {};
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    a = await startServer('postgres', { fileStore: 'postgres' });
    const dirB = mkTemp('park-api-b-');
    cleanups.push(async () => fs.rmSync(dirB, { recursive: true, force: true }));
    b = await serverOn({ ...a.app.ctx.config, dataDir: dirB, seedDemo: false, backup: { ...a.app.ctx.config.backup, dir: path.join(dirB, 'backups') } });
    // Signed in on A; the same tokens work on B: sessions live in the database.
    for (const who of ['admin', 'contact', 'lead', 'patrol']) {
      onA[who] = await new Client(a).as(who);
      onB[who] = new Client(b);
      onB[who]!.token = onA[who]!.token;
    }
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  const db = () => a.app.ctx.db;
  const storedRows = async () =>
    Number(
      (
        await db()
          .selectFrom('stored_file')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const chunkRows = async () =>
    Number(
      (
        await db()
          .selectFrom('stored_file_chunk')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** Neither machine's disk holds an uploaded file: they are all in the database. */
  const nothingOnDisk = () => {
    for (const s of [a, b]) {
      expect(filesUnder(path.join(s.dataDir, 'files')), s.base).toEqual([]);
      expect(
        filesUnder(path.join(s.dataDir, 'imports')).filter((f) => !f.startsWith('tmp')),
        s.base,
      ).toEqual([]);
    }
  };

  async function upload(server: TestServer, c: Client, data: Buffer, name = 'photo.png', url = '/file/upload', fields: Record<string, string> = {}) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([new Uint8Array(data)]), name);
    const res = await fetch(`${server.base}/api${url}`, { method: 'POST', body: form, headers: { authorization: c.token!.startsWith('Device ') ? c.token! : `Bearer ${c.token}` } });
    return { status: res.status, body: (await res.json()) as { success: boolean; msg: string; data: any } };
  }
  async function download(server: TestServer, c: Client, name: string) {
    const res = await fetch(`${server.base}/api/file/${name}`, { headers: { authorization: `Bearer ${c.token}` } });
    return { status: res.status, type: res.headers.get('content-type'), length: res.headers.get('content-length'), body: Buffer.from(await res.arrayBuffer()) };
  }

  it('serves through B what was uploaded through A, from neither machine’s disk, and answers ready with the database store', async () => {
    const photo = rgbPng(4, 4, (x, y) => [x * 60, y * 60, 200]);
    const up = await upload(a, onA.admin!, photo);
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const name = up.body.data.name as string;
    expect(await fileStoreOf(b.app.ctx).exists(name)).toBe(true);
    const got = await download(b, onB.admin!, name);
    expect(got).toMatchObject({ status: 200, type: 'image/png', length: String(photo.length) });
    expect(got.body.equals(photo)).toBe(true);
    // The same rules as ever: another user who holds no record of it is told it is not there.
    expect((await download(b, onB.patrol!, name)).status).toBe(404);
    // The <img> way: an access token signed on A opens it on B.
    const res = await fetch(new URL(up.body.data.url as string, b.base));
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(photo)).toBe(true);
    nothingOnDisk();

    for (const s of [a, b]) {
      const r = await fetch(`${s.base}/api/health/ready`);
      const body = (await r.json()) as { data: Readiness };
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(body.data.checks.find((c) => c.name === 'file_store')).toEqual({ name: 'file_store', ok: true, detail: '文件存储（PostgreSQL）可写' });
    }
    // The probe's row is gone again.
    expect(await db().selectFrom('stored_file').select('name').where('name', 'like', '.ready-probe%').execute()).toEqual([]);
  });

  it('takes a 20 MB document through A in 256 KiB pieces and gives it back byte for byte through B', { timeout: 120_000 }, async () => {
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(20 * 1024 * 1024 - 1024 - 9)]);
    const up = await upload(a, onA.contact!, big, 'manual.pdf');
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const name = up.body.data.name as string;
    const header = await db().selectFrom('stored_file').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    expect(header).toMatchObject({ size: big.length, complete: 1 });
    const pieces = await db()
      .selectFrom('stored_file_chunk')
      .select(['seq', sql<number>`octet_length(bytes)`.as('n')])
      .where('name', '=', name)
      .orderBy('seq')
      .execute();
    expect(pieces).toHaveLength(Math.ceil(big.length / FILE_CHUNK_BYTES));
    expect(pieces.map((p) => p.seq)).toEqual(pieces.map((_, i) => i));
    expect(pieces.slice(0, -1).every((p) => Number(p.n) === FILE_CHUNK_BYTES)).toBe(true);

    const got = await download(b, onB.contact!, name);
    expect(got).toMatchObject({ status: 200, type: 'application/pdf', length: String(big.length) });
    expect(sha(got.body)).toBe(sha(big));
  });

  it('streams both ways with bounded memory: a put takes the stream piece by piece, a read asks for the next piece only when the reader wants it', { timeout: 120_000 }, async () => {
    const store = fileStoreOf(a.app.ctx);
    const name = `${randomBytes(16).toString('hex')}.pdf`;
    const total = 20 * 1024 * 1024;
    const piece = 64 * 1024;
    const hash = createHash('sha256');
    let produced = 0;
    let mostAhead = 0;
    const source = new Readable({
      highWaterMark: piece,
      read() {
        // How far the stream has been read ahead of what the database holds.
        sql<{ n: string | null }>`select sum(octet_length(bytes)) as n from stored_file_chunk where name = ${name}`.execute(db()).then(
          (r) => {
            mostAhead = Math.max(mostAhead, produced - Number(r.rows[0]?.n ?? 0));
            if (produced >= total) return void this.push(null);
            const bytes = randomBytes(piece);
            hash.update(bytes);
            produced += bytes.length;
            this.push(bytes);
          },
          (err: Error) => this.destroy(err),
        );
      },
    });
    expect(await store.putAs(name, source)).toBe(total);
    // One piece gathered, one chunk of the stream's own buffer, one being read: never the file.
    expect(mostAhead).toBeLessThanOrEqual(FILE_CHUNK_BYTES + 2 * piece);

    const opened = (await fileStoreOf(b.app.ctx).open(name))!;
    expect(opened.size).toBe(total);
    // Read one piece, then wait: the stream must not have fetched the rest meanwhile.
    const first = await new Promise<Buffer>((resolve) => opened.stream.once('data', (c: Buffer) => resolve(c)));
    opened.stream.pause();
    await new Promise((r) => setTimeout(r, 300));
    expect(first.length).toBe(FILE_CHUNK_BYTES);
    expect(opened.stream.readableLength).toBeLessThanOrEqual(2 * FILE_CHUNK_BYTES);
    const back = createHash('sha256').update(first);
    for await (const c of opened.stream) back.update(c as Buffer);
    expect(back.digest('hex')).toBe(hash.digest('hex'));
    await store.remove(name);
    expect(await store.exists(name)).toBe(false);
    expect(await db().selectFrom('stored_file_chunk').select('seq').where('name', '=', name).execute()).toEqual([]);
  });

  it('leaves nothing of an upload that fails half way: not a row, not a piece, and never shows half a file', async () => {
    const store = fileStoreOf(b.app.ctx);
    const [files, pieces] = [await storedRows(), await chunkRows()];
    const name = `${randomBytes(16).toString('hex')}.png`;
    let sent = 0;
    let seenMidway: boolean | null = null;
    const failing = new Readable({
      read() {
        if (sent >= 3 * FILE_CHUNK_BYTES) {
          // Half way: nothing of it may be visible yet, then the source breaks.
          void Promise.all([store.exists(name), fileStoreOf(a.app.ctx).open(name)]).then(([there, opened]) => {
            seenMidway = there || opened !== null;
            this.destroy(new Error('the client went away'));
          });
          return;
        }
        sent += 64 * 1024;
        this.push(randomBytes(64 * 1024));
      },
    });
    await expect(store.putAs(name, failing)).rejects.toThrow('the client went away');
    expect(seenMidway).toBe(false);
    expect(await storedRows()).toBe(files);
    expect(await chunkRows()).toBe(pieces);
    const viaPut = new Readable({
      read() {
        this.destroy(new Error('cut'));
      },
    });
    await expect(store.put(viaPut, 'png')).rejects.toThrow('cut');
    expect([await storedRows(), await chunkRows()]).toEqual([files, pieces]);

    // An HTTP upload whose client leaves mid-body: refused before anything is stored.
    const objects = async () =>
      Number(
        (
          await db()
            .selectFrom('file_object')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await objects();
    await new Promise<void>((resolve) => {
      const req = http.request(`${a.base}/api/file/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${onA.admin!.token}`, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(4 * 1024 * 1024) },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write('--x\r\ncontent-disposition: form-data; name="file"; filename="a.png"\r\ncontent-type: image/png\r\n\r\n');
      req.write(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(512 * 1024)]));
      setTimeout(() => req.destroy(), 200);
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(await objects()).toBe(before);
    expect([await storedRows(), await chunkRows()]).toEqual([files, pieces]);

    // A server that died mid-upload leaves an incomplete header: never read, and swept after a day.
    const abandoned = `${randomBytes(16).toString('hex')}.png`;
    await db().insertInto('stored_file').values({ name: abandoned, size: 0, created_at: Date.now(), complete: 0 }).execute();
    await db()
      .insertInto('stored_file_chunk')
      .values({ name: abandoned, seq: 0, bytes: randomBytes(10) })
      .execute();
    expect(await store.open(abandoned)).toBeNull();
    expect((await cleanupOnce(b.app.ctx)).partialFiles).toBe(0);
    expect((await cleanupOnce(b.app.ctx, Date.now() + 25 * 3600_000)).partialFiles).toBe(1);
    expect([await storedRows(), await chunkRows()]).toEqual([files, pieces]);
  });

  it('takes device images through A that an event sent to B names, serves them through B, and B’s cleanup removes the unnamed ones for both', async () => {
    const gate = await db().selectFrom('equipment').select(['id', 'number']).where('number', '=', 'GATE-W-01').executeTakeFirstOrThrow();
    const issued = await onA.admin!.post<{ key: string }>('/equipment/gate/issueKey', { id: gate.id });
    expect(issued.body, JSON.stringify(issued.body)).toMatchObject({ success: true });
    const device = new Client(a);
    device.token = `Device ${gate.number}:${issued.body.data.key}`;
    const shot = rgbPng(3, 3, () => [10, 200, 30]);
    const named = await upload(a, device, shot, 'plate.png', '/device/files');
    const unnamed = await upload(
      a,
      device,
      rgbPng(3, 3, () => [1, 2, 3]),
      'spare.png',
      '/device/files',
    );
    expect([named.status, unnamed.status], JSON.stringify([named.body, unnamed.body])).toEqual([200, 200]);

    const capture = formatInZone(Date.now() - 60_000, a.app.ctx.config.tz);
    const res = await fetch(`${b.base}/api/device/events`, {
      method: 'POST',
      headers: { authorization: device.token, 'content-type': 'application/json' },
      body: JSON.stringify({
        events: [
          {
            event_id: `file-store-${Date.now()}`,
            type: 'vehicle',
            capture_time: capture,
            license_plate: '粤L54321',
            license_plate_color: 2,
            direction: 1,
            open_result: 1,
            plate_image: named.body.data.name,
          },
        ],
      }),
    });
    const events = (await res.json()) as { data: { accepted: number; rejected: unknown[] } };
    expect(events.data, JSON.stringify(events)).toMatchObject({ accepted: 1, rejected: [] });
    // The patrol reads gate records, and so the image an event holds, through either server.
    const got = await download(b, onB.patrol!, named.body.data.name);
    expect(got.status).toBe(200);
    expect(got.body.equals(shot)).toBe(true);

    const later = Date.now() + DEVICE_FILE_RETENTION_MS + 3600_000;
    expect((await cleanupOnce(b.app.ctx, later)).files).toBeGreaterThanOrEqual(1);
    expect(await fileStoreOf(a.app.ctx).exists(unnamed.body.data.name)).toBe(false);
    expect(await db().selectFrom('stored_file_chunk').select('seq').where('name', '=', unnamed.body.data.name).execute()).toEqual([]);
    expect((await download(a, onA.admin!, unnamed.body.data.name)).status).toBe(404);
    expect((await download(a, onA.patrol!, named.body.data.name)).status).toBe(200);
    nothingOnDisk();
  });

  it('keeps a person-import zip uploaded through A where B runs the import, and B’s delete removes it', { timeout: 60_000 }, async () => {
    const today = dateOf(a.app.ctx.time());
    const dept = (await db().selectFrom('sys_department').select('name').where('name', 'like', '%有限公司%').where('deleted', '=', 0).orderBy('depart_id').executeTakeFirstOrThrow()).name;
    const headers = [
      '访客姓名',
      '性别',
      '民族',
      '手机号',
      '来访单位',
      '地址',
      '申请类型',
      '证件类型',
      '证件号码',
      '来访事由',
      '来访开始时间',
      '来访结束时间',
      '园区',
      '被访人姓名',
      '被访人电话',
      '被访部门',
    ];
    const people = [1, 2].map((i) => ({
      id: idNumber(700 + i, '08'),
      cells: [
        `存储访客${i}`,
        '女',
        '汉族',
        '13900001111',
        '广州测试检测有限公司',
        '',
        '临时访客',
        '第二代居民身份证',
        idNumber(700 + i, '08'),
        '设备验收',
        addDays(today, 1),
        addDays(today, 2),
        '化工区',
        '李强',
        '13800000003',
        dept,
      ],
    }));
    const zipOf = async () => {
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('人员信息');
      ws.addRow(headers);
      for (const p of people) ws.addRow(p.cells);
      const zip = new yazl.ZipFile();
      zip.addBuffer(Buffer.from(await wb.xlsx.writeBuffer()), '人员信息.xlsx');
      for (const p of people) zip.addBuffer(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(800), Buffer.from([0xff, 0xd9])]), `照片/${p.id}.jpg`);
      zip.end();
      const chunks: Buffer[] = [];
      for await (const c of zip.outputStream) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    };
    const save = async (server: TestServer, c: Client, name: string) => {
      const form = new FormData();
      form.append('name', name);
      form.append('zipFile', new Blob([new Uint8Array(await zipOf())]), 'persons.zip');
      const res = await fetch(`${server.base}/api/personApplications/import/save`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
      const body = (await res.json()) as { data: { id: number } };
      expect(res.status, JSON.stringify(body)).toBe(200);
      return (await db().selectFrom('person_import_task').selectAll().where('id', '=', body.data.id).executeTakeFirstOrThrow()) as { id: number; file_path: string; file_size: number };
    };

    const task = await save(a, onA.contact!, '共享存储导入');
    expect(await fileStoreOf(b.app.ctx).exists(task.file_path)).toBe(true);
    expect(Number((await db().selectFrom('stored_file').select('size').where('name', '=', task.file_path).executeTakeFirstOrThrow()).size)).toBe(task.file_size);
    // Kept for the run, never served: no record names it, not even its uploader's.
    expect((await download(a, onA.contact!, task.file_path)).status).toBe(404);
    nothingOnDisk();

    expect((await onB.contact!.post('/personApplications/import/submit', { id: task.id })).status).toBe(200);
    await importRunnerOf(b.app.ctx)!.idle();
    const done = await db().selectFrom('person_import_task').selectAll().where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(done, done.reason).toMatchObject({ status: ImportStatus.DONE, done_count: 2, failed_count: 0 });
    // The photos it stored are in the database too, and A serves them.
    const photos = await db()
      .selectFrom('person_application')
      .select('visitor_face_photo')
      .where(
        'visitor_idcard',
        'in',
        people.map((p) => p.id),
      )
      .execute();
    expect(photos).toHaveLength(2);
    for (const p of photos) expect((await download(a, onA.contact!, p.visitor_face_photo)).status).toBe(200);
    // B's copy for the run is gone with the run.
    expect(filesUnder(path.join(b.dataDir, 'imports'))).toEqual([]);

    const other = await save(a, onA.contact!, '待删除的导入');
    expect(await fileStoreOf(a.app.ctx).exists(other.file_path)).toBe(true);
    expect((await onB.contact!.post('/personApplications/import/delete', { id: other.id })).status).toBe(200);
    await expect.poll(() => fileStoreOf(a.app.ctx).exists(other.file_path)).toBe(false);
    nothingOnDisk();
  });

  it('keeps notice attachments uploaded through either server for the readers of both, and checks a create form’s files through the other', async () => {
    const depart = (await db().selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
    const created = await onA.lead!.post<{ notice_id: number }>('/notice/save', { title: '共享存储附件', type: 1, content: '附件在数据库中', departList: [depart] });
    expect(created.body, JSON.stringify(created.body)).toMatchObject({ success: true });
    const id = created.body.data.notice_id;
    const map = rgbPng(5, 5, () => [0, 128, 255]);
    const att = await upload(a, onA.lead!, map, '路线图.png', '/notice/upload', { noticeId: String(id) });
    expect(att.status, JSON.stringify(att.body)).toBe(200);
    expect((await onB.lead!.post('/notice/updateStatus', { noticeId: id, status: 1 })).status).toBe(200);
    const got = await download(b, onB.contact!, att.body.data.file_url);
    expect(got.status).toBe(200);
    expect(got.body.equals(map)).toBe(true);

    // A create form names a file uploaded through B; A finds and measures it.
    const plan = rgbPng(6, 6, () => [200, 0, 0]);
    const stored = await upload(b, onB.lead!, plan, '检修区域.png');
    expect(stored.status).toBe(200);
    const withForm = await onA.lead!.post<{ notice_id: number }>('/notice/save', {
      title: '表单附件',
      type: 1,
      content: '附件由另一台服务器接收',
      departList: [depart],
      attachments: [{ file_url: stored.body.data.name, file_name: '检修区域.png' }],
    });
    expect(withForm.body, JSON.stringify(withForm.body)).toMatchObject({ success: true });
    const listed = await onB.lead!.post<Array<{ file_url: string; file_size: number }>>('/notice/attachment/list', { noticeId: withForm.body.data.notice_id });
    expect(listed.body.data).toEqual([expect.objectContaining({ file_url: stored.body.data.name, file_size: plan.length })]);

    // Taken back and the attachment deleted through B: its readers lose it on A.
    expect((await onB.lead!.post('/notice/updateStatus', { noticeId: id, status: 2 })).status).toBe(200);
    expect((await onB.lead!.post('/notice/attachment/delete', { id: att.body.data.id })).body.msg).toBe('删除成功！');
    expect((await onA.lead!.post('/notice/updateStatus', { noticeId: id, status: 1 })).status).toBe(200);
    expect((await download(a, onA.contact!, att.body.data.file_url)).status).toBe(404);
    nothingOnDisk();
  });

  it('backs the files up inside the dump, restores them with it, and refuses a restore into the other kind of store', { timeout: 180_000 }, async () => {
    const photo = rgbPng(7, 7, () => [9, 99, 199]);
    const up = await upload(a, onA.admin!, photo);
    expect(up.status).toBe(200);
    const done = await takeBackup({ config: a.app.ctx.config, database: a.app.ctx, reason: 'cli', bytesPerSecond: null });
    cleanups.push(async () => fs.rmSync(done.file, { force: true }));
    expect(done.manifest).toMatchObject({ fileStore: 'postgres', files: { count: 0, bytes: 0 } });
    expect(done.manifest.tables.stored_file).toBeGreaterThan(0);

    const dataDir = mkTemp('park-restore-');
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const target = await createDatabase('park_restore');
    cleanups.push(() => target.drop());
    const intoDisk = restoreBackup({ archive: done.file, dataDir, databaseUrl: target.url });
    await expect(intoDisk).rejects.toBeInstanceOf(RestoreRefusedError);
    await expect(intoDisk).rejects.toThrow(/FILE_STORE=postgres/);
    expect(fs.readdirSync(dataDir)).toEqual([]);

    // A file left in DATA_DIR/files is no concern of a database store's restore, and stays.
    fs.mkdirSync(path.join(dataDir, 'files'));
    fs.writeFileSync(path.join(dataDir, 'files', 'keep.txt'), 'x');
    const restored = await restoreBackup({ archive: done.file, dataDir, databaseUrl: target.url, fileStore: 'postgres' });
    expect(restored.files).toBe(done.manifest.tables.stored_file);
    expect(fs.readFileSync(path.join(dataDir, 'files', 'keep.txt'), 'utf8')).toBe('x');
    const again = await serverOn(
      loadConfig({ DATA_DIR: dataDir, DATABASE_URL: target.url, FILE_STORE: 'postgres', SMS_PROVIDER: 'file' }, { staticDir: undefined, seedDemo: false, checkAnswers: true }),
    );
    try {
      const reader = new Client(again);
      reader.token = onA.admin!.token;
      const got = await download(again, reader, up.body.data.name);
      expect(got.status).toBe(200);
      expect(got.body.equals(photo)).toBe(true);
    } finally {
      await again.close();
    }

    // An archive of a disk store (here: A's empty DATA_DIR/files) is refused by a database store's restore.
    const diskArchive = await takeBackup({ config: { ...a.app.ctx.config, fileStore: 'disk' }, database: a.app.ctx, reason: 'cli', bytesPerSecond: null, verify: false });
    cleanups.push(async () => fs.rmSync(diskArchive.file, { force: true }));
    expect(diskArchive.manifest.fileStore).toBe('disk');
    const other = await createDatabase('park_restore');
    cleanups.push(() => other.drop());
    await expect(restoreBackup({ archive: diskArchive.file, dataDir: mkTemp('park-restore-'), databaseUrl: other.url, fileStore: 'postgres' })).rejects.toThrow(
      /FILE_STORE=disk.*files:move -- --to postgres/,
    );
  });
});

// Skipped only where no PostgreSQL is reachable (never in CI: dialects() fails there instead).
describe.skipIf(!covered.includes('postgres'))('files:move between the disk and the database store', () => {
  let database: Database_;
  let dropDatabase: () => Promise<void>;
  let url = '';
  let dataDir = '';

  beforeAll(async () => {
    const made = await createDatabase('park_files_move');
    url = made.url;
    dropDatabase = made.drop;
    dataDir = mkTemp('park-move-');
    database = openDatabase({ databaseUrl: url, dataDir });
    await migrate(database);
  });
  afterAll(async () => {
    await database?.close();
    await dropDatabase?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const hex = () => randomBytes(16).toString('hex');
  /** What the disk holds: path under DATA_DIR → SHA-256. */
  const diskDigests = () => {
    const out: Record<string, string> = {};
    for (const sub of ['files', 'imports']) for (const f of filesUnder(path.join(dataDir, sub))) out[`${sub}/${f}`] = sha(fs.readFileSync(path.join(dataDir, sub, f)));
    return out;
  };

  it('moves every file and zip into the database and back, byte for byte, finishing an interrupted run and keeping what it could not move', { timeout: 120_000 }, async () => {
    const disk = localFileStore(path.join(dataDir, 'files'));
    const store = databaseFileStore(database.db);
    // Files of every size around a piece's, and a task's zip beside an unrelated one in DATA_DIR/imports.
    const sizes = [0, 1, 1000, FILE_CHUNK_BYTES - 1, FILE_CHUNK_BYTES, FILE_CHUNK_BYTES + 1, 3 * FILE_CHUNK_BYTES + 17];
    for (const size of sizes) await disk.putAs(`${hex()}.png`, randomBytes(size));
    const zip = `${hex()}.zip`;
    const stray = `${hex()}.zip`;
    fs.mkdirSync(path.join(dataDir, 'imports', 'tmp'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'imports', zip), randomBytes(5000));
    fs.writeFileSync(path.join(dataDir, 'imports', stray), randomBytes(10));
    const now = '2026-01-01 08:00:00';
    await database.db.insertInto('person_import_task').values({ name: '迁移', file_name: 'p.zip', file_size: 5000, file_path: zip, create_user_id: 1, create_time: now, update_time: now }).execute();
    const original = diskDigests();
    const names = Object.keys(original)
      .filter((p) => p.startsWith('files/'))
      .map((p) => path.basename(p));

    // An earlier run that stopped: one file already whole in the database, another half written.
    const [whole, half] = names;
    await store.putAs(whole!, fs.readFileSync(path.join(dataDir, 'files', whole!.slice(0, 2), whole!)));
    await database.db.insertInto('stored_file').values({ name: half!, size: 0, created_at: Date.now(), complete: 0 }).execute();
    await database.db
      .insertInto('stored_file_chunk')
      .values({ name: half!, seq: 0, bytes: randomBytes(3) })
      .execute();

    const lines: string[] = [];
    const into = await moveFileStore({ dataDir, db: database.db, to: 'postgres', log: (l) => lines.push(l) });
    expect(into.failures).toEqual([]);
    expect(into.files).toMatchObject({ moved: sizes.length - 1, present: 1, failed: 0 });
    expect(into.zips).toMatchObject({ moved: 1, present: 0, failed: 0 });
    expect(lines.join('\n')).toMatch(/[\u4e00-\u9fff]/);
    // The disk holds only what is no task's; the database holds the rest, whole.
    expect(Object.keys(diskDigests())).toEqual([`imports/${stray}`]);
    for (const [p, digest] of Object.entries(original)) {
      if (p.endsWith(stray)) continue;
      const opened = (await store.open(path.basename(p)))!;
      const chunks: Buffer[] = [];
      for await (const c of opened.stream) chunks.push(c as Buffer);
      expect(sha(Buffer.concat(chunks)), p).toBe(digest);
    }
    expect(await database.db.selectFrom('stored_file').select('name').where('complete', '=', 0).execute()).toEqual([]);

    // Again: nothing left to move.
    const rerun = await moveFileStore({ dataDir, db: database.db, to: 'postgres' });
    expect(rerun).toMatchObject({ files: { moved: 0, present: 0, failed: 0 }, zips: { moved: 0, failed: 0 }, failures: [] });

    // Back to disk, with one shard's folder unusable: that file stays in the database until a rerun can move it.
    const blocked = names.find((n) => n !== whole)!;
    fs.rmSync(path.join(dataDir, 'files', blocked.slice(0, 2)), { recursive: true, force: true });
    fs.writeFileSync(path.join(dataDir, 'files', blocked.slice(0, 2)), 'not a folder');
    const out = await moveFileStore({ dataDir, db: database.db, to: 'disk' });
    const sameShard = names.filter((n) => n.slice(0, 2) === blocked.slice(0, 2)).length;
    expect(out.files).toMatchObject({ moved: names.length - sameShard, failed: sameShard });
    expect(out.zips).toMatchObject({ moved: 1, failed: 0 });
    expect(out.failures[0]).toContain('源文件保留未动');
    expect(await store.exists(blocked)).toBe(true);
    fs.rmSync(path.join(dataDir, 'files', blocked.slice(0, 2)));
    const finish = await moveFileStore({ dataDir, db: database.db, to: 'disk' });
    expect(finish).toMatchObject({ files: { moved: sameShard, failed: 0 }, failures: [] });
    expect(diskDigests()).toEqual(original);
    expect(await sql<{ n: string }>`select count(*) as n from stored_file`.execute(database.db).then((r) => Number(r.rows[0]!.n))).toBe(0);
    expect(await sql<{ n: string }>`select count(*) as n from stored_file_chunk`.execute(database.db).then((r) => Number(r.rows[0]!.n))).toBe(0);
  });

  it('runs as npm run files:move, printing its counts in Chinese, and refuses without a target or a database', { timeout: 120_000 }, async () => {
    // A park of its own on the same database: one file.
    const parkDir = mkTemp('park-move-cli-');
    const disk = localFileStore(path.join(parkDir, 'files'));
    const name = `${hex()}.png`;
    await disk.putAs(name, randomBytes(2000));
    const cli = (args: string[], env: Record<string, string>) =>
      run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/files-move.ts'), ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: parkDir, ...env } }).then(
        (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
      );
    const moved = await cli(['--to', 'postgres'], { DATABASE_URL: url, FILE_STORE: 'disk' });
    expect(moved.code, moved.err).toBe(0);
    expect(moved.out).toContain('上传文件：移动 1 个');
    expect(moved.out).toContain('请将 FILE_STORE 设为 postgres');
    expect(await databaseFileStore(database.db).exists(name)).toBe(true);
    expect(await disk.exists(name)).toBe(false);

    const back = await cli(['--to=disk'], { DATABASE_URL: url, FILE_STORE: 'disk' });
    expect(back.code, back.err).toBe(0);
    expect(back.out).toContain('上传文件：移动 1 个');
    expect(await disk.exists(name)).toBe(true);

    const noTarget = await cli([], { DATABASE_URL: url });
    expect(noTarget.code).toBe(2);
    expect(noTarget.err).toContain('用法：npm run files:move -- --to postgres');
    const noDatabase = await cli(['--to', 'postgres'], { DATABASE_URL: '' });
    expect(noDatabase.code).toBe(2);
    expect(noDatabase.err).toContain('需要 DATABASE_URL');
    const refusedConfig = await cli(['--to', 'disk'], { DATABASE_URL: '', FILE_STORE: 'postgres' });
    expect(refusedConfig.code).toBe(2);
    expect(refusedConfig.err).toContain('FILE_STORE=postgres 要求同时设置 DATABASE_URL');
    fs.rmSync(parkDir, { recursive: true, force: true });
  });
});
