import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carListImportApi } from '../../domain/schemas/black-white-list';
import { READY_CHECKS, type Readiness } from '../../domain/schemas/health';
import { openDatabase, type Database_ } from '../../server/db/index';
import { MIGRATION_LEVEL } from '../../server/db/migrate';
import { MIN_DISK_FREE_RATIO, setMinDiskFreeRatio } from '../../server/ops/health';
import { createDatabase } from '../../scripts/pg-database';
import { startServerProcess, type ServerProcess } from '../../scripts/server-process';
import { Client, DEMO_PASSWORD, dialects, startSecondServer, startServer, type DialectName, type TestServer } from './harness';

/**
 * The operators' routes (server/ops, docs/operations.md): the liveness and
 * readiness probes, each readiness check failing on its own and recovering,
 * none of them asking for a session; /metrics behind METRICS_TOKEN, in the
 * Prometheus text format, with every family the alerts and the dashboard
 * read; and, with WEB_CONCURRENCY=2, one scrape reporting both processes.
 */

const TOKEN = 'metrics-test-token';
const covered = await dialects();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer<T = unknown> {
  status: number;
  body: { success: boolean; code: number; msg: string; data: T };
}
async function getJson<T = unknown>(base: string, url: string): Promise<Answer<T>> {
  const res = await fetch(base + url);
  return { status: res.status, body: (await res.json()) as Answer<T>['body'] };
}
const ready = (base: string) => getJson<Readiness>(base, '/api/health/ready');
const checkOf = (a: Answer<Readiness>, name: string) => a.body.data.checks.find((c) => c.name === name)!;

