import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { ErrorCode } from '../../domain/errors';
import { healthApi, type ReadyCheck, type ReadyCheckName, type Readiness } from '../../domain/schemas/health';
import { failure, ok } from '../core/errors';
import { route } from '../core/route';
import { fileStoreOf } from '../core/storage';
import type { Database_ } from '../db/index';
import { databaseLevel, MIGRATION_LEVEL } from '../db/migrate';

/**
 * The health probes (docs/operations.md): /api/health/live answers while the
 * process runs; /api/health/ready answers 200 only when this process can
 * serve calls. Ready checks, each on its own and all at once:
 *
 * - database: `select 1` answers within DB_ANSWER_MS;
 * - migrations: the database is at this build's migration level;
 * - file_store: a probe can be written and removed in the configured store
 *   (core/storage.ts fileStoreOf): a file in DATA_DIR/files, or with
 *   FILE_STORE=postgres a row of stored_file, under a dot name no stored
 *   file can have;
 * - disk: the disk holding DATA_DIR has at least MIN_DISK_FREE_RATIO free.
 *
 * /metrics reads the same checks (ops/metrics.ts), so an alert and a balancer
 * see one truth.
 */

/** How long the database has to answer `select 1` before the process counts as not ready. */
export const DB_ANSWER_MS = 1_000;
/** A write of a few bytes that takes longer than this means a store too slow or hung to serve uploads. */
const FILE_STORE_MS = 2_000;
/** Below this share of free space the disk is about to fill: SQLite, uploads and backups would fail next. */
export const MIN_DISK_FREE_RATIO = 0.05;

export const checkTitles: Record<ReadyCheckName, string> = {
  database: '数据库',
  migrations: '迁移级别',
  file_store: '文件存储',
  disk: '磁盘空间',
};

export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
  /** Free share available to this process (statfs bavail / blocks). */
  ratio: number;
}

export interface ReadinessProbe {
  /** Runs every check at once; ready when all pass. */
  run(): Promise<Readiness>;
  /** The data disk's free space now, or null when the file system does not say. */
  disk(): DiskSpace | null;
  /** The free share below which the disk check fails; tests raise it instead of filling a disk. */
  minDiskFreeRatio: number;
}

const probes = new WeakMap<FastifyInstance, ReadinessProbe>();

/** The readiness probe of an app registered by registerHealth. */
export function readinessOf(app: FastifyInstance): ReadinessProbe {
  const probe = probes.get(app);
  if (!probe) throw new Error('the health routes are not registered on this app');
  return probe;
}

/** Changes the free-space threshold of one app's disk check (tests make the check fail without filling a disk). */
export function setMinDiskFreeRatio(app: FastifyInstance, ratio: number): void {
  readinessOf(app).minDiskFreeRatio = ratio;
}

class Timeout extends Error {}

/** `work`, or a Timeout once `ms` have passed (the work itself goes on; its outcome is ignored). */
export function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), ms);
  });
  // The work may still settle after the timer: its rejection must not surface as unhandled.
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** A failure's machine code (ECONNREFUSED, 57P01, SQLITE_BUSY) for the Chinese detail; the error itself is logged at debug level. */
const codeOf = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[\w.-]{1,40}$/.test(code) ? `（错误代码 ${code}）` : '';
};

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
const gigabytes = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;

