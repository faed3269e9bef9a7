import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { create as createTar, extract as extractTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../domain/envelope';
import type { BackupRunRow } from '../../domain/schemas/backups';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import type { AppContext } from '../../server/core/context';
import { MIGRATION_LEVEL } from '../../server/db/migrate';
import { CATCH_UP_MINUTES, nightlyBackupOnce } from '../../server/jobs/backup';
import { rgbPng } from '../../server/seed/seed-appointments';
import { acquireLease, releaseLease } from '../../server/core/lease';
import { BACKUP_LEASE, BackupBusyError, BackupFailedError, listBackups, pruneBackups, takeBackup, verifyBackup, type BackupManifest } from '../../server/ops/backup';
import { restoreBackup, RestoreRefusedError } from '../../server/ops/restore';
import { createDatabase } from '../../scripts/pg-database';
import { Client, DEMO_PASSWORD, dialects, startSecondServer, startServer, type TestServer } from './harness';

/**
 * Backups and restores (server/ops/backup.ts, restore.ts, the nightly job
 * server/jobs/backup.ts, 备份 routes server/modules/backups.ts, the CLIs) on
 * each database: a backup taken while writes continue restores into a fresh
 * place where a server finds every acknowledged row and file; the restore
 * refuses what it must; the nightly backup is taken once among servers.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** A server as the harness starts one, on a data directory (and database) of the test's choosing. */
async function serverOn(dialect: TestServer['dialect'], dataDir: string, databaseUrl?: string): Promise<TestServer> {
  const config = loadConfig(
    { DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD, PORT: '0', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    {
      staticDir: undefined,
      seedGateHistory: false,
      captchaCooldownSeconds: 0,
      rateLimits: { captchaPerAccount: 1000, captchaPerIp: 1000, loginPerAccount: 1000, loginPerIp: 1000 },
      logLevel: 'warn',
      checkAnswers: true,
    },
  );
  const app = await buildApp(config, { logFile: path.join(dataDir, 'server-restored.log') });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  return {
    app,
    base: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    dataDir,
    dialect,
    async close() {
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
    },
  };
}

const png = (seed: number) => rgbPng(2, 2, (x, y) => [seed % 256, (seed >> 8) % 256, (x + y * 2) * 60]);

async function upload(server: TestServer, c: Client, data: Buffer): Promise<{ status: number; body: Envelope<{ name: string }> }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type: 'image/png' }), 'photo.png');
  const res = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
  return { status: res.status, body: (await res.json()) as Envelope<{ name: string }> };
}

/** Rows of the database behind a restored place, read directly. */
async function query<T>(dataDir: string, databaseUrl: string | undefined, text: string): Promise<T[]> {
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      return (await c.query(text)).rows as T[];
    } finally {
      await c.end();
    }
  }
  const db = new Database(path.join(dataDir, 'park.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(text).all() as T[];
  } finally {
    db.close();
  }
}

/** The archive unpacked, changed by `edit`, and packed again into a new file. */
async function repack(archive: string, edit: (dir: string) => void): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-repack-'));
  await extractTar({ file: archive, cwd: dir });
  edit(dir);
  const out = path.join(path.dirname(archive), `repacked-${path.basename(dir)}.tar`);
  const parts = ['db', 'files', 'files.sha256', 'manifest.json'].filter((p) => fs.existsSync(path.join(dir, p)));
  await createTar({ file: out, cwd: dir, portable: true }, parts);
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

const mkTemp = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** A fresh restore target: an empty directory, and on PostgreSQL an empty database. */
async function freshTarget(dialect: TestServer['dialect'], cleanups: Array<() => Promise<void>>) {
  const dataDir = mkTemp('park-restore-');
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  if (dialect === 'sqlite') return { dataDir, databaseUrl: undefined };
  const database = await createDatabase('park_restore');
  cleanups.push(() => database.drop());
  return { dataDir, databaseUrl: database.url };
}

