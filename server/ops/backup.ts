import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import type { Kysely, Selectable } from 'kysely';
import pg from 'pg';
import { formatInZone } from '../../domain/time';
import { leaseHolderText, withLease } from '../core/lease';
import type { Config } from '../config';
import type { Database_ } from '../db/index';
import { databaseLevel } from '../db/migrate';
import type { BackupRunTable, DB } from '../db/schema';
import { checkArchive, DB_PATHS, writeArchive, type ArchiveCheck, type BackupManifest } from './backup-archive';

export { ARCHIVE_FORMAT, type ArchiveCheck, type BackupManifest } from './backup-archive';

/**
 * Backups while the server runs and takes writes. One archive per backup,
 * `park-backup-YYYYMMDD-HHmmss.tar` (park time) in config.backup.dir; its
 * layout is backup-archive.ts's. The database part is SQLite's online backup
 * of park.db, made through a read connection of its own in a worker thread,
 * or pg_dump --format=custom of DATABASE_URL in a snapshot whose rows are
 * counted for the manifest; the files part is DATA_DIR/files, read after the
 * database so that every file a copied row names is there (a file is stored
 * before the row that names it). With FILE_STORE=postgres the files are rows
 * of the dump already, and the files part is empty. The archive is written and read back at a
 * pace (BACKUP_BYTES_PER_SECOND) that leaves the calls their CPU and disk.
 * The temporary copy of the database lives in the backup directory until it
 * is in the archive, so a backup needs room there for about twice the database.
 *
 * The archive is written under a `.partial` name and renamed once complete
 * and read back, so a listed archive is never half written. Every backup
 * writes a backup_run row when it ends, failed ones too, and at most one
 * backup runs at a time over one database: the BACKUP_LEASE lease
 * (core/lease.ts).
 */

export type BackupReason = 'nightly' | 'manual' | 'cli';
export type BackupRun = Selectable<BackupRunTable>;

/** What takeBackup reads and writes through: the server's own handle, or one the CLI opened. */
export type BackupDatabase = Pick<Database_, 'db' | 'dialect'>;

/** The binaries the PostgreSQL parts run; tests name a missing one. */
export interface PgTools {
  pgDump?: string;
  pgRestore?: string;
}

export interface TakeBackupOptions {
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'tz' | 'backup' | 'fileStore'>;
  database: BackupDatabase;
  reason: BackupReason;
  /** Read the archive back and check it against its manifest before it is named (default true). */
  verify?: boolean;
  tools?: PgTools;
  /** Epoch ms for now: the archive's name and the manifest's time. */
  now?: () => number;
  /** How fast the archive is written and read back (BACKUP_BYTES_PER_SECOND by default); null: as fast as the disk goes. */
  bytesPerSecond?: number | null;
}

/**
 * How fast a backup writes and reads back its archive. Every byte is hashed on
 * the event loop of the process that takes it (a server, for the nightly
 * backup and 立即备份), so the pace is what keeps a backup from taking the
 * CPU and the disk from the calls: at 32 MiB/s a backup of a 1 GiB park takes
 * about a minute, and the server keeps most of its throughput meanwhile.
 */
export const BACKUP_BYTES_PER_SECOND = 32 * 1024 * 1024;

export interface BackupResult {
  /** The backup_run row; null on a database a server has not yet migrated to the level that has the table. */
  run: BackupRun | null;
  file: string;
  size: number;
  durationMs: number;
  verified: boolean;
  manifest: BackupManifest;
}

/** Another backup holds the lease: the API answers 409 with the message. */
export class BackupBusyError extends Error {}

/** A backup that failed; its row says so too. */
export class BackupFailedError extends Error {
  constructor(
    message: string,
    readonly run: BackupRun | null,
  ) {
    super(message);
  }
}

