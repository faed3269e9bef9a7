import cluster, { type Worker } from 'node:cluster';
import { loadConfig, type Config } from './config';
import { buildApp } from './app';
import { onNotified, signalNotified } from './core/notify';
import { onTableChanged, tableChanged } from './core/paging';
import { startDeadlineJob } from './jobs/deadlines';
import { startCleanupJob } from './jobs/cleanup';
import { startDeviceOnlineJob } from './jobs/device-online';
import { startImportRecoveryJob } from './jobs/import-recovery';
import { startStrandedJob } from './modules/stranded/timer';
import { startBackupJob } from './jobs/backup';
import { startRetentionJob } from './jobs/retention';
import { answerMetricsInPrimary, askPrimaryForMetrics } from './ops/metrics-cluster';

/**
 * One server process, or with WEB_CONCURRENCY > 1 a primary that forks that
 * many on one port (node:cluster hands each new connection to one of them).
 * They share nothing but the database (the SQLite file in WAL mode, or
 * PostgreSQL), so everything that already holds for several servers on one
 * PostgreSQL holds here: sessions, limits, idempotency keys and push claims
 * live in the database. What is arranged here:
 *
 * - the primary migrates and seeds once, before any worker starts, so workers
 *   never race over the schema or the demo data;
 * - the periodic jobs (overtime, cleanup, device online, stranded alarms, interrupted imports, the nightly backup and retention) run
 *   in worker 0 only: they are safe in several processes, but on SQLite each
 *   pass would hold the one write lock that every worker's writes wait for;
 * - "notifications changed for these users" is relayed through the primary to
 *   the other workers, so a notification made in one process reaches a stream
 *   or push dispatcher in another at once instead of at their next poll; so is
 *   "this table changed", so no process answers a remembered total that a
 *   write through another process has outdated (core/paging.ts), and so a stay
 *   stored by any process re-arms process 0's stranded-alarm timer for the
 *   next deadline (modules/stranded/timer.ts);
 * - a scrape of /metrics, which reaches one process, is answered with every
 *   process's metrics, aggregated by the primary (ops/metrics-cluster.ts).
 */

const WORKER_INDEX = 'PARK_WORKER_INDEX';
type Relay = { type: 'notified'; userIds: number[]; push: boolean } | { type: 'tableChanged'; table: string };
const isRelay = (m: unknown): m is Relay => {
  const r = m as Relay | null;
  if (!r || typeof r !== 'object') return false;
  return (r.type === 'notified' && Array.isArray(r.userIds)) || (r.type === 'tableChanged' && typeof r.table === 'string');
};

async function serve(config: Config) {
  const app = await buildApp(config);
  const runsJobs = !cluster.isWorker || process.env[WORKER_INDEX] === '0';

  let closing = false;
  const stops: Array<() => void> = [];
  async function shutdown(signal: string) {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received, finishing requests in flight`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    for (const stop of stops) stop();
    await app.close();
    process.exit(0);
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (cluster.isWorker) {
    // A scrape reaching this process reports every process's metrics, gathered by the primary.
    askPrimaryForMetrics(app);
    // A relayed signal is delivered here without being sent back out.
    let relaying = false;
    onNotified(app.ctx.db, (userIds, push) => {
      if (!relaying) process.send?.({ type: 'notified', userIds, push } satisfies Relay);
    });
    onTableChanged((table) => {
      if (!relaying) process.send?.({ type: 'tableChanged', table } satisfies Relay);
    });
    process.on('message', (m) => {
      if (!isRelay(m)) return;
      relaying = true;
      try {
        if (m.type === 'notified') signalNotified(app.ctx.db, m.userIds, m.push === true);
        else tableChanged(m.table);
      } finally {
        relaying = false;
      }
    });
  }

  await app.listen({ port: config.port, host: config.host });
  if (runsJobs) stops.push(startDeadlineJob(app), startCleanupJob(app), startDeviceOnlineJob(app), startStrandedJob(app), startImportRecoveryJob(app), startBackupJob(app), startRetentionJob(app));
  const who = cluster.isWorker ? ` [process ${process.env[WORKER_INDEX]}, pid ${process.pid}]` : '';
  app.log.info(`园区出入管理系统 listening on http://localhost:${config.port} (${app.ctx.dialect})${who}`);
}

/** A worker that dies this soon after it started is failing to start, not crashing under load. */
const EARLY_EXIT_MS = 10_000;
const MAX_EARLY_EXITS = 5;

async function supervise(config: Config) {
  // Migrations and the demo seed, once, before any worker opens the database.
  const setup = await buildApp({ ...config, staticDir: undefined });
  await setup.close();
  const log = (msg: string) => console.log(`[primary ${process.pid}] ${msg}`);

  let closing = false;
  let earlyExits = 0;
  const workers = new Map<number, { worker: Worker; started: number }>();
  const fork = (index: number) => {
    // The primary seeded already; workers open the database as it is.
    const worker = cluster.fork({ [WORKER_INDEX]: String(index), SEED_DEMO: '0' });
    workers.set(index, { worker, started: Date.now() });
    worker.on('message', (m) => {
      if (!isRelay(m)) return;
      for (const { worker: other } of workers.values()) if (other !== worker && other.isConnected()) other.send(m);
    });
    worker.on('exit', (code, signal) => {
      const entry = workers.get(index);
      if (entry?.worker !== worker) return;
      workers.delete(index);
      if (closing) {
        if (workers.size === 0) process.exit(0);
        return;
      }
      const early = Date.now() - entry.started < EARLY_EXIT_MS;
      earlyExits = early ? earlyExits + 1 : 0;
      if (earlyExits >= MAX_EARLY_EXITS) {
        log(`process ${index} keeps exiting at start (last: ${signal ?? `code ${code}`}); giving up`);
        closing = true;
        for (const { worker: w } of workers.values()) w.process.kill('SIGTERM');
        process.exitCode = 1;
        if (workers.size === 0) process.exit(1);
        return;
      }
      log(`process ${index} (pid ${worker.process.pid}) exited (${signal ?? `code ${code}`}); starting another`);
      fork(index);
    });
  };

  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    log(`${signal} received, stopping ${workers.size} processes`);
    // The signal itself, so each process runs its own graceful shutdown: cluster's worker.kill() would first wait
    // for the process to close its server, which a held connection (a live notification stream) never lets happen.
    for (const { worker } of workers.values()) worker.process.kill('SIGTERM');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    if (workers.size === 0) process.exit(0);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  answerMetricsInPrimary();
  for (let i = 0; i < config.webConcurrency; i++) fork(i);
  log(`${config.webConcurrency} server processes on port ${config.port} (WEB_CONCURRENCY)`);
}

const config = loadConfig();
if (config.webConcurrency > 1 && cluster.isPrimary) await supervise(config);
else await serve(config);