for (const dialect of await dialects()) {
  describe(`backups on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client;
    const cleanups: Array<() => Promise<void>> = [];
    let archive = '';
    let manifest: BackupManifest;
    let restored: { dataDir: string; databaseUrl: string | undefined };

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      admin = await new Client(server).as('admin');
    });
    afterAll(async () => {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
      await server?.close();
    });

    it('restores a backup taken while writes continue: a server on it finds every write acknowledged before it began, and the files', { timeout: 180_000 }, async () => {
      const first = await admin.post<{ depart_id: number }>('/depart/save', { name: `备份部门${dialect}`, code: `BK_${dialect}_FIRST`, visit_area: 1 });
      expect(first.body, JSON.stringify(first.body)).toMatchObject({ success: true });
      const photo = png(1);
      const uploaded = await upload(server, admin, photo);
      expect(uploaded.status).toBe(200);

      // Writers at full speed, each write's acknowledgement time recorded, while the backup is taken.
      const acked: Array<{ kind: 'depart' | 'file'; key: string; at: number }> = [];
      let writing = true;
      let seq = 0;
      const writer = async (w: number) => {
        while (writing) {
          const n = ++seq;
          if (n % 3 === 0) {
            const r = await upload(server, admin, png(n));
            if (r.status === 200) acked.push({ kind: 'file', key: r.body.data.name, at: Date.now() });
          } else {
            const r = await admin.post<{ depart_id: number }>('/depart/save', { name: `写入${w}-${n}`, code: `BK_${dialect}_${n}`, visit_area: 2 });
            if (r.status === 200) acked.push({ kind: 'depart', key: `BK_${dialect}_${n}`, at: Date.now() });
          }
        }
      };
      const writers = [writer(1), writer(2), writer(3)];
      await new Promise((r) => setTimeout(r, 300));
      const began = Date.now();
      const done = await takeBackup({ config: ctx.config, database: ctx, reason: 'manual' });
      const ended = Date.now();
      await new Promise((r) => setTimeout(r, 200));
      writing = false;
      await Promise.all(writers);
      const before = acked.filter((a) => a.at < began);
      const during = acked.filter((a) => a.at >= began && a.at <= ended);
      expect(before.length).toBeGreaterThan(3);
      expect(during.length, 'writes went on while the backup ran').toBeGreaterThan(0);

      archive = done.file;
      manifest = done.manifest;
      expect(path.basename(done.file)).toMatch(/^park-backup-\d{8}-\d{6}(-\d+)?\.tar$/);
      expect(path.dirname(done.file)).toBe(ctx.config.backup.dir);
      expect(done.verified).toBe(true);
      expect(done.size).toBe(fs.statSync(done.file).size);
      expect(done.run).toMatchObject({ file_name: path.basename(done.file), size_bytes: done.size, verified: 1, error: null, reason: 'manual', pid: process.pid });
      expect(manifest).toMatchObject({ format: 'park-backup/1', dialect, migrationLevel: MIGRATION_LEVEL, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      expect(manifest.database.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(manifest.tables.sys_department).toBeGreaterThan(before.filter((a) => a.kind === 'depart').length);
      expect(manifest.files.count).toBeGreaterThan(0);
      // Only finished archives are listed; nothing half written is left beside them.
      expect((await listBackups(ctx.config.backup.dir)).map((b) => b.path)).toContain(done.file);
      expect(fs.readdirSync(ctx.config.backup.dir).filter((n) => !/^park-backup-.*\.tar$/.test(n))).toEqual([]);
      expect(await verifyBackup(done.file)).toMatchObject({ ok: true, problems: [] });

      restored = await freshTarget(dialect, cleanups);
      const result = await restoreBackup({ archive: done.file, dataDir: restored.dataDir, databaseUrl: restored.databaseUrl });
      expect(result).toMatchObject({ dialect, files: manifest.files.count, replaced: [] });

      // The copy is the archive's: its rows are what the manifest counted, and nothing is half there.
      const q = <T>(text: string) => query<T>(restored.dataDir, restored.databaseUrl, text);
      const counted = await q<{ n: number | string }>('select count(*) as n from sys_department');
      expect(Number(counted[0]!.n)).toBe(manifest.tables.sys_department);
      expect(Number((await q<{ n: number | string }>('select count(*) as n from file_object'))[0]!.n)).toBe(manifest.tables.file_object);
      const codes = new Set((await q<{ code: string }>('select code from sys_department')).map((r) => r.code));
      for (const a of before.filter((x) => x.kind === 'depart')) expect(codes.has(a.key), a.key).toBe(true);
      const objects = new Set((await q<{ name: string }>('select name from file_object')).map((r) => r.name));
      for (const a of before.filter((x) => x.kind === 'file')) expect(objects.has(a.key), a.key).toBe(true);
      // Every stored file a copied row names is in the archive: the files are read after the database.
      for (const name of objects) expect(fs.existsSync(path.join(restored.dataDir, 'files', name.slice(0, 2), name)), name).toBe(true);
      if (dialect === 'sqlite') {
        expect(await q('pragma integrity_check')).toEqual([{ integrity_check: 'ok' }]);
        expect(await q('pragma foreign_key_check')).toEqual([]);
      }

      const again = await serverOn(dialect, restored.dataDir, restored.databaseUrl);
      try {
        const reader = await new Client(again).as('admin');
        const got = await reader.post<{ name: string }>('/depart/get', { departId: first.body.data.depart_id });
        expect(got.body.data).toMatchObject({ name: `备份部门${dialect}` });
        const res = await fetch(`${again.base}/api/file/${uploaded.body.data.name}`, { headers: { authorization: `Bearer ${reader.token}` } });
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(photo)).toBe(true);
        // The restored database holds no lease of the backup that copied it: 立即备份 works at once.
        const now = await reader.post<BackupRunRow>('/backup/run');
        expect(now.status, JSON.stringify(now.body)).toBe(200);
      } finally {
        await again.close();
      }
    });

    it('refuses a target that holds data unless forced, and then replaces it', { timeout: 120_000 }, async () => {
      expect(archive).not.toBe('');
      const refused = restoreBackup({ archive, dataDir: restored.dataDir, databaseUrl: restored.databaseUrl });
      await expect(refused).rejects.toBeInstanceOf(RestoreRefusedError);
      await expect(refused).rejects.toThrow(/恢复目标不是空的.*--force/);
      // A marker written after the restore goes when the restore is forced.
      if (restored.databaseUrl) {
        const c = new pg.Client({ connectionString: restored.databaseUrl });
        await c.connect();
        await c.query("update sys_department set name = '恢复后改过' where code = 'BK_" + dialect + "_FIRST'");
        await c.end();
      } else {
        const db = new Database(path.join(restored.dataDir, 'park.db'));
        db.prepare("update sys_department set name = '恢复后改过' where code = ?").run(`BK_${dialect}_FIRST`);
        db.close();
      }
      fs.writeFileSync(path.join(restored.dataDir, 'files', 'stray.txt'), 'x');
      const forced = await restoreBackup({ archive, dataDir: restored.dataDir, databaseUrl: restored.databaseUrl, force: true });
      expect(forced.replaced.length).toBeGreaterThan(0);
      // The old file's WAL went with it: replayed into the restored file, it would bring the old rows back.
      if (!restored.databaseUrl) for (const f of ['park.db-wal', 'park.db-shm']) expect(fs.existsSync(path.join(restored.dataDir, f)), f).toBe(false);
      const rows = await query<{ name: string }>(restored.dataDir, restored.databaseUrl, `select name from sys_department where code = 'BK_${dialect}_FIRST'`);
      expect(rows).toEqual([{ name: `备份部门${dialect}` }]);
      expect(fs.existsSync(path.join(restored.dataDir, 'files', 'stray.txt'))).toBe(false);
    });

    it('refuses a tampered archive and one from a newer migration level, and changes nothing', { timeout: 120_000 }, async () => {
      // One byte of the database part changed in place.
      const flipped = path.join(path.dirname(archive), 'flipped.tar');
      fs.copyFileSync(archive, flipped);
      const fd = fs.openSync(flipped, 'r+');
      const at = 512 + 300;
      const b = Buffer.alloc(1);
      fs.readSync(fd, b, 0, 1, at);
      fs.writeSync(fd, Buffer.from([b[0]! ^ 0xff]), 0, 1, at);
      fs.closeSync(fd);
      const bad = await verifyBackup(flipped);
      expect(bad.ok).toBe(false);
      expect(bad.problems.join('\n')).toContain(`数据库部分 ${manifest.database.path} 的 SHA-256 与清单不符`);
      const target = await freshTarget(dialect, cleanups);
      await expect(restoreBackup({ archive: flipped, dataDir: target.dataDir, databaseUrl: target.databaseUrl })).rejects.toThrow(/备份校验未通过.*\n.*SHA-256/);
      expect(fs.readdirSync(target.dataDir)).toEqual([]);

      // A stored file changed after the archive was made.
      let changed = '';
      const tamperedFile = await repack(archive, (dir) => {
        const shard = fs.readdirSync(path.join(dir, 'files'))[0]!;
        const name = fs.readdirSync(path.join(dir, 'files', shard))[0]!;
        changed = `files/${shard}/${name}`;
        fs.appendFileSync(path.join(dir, changed), 'x');
      });
      const badFile = await verifyBackup(tamperedFile);
      expect(badFile.problems).toContain(`文件 ${changed} 的 SHA-256 与清单不符：备份已被改动或损坏`);
      await expect(restoreBackup({ archive: tamperedFile, dataDir: target.dataDir, databaseUrl: target.databaseUrl })).rejects.toBeInstanceOf(RestoreRefusedError);

      // An archive from a build with a later migration: its checksums hold, its level does not.
      const future = await repack(archive, (dir) => {
        const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as BackupManifest;
        fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...m, migrationLevel: '999-from-the-future' }));
      });
      expect((await verifyBackup(future)).ok).toBe(true);
      const newer = restoreBackup({ archive: future, dataDir: target.dataDir, databaseUrl: target.databaseUrl });
      await expect(newer).rejects.toBeInstanceOf(RestoreRefusedError);
      await expect(newer).rejects.toThrow(`备份的迁移级别 999-from-the-future 高于本程序的迁移级别 ${MIGRATION_LEVEL}`);
      expect(fs.readdirSync(target.dataDir)).toEqual([]);
      if (target.databaseUrl) expect(await query(target.dataDir, target.databaseUrl, "select table_name from information_schema.tables where table_schema = 'public'")).toEqual([]);
      for (const f of [flipped, tamperedFile, future]) fs.rmSync(f);
    });

    it('lists the runs newest first and runs one now through the API; a second while one runs is a 409', { timeout: 120_000 }, async () => {
      // Another server's backup holds the lease.
      expect(await acquireLease(ctx.db, BACKUP_LEASE, 'elsewhere:1:test')).toBe(true);
      const busy = await admin.post<BackupRunRow>('/backup/run');
      expect(busy.status).toBe(409);
      expect(busy.body.msg).toMatch(/^已有备份正在进行（elsewhere 进程 1 于 .+ 开始），请等它完成后再试$/);
      // So does a library call.
      await expect(takeBackup({ config: ctx.config, database: ctx, reason: 'cli' })).rejects.toBeInstanceOf(BackupBusyError);
      await releaseLease(ctx.db, BACKUP_LEASE, 'elsewhere:1:test');

      const ran = await admin.post<BackupRunRow>('/backup/run');
      expect(ran.status, JSON.stringify(ran.body)).toBe(200);
      expect(ran.body.data).toMatchObject({ reason: 'manual', verified: 1, error: null });
      expect(fs.existsSync(path.join(ctx.config.backup.dir, ran.body.data.file_name))).toBe(true);

      // Two at once: exactly one is taken.
      const [a, b] = await Promise.all([admin.post<BackupRunRow>('/backup/run'), admin.post<BackupRunRow>('/backup/run')]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);

      const page = await admin.get<{ list: BackupRunRow[]; total: number }>('/backup/list?size=2&pn=1');
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      const winner = a.status === 200 ? a : b;
      expect(page.body.data.list[0]).toEqual(winner.body.data);
      expect(page.body.data.list[1]).toEqual(ran.body.data);
      const all = await ctx.db.selectFrom('backup_run').select('id').execute();
      expect(page.body.data.total).toBe(all.length);
      const pn2 = await admin.get<{ list: BackupRunRow[] }>('/backup/list?size=2&pn=2');
      expect(pn2.body.data.list.every((r) => r.started_at <= ran.body.data.started_at)).toBe(true);

      // Both calls ask for their own code.
      const contact = await new Client(server).as('contact');
      expect((await contact.get('/backup/list')).status).toBe(403);
      expect((await contact.post('/backup/run')).status).toBe(403);
    });

    it('keeps the newest N archives when pruning and never lists a partial one', { timeout: 120_000 }, async () => {
      const dir = mkTemp('park-prune-');
      cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
      const config = { ...ctx.config, backup: { ...ctx.config.backup, dir } };
      const taken: string[] = [];
      // The same second twice: the second archive gets its own name.
      const t = Date.now();
      for (let i = 0; i < 4; i++) taken.push((await takeBackup({ config, database: ctx, reason: 'cli', verify: false, now: () => t + Math.floor(i / 2) * 1000 })).file);
      expect(new Set(taken.map((f) => path.basename(f))).size).toBe(4);
      expect(taken.filter((f) => /-2\.tar$/.test(f))).toHaveLength(2);
      fs.writeFileSync(path.join(dir, 'park-backup-20990101-000000.tar.123-abc.partial'), 'half');
      const old = path.join(dir, 'park-backup-20000101-000000.tar.1-old.partial');
      fs.writeFileSync(old, 'half');
      fs.utimesSync(old, new Date(Date.now() - 2 * 86_400_000), new Date(Date.now() - 2 * 86_400_000));
      expect((await listBackups(dir)).map((b) => b.path)).toEqual([taken[3], taken[2], taken[1], taken[0]]);

      const removed = await pruneBackups(dir, 2);
      expect(removed).toEqual(expect.arrayContaining([path.basename(taken[0]!), path.basename(taken[1]!), path.basename(old)]));
      expect((await listBackups(dir)).map((b) => b.path)).toEqual([taken[3], taken[2]]);
      // A partial archive younger than a day may be a backup still being written: it stays.
      expect(fs.existsSync(path.join(dir, 'park-backup-20990101-000000.tar.123-abc.partial'))).toBe(true);
      await expect(pruneBackups(dir, 0)).rejects.toThrow('保留份数');
    });

    it('takes the nightly backup on exactly one of two servers sharing the database', { timeout: 120_000 }, async () => {
      const second = await startSecondServer(server);
      try {
        const dir = mkTemp('park-nightly-');
        cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
        const configured = (c: AppContext): AppContext => ({ ...c, config: { ...c.config, backup: { dir, at: '02:30', keep: 3 } } });
        const one = configured(ctx);
        const two = configured(second.app.ctx);
        // 02:30 park time on a night of this dialect's own.
        const night = dialect === 'sqlite' ? '2031-05-06' : '2031-05-07';
        const at = Date.parse(`${night}T02:30:00+08:00`);
        expect(await nightlyBackupOnce(one, at - 60_000)).toEqual({ outcome: 'not-due' });
        const settled = await Promise.allSettled([nightlyBackupOnce(one, at), nightlyBackupOnce(two, at)]);
        const outcomes = settled.map((s) => (s.status === 'fulfilled' ? s.value.outcome : String(s.reason)));
        expect(outcomes.sort()).toEqual(['claimed-elsewhere', 'taken']);
        // Later checks of the same night, on either server, take nothing more.
        for (const c of [one, two]) expect(await nightlyBackupOnce(c, at + 10 * 60_000)).toEqual({ outcome: 'claimed-elsewhere', night });
        expect(await nightlyBackupOnce(one, at + CATCH_UP_MINUTES * 60_000)).toEqual({ outcome: 'not-due' });
        expect(await listBackups(dir)).toHaveLength(1);
        const claims = await ctx.db.selectFrom('backup_claim').select('claim_key').where('claim_key', '=', `night:${night}`).execute();
        expect(claims).toHaveLength(1);
        // Off means off.
        expect(await nightlyBackupOnce({ ...one, config: { ...one.config, backup: { ...one.config.backup, at: null } } }, at)).toEqual({ outcome: 'off' });
      } finally {
        await second.close();
      }
    });

    it('records a failed nightly backup and tells every administrator', { timeout: 120_000 }, async () => {
      const blocked = mkTemp('park-blocked-');
      cleanups.push(async () => fs.rmSync(blocked, { recursive: true, force: true }));
      const blocker = path.join(blocked, 'not-a-directory');
      fs.writeFileSync(blocker, '');
      const broken: AppContext = { ...ctx, config: { ...ctx.config, backup: { dir: path.join(blocker, 'backups'), at: '02:30', keep: 3 } } };
      const night = dialect === 'sqlite' ? '2031-06-01' : '2031-06-02';
      const before = await ctx.db
        .selectFrom('backup_run')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      const failed = await nightlyBackupOnce(broken, Date.parse(`${night}T02:31:00+08:00`));
      expect(failed).toMatchObject({ outcome: 'failed', night, message: expect.stringMatching(/^备份失败：备份目录不可用/) });
      const row = await ctx.db
        .selectFrom('backup_run')
        .selectAll()
        .where('id', '>', Number(before?.id ?? 0))
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ reason: 'nightly', verified: 0, file_name: '', size_bytes: 0, error: expect.stringMatching(/^备份失败/) });

      const admins = await ctx.db
        .selectFrom('sys_user_role as ur')
        .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
        .innerJoin('sys_user as u', 'u.user_id', 'ur.user_id')
        .select('u.user_id')
        .where('r.code', '=', 'admin')
        .where('u.deleted', '=', 0)
        .where('u.status', '=', 1)
        .execute();
      expect(admins.length).toBeGreaterThan(0);
      const told = await ctx.db.selectFrom('notification').select(['user_id', 'title', 'body', 'url']).where('kind', '=', 'backup_failed').where('tag', '=', `backup-failed-${night}`).execute();
      expect(told.map((n) => n.user_id).sort()).toEqual(admins.map((a) => a.user_id).sort());
      expect(told[0]).toMatchObject({ title: '夜间备份失败', url: '/settings/backups', body: expect.stringContaining('备份目录不可用') });
      // The admin sees it in the notification centre.
      const page = await admin.post<{ list: Array<{ kind: string; title: string }> }>('/notifications/page', { kind: 'backup_failed' });
      expect(page.body.data.list[0]).toMatchObject({ kind: 'backup_failed', title: '夜间备份失败' });

      if (dialect === 'postgres') {
        // Without pg_dump the failure says which Debian package brings it.
        const missing = takeBackup({ config: ctx.config, database: ctx, reason: 'cli', tools: { pgDump: '/nonexistent/pg_dump' } });
        await expect(missing).rejects.toBeInstanceOf(BackupFailedError);
        await expect(missing).rejects.toThrow(/未找到 pg_dump.*postgresql-client/);
      }
    });

    it('backs up from the command line while the server runs, and the restore command refuses a target that holds data', { timeout: 120_000 }, async () => {
      const dir = mkTemp('park-cli-');
      cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
      const env = { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: ctx.config.databaseUrl ?? '', BACKUP_DIR: dir, PARK_TZ: ctx.config.tz };
      const tsx = [process.execPath, '--import', 'tsx'];
      const backup = await run(tsx[0]!, [...tsx.slice(1), 'scripts/backup.ts'], { cwd: ROOT, env });
      expect(backup.stdout).toMatch(/备份完成：.*park-backup-\d{8}-\d{6}(-\d+)?\.tar/);
      expect(backup.stdout).toMatch(/大小：.*（\d+ 字节）/);
      expect(backup.stdout).toMatch(/耗时：\d+\.\d 秒/);
      expect(backup.stdout).toContain('校验：通过');
      const [made] = await listBackups(dir);
      expect((await verifyBackup(made!.path)).ok).toBe(true);
      const row = await ctx.db.selectFrom('backup_run').selectAll().where('file_name', '=', made!.name).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ reason: 'cli', verified: 1, error: null });
      expect(row.pid).not.toBe(process.pid);

      const refused = await run(tsx[0]!, [...tsx.slice(1), 'scripts/restore.ts', made!.path], { cwd: ROOT, env }).then(
        () => null,
        (err: { code: number; stderr: string }) => err,
      );
      expect(refused?.code).toBe(2);
      expect(refused?.stderr).toMatch(/拒绝恢复：恢复目标不是空的.*--force/);
      // The server was not disturbed.
      expect((await admin.post('/depart/all', {})).status).toBe(200);
      expect(Number((await sql<{ n: number }>`select count(*) as n from sys_department`.execute(ctx.db)).rows[0]!.n)).toBeGreaterThan(0);
    });
  });
}