export const ARCHIVE_PATTERN = /^park-backup-(\d{8})-(\d{6})(?:-(\d+))?\.tar$/;
const PARTIAL_SUFFIX = '.partial';
const STAGING_PREFIX = '.staging-';
/** The migration that made backup_run and backup_claim. */
const BACKUP_TABLES_LEVEL = '032-backups';
/** The lease a backup holds while it runs (core/lease.ts). */
export const BACKUP_LEASE = 'running';
/** Leftovers of a backup whose process died (a .partial archive, a staging directory) are removed after a day. */
const STALE_MS = 24 * 3600_000;

const APP_VERSION: string = (() => {
  try {
    return (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return process.env.npm_package_version ?? '0.0.0';
  }
})();

/** Whether the database has the backup tables yet: the CLI may run against one a server has not migrated. */
async function hasBackupTables(database: BackupDatabase): Promise<boolean> {
  return ((await databaseLevel(database)) ?? '') >= BACKUP_TABLES_LEVEL;
}

// ---------------------------------------------------------------- the lease

const busyMessage = async (db: Kysely<DB>, tz: string) => new BackupBusyError(`已有备份正在进行${await leaseHolderText(db, BACKUP_LEASE, tz)}，请等它完成后再试`);

// ---------------------------------------------------------------- the database part

interface DatabaseCopy {
  tables: Record<string, number>;
  level: string | null;
}

const SQLITE_WORKER = new URL('./backup-sqlite-worker.mjs', import.meta.url);
/** What the thread (backup-sqlite-worker.mjs) answers. */
type SqliteCopyResult = ({ ok: true } & DatabaseCopy) | { ok: false; message: string; code?: string };

/** park.db copied into `dest` by SQLite's online backup, in a thread with its own read connection. */
function copySqlite(source: string, dest: string): Promise<DatabaseCopy> {
  // Opened read-only in the thread, a missing file would say less.
  if (!fs.existsSync(source)) return Promise.reject(new Error(`数据库文件不存在：${source}`));
  return new Promise((resolve, reject) => {
    // No inherited --import: the body is plain JavaScript, and a TypeScript loader started in the thread would cost more than a small copy.
    const worker = new Worker(SQLITE_WORKER, { workerData: { source, dest }, execArgv: [] });
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      f();
    };
    worker.once('message', (r: SqliteCopyResult) =>
      settle(() => (r.ok ? resolve({ tables: r.tables, level: r.level }) : reject(Object.assign(new Error(`SQLite 在线备份失败：${r.message}`), { code: r.code })))),
    );
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) => settle(() => reject(new Error(`SQLite 备份线程在完成前退出（${code}）`))));
  });
}

/** The URL without its password, and the password apart: pg_dump gets it through PGPASSWORD, never on its command line. */
export function pgConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = '';
  return { dbname: u.toString(), env: password ? { PGPASSWORD: password } : {} };
}

/** pg_dump's nice value: it runs beside the servers. */
const PG_DUMP_NICE = 10;

export const missingPgTool = (tool: string) => `未找到 ${tool}：PostgreSQL 的备份与恢复需要它，请安装 Debian 软件包 postgresql-client（apt-get install postgresql-client）后重试`;

/** Runs a PostgreSQL client tool; stdout, if `to` is given, streams into that file. Rejects with its stderr on failure. */
export function runPgTool(binary: string, tool: string, args: string[], url: string, to?: string, nice = 0): Promise<void> {
  const { dbname, env } = pgConnection(url);
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [...args, `--dbname=${dbname}`], { env: { ...process.env, ...env }, stdio: ['ignore', to ? 'pipe' : 'ignore', 'pipe'] });
    if (nice && child.pid) {
      try {
        os.setPriority(child.pid, nice);
      } catch {
        // Not allowed here: the tool runs at the caller's priority.
      }
    }
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString('utf8');
    });
    const written = to ? pipeline(child.stdout!, fs.createWriteStream(to, { flags: 'wx' })) : Promise.resolve();
    // A failed write is seen through the exit: the tool ends on the broken pipe.
    written.catch(() => undefined);
    child.once('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code === 'ENOENT' ? missingPgTool(tool) : `${tool} 无法启动：${err.message}`)));
    child.once('close', (code, signal) => {
      written.then(
        () => (code === 0 ? resolve() : reject(new Error(`${tool} 失败（${signal ?? `退出码 ${code}`}）：${stderr.trim() || '无输出'}`))),
        (err: Error) => reject(new Error(`${tool} 的输出无法写入：${err.message}`)),
      );
    });
  });
}