export function createReadinessProbe(app: FastifyInstance, database: Database_): ReadinessProbe {
  const { dataDir } = app.ctx.config;

  async function databaseCheck(): Promise<ReadyCheck> {
    const started = performance.now();
    try {
      await within(sql`select 1`.execute(database.db), DB_ANSWER_MS);
      return { name: 'database', ok: true, detail: `数据库正常（${Math.round(performance.now() - started)} 毫秒）` };
    } catch (err) {
      if (err instanceof Timeout) return { name: 'database', ok: false, detail: `数据库 ${DB_ANSWER_MS / 1000} 秒内未响应` };
      // At debug: a balancer probes every few seconds; the change of state is logged once by the route.
      app.log.debug({ err }, 'readiness: the database check failed');
      return { name: 'database', ok: false, detail: `数据库无法访问${codeOf(err)}` };
    }
  }

  async function migrationCheck(): Promise<ReadyCheck> {
    try {
      const level = await within(databaseLevel(database), DB_ANSWER_MS);
      if (level === MIGRATION_LEVEL) return { name: 'migrations', ok: true, detail: `迁移级别 ${level}，与本程序一致` };
      return { name: 'migrations', ok: false, detail: `数据库迁移级别为 ${level ?? '（空库）'}，本程序需要 ${MIGRATION_LEVEL}` };
    } catch (err) {
      if (err instanceof Timeout) return { name: 'migrations', ok: false, detail: `数据库 ${DB_ANSWER_MS / 1000} 秒内未答出迁移级别` };
      return { name: 'migrations', ok: false, detail: `无法读取数据库的迁移级别${codeOf(err)}` };
    }
  }

  async function fileStoreCheck(): Promise<ReadyCheck> {
    const store = fileStoreOf(app.ctx);
    // The database store shares the database's health, but a table it cannot write (permissions, a full tablespace) is its own failure.
    const inDatabase = store.kind === 'postgres';
    const what = inDatabase ? '文件存储（PostgreSQL）' : '文件存储';
    try {
      await within(store.probe(), FILE_STORE_MS);
      return { name: 'file_store', ok: true, detail: `${what}可写` };
    } catch (err) {
      if (err instanceof Timeout) return { name: 'file_store', ok: false, detail: `${what} ${FILE_STORE_MS / 1000} 秒内未完成写入` };
      app.log.debug({ err }, 'readiness: the file store check failed');
      return { name: 'file_store', ok: false, detail: inDatabase ? `文件存储（PostgreSQL）的表不可写${codeOf(err)}` : `文件存储目录不可写${codeOf(err)}` };
    }
  }

  function disk(): DiskSpace | null {
    const s = fs.statfsSync(dataDir);
    if (!s.blocks) return null;
    return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize, ratio: s.bavail / s.blocks };
  }

  function diskCheck(): ReadyCheck {
    let space: DiskSpace | null;
    try {
      space = disk();
    } catch (err) {
      return { name: 'disk', ok: false, detail: `无法读取数据盘的剩余空间${codeOf(err)}` };
    }
    // A file system that reports no size (some network mounts) cannot be judged here; the store check still writes to it.
    if (!space) return { name: 'disk', ok: true, detail: '数据盘未报告容量，未检查剩余空间' };
    const floor = percent(probe.minDiskFreeRatio);
    if (space.ratio >= probe.minDiskFreeRatio) return { name: 'disk', ok: true, detail: `数据盘剩余 ${percent(space.ratio)}（${gigabytes(space.freeBytes)}），不低于 ${floor}` };
    return { name: 'disk', ok: false, detail: `数据盘剩余 ${percent(space.ratio)}（${gigabytes(space.freeBytes)}），低于 ${floor}，请清理磁盘` };
  }

  const probe: ReadinessProbe = {
    minDiskFreeRatio: MIN_DISK_FREE_RATIO,
    disk,
    async run() {
      const checks = await Promise.all([databaseCheck(), migrationCheck(), fileStoreCheck(), Promise.resolve(diskCheck())]);
      return { ready: checks.every((c) => c.ok), checks };
    },
  };
  return probe;
}

/** The 503's message: each failed check by its Chinese title and why. */
export const notReadyMessage = (checks: ReadyCheck[]) =>
  `服务未就绪：${checks
    .filter((c) => !c.ok)
    .map((c) => `${checkTitles[c.name]}未通过（${c.detail}）`)
    .join('；')}`;

/** Registers /api/health/live and /api/health/ready (as a plugin under /api); answers the app's readiness probe. */
export async function registerHealth(app: FastifyInstance, database: Database_): Promise<ReadinessProbe> {
  const probe = createReadinessProbe(app, database);
  probes.set(app, probe);
  // A balancer asks every few seconds: a change of state is logged, not every answer.
  let lastFailing = '';

  await app.register(
    async (api) => {
      route(api, healthApi.live, async (_req, reply) => {
        reply.header('Cache-Control', 'no-store');
        return ok({ live: true as const }, '服务运行中');
      });

      route(api, healthApi.ready, async (_req, reply) => {
        reply.header('Cache-Control', 'no-store');
        const result = await probe.run();
        const failing = result.checks
          .filter((c) => !c.ok)
          .map((c) => c.name)
          .join(',');
        if (failing !== lastFailing) {
          if (failing) app.log.warn({ checks: result.checks }, `readiness: not ready (${failing})`);
          else app.log.info('readiness: ready again');
          lastFailing = failing;
        }
        if (result.ready) return ok(result, '服务就绪');
        return reply.status(503).send(failure(ErrorCode.INTERNAL, notReadyMessage(result.checks), result));
      });
    },
    { prefix: '/api' },
  );
  return probe;
}
