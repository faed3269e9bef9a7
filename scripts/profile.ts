/**
 * `npx tsx scripts/profile.ts [case …]`: where the server's time goes on one
 * call (issue 14). Loads the bench's appointments (scripts/bench-seed.ts) and
 * users straight into SQLite, runs the server in this process and drives it
 * from a worker thread, so that the main thread, which serves every request
 * and runs every better-sqlite3 statement, holds nothing but the server. For
 * each case, after a warm-up:
 *
 * 1. a timed run without the profiler (req/s and p95 at PROFILE_CONCURRENCY,
 *    beside the same count and page straight from better-sqlite3 for lists,
 *    and the page alone);
 * 2. a run under the V8 CPU profiler (node:inspector, main thread only):
 *    every sample is given to the innermost stack frame a rule below knows
 *    (the SQLite statement calls, Kysely, zod, Fastify, pino, the project's
 *    files), printed as ms per request and % of the busy time, and the
 *    innermost project function under each sample; the profile is written to
 *    .tmp/profile/<case>.cpuprofile (Chrome DevTools opens it);
 * 3. a run with better-sqlite3's prepare and statement calls timed, grouped
 *    by what each statement is for (session, permissions, operation log,
 *    idempotency, notifications, the list's count and page, begin/commit).
 *
 * The first table of a case joins 3 (SQL, a blocked fsync included, which
 * sampling misses) and 2 (all else) into ms per request by the parts issue 14
 * names; docs/performance.md holds the figures and how to read them.
 *
 * Cases: task-page, person-task-page, own-list, history, person-history, all-history, person-all-history, user-page, check
 * (default: task-page check). Sizes: BENCH_APPOINTMENTS (1,000,000),
 * BENCH_USERS (200,000, only with user-page), PROFILE_REQUESTS (2000; a
 * decision case uses PROFILE_DECISIONS, 400), PROFILE_CONCURRENCY (16, 8 for
 * decisions), LOG_LEVEL (warn, as the bench; the log goes to a file).
 * Absolute times depend on what else the machine runs: read the proportions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { Worker } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import { seedAppointments, type SeededIds } from './bench-seed';
import { signInViaApi } from './demo-login';

const APPOINTMENTS = Number(process.env.BENCH_APPOINTMENTS ?? 1_000_000);
const USERS = Number(process.env.BENCH_USERS ?? 200_000);
const REQUESTS = Number(process.env.PROFILE_REQUESTS ?? 2000);
const DECISIONS = Number(process.env.PROFILE_DECISIONS ?? 400);
const CONCURRENCY = Number(process.env.PROFILE_CONCURRENCY ?? 16);
const SAMPLING_US = 200;
const OUT = path.resolve('.tmp/profile');

type Account = 'contact' | 'reviewer' | 'admin' | 'squad';
interface Case {
  name: string;
  label: string;
  account: Account;
  path: string;
  /** The request bodies of one run of n (decisions take fresh tasks each run). */
  bodies: (n: number) => unknown[];
  idempotent?: boolean;
  concurrency: number;
  /** The same page and count straight from better-sqlite3. */
  raw?: { count: string; page: string; args: unknown[]; offset: (i: number) => number };
}

const pn = (i: number) => 1 + ((i * 7919) % 50);
const userPn = (i: number) => 1 + ((i * 7919) % 2000);
const pages = (n: number, page = pn) => Array.from({ length: n }, (_, i) => ({ size: 10, pn: page(i) }));