async function scrape(base: string, token: string | null = TOKEN): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${base}/metrics`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}
async function families(base: string): Promise<Map<string, PromFamily>> {
  const r = await scrape(base);
  expect(r.status, r.text.slice(0, 500)).toBe(200);
  return new Map(parsePrometheusTextFormat(r.text).map((f) => [f.name, f]));
}
/** The value of one sample: the family's sample whose labels include `labels`. */
function sample(fams: Map<string, PromFamily>, name: string, labels: Record<string, string> = {}): number | undefined {
  const fam = fams.get(name);
  const s = fam?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return s?.value === undefined ? undefined : Number(s.value);
}
const sumOf = (fams: Map<string, PromFamily>, name: string, labels: Record<string, string> = {}) =>
  (fams.get(name)?.metrics ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)).reduce((n, m) => n + Number(m.value), 0);

/** Holds every connection the server's database has (SQLite's one, PostgreSQL's pool of 10) in a transaction for `ms`. */
function holdDatabase(server: TestServer, ms: number): Promise<unknown> {
  const connections = server.dialect === 'postgres' ? 10 : 1;
  return Promise.all(Array.from({ length: connections }, () => server.app.ctx.db.transaction().execute(() => sleep(ms))));
}

const FAMILIES = [
  'park_http_requests_total',
  'park_http_request_duration_seconds',
  'park_db_statement_duration_seconds',
  'park_db_group_commit_wait_seconds',
  'park_outbox_backlog',
  'park_outbox_failed',
  'park_devices_online',
  'park_devices_offline',
  'park_open_alarms',
  'park_approval_tasks_pending',
  'park_imports_running',
  'park_car_list_imports_in_flight',
  'park_backup_last_success_timestamp_seconds',
  'park_health_check_ok',
  'park_data_disk_free_ratio',
  'park_data_disk_free_bytes',
  'park_muster_running',
  'park_muster_sms_waiting',
  'park_allowlist_version',
  'park_allowlist_gates_stale',
  'park_approval_steps_due',
  // prom-client's default process and Node metrics.
  'process_cpu_user_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_seconds',
  'nodejs_heap_size_used_bytes',
];

for (const dialect of covered) {
  describe(`health probes and /metrics on ${dialect}`, () => {
    let server: TestServer;
    let scraped: TestServer;
    let db: Kysely<any>;

    beforeAll(async () => {
      server = await startServer(dialect);
      // The same database and data directory, with METRICS_TOKEN set: the one whose /metrics answers.
      scraped = await startSecondServer(server, { metricsToken: TOKEN }, 'metrics');
      db = server.app.ctx.db as unknown as Kysely<any>;
    });
    afterAll(async () => {
      await scraped?.close();
      await server?.close();
    });

    it('answers live with 200 without a session', async () => {
      const r = await getJson(server.base, '/api/health/live');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ success: true, code: 1000, data: { live: true } });
    });

    it('answers ready with 200 and every check passed, without a session', async () => {
      const r = await ready(server.base);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ success: true, code: 1000, data: { ready: true } });
      expect(r.body.data.checks.map((c) => c.name)).toEqual([...READY_CHECKS]);
      expect(r.body.data.checks.every((c) => c.ok && /[\u4e00-\u9fff]/.test(c.detail))).toBe(true);
      // The probe file is gone: nothing is left in the store.
      expect(fs.readdirSync(path.join(server.dataDir, 'files')).filter((f) => f.startsWith('.ready-probe'))).toEqual([]);
    });

    it('answers ready with 503 naming the database when it does not answer within 1 s, and 200 once it does', async () => {
      const held = holdDatabase(server, 3_000);
      await sleep(100);
      const started = Date.now();
      const r = await ready(server.base);
      // The timer answered, not the database: it is held for three seconds.
      expect(Date.now() - started).toBeLessThan(2_800);
      expect(r.status, JSON.stringify(r.body)).toBe(503);
      expect(r.body).toMatchObject({ success: false, code: 1500, data: { ready: false } });
      expect(r.body.msg).toContain('数据库未通过');
      expect(checkOf(r, 'database')).toMatchObject({ ok: false, detail: '数据库 1 秒内未响应' });
      expect(checkOf(r, 'file_store').ok).toBe(true);
      expect(checkOf(r, 'disk').ok).toBe(true);
      await held;
      expect((await ready(server.base)).status).toBe(200);
    });

    it('answers ready with 503 naming the database when its connection is gone', async () => {
      const broken = await startSecondServer(server, {}, 'broken');
      try {
        await broken.app.ctx.db.destroy();
        const r = await ready(broken.base);
        expect(r.status, JSON.stringify(r.body)).toBe(503);
        expect(checkOf(r, 'database')).toMatchObject({ ok: false });
        expect(checkOf(r, 'database').detail).toContain('数据库无法访问');
        expect(checkOf(r, 'migrations').ok).toBe(false);
        expect(checkOf(r, 'file_store').ok).toBe(true);
        // Live still answers: a process with a lost database needs the database back, not a restart.
        expect((await getJson(broken.base, '/api/health/live')).status).toBe(200);
      } finally {
        await broken.close().catch(() => undefined);
      }
    });

    it('answers ready with 503 naming the migrations when the database is behind this build', async () => {
      const last = await db.selectFrom('kysely_migration').selectAll().where('name', '=', MIGRATION_LEVEL).executeTakeFirstOrThrow();
      await db.deleteFrom('kysely_migration').where('name', '=', MIGRATION_LEVEL).execute();
      try {
        const r = await ready(server.base);
        expect(r.status, JSON.stringify(r.body)).toBe(503);
        expect(r.body.msg).toContain('迁移级别未通过');
        expect(checkOf(r, 'migrations').ok).toBe(false);
        expect(checkOf(r, 'migrations').detail).toContain(`本程序需要 ${MIGRATION_LEVEL}`);
        expect(checkOf(r, 'database').ok).toBe(true);
      } finally {
        await db.insertInto('kysely_migration').values(last).execute();
      }
      expect((await ready(server.base)).status).toBe(200);
    });

    it('answers ready with 503 naming the file store when it cannot be written', async () => {
      // Tests run as root, whom a mode of 0o500 does not stop: a regular file where the folder should be does.
      const files = path.join(server.dataDir, 'files');
      const moved = `${files}.moved`;
      const had = fs.existsSync(files);
      if (had) fs.renameSync(files, moved);
      fs.writeFileSync(files, 'not a folder');
      try {
        const r = await ready(server.base);
        expect(r.status, JSON.stringify(r.body)).toBe(503);
        expect(r.body.msg).toContain('文件存储未通过');
        expect(checkOf(r, 'file_store')).toMatchObject({ ok: false });
        expect(checkOf(r, 'file_store').detail).toContain('文件存储目录不可写');
        expect(checkOf(r, 'database').ok).toBe(true);
      } finally {
        fs.rmSync(files, { force: true });
        if (had) fs.renameSync(moved, files);
      }
      expect((await ready(server.base)).status).toBe(200);
    });

    it('answers ready with 503 naming the disk when less than the threshold is free', async () => {
      // No disk is filled: the threshold goes above any free share (at most 100 %).
      setMinDiskFreeRatio(server.app, 1.01);
      try {
        const r = await ready(server.base);
        expect(r.status, JSON.stringify(r.body)).toBe(503);
        expect(r.body.msg).toContain('磁盘空间未通过');
        expect(checkOf(r, 'disk')).toMatchObject({ ok: false });
        expect(checkOf(r, 'disk').detail).toMatch(/^数据盘剩余 [\d.]+%.*低于 101\.0%/);
        expect(r.body.data.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['disk']);
      } finally {
        setMinDiskFreeRatio(server.app, MIN_DISK_FREE_RATIO);
      }
      expect((await ready(server.base)).status).toBe(200);
    });

    it('answers /metrics 404 as an unknown path when no METRICS_TOKEN is set', async () => {
      const r = await scrape(server.base);
      const unknown = await fetch(`${server.base}/no-such-page`);
      expect(r.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(JSON.parse(r.text)).toEqual(await unknown.json());
      expect(JSON.parse(r.text)).toMatchObject({ success: false, code: 1005 });
    });

    it('answers /metrics 401 without the token or with a wrong one', async () => {
      for (const token of [null, 'wrong-token', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
        const r = await scrape(scraped.base, token);
        expect(r.status, String(token)).toBe(401);
        expect(JSON.parse(r.text)).toMatchObject({ success: false, code: 1002 });
      }
    });

    it('serves every metric family in the Prometheus text format, calls counted by route template', async () => {
      for (let i = 0; i < 3; i++) expect((await fetch(`${scraped.base}/api/health/live`)).status).toBe(200);
      expect((await fetch(`${scraped.base}/api/common/enum/secret-name`)).status).toBe(401);
      expect((await fetch(`${scraped.base}/api/no/such/route/12345`)).status).toBe(404);
      const r = await scrape(scraped.base);
      expect(r.status).toBe(200);
      expect(r.type).toMatch(/^text\/plain; version=0\.0\.4/);
      const fams = new Map(parsePrometheusTextFormat(r.text).map((f) => [f.name, f]));
      const missing = FAMILIES.filter((f) => !fams.has(f));
      expect(missing, 'metric families missing from /metrics').toEqual([]);

      expect(sample(fams, 'park_http_requests_total', { method: 'GET', route: '/api/health/live', status: '200' })).toBeGreaterThanOrEqual(3);
      expect(sample(fams, 'park_http_requests_total', { method: 'GET', route: '/api/common/enum/:name', status: '401' })).toBeGreaterThanOrEqual(1);
      expect(sample(fams, 'park_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
      // The template, never the path as sent.
      const routes = fams.get('park_http_requests_total')!.metrics.map((m) => m.labels!.route!);
      expect(routes.filter((x) => x.includes('secret-name') || x.includes('12345'))).toEqual([]);
      const latency = fams.get('park_http_request_duration_seconds')!;
      expect(latency.type).toBe('HISTOGRAM');
      // The parser folds a labelled histogram's series into one bucket map: the per-route count is read from the text.
      const count = /^park_http_request_duration_seconds_count\{method="GET",route="\/api\/health\/live"\} (\d+)$/m.exec(r.text);
      expect(Number(count?.[1])).toBeGreaterThanOrEqual(3);

      expect(fams.get('park_db_statement_duration_seconds')!.type).toBe('HISTOGRAM');
      expect(fams.get('park_db_group_commit_wait_seconds')!.type).toBe('HISTOGRAM');
      for (const check of READY_CHECKS) expect(sample(fams, 'park_health_check_ok', { check }), check).toBe(1);
      const free = sample(fams, 'park_data_disk_free_ratio')!;
      expect(free).toBeGreaterThan(0);
      expect(free).toBeLessThanOrEqual(1);
      expect(sample(fams, 'park_data_disk_free_bytes')).toBeGreaterThan(0);
      for (const name of ['park_approval_tasks_pending', 'park_devices_online', 'park_devices_offline', 'park_open_alarms', 'park_outbox_backlog', 'park_outbox_failed', 'park_imports_running']) {
        const values = fams.get(name)!.metrics.map((m) => Number(m.value));
        expect(values.length, name).toBeGreaterThan(0);
        expect(
          values.every((v) => Number.isInteger(v) && v >= 0),
          name,
        ).toBe(true);
      }
      expect(sample(fams, 'park_car_list_imports_in_flight')).toBe(0);
    });

    it('reflects changes to the database in the gauges at the next scrape', async () => {
      const before = await families(scraped.base);
      const now = Date.now();
      const time = '2026-01-01 08:00:00';
      const sms = await db
        .insertInto('outbox_message')
        .values({ channel: 'sms', origin: 'captcha', origin_id: null, payload: '[]', state: 0, created_at: now })
        .returning('message_id')
        .executeTakeFirstOrThrow();
      const admin = await db.selectFrom('sys_user').select('user_id').where('account', '=', 'admin').executeTakeFirstOrThrow();
      const note = await db
        .insertInto('notification')
        .values({ user_id: admin.user_id, kind: 'notice', title: '测试', body: '测试', url: '/', tag: `metrics-${dialect}`, create_time: time, created_at: now, push_state: 0 })
        .returning('notification_id')
        .executeTakeFirstOrThrow();
      const alarm = await db
        .insertInto('stranded_alarm')
        .values({ kind: 'car', presence_id: null, level_type: 4, application_id: 999_999, entry_time: time, alarm_time: time, create_time: time })
        .returning('id')
        .executeTakeFirstOrThrow();
      const gate = await new Client(server).as('admin');
      const saved = await gate.post<{ id: number }>('/equipment/gate/save', {
        name: '指标测试道闸',
        number: `METRICS-GATE-${dialect}`,
        type: 1,
        entrances_type: 1,
        is_security_check: 0,
        temporary_reservation: 0,
      });
      expect(saved.body, JSON.stringify(saved.body)).toMatchObject({ success: true });
      try {
        const after = await families(scraped.base);
        expect(sample(after, 'park_outbox_backlog', { channel: 'sms' })).toBe(sample(before, 'park_outbox_backlog', { channel: 'sms' })! + 1);
        expect(sample(after, 'park_outbox_backlog', { channel: 'push' })).toBe(sample(before, 'park_outbox_backlog', { channel: 'push' })! + 1);
        expect(sample(after, 'park_open_alarms', { kind: 'car' })).toBe(sample(before, 'park_open_alarms', { kind: 'car' })! + 1);
        expect(sample(after, 'park_devices_offline', { kind: 'gate' })).toBe(sample(before, 'park_devices_offline', { kind: 'gate' })! + 1);

        await db.updateTable('outbox_message').set({ state: 3, settled_at: now, error: 'test' }).where('message_id', '=', sms.message_id).execute();
        await db.updateTable('notification').set({ push_state: 2 }).where('notification_id', '=', note.notification_id).execute();
        const settled = await families(scraped.base);
        expect(sample(settled, 'park_outbox_backlog', { channel: 'sms' })).toBe(sample(before, 'park_outbox_backlog', { channel: 'sms' }));
        expect(sample(settled, 'park_outbox_failed', { channel: 'sms' })).toBe(sample(before, 'park_outbox_failed', { channel: 'sms' })! + 1);
        expect(sample(settled, 'park_outbox_failed', { channel: 'push' })).toBe(sample(before, 'park_outbox_failed', { channel: 'push' })! + 1);
      } finally {
        await db.deleteFrom('outbox_message').where('message_id', '=', sms.message_id).execute();
        await db.deleteFrom('notification').where('notification_id', '=', note.notification_id).execute();
        await db.deleteFrom('stranded_alarm').where('id', '=', alarm.id).execute();
        await gate.post('/equipment/gate/delete', { id: saved.body.data.id });
      }
    });

    it('counts a car-list import while its upload is in flight, and not once the client leaves', async () => {
      const admin = await new Client(scraped).as('admin');
      const { port } = new URL(scraped.base);
      // The headers of an upload whose body never completes: the call has started and waits for its file.
      const upload = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api${carListImportApi.upload.path}`,
        headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'multipart/form-data; boundary=x', 'transfer-encoding': 'chunked' },
      });
      upload.on('error', () => undefined);
      upload.write('--x\r\n');
      try {
        let inFlight: number | undefined;
        for (let i = 0; i < 50 && inFlight !== 1; i++) {
          await sleep(50);
          inFlight = sample(await families(scraped.base), 'park_car_list_imports_in_flight');
        }
        expect(inFlight).toBe(1);
      } finally {
        upload.destroy();
      }
      let after: number | undefined;
      for (let i = 0; i < 50 && after !== 0; i++) {
        await sleep(50);
        after = sample(await families(scraped.base), 'park_car_list_imports_in_flight');
      }
      expect(after).toBe(0);
    });

    it('reports the time of the last backup that succeeded, and nothing before there is one', async () => {
      const db = scraped.app.ctx.db;
      await db.deleteFrom('backup_run').execute();
      const none = await families(scraped.base);
      expect(none.get('park_backup_last_success_timestamp_seconds')?.metrics ?? []).toEqual([]);
      const run = (finished_ms: number, error: string | null) => ({
        started_at: '2026-01-01 02:30:00',
        finished_at: '2026-01-01 02:31:00',
        finished_ms,
        duration_ms: 60_000,
        file_name: error ? '' : 'park-backup-20260101-023000.tar',
        size_bytes: error ? 0 : 1024,
        verified: error ? 0 : 1,
        error,
        reason: 'nightly',
        host: 'test',
        pid: 1,
      });
      // A later failure does not count as a backup.
      await db
        .insertInto('backup_run')
        .values([run(1_767_225_600_000, null), run(1_767_312_000_000, '磁盘已满')])
        .execute();
      try {
        expect(sample(await families(scraped.base), 'park_backup_last_success_timestamp_seconds')).toBe(1_767_225_600);
      } finally {
        await db.deleteFrom('backup_run').execute();
      }
    });

    it('shows a failing readiness check in park_health_check_ok', async () => {
      setMinDiskFreeRatio(scraped.app, 1.01);
      try {
        const fams = await families(scraped.base);
        expect(sample(fams, 'park_health_check_ok', { check: 'disk' })).toBe(0);
        expect(sample(fams, 'park_health_check_ok', { check: 'database' })).toBe(1);
      } finally {
        setMinDiskFreeRatio(scraped.app, MIN_DISK_FREE_RATIO);
      }
    });
  });
}

