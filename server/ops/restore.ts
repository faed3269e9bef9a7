import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { extract } from 'tar';
import type { FileStoreKind } from '../config';
import { MIGRATION_LEVEL } from '../db/migrate';
import { DB_PATHS } from './backup-archive';
import { runPgTool, verifyBackup, type BackupManifest, type PgTools } from './backup';

/**
 * Puts a backup archive (backup.ts) back: into an empty DATA_DIR (SQLite:
 * park.db and files/) or an empty PostgreSQL database (pg_restore) and
 * DATA_DIR/files. Nothing is touched until the archive has been read whole
 * and every SHA-256 matched its manifest, its migration level is one this
 * build can run, its kind of database is the target's, and the target is
 * empty, or `force` says to replace what is there. Servers on the target must
 * be stopped first: a restore replaces the database under them.
 *
 * An archive of a server with FILE_STORE=postgres holds its files in the
 * database part: restoring it restores them, and DATA_DIR/files is neither
 * looked at nor touched. The target's FILE_STORE must be the archive's, so
 * that the restored servers look for the files where they are.
 */

export interface RestoreOptions {
  archive: string;
  dataDir: string;
  /** The target PostgreSQL database; absent, the target is DATA_DIR/park.db. */
  databaseUrl?: string;
  /** Where the target's servers keep uploads (their FILE_STORE); it must be where the archive has them. Default 'disk'. */
  fileStore?: FileStoreKind;
  /** Replace a target that holds data (SQLite: park.db with its -wal and -shm; PostgreSQL: the public schema, dropped and made again). */
  force?: boolean;
  tools?: PgTools;
  /** Progress lines for the operator. */
  log?: (line: string) => void;
}

export interface RestoreResult {
  manifest: BackupManifest;
  dialect: 'sqlite' | 'postgres';
  files: number;
  durationMs: number;
  /** What --force replaced; empty when the target was empty. */
  replaced: string[];
}

/** The restore was refused and nothing was changed; the message says why and what to do. */
export class RestoreRefusedError extends Error {}

const SQLITE_FILES = ['park.db', 'park.db-wal', 'park.db-shm', 'park.db-journal'];

/** What the target holds that a restore would replace, in Chinese; empty for an empty target. DATA_DIR/files is no target of a database store. */
export async function targetContents(dataDir: string, databaseUrl?: string, fileStore: FileStoreKind = 'disk'): Promise<string[]> {
  const found: string[] = [];
  if (databaseUrl) {
    const tables = await withPg(databaseUrl, async (c) =>
      Number((await c.query<{ n: string }>('select count(*) as n from information_schema.tables where table_schema = current_schema()')).rows[0]!.n),
    );
    if (tables > 0) found.push(`PostgreSQL 数据库的当前模式中已有 ${tables} 张表`);
  } else {
    for (const f of SQLITE_FILES) if (fs.existsSync(path.join(dataDir, f))) found.push(`${path.join(dataDir, f)} 已存在`);
  }
  if (fileStore === 'postgres') return found;
  const files = path.join(dataDir, 'files');
  const entries = await fs.promises.readdir(files).catch(() => [] as string[]);
  if (entries.length > 0) found.push(`${files} 不是空目录`);
  return found;
}