function cases(ids: SeededIds): Case[] {
  const carCols = 'a.*, vt.name as vehicle_type_name, d.name as interviewee_depart_name';
  const carJoin = 'car_application a left join vehicle_type vt on vt.id = a.vehicle_type_id left join sys_department d on d.depart_id = a.interviewee_depart_id';
  const personJoin = 'person_application a left join sys_department d on d.depart_id = a.interviewee_depart_id';
  const offset = (i: number) => (pn(i) - 1) * 10;
  let nextTask = 0;
  return [
    {
      name: 'task-page',
      label: 'reviewer POST /api/carApplications/task/page',
      account: 'reviewer',
      path: '/carApplications/task/page',
      bodies: (n) => pages(n),
      concurrency: CONCURRENCY,
      raw: {
        page: 'select t.process_task_id, t.process_instance_id, t.submit_time, t.state, a.* from process_task t join car_application a on a.car_application_id = t.ref_id where t.user_id = ? and t.queue = ? and t.state = 0 order by t.process_task_id desc limit 10 offset ?',
        count: 'select count(*) as n from process_task where user_id = ? and queue = ? and state = 0',
        args: [ids.reviewer, 'car_task'],
        offset,
      },
    },
    {
      name: 'person-task-page',
      label: 'reviewer POST /api/personApplications/task/page',
      account: 'reviewer',
      path: '/personApplications/task/page',
      bodies: (n) => pages(n),
      concurrency: CONCURRENCY,
      raw: {
        page: 'select t.process_task_id, t.process_instance_id, t.submit_time, t.state, a.* from process_task t join person_application a on a.person_application_id = t.ref_id where t.user_id = ? and t.queue = ? and t.state = 0 order by t.process_task_id desc limit 10 offset ?',
        count: 'select count(*) as n from process_task where user_id = ? and queue = ? and state = 0',
        args: [ids.reviewer, 'person_task'],
        offset,
      },
    },
    {
      name: 'own-list',
      label: 'contact POST /api/carApplications/list',
      account: 'contact',
      path: '/carApplications/list',
      bodies: (n) => pages(n),
      concurrency: CONCURRENCY,
      raw: {
        page: `select ${carCols} from ${carJoin} where a.create_user_id = ? and a.is_deleted = 0 order by a.car_application_id desc limit 10 offset ?`,
        count: 'select count(*) as n from car_application where create_user_id = ? and is_deleted = 0',
        args: [ids.contact],
        offset,
      },
    },
    {
      name: 'history',
      label: 'reviewer POST /api/carApplications/history/list',
      account: 'reviewer',
      path: '/carApplications/history/list',
      bodies: (n) => pages(n),
      concurrency: CONCURRENCY,
      raw: {
        page: `select ${carCols} from ${carJoin} where a.interviewee_depart_id = ? and a.is_deleted = 0 and a.state != 0 order by a.car_application_id desc limit 10 offset ?`,
        count: 'select count(*) as n from car_application where interviewee_depart_id = ? and is_deleted = 0 and state != 0',
        args: [ids.cnoocShell],
        offset,
      },
    },
    {
      name: 'person-history',
      label: 'reviewer POST /api/personApplications/history/list',
      account: 'reviewer',
      path: '/personApplications/history/list',
      bodies: (n) => pages(n),
      concurrency: CONCURRENCY,
      raw: {
        page: `select a.*, d.name as interviewee_depart_name from ${personJoin} where a.interviewee_depart_id = ? and a.is_deleted = 0 and a.state != 0 order by a.person_application_id desc limit 10 offset ?`,
        count: 'select count(*) as n from person_application where interviewee_depart_id = ? and is_deleted = 0 and state != 0',
        args: [ids.cnoocShell],
        offset,
      },
    },
    {
      name: 'all-history',
      label: 'squad POST /api/carApplications/all/history/list',
      account: 'squad',
      path: '/carApplications/all/history/list',
      bodies: (n) => pages(n),
      concurrency: CONCURRENCY,
    },
    {
      name: 'person-all-history',
      label: 'squad POST /api/personApplications/all/history/list',
      account: 'squad',
      path: '/personApplications/all/history/list',
      bodies: (n) => pages(n),
      concurrency: CONCURRENCY,
    },
    {
      name: 'user-page',
      label: `admin POST /api/user/page (${USERS.toLocaleString()} users)`,
      account: 'admin',
      path: '/user/page',
      bodies: (n) => pages(n, userPn),
      concurrency: CONCURRENCY,
      raw: {
        page: 'select u.user_id, u.user_name, u.account, u.gender, u.phone, u.depart_id, d.name as depart_name, u.status, u.uuid, u.create_time from sys_user u left join sys_department d on d.depart_id = u.depart_id where u.deleted = 0 order by u.user_id desc limit 10 offset ?',
        count: 'select count(*) as total from sys_user where deleted = 0',
        args: [],
        offset: (i) => (userPn(i) - 1) * 10,
      },
    },
    {
      name: 'check',
      label: 'reviewer POST /api/carApplications/task/check (one task, Idempotency-Key, answered once synced)',
      account: 'reviewer',
      path: '/carApplications/task/check',
      idempotent: true,
      concurrency: Number(process.env.PROFILE_CONCURRENCY ?? 8),
      bodies: (n) => {
        const tasks = ids.reviewerCarTasks.slice(nextTask, nextTask + n);
        nextTask += n;
        if (tasks.length < n) throw new Error(`only ${ids.reviewerCarTasks.length} pending reviewer tasks: raise BENCH_APPOINTMENTS or lower PROFILE_DECISIONS`);
        return tasks.map((t) => ({ taskIds: String(t), result: 1, remark: '同意' }));
      },
    },
  ];
}