/** A GET on a connection of its own: node:cluster hands each new connection to the next process in turn. */
function getOnNewConnection(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { connection: 'close', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
}

describe.each(covered)('/metrics with WEB_CONCURRENCY=2 (%s)', (dialect: DialectName) => {
  let proc: ServerProcess;
  let database: Database_;
  let dataDir = '';
  let pg: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-metrics-cluster-'));
    pg = dialect === 'postgres' ? await createDatabase('park_metrics') : undefined;
    proc = await startServerProcess({
      WEB_CONCURRENCY: '2',
      DATA_DIR: dataDir,
      STATIC_DIR: path.join(dataDir, 'no-ui'),
      SMS_PROVIDER: 'file',
      DEMO_PASSWORD,
      SEED_GATE_HISTORY: '0',
      LOG_LEVEL: 'warn',
      METRICS_TOKEN: TOKEN,
      DATABASE_URL: pg?.url ?? '',
    });
    database = openDatabase({ dataDir, databaseUrl: pg?.url });
  }, 120_000);
  afterAll(async () => {
    await database?.close();
    if (proc) expect(await proc.stop(), 'the primary exits cleanly').toBe(0);
    await pg?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('sums the calls both processes served, and reports the database figures once', async () => {
    expect(proc.workers()).toHaveLength(2);
    for (let i = 0; i < 20; i++) expect((await getOnNewConnection(`${proc.base}/api/health/live`)).status).toBe(200);
    // Two scrapes, on new connections, so each lands on a different process: both answer for the whole server.
    for (let i = 0; i < 2; i++) {
      // A worker starved past prom-client's 5 s wait (two cores shared with the other suites) makes one scrape a 503, as a
      // Prometheus scrape would meet it; the next scrape is whole. Three tries, each on a new connection.
      let r = await getOnNewConnection(`${proc.base}/metrics`, { authorization: `Bearer ${TOKEN}` });
      for (let retry = 0; retry < 2 && r.status === 503; retry++) r = await getOnNewConnection(`${proc.base}/metrics`, { authorization: `Bearer ${TOKEN}` });
      expect(r.status, r.body.slice(0, 500)).toBe(200);
      const fams = new Map(parsePrometheusTextFormat(r.body).map((f) => [f.name, f]));
      // Connections alternate between the processes: each served about half of them, the scrape counts all 20.
      expect(sumOf(fams, 'park_http_requests_total', { method: 'GET', route: '/api/health/live', status: '200' })).toBe(20);
      const live = await database.db.selectFrom('equipment').select(['state']).where('deleted', '=', 0).execute();
      expect(sumOf(fams, 'park_devices_offline')).toBe(live.filter((d) => d.state !== 1).length);
      expect(sumOf(fams, 'park_devices_online')).toBe(live.filter((d) => d.state === 1).length);
      for (const check of READY_CHECKS) expect(sample(fams, 'park_health_check_ok', { check }), check).toBe(1);
      expect(fams.get('park_db_statement_duration_seconds')?.type).toBe('HISTOGRAM');
    }
    expect((await getOnNewConnection(`${proc.base}/metrics`, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await getOnNewConnection(`${proc.base}/api/health/ready`)).status).toBe(200);
  }, 60_000);
});