/**
 * pg_dump of the database into `dest`, in a snapshot this connection exports
 * (REPEATABLE READ), so that the rows counted here are the rows dumped.
 */
async function dumpPostgres(url: string, dest: string, tools: PgTools): Promise<DatabaseCopy> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const snapshot = (await client.query<{ s: string }>('select pg_export_snapshot() as s')).rows[0]!.s;
    // pg_dump's own work (reading the rows off the wire, compressing them) yields the CPU to the servers; its light
    // compression costs a little room for much less CPU.
    const dumped = runPgTool(tools.pgDump ?? 'pg_dump', 'pg_dump', ['--format=custom', '--compress=1', `--snapshot=${snapshot}`, '--no-password'], url, dest, PG_DUMP_NICE);
    const counted = (async () => {
      const names = await client.query<{ name: string }>(
        "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name",
      );
      const tables: Record<string, number> = {};
      for (const { name } of names.rows) tables[name] = Number((await client.query<{ n: string }>(`select count(*) as n from "${name.replace(/"/g, '""')}"`)).rows[0]!.n);
      const level = 'kysely_migration' in tables ? ((await client.query<{ name: string | null }>('select max(name) as name from kysely_migration')).rows[0]?.name ?? null) : null;
      return { tables, level };
    })();
    // The snapshot must stay exported until pg_dump has taken it: the transaction ends only after both.
    const [d, c] = await Promise.allSettled([dumped, counted]);
    if (d.status === 'rejected') throw d.reason;
    if (c.status === 'rejected') throw c.reason;
    await client.query('commit');
    return c.value;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// ---------------------------------------------------------------- names

/** 'park-backup-20260301-023000.tar' for a park time '2026-03-01 02:30:00'. */
export const archiveName = (parkTime: string, seq = 1) => `park-backup-${parkTime.slice(0, 10).replace(/-/g, '')}-${parkTime.slice(11, 19).replace(/:/g, '')}${seq > 1 ? `-${seq}` : ''}.tar`;