// ---------------------------------------------------------------- the client, in a worker thread

const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { origin } = workerData;
parentPort.on('message', async ({ requests, concurrency }) => {
  const times = new Array(requests.length);
  const failures = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < requests.length) {
      const i = next++;
      const r = requests[i];
      const s = performance.now();
      const res = await fetch(origin + r.path, { method: 'POST', headers: r.headers, body: r.body });
      const text = await res.text();
      times[i] = performance.now() - s;
      if (!res.ok || !text.startsWith('{"success":true')) failures.push(res.status + ' ' + text.slice(0, 200));
    }
  }));
  parentPort.postMessage({ wall: performance.now() - started, times, failures: failures.slice(0, 3), failed: failures.length });
});
parentPort.postMessage('ready');
`;

interface RunResult {
  perSecond: number;
  p95: number;
}

function client(origin: string) {
  const worker = new Worker(CLIENT, { eval: true, workerData: { origin } });
  const ready = new Promise<void>((resolve) => worker.once('message', () => resolve()));
  const run = async (requests: Array<{ path: string; headers: Record<string, string>; body: string }>, concurrency: number): Promise<RunResult> => {
    const done = new Promise<{ wall: number; times: number[]; failures: string[]; failed: number }>((resolve) => worker.once('message', resolve));
    worker.postMessage({ requests, concurrency });
    const r = await done;
    if (r.failed) throw new Error(`${r.failed} of ${requests.length} requests failed, e.g. ${r.failures.join(' | ')}`);
    const sorted = [...r.times].sort((a, b) => a - b);
    return { perSecond: requests.length / (r.wall / 1000), p95: sorted[Math.floor(sorted.length * 0.95)]! };
  };
  return { ready, run, close: () => worker.terminate() };
}

// ---------------------------------------------------------------- CPU profile → categories

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = path.resolve('.') + '/';
const SQLITE_CALLS = new Set(['all', 'get', 'run', 'iterate']);

/** The category of one frame, or null to look at its caller. */
function frameCategory(f: ProfileNode['callFrame'], stack: ProfileNode['callFrame'][], leaf = false): string | null {
  const { functionName: fn, url } = f;
  // Optimised code may inline Kysely's driver into the frames that await it; their own lines only await the
  // consumer, so a sample that stops in one of them was in the statement's native prepare or step.
  if (leaf && /\/kysely\/dist\/esm\/(driver\/default-connection-provider|query-executor\/query-executor-base)\.js/.test(url) && fn !== 'transformQuery') {
    return 'SQLite: prepare or run (native call inlined into a Kysely frame)';
  }
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(program)') return 'V8 / native, unattributed ((program))';
  if (url === '') {
    // Native methods: better-sqlite3's statements, the JSON built-ins; anything else counts for its caller.
    if (fn === 'prepare') return 'SQLite: prepare statement (per query)';
    if (SQLITE_CALLS.has(fn) && stack.some((s) => s.url.includes('/kysely/') || s.url.includes('/better-sqlite3/'))) {
      if (stack.some((s) => s.functionName === 'commitTransaction')) return 'SQLite: COMMIT (WAL write)';
      if (stack.some((s) => s.functionName === 'beginTransaction')) return 'SQLite: BEGIN';
      return 'SQLite: run the query (step rows)';
    }
    if (fn === 'stringify') return 'JSON.stringify (log, audit, idempotent answer)';
    if (fn === 'parse') return 'JSON.parse';
    return null;
  }
  if (url.includes('/better-sqlite3/')) return fn === 'prepare' ? 'SQLite: prepare statement (per query)' : 'SQLite: run the query (step rows)';
  // The driver's own line calling stmt.all / stmt.run holds the native call's time when V8 shows no frame for it.
  if (url.includes('/kysely/dist/esm/dialect/sqlite/sqlite-driver.js') && fn === 'executeQuery') return frameCategory({ ...f, url: '', functionName: 'run' }, stack);
  // Fastify's serialize: JSON.stringify of the envelope (the built-in shows no frame of its own).
  if (url.includes('/fastify/lib/reply.js') && fn === 'serialize') return 'response serialization (JSON.stringify)';
  if (url.includes('/kysely/')) {
    if (url.includes('/query-compiler/')) return 'Kysely: compile to SQL';
    if (url.includes('/dialect/') || url.includes('/driver/') || url.includes('/query-executor/')) return 'Kysely: executor, driver, connection mutex';
    return 'Kysely: build the query tree';
  }
  if (url.includes('/zod/')) return 'zod: parse and validate';
  if (/\/(pino|pino-std-serializers|sonic-boom|fast-redact|@pinojs|thread-stream|fast-safe-stringify)\//.test(url)) return 'pino logging';
  if (url.includes('/helmet/')) return 'helmet headers';
  if (
    /\/(fastify|@fastify|find-my-way|avvio|fastq|light-my-request|fast-json-stringify|toad-cache|fast-querystring|secure-json-parse|content-type|process-warning|abstract-logging|rfdc|ret|safe-regex2)\//.test(
      url,
    )
  )
    return 'Fastify: routing, hooks, reply';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('node:')) {
    if (/node:(internal\/)?(http|_http|net|stream|streams|internal\/streams|internal\/http|internal\/stream_base)/.test(url) || url.includes('_http_') || url.includes('stream'))
      return 'Node: HTTP, sockets, streams';
    if (url.includes('async_hooks') || url.includes('async_local_storage')) return 'Node: AsyncLocalStorage';
    if (url.includes('crypto')) return 'Node: crypto (token hash, UUIDs)';
    if (url.includes('timers') || url.includes('process/task_queues')) return 'Node: event loop, microtasks (await overhead)';
    return 'Node: other internals';
  }
  const file = url.replace('file://', '').replace(ROOT, '');
  if (file === 'server/core/json-body.ts') return 'body parsing (json-body.ts)';
  if (file === 'server/core/validate.ts' || file.startsWith('domain/schemas/')) return 'zod: parse and validate';
  if (file === 'server/core/route-schema.ts') return 'response serialization (JSON.stringify)';
  if (file.startsWith('server/') || file.startsWith('server-push/') || file.startsWith('domain/')) return `project: ${file}`;
  if (file.startsWith('scripts/')) return 'profile script';
  return null;
}

/** Which part of the request a sample serves: the innermost frame that says (async continuations of the driver have none). */
function purposeOf(stack: ProfileNode['callFrame'][]): string {
  for (let i = stack.length - 1; i >= 0; i -= 1) {
    const { functionName: fn, url } = stack[i]!;
    const file = url.replace('file://', '').replace(ROOT, '');
    if (fn === 'authContextOf') return 'permission lookup (authContextOf)';
    if (fn === 'authenticate') return 'session lookup and renewal (authenticate)';
    if (file === 'server/db/group-sync.ts') return 'group commit (WAL sync)';
    if (file === 'server/core/idempotency.ts') return 'idempotency bookkeeping';
    if (file === 'server/core/notify.ts' || file === 'server/workflow/notifications.ts') return 'notification rows';
    if (file.startsWith('server-push/') || file === 'server/modules/push.ts' || file === 'server/modules/notifications.ts') return 'push dispatch and notification stream (after commit)';
    if (file === 'server/core/json-body.ts') return 'body parsing';
    if (file === 'server/core/validate.ts' || (fn === '' && file === 'server/core/route-schema.ts' && stack.slice(i).some((s) => s.url.includes('/zod/')))) return 'body validation (zod)';
    if (file === 'server/core/route-schema.ts' || (fn === 'serialize' && url.includes('/fastify/lib/reply.js'))) return 'response serialization';
    if (file.startsWith('server/workflow/') || file.startsWith('server/modules/') || file === 'server/core/paging.ts' || file === 'server/core/transactions.ts') return `handler: ${file}`;
    if (/\/(pino|sonic-boom)\//.test(url)) return 'logging (pino)';
  }
  const leaf = stack[stack.length - 1];
  if (stack.some((s) => s.url.includes('/kysely/'))) return 'query run after an await (driver continuation: caller unknown)';
  if (stack.some((s) => s.url.includes('/fastify/'))) return 'Fastify outside any hook above';
  if (leaf && leaf.url.startsWith('node:')) return 'Node: HTTP and event loop';
  return 'other';
}

interface Breakdown {
  busyMs: number;
  idleMs: number;
  layers: Map<string, number>;
  purposes: Map<string, number>;
  functions: Map<string, number>;
}

function analyse(profile: CpuProfile): Breakdown {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = new Map<number, ProfileNode['callFrame'][]>();
  const stack = (id: number) => {
    let s = stackOf.get(id);
    if (!s) {
      s = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) s.unshift(byId.get(at)!.callFrame);
      stackOf.set(id, s);
    }
    return s;
  };
  const out: Breakdown = { busyMs: 0, idleMs: 0, layers: new Map(), purposes: new Map(), functions: new Map() };
  const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
  // Every sample weighs the median interval: a gap while the process waited for a core (the machine is shared) is not charged to the frame it stopped in.
  const deltas = profile.timeDeltas.slice(1).sort((a, b) => a - b);
  const ms = (deltas[Math.floor(deltas.length / 2)] ?? SAMPLING_US) / 1000;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const s = stack(profile.samples[i]!);
    const leaf = s[s.length - 1]!;
    if (leaf.functionName === '(idle)') {
      out.idleMs += ms;
      continue;
    }
    out.busyMs += ms;
    let layer = 'other';
    for (let k = s.length - 1; k >= 0; k -= 1) {
      const c = frameCategory(s[k]!, s.slice(0, k), k === s.length - 1);
      if (c) {
        layer = c;
        break;
      }
    }
    add(out.layers, layer, ms);
    add(out.purposes, purposeOf(s), ms);
    const own = [...s].reverse().find((f) => f.url.startsWith('file://') && !f.url.includes('node_modules') && !f.url.includes('/scripts/'));
    if (own) add(out.functions, `${own.url.replace('file://', '').replace(ROOT, '')} ${own.functionName || '(anonymous)'}`, ms);
  }
  return out;
}

function printTable(title: string, m: Map<string, number>, requests: number, total: number, limit = 40) {
  console.log(`\n  ${title}`);
  console.log(`  ${'category'.padEnd(66)} ${'ms/req'.padStart(8)} ${'%'.padStart(6)}`);
  const rows = [...m.entries()].sort((a, b) => b[1] - a[1]);
  for (const [k, ms] of rows.slice(0, limit)) console.log(`  ${k.slice(0, 66).padEnd(66)} ${(ms / requests).toFixed(3).padStart(8)} ${((ms / total) * 100).toFixed(1).padStart(6)}`);
  if (rows.length > limit) {
    const rest = rows.slice(limit).reduce((a, [, ms]) => a + ms, 0);
    console.log(`  ${`(${rows.length - limit} more)`.padEnd(66)} ${(rest / requests).toFixed(3).padStart(8)} ${((rest / total) * 100).toFixed(1).padStart(6)}`);
  }
}

/** The parts issue 14 asks about, for a row of the summary (SQL by purpose, the rest by kind of work or file). */
function issueCategory(row: string): string {
  const sqlPart: Array<[RegExp, string]> = [
    [/^SQL: prepare/, 'statement preparation (compiled statements are kept: only new SQL texts)'],
    [/^SQL: list: count/, 'the query itself: the list count'],
    [/^SQL: handler/, "the query itself: the page / the decision's statements"],
    [/^SQL: transaction/, 'BEGIN and COMMIT (WAL write; the fsync is shared, off the thread)'],
    [/^SQL: session/, 'session lookup and renewal'],
    [/^SQL: permission/, 'permission lookup'],
    [/^SQL: operation log/, 'operation log write (onSend hook)'],
    [/^SQL: idempotency/, 'idempotency bookkeeping'],
    [/^SQL: notification/, 'notification rows'],
    [/^SQL: push/, 'push dispatch after commit'],
  ];
  for (const [re, name] of sqlPart) if (re.test(row)) return name;
  if (row === 'Kysely: compile to SQL') return 'Kysely query compilation';
  if (row.startsWith('Kysely:')) return 'Kysely query building and executor';
  if (row.startsWith('zod') || row.startsWith('body parsing')) return 'body parsing and zod validation';
  if (row.startsWith('response serialization')) return 'response serialization';
  if (row === 'pino logging') return 'pino logging';
  if (row.startsWith('Fastify') || row === 'helmet headers') return 'Fastify routing, hooks and reply; helmet headers';
  if (row.startsWith('Node: HTTP')) return 'Node HTTP and sockets';
  if (row === 'GC') return 'garbage collection';
  if (row === 'project: domain/time.ts') return 'ctx.time(): formatInZone (one formatter per zone)';
  if (row === 'project: server/core/idempotency.ts') return 'idempotency bookkeeping';
  if (row === 'project: server/core/notify.ts' || row === 'project: server/workflow/notifications.ts') return 'notification rows';
  if (row.startsWith('project: server-push/') || row === 'project: server/modules/push.ts') return 'push dispatch after commit';
  if (row === 'project: server/core/redact.ts') return 'operation log write (onSend hook)';
  return 'other: event loop, AsyncLocalStorage, crypto, project code';
}

// ---------------------------------------------------------------- SQL census

/** What a statement is for, from its text. */
function statementPurpose(sqlText: string): string {
  const s = sqlText.replace(/"/g, '').toLowerCase();
  if (/^(begin|commit|rollback|savepoint|release)/.test(s)) return `transaction: ${s.split(' ')[0]}`;
  if (s.includes('sys_operation_log')) return 'operation log insert';
  if (s.includes('idempotency_key')) return 'idempotency bookkeeping';
  if (s.includes('push_subscription') || s.includes('push_state')) return 'push dispatch (after commit)';
  if (/\bnotification\b/.test(s)) return 'notification rows';
  if (s.startsWith('update sys_session')) return 'session renewal';
  if (s.includes('from sys_session')) return 'session lookup';
  if (s.includes('from auth_epoch')) return 'session lookup: the auth epoch (identity cache)';
  if (s.includes('sys_role_permission') || /from sys_permission\b/.test(s)) return 'permission lookup';
  if (s.startsWith('select') && s.includes('count(*)')) return 'list: count';
  if (s.startsWith('select')) return 'handler: select';
  return `handler: ${s.split(' ')[0]} ${/(?:into|update|from) (\w+)/.exec(s)?.[1] ?? ''}`.trim();
}

interface Census {
  statements: Map<string, { n: number; prepareMs: number; runMs: number }>;
  stop: () => void;
}

/** Times better-sqlite3's prepare and the statement calls the server makes, by purpose, until stopped. */
function startCensus(): Census {
  const statements = new Map<string, { n: number; prepareMs: number; runMs: number }>();
  const entry = (sqlText: string) => {
    const k = statementPurpose(sqlText);
    let e = statements.get(k);
    if (!e) statements.set(k, (e = { n: 0, prepareMs: 0, runMs: 0 }));
    return e;
  };
  const dbProto = Database.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const prepare = dbProto.prepare!;
  const probe = new Database(':memory:');
  const stmtProto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  const originals = Object.fromEntries([...SQLITE_CALLS].map((m) => [m, stmtProto[m]!]));
  dbProto.prepare = function (this: unknown, ...a: unknown[]) {
    const s = performance.now();
    const stmt = prepare.apply(this, a);
    // Counted where it runs: the server keeps compiled statements (server/db/index.ts), so most runs prepare nothing.
    entry(String(a[0])).prepareMs += performance.now() - s;
    return stmt;
  };
  for (const m of SQLITE_CALLS) {
    stmtProto[m] = function (this: { source: string }, ...a: unknown[]) {
      const s = performance.now();
      try {
        return originals[m]!.apply(this, a);
      } finally {
        const e = entry(this.source);
        e.n += 1;
        e.runMs += performance.now() - s;
      }
    };
  }
  return {
    statements,
    stop: () => {
      dbProto.prepare = prepare;
      for (const m of SQLITE_CALLS) stmtProto[m] = originals[m]!;
    },
  };
}

// ---------------------------------------------------------------- main

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length ? wanted : ['task-page', 'check'];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-profile-'));
  const password = 'Profile' + Date.now() + 'x';
  const logLevel = process.env.LOG_LEVEL ?? 'warn';
  const config = loadConfig({ DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD: password, PORT: '0', LOG_LEVEL: logLevel, SEED_GATE_HISTORY: '0' }, { staticDir: undefined });
  let app = await buildApp(config);
  await app.close();

  const raw = new Database(path.join(dataDir, 'park.db'));
  raw.pragma('journal_mode = WAL');
  const t0 = performance.now();
  const ids = seedAppointments(raw, APPOINTMENTS);
  if (names.includes('user-page')) {
    // As the bench: users straight into the file (the API would spend minutes hashing passwords).
    const hash = (raw.prepare("select password_hash from sys_user where account = 'admin'").get() as { password_hash: string }).password_hash;
    const departs = (raw.prepare('select depart_id from sys_department').all() as Array<{ depart_id: number }>).map((d) => d.depart_id);
    const insert = raw.prepare('insert into sys_user (user_name, account, password_hash, gender, phone, depart_id, status, uuid, create_time, update_time) values (?,?,?,?,?,?,?,?,?,?)');
    raw.transaction(() => {
      for (let i = 0; i < USERS; i += 1)
        insert.run(`用户${i}`, `bench_${i}`, hash, i % 2, `139${String(i).padStart(8, '0')}`, departs[i % departs.length], i % 10 ? 1 : 0, randomUUID(), '2026-01-01 08:00:00', '2026-01-01 08:00:00');
    })();
  }
  raw.exec('analyze');
  console.log(
    `Seeded ${APPOINTMENTS.toLocaleString()} appointments${names.includes('user-page') ? ` and ${USERS.toLocaleString()} users` : ''} in ${((performance.now() - t0) / 1000).toFixed(1)} s (${dataDir})`,
  );

  const all = cases(ids);
  const unknown = names.filter((n) => !all.some((c) => c.name === n));
  if (unknown.length) throw new Error(`unknown case ${unknown.join(', ')}; cases: ${all.map((c) => c.name).join(', ')}`);
  const chosen = all.filter((c) => names.includes(c.name));

  // The same count and page straight from better-sqlite3, sequentially; and the page alone (what a remembered total leaves).
  const baselines = new Map<string, { withCount: RunResult; pageOnly: RunResult }>();
  const rawLoad = (run: (i: number) => void): RunResult => {
    const times: number[] = [];
    for (let i = 0; i < 500; i += 1) {
      const s = performance.now();
      run(i);
      times.push(performance.now() - s);
    }
    const sorted = [...times].sort((a, b) => a - b);
    return { perSecond: 500 / (times.reduce((a, b) => a + b, 0) / 1000), p95: sorted[Math.floor(sorted.length * 0.95)]! };
  };
  for (const c of chosen) {
    if (!c.raw) continue;
    const { args, offset } = c.raw;
    const count = raw.prepare(c.raw.count);
    const page = raw.prepare(c.raw.page);
    baselines.set(c.name, {
      withCount: rawLoad((i) => {
        count.get(...args);
        page.all(...args, offset(i));
      }),
      pageOnly: rawLoad((i) => page.all(...args, offset(i))),
    });
  }
  raw.close();

  app = await buildApp(config, { logFile: path.join(dataDir, 'server.log') });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const tokens: Partial<Record<Account, string>> = {};
  for (const a of new Set(chosen.map((c) => c.account))) tokens[a] = await signInViaApi(origin, dataDir, a, password);
  const c0 = client(`${origin}/api`);
  await c0.ready;
  fs.mkdirSync(OUT, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_US });

  for (const c of chosen) {
    const n = c.idempotent ? DECISIONS : REQUESTS;
    const requests = (count: number) =>
      c.bodies(count).map((b) => ({
        path: c.path,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[c.account]}`, ...(c.idempotent ? { 'idempotency-key': randomUUID() } : {}) },
        body: JSON.stringify(b),
      }));
    await c0.run(requests(Math.max(50, Math.floor(n / 10))), c.concurrency);
    const timed = await c0.run(requests(n), c.concurrency);

    await session.post('Profiler.start');
    const profiled = await c0.run(requests(n), c.concurrency);
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    const file = path.join(OUT, `${c.name}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));

    const census = startCensus();
    const censused = await c0.run(requests(n), c.concurrency);
    census.stop();

    const b = analyse(profile);
    const base = baselines.get(c.name);
    console.log(`\n${c.label}: ${n} requests, ${c.concurrency} concurrent, signed in`);
    console.log(`  API, no profiler          ${timed.perSecond.toFixed(0).padStart(6)} req/s  p95 ${timed.p95.toFixed(2)} ms`);
    if (base) {
      const line = (label: string, r: RunResult) =>
        console.log(`  ${label.padEnd(25)} ${r.perSecond.toFixed(0).padStart(6)} pages/s  p95 ${r.p95.toFixed(2)} ms  → API / raw ${((timed.perSecond / r.perSecond) * 100).toFixed(0)} %`);
      line('raw count + page', base.withCount);
      line('raw page alone', base.pageOnly);
    }
    console.log(
      `  API, under the profiler   ${profiled.perSecond.toFixed(0).padStart(6)} req/s; main thread busy ${(b.busyMs / n).toFixed(3)} ms/request, idle ${((b.idleMs / (b.busyMs + b.idleMs)) * 100).toFixed(0)} % (${file})`,
    );
    // One table in one unit: SQL as timed around each better-sqlite3 call (a blocked fsync included, which sampling
    // misses), everything else as the profile saw it.
    const summary = new Map<string, number>();
    const prepared = [...census.statements.values()].reduce((a, e) => a + e.prepareMs, 0);
    summary.set('SQL: prepare the statement (every query)', prepared);
    for (const [k, e] of census.statements) if (e.runMs > 0) summary.set(`SQL: ${k}`, e.runMs);
    for (const [k, ms] of b.layers) if (!k.startsWith('SQLite:')) summary.set(k, ms);
    const summed = [...summary.values()].reduce((a, ms) => a + ms, 0);
    const issue = new Map<string, number>();
    for (const [k, ms] of summary) issue.set(issueCategory(k), (issue.get(issueCategory(k)) ?? 0) + ms);
    printTable(`Where the main thread's time goes: ${(summed / n).toFixed(2)} ms/request, by the parts of issue 14`, issue, n, summed);
    printTable('The same in detail (SQL timed around better-sqlite3 calls, a blocked fsync included; the rest from the profile)', summary, n, summed, 30);
    printTable('CPU of the main thread by the innermost known frame (what kind of work)', b.layers, n, b.busyMs);
    printTable('CPU by the innermost frame that says which part of the request it serves', b.purposes, n, b.busyMs, 20);
    printTable('CPU by the innermost project function (total: itself and what it calls)', b.functions, n, b.busyMs, 15);
    const sqlTotal = [...census.statements.values()].reduce((a, e) => a + e.prepareMs + e.runMs, 0);
    console.log(`\n  SQL statements by purpose (timed around better-sqlite3 calls; ${censused.perSecond.toFixed(0)} req/s in this run)`);
    console.log(`  ${'purpose'.padEnd(40)} ${'stmts/req'.padStart(9)} ${'prepare ms/req'.padStart(15)} ${'run ms/req'.padStart(11)} ${'% of SQL'.padStart(9)}`);
    for (const [k, e] of [...census.statements.entries()].sort((x, y) => y[1].prepareMs + y[1].runMs - (x[1].prepareMs + x[1].runMs))) {
      console.log(
        `  ${k.padEnd(40)} ${(e.n / n).toFixed(2).padStart(9)} ${(e.prepareMs / n).toFixed(3).padStart(15)} ${(e.runMs / n).toFixed(3).padStart(11)} ${(((e.prepareMs + e.runMs) / sqlTotal) * 100).toFixed(1).padStart(9)}`,
      );
    }
    const stmts = [...census.statements.values()].reduce((a, e) => a + e.n, 0);
    const prep = [...census.statements.values()].reduce((a, e) => a + e.prepareMs, 0);
    console.log(`  ${'total'.padEnd(40)} ${(stmts / n).toFixed(2).padStart(9)} ${(prep / n).toFixed(3).padStart(15)} ${((sqlTotal - prep) / n).toFixed(3).padStart(11)}`);
  }
  session.disconnect();
  await c0.close();
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

await main();