async function withPg<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function restoreBackup(opts: RestoreOptions): Promise<RestoreResult> {
  const started = performance.now();
  const log = opts.log ?? (() => undefined);
  const archive = path.resolve(opts.archive);
  if (!fs.existsSync(archive) || !fs.statSync(archive).isFile()) throw new RestoreRefusedError(`备份文件不存在：${archive}`);

  // The target first: it is quick to look at, the archive may take minutes to read.
  const fileStore = opts.fileStore ?? 'disk';
  const existing = await targetContents(opts.dataDir, opts.databaseUrl, fileStore);
  if (existing.length > 0 && !opts.force) throw new RestoreRefusedError(`恢复目标不是空的，未做任何改动：${existing.join('；')}。如确认要用备份覆盖现有数据，请加 --force 重新运行`);

  log(`正在校验备份 ${archive} …`);
  const check = await verifyBackup(archive);
  if (!check.ok || !check.manifest) throw new RestoreRefusedError(`备份校验未通过，未做任何改动：\n  - ${check.problems.join('\n  - ')}`);
  const manifest = check.manifest;
  const level = manifest.migrationLevel ?? '';
  if (level > MIGRATION_LEVEL) throw new RestoreRefusedError(`备份的迁移级别 ${level} 高于本程序的迁移级别 ${MIGRATION_LEVEL}：它来自更新版本的程序，请使用与备份相同或更新版本的程序恢复`);
  const dialect = opts.databaseUrl ? 'postgres' : 'sqlite';
  if (manifest.dialect !== dialect) {
    throw new RestoreRefusedError(
      manifest.dialect === 'postgres'
        ? '该备份来自 PostgreSQL 数据库：请设置 DATABASE_URL 指向一个空的 PostgreSQL 数据库后再恢复'
        : '该备份来自 SQLite 数据库（park.db）：恢复到 SQLite 时请不要设置 DATABASE_URL，数据将恢复到 DATA_DIR',
    );
  }

  const archived = manifest.fileStore ?? 'disk';
  if (archived !== fileStore) {
    throw new RestoreRefusedError(
      archived === 'postgres'
        ? '该备份的上传文件存放在 PostgreSQL 数据库中（备份时 FILE_STORE=postgres）：请设置 FILE_STORE=postgres 后再恢复；如需改存磁盘，恢复后运行 npm run files:move -- --to disk'
        : '该备份的上传文件存放在磁盘上（备份时 FILE_STORE=disk，文件在备份的 files/ 中）：请以 FILE_STORE=disk 恢复，文件将恢复到 DATA_DIR/files；如需改存数据库，恢复后运行 npm run files:move -- --to postgres',
    );
  }

  await fs.promises.mkdir(opts.dataDir, { recursive: true });
  const staging = path.join(opts.dataDir, `.restore-${process.pid}-${randomUUID().slice(0, 8)}`);
  await fs.promises.mkdir(staging);
  try {
    log('正在解开备份 …');
    const dbPath = DB_PATHS[dialect];
    await extract({ file: archive, cwd: staging, strict: true, filter: (p) => p === dbPath || p.startsWith('files/') });
    const dbFile = path.join(staging, dbPath);

    // The database first: if it fails, the files are as they were.
    if (dialect === 'sqlite') {
      log('正在恢复数据库 park.db …');
      // A WAL left beside the old file would be replayed into the restored one: it goes with it.
      for (const f of SQLITE_FILES) await fs.promises.rm(path.join(opts.dataDir, f), { force: true });
      const target = path.join(opts.dataDir, 'park.db');
      await fs.promises.rename(dbFile, target);
      await syncPath(target);
      releaseSqliteLease(target);
    } else {
      const url = opts.databaseUrl!;
      if (opts.force && existing.length > 0) {
        log('正在清空 PostgreSQL 的 public 模式 …');
        await withPg(url, (c) => c.query('drop schema if exists public cascade; create schema public'));
      }
      log('正在用 pg_restore 恢复数据库 …');
      await runPgTool(opts.tools?.pgRestore ?? 'pg_restore', 'pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', '--no-password', dbFile], url);
      // The lease of the backup in progress when the dump was taken is nobody's in the restored database.
      await withPg(url, async (c) => {
        const has = await c.query("select 1 from information_schema.tables where table_schema = current_schema() and table_name = 'backup_claim'");
        if (has.rowCount) await c.query("delete from backup_claim where claim_key = 'running'");
      });
    }

    if (archived === 'postgres') {
      // The files were rows of the dump: restored with it. DATA_DIR/files is not theirs, and is left as it is.
      log('上传文件存放在数据库中，已随数据库恢复');
      return { manifest, dialect, files: manifest.tables.stored_file ?? 0, durationMs: Math.round(performance.now() - started), replaced: existing };
    }
    log('正在恢复上传文件 …');
    const files = path.join(opts.dataDir, 'files');
    const restored = path.join(staging, 'files');
    if (!fs.existsSync(restored)) await fs.promises.mkdir(restored);
    const old = path.join(staging, 'files-replaced');
    if (fs.existsSync(files)) await fs.promises.rename(files, old);
    await fs.promises.rename(restored, files);
    await syncPath(opts.dataDir);
    return { manifest, dialect, files: manifest.files.count, durationMs: Math.round(performance.now() - started), replaced: existing };
  } finally {
    await fs.promises.rm(staging, { recursive: true, force: true });
  }
}

/** The 'running' lease copied with the database was the backup's own; left, it would refuse 立即备份 until it expired. */
function releaseSqliteLease(file: string) {
  const db = new Database(file, { fileMustExist: true });
  try {
    const has = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'backup_claim'").get();
    if (has) db.prepare("delete from backup_claim where claim_key = 'running'").run();
  } finally {
    db.close();
  }
}

async function syncPath(p: string) {
  const fh = await fs.promises.open(p, 'r').catch(() => null);
  if (!fh) return;
  await fh.sync().catch(() => undefined);
  await fh.close();
}