/** Moves the finished archive to its name, never over another's (two backups in one second get -2, -3, …). */
async function publish(partial: string, dir: string, parkTime: string): Promise<string> {
  for (let seq = 1; seq < 1000; seq++) {
    const target = path.join(dir, archiveName(parkTime, seq));
    try {
      await fs.promises.link(partial, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      // A file system without hard links: rename, after checking the name is free.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw err;
      if (fs.existsSync(target)) continue;
      await fs.promises.rename(partial, target);
      return target;
    }
    await fs.promises.unlink(partial);
    return target;
  }
  throw new Error('同一秒内的备份过多');
}

async function syncFile(file: string): Promise<void> {
  const fh = await fs.promises.open(file, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The directory's entry for a renamed file on disk too; not every file system can sync a directory, and that is no failure. */
async function syncDir(dir: string): Promise<void> {
  await syncFile(dir).catch(() => undefined);
}

const fail = (message: string): never => {
  throw new Error(message);
};

/** A Chinese reason for a failure, from its system error code where one tells more than the message. */
export function describeFailure(err: unknown, dir: string): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ENOSPC') return `磁盘空间不足，无法写入备份（${dir}）`;
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return `没有权限写入备份目录（${dir}）：${e.message}`;
  if (e?.code === 'ENOTDIR' || e?.code === 'EEXIST') return `备份目录不可用（${dir}）：${e.message}`;
  return e instanceof Error ? e.message : String(err);
}

// ---------------------------------------------------------------- the backup

/**
 * Takes one backup of the database and the file store into config.backup.dir
 * and records it in backup_run. Throws BackupBusyError while another backup of
 * the same database runs (and records nothing: nothing was attempted), and
 * BackupFailedError, after recording the failure, when the backup fails.
 */
export async function takeBackup(opts: TakeBackupOptions): Promise<BackupResult> {
  const { config, database } = opts;
  const recorded = await hasBackupTables(database);
  const run = () => backupOnce(opts, recorded);
  return recorded ? withLease(database.db, BACKUP_LEASE, () => busyMessage(database.db, config.tz), run) : run();
}

async function backupOnce(opts: TakeBackupOptions, recorded: boolean): Promise<BackupResult> {
  const { config, database, reason } = opts;
  const startedMs = (opts.now ?? Date.now)();
  const clock = performance.now();
  const startedAt = formatInZone(startedMs, config.tz);
  const dir = config.backup.dir;
  const partial = path.join(dir, `${archiveName(startedAt)}.${process.pid}-${randomUUID().slice(0, 8)}${PARTIAL_SUFFIX}`);
  const staging = path.join(dir, `${STAGING_PREFIX}${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    await fs.promises.mkdir(staging, { recursive: true });
    const dialect = database.dialect;
    const dbCopy = path.join(staging, path.basename(DB_PATHS[dialect]));
    const copy =
      dialect === 'sqlite'
        ? await copySqlite(path.join(config.dataDir, 'park.db'), dbCopy)
        : config.databaseUrl
          ? await dumpPostgres(config.databaseUrl, dbCopy, opts.tools ?? {})
          : fail('PostgreSQL 备份需要 DATABASE_URL');
    const bytesPerSecond = opts.bytesPerSecond === undefined ? BACKUP_BYTES_PER_SECOND : opts.bytesPerSecond;
    const manifest = await writeArchive({
      file: partial,
      staging,
      dbCopy,
      dialect,
      // The database store's files are in the dump already, copied in the same snapshot as the rows that name them.
      filesRoot: config.fileStore === 'postgres' ? null : path.join(config.dataDir, 'files'),
      bytesPerSecond,
      about: {
        app: 'park-access',
        version: APP_VERSION,
        migrationLevel: copy.level,
        dialect,
        createdAt: startedAt,
        createdAtMs: startedMs,
        tz: config.tz,
        reason,
        host: os.hostname(),
        pid: process.pid,
        tables: copy.tables,
      },
    });
    const verify = opts.verify ?? true;
    if (verify) {
      const check = await checkArchive(partial, { bytesPerSecond });
      if (!check.ok) throw new Error(`备份写完后读回校验失败：${check.problems.join('；')}`);
    }
    const file = await publish(partial, dir, startedAt);
    await syncDir(dir);
    const size = (await fs.promises.stat(file)).size;
    const durationMs = Math.round(performance.now() - clock);
    const row = recorded ? await recordRun(database.db, config.tz, { startedAt, startedMs, durationMs, file: path.basename(file), size, verified: verify, error: null, reason }) : null;
    return { run: row, file, size, durationMs, verified: verify, manifest };
  } catch (err) {
    await fs.promises.rm(partial, { force: true }).catch(() => undefined);
    const message = `备份失败：${describeFailure(err, dir)}`;
    const durationMs = Math.round(performance.now() - clock);
    let row: BackupRun | null = null;
    if (recorded) row = await recordRun(database.db, config.tz, { startedAt, startedMs, durationMs, file: '', size: 0, verified: false, error: message, reason }).catch(() => null);
    throw new BackupFailedError(message, row);
  } finally {
    await fs.promises.rm(staging, { recursive: true, force: true }).catch(() => undefined);
  }
}

interface RunRecord {
  startedAt: string;
  startedMs: number;
  durationMs: number;
  file: string;
  size: number;
  verified: boolean;
  error: string | null;
  reason: BackupReason;
}

async function recordRun(db: Kysely<DB>, tz: string, r: RunRecord): Promise<BackupRun> {
  const finishedMs = r.startedMs + r.durationMs;
  // A transaction of its own: on SQLite it waits for another connection's write lock without blocking the event loop.
  return db.transaction().execute((trx) =>
    trx
      .insertInto('backup_run')
      .values({
        started_at: r.startedAt,
        finished_at: formatInZone(finishedMs, tz),
        finished_ms: finishedMs,
        duration_ms: r.durationMs,
        file_name: r.file,
        size_bytes: r.size,
        verified: r.verified ? 1 : 0,
        error: r.error ? r.error.slice(0, 2000) : null,
        reason: r.reason,
        host: os.hostname().slice(0, 100),
        pid: process.pid,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

/** When the last backup that was read back and matched its manifest ended, in epoch seconds; null before the first. */
export async function lastVerifiedBackupAt(db: Kysely<DB>): Promise<number | null> {
  const r = await db
    .selectFrom('backup_run')
    .select((eb) => eb.fn.max('finished_ms').as('at'))
    .where('verified', '=', 1)
    .where('error', 'is', null)
    .executeTakeFirst();
  return r?.at == null ? null : Math.floor(Number(r.at) / 1000);
}

// ---------------------------------------------------------------- reading, listing, pruning

/** '1.0 MiB': an archive's size for the operator. */
export const humanSize = (bytes: number): string =>
  bytes >= 1 << 30 ? `${(bytes / (1 << 30)).toFixed(2)} GiB` : bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} 字节`;

/** Reads the archive back and checks every SHA-256 against its manifest (backup-archive.ts checkArchive). */
export function verifyBackup(file: string): Promise<ArchiveCheck> {
  return checkArchive(file);
}

export interface BackupFile {
  name: string;
  path: string;
  size: number;
  /** The park time in its name, 'YYYY-MM-DD HH:mm:ss'. */
  takenAt: string;
  mtimeMs: number;
}

const sortKey = (name: string) => {
  const m = ARCHIVE_PATTERN.exec(name)!;
  return `${m[1]}${m[2]}-${(m[3] ?? '1').padStart(4, '0')}`;
};

/** The finished archives in `dir`, newest first; a missing directory has none. Partial archives are never listed. */
export async function listBackups(dir: string): Promise<BackupFile[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: BackupFile[] = [];
  for (const name of names.filter((n) => ARCHIVE_PATTERN.test(n))) {
    const p = path.join(dir, name);
    const st = await fs.promises.stat(p).catch(() => null);
    if (!st?.isFile()) continue;
    const m = ARCHIVE_PATTERN.exec(name)!;
    const takenAt = `${m[1]!.slice(0, 4)}-${m[1]!.slice(4, 6)}-${m[1]!.slice(6, 8)} ${m[2]!.slice(0, 2)}:${m[2]!.slice(2, 4)}:${m[2]!.slice(4, 6)}`;
    out.push({ name, path: p, size: st.size, takenAt, mtimeMs: st.mtimeMs });
  }
  return out.sort((a, b) => (sortKey(a.name) < sortKey(b.name) ? 1 : sortKey(a.name) > sortKey(b.name) ? -1 : b.mtimeMs - a.mtimeMs));
}

/**
 * Keeps the newest `keep` archives and removes the rest, and the leftovers of
 * backups whose process died (partial archives and staging directories older
 * than a day). Answers the names removed.
 */
export async function pruneBackups(dir: string, keep: number, now = Date.now()): Promise<string[]> {
  if (!Number.isInteger(keep) || keep < 1) throw new Error(`保留份数必须是不小于1的整数，收到 ${keep}`);
  const removed: string[] = [];
  for (const old of (await listBackups(dir)).slice(keep)) {
    await fs.promises.rm(old.path, { force: true });
    removed.push(old.name);
  }
  let names: string[] = [];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return removed;
  }
  for (const name of names.filter((n) => n.endsWith(PARTIAL_SUFFIX) || n.startsWith(STAGING_PREFIX))) {
    const p = path.join(dir, name);
    const st = await fs.promises.stat(p).catch(() => null);
    if (st && now - st.mtimeMs > STALE_MS) {
      await fs.promises.rm(p, { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}
