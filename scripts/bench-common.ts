/**
 * What the sections of `npm run bench` share (scripts/bench.ts, and the years
 * section in scripts/bench-years.ts): the load runners and their figures'
 * row, the targets printed at the end, the server process's environment and
 * the reports' rollups rebuilt after a bulk load.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../server/app';
import type { loadConfig } from '../server/config';
import { rebuildReportRollups } from '../server/db/migrations/023-report-rollups';
import { rebuildHourRollup } from '../server/db/migrations/024-board-figures';

export const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
export const CONCURRENCY = 16;

export const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];

/** Runs `REQUESTS` calls at `CONCURRENCY`, answering req/s and p95. */
export async function load(call: (i: number) => Promise<void>, requests = REQUESTS, concurrency = CONCURRENCY) {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const i = next++;
        const s = performance.now();
        await call(i);
        times.push(performance.now() - s);
      }
    }),
  );
  return { perSecond: requests / ((performance.now() - started) / 1000), p95: p95(times) };
}

/** Calls run untimed before a list's timed run: the server process starts cold (JIT, its own SQLite page cache), the raw baselines run warm in this one. */
const WARMUP = 300;

/** CPU time a process's main thread has run, in ns (Linux's /proc/<pid>/schedstat, whose first field is the thread group leader's). */
export const mainThreadNs = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

/**
 * A list's load after its warm-up (lists only: a decision's calls use up their
 * tasks). Given the server's pid (one process), also its main thread's CPU per
 * call and the share of the run it was busy: below about 95 %, something else
 * (this client, sharing the two cores) held the rate down.
 */
export async function warmLoad(call: (i: number) => Promise<void>, serverPid?: number, requests = REQUESTS, concurrency = CONCURRENCY): Promise<LoadFigures> {
  await load(call, Math.min(WARMUP, requests), concurrency);
  const cpu = serverPid ? mainThreadNs(serverPid) : 0;
  const started = performance.now();
  const r = await load(call, requests, concurrency);
  if (!serverPid) return r;
  const ms = (mainThreadNs(serverPid) - cpu) / 1e6;
  return { ...r, serverMs: ms / requests, busy: ms / (performance.now() - started) };
}

export type LoadFigures = { perSecond: number; p95: number; serverMs?: number; busy?: number };

/** The same page read straight from better-sqlite3, sequentially, as the baseline. */
export function rawLoad(run: (i: number) => void, requests = REQUESTS) {
  const times: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    const s = performance.now();
    run(i);
    times.push(performance.now() - s);
  }
  return { perSecond: requests / (times.reduce((a, b) => a + b, 0) / 1000), p95: p95(times) };
}

export const row = (label: string, r: LoadFigures, unit = 'req/s') =>
  `  ${label.padEnd(44)} ${r.perSecond.toFixed(0).padStart(7)} ${unit.padEnd(6)} p95 ${r.p95.toFixed(2).padStart(7)} ms` +
  (r.serverMs === undefined ? '' : `   server main thread ${r.serverMs.toFixed(3)} ms/call, busy ${(r.busy! * 100).toFixed(0)} %`);

/** Issue 14's targets, each beside the figure this run measured; printed at the end. */
export const targets: Array<{ what: string; target: string; figure: string; met: boolean }> = [];

/** The server (server/main.ts) on dataDir in its own process(es); the bench's client runs here. */
export const serverEnv = (dataDir: string, password: string, processes: number) => ({
  DATA_DIR: dataDir,
  SMS_PROVIDER: 'file',
  DEMO_PASSWORD: password,
  LOG_LEVEL: 'warn',
  STATIC_DIR: path.join(dataDir, 'no-ui'),
  WEB_CONCURRENCY: String(processes),
  DATABASE_URL: '',
  // The bench signs the same accounts in for each run, within the wait between two codes.
  CAPTCHA_COOLDOWN_SECONDS: '0',
});

/** The reports' rollups filled from the base tables by the migrations' own fills, after a load that went around their triggers. */
export async function rebuildRollups(config: ReturnType<typeof loadConfig>) {
  const local = await buildApp(config);
  try {
    await rebuildReportRollups(local.ctx.db);
    await rebuildHourRollup(local.ctx.db);
    // The rebuild rewrote every rollup row (the vehicle sets' triggers many times over): on PostgreSQL the dead
    // versions stay until a vacuum, and a report would scan them, as it would not on a park that autovacuum keeps.
    await sql.raw(local.ctx.dialect === 'postgres' ? 'vacuum analyze' : 'analyze').execute(local.ctx.db);
  } finally {
    await local.close();
  }
}
