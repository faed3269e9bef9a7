import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { TaskState } from '../../domain/appointments';
import { formatInZone } from '../../domain/time';
import { approvalQueues } from '../../domain/approval-queues';
import { ErrorCode } from '../../domain/errors';
import { carListImportApi } from '../../domain/schemas/black-white-list';
import { equipmentKindList } from '../../domain/schemas/equipment';
import { ImportStatus } from '../../domain/schemas/person-import';
import { STRANDED_KINDS } from '../../domain/stranded-kinds';
import { PushState } from '../../server-push/dispatch';
import { bearerToken } from '../core/auth';
import { failure } from '../core/errors';
import { OutboxState, SMS_CHANNEL } from '../core/sms-outbox';
import type { Database_ } from '../db/index';
import { registerHealth, within, type ReadinessProbe } from './health';

/**
 * Prometheus metrics at GET /metrics (docs/operations.md), in prom-client's
 * text format, from a registry of the app's own (never prom-client's global
 * one): the process's default metrics, HTTP calls by route template, the
 * database's statement and group-commit times, and figures read from the
 * database when scraped (outboxes, devices, alarms, approval tasks, imports,
 * the last backup, the data disk). The route asks for METRICS_TOKEN as a
 * bearer token; without one configured it is not there (404).
 *
 * Two registries per app. The process's own (calls, timings, Node, the
 * readiness checks) is in-memory and quick. The figures read from the
 * database are the same whichever process reads them, so they sit apart:
 * only the process that answers the scrape reads them, once. With
 * WEB_CONCURRENCY that process asks the primary for every process's own
 * registry, aggregated (ops/metrics-cluster.ts), while it reads the figures;
 * a slow database then costs the scrape its figures, never the aggregation,
 * whose wait for each worker prom-client fixes at 5 s.
 */

const STATEMENT_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Past this the figures are left out of the scrape rather than holding it (Prometheus gives a scrape 10 s). */
const FIGURES_TIMEOUT_MS = 5_000;

// Per process, not per app: the database layer reports into them without knowing the app (tests run several apps in one process).
const statementSeconds = new Histogram({
  name: 'park_db_statement_duration_seconds',
  help: '数据库语句执行耗时（秒）',
  buckets: STATEMENT_BUCKETS,
  registers: [],
});
const groupCommitWaitSeconds = new Histogram({
  name: 'park_db_group_commit_wait_seconds',
  help: 'SQLite 组提交：写入等待 WAL 落盘的时间（秒）',
  buckets: STATEMENT_BUCKETS,
  registers: [],
});

const allowlistRecordsSeconds = new Histogram({
  name: 'park_allowlist_records_seconds',
  help: '离线名单：服务器读取全部名单记录（whole）或按变更日志修补（patched）的耗时（秒）',
  labelNames: ['how'] as const,
  buckets: REQUEST_BUCKETS,
  registers: [],
});

/** The offline gates' shared records were read whole or patched from the change log, taking `seconds`. */
export function observeAllowlistRecords(how: 'whole' | 'patched', seconds: number): void {
  if (seconds >= 0 && Number.isFinite(seconds)) allowlistRecordsSeconds.observe({ how }, seconds);
}

/** How many times this process has read the records whole and patched them (for tests). */
export async function allowlistRecordsCounts(): Promise<{ whole: number; patched: number }> {
  const counts = { whole: 0, patched: 0 };
  for (const v of (await allowlistRecordsSeconds.get()).values) if (v.metricName?.endsWith('_count')) counts[v.labels.how as 'whole' | 'patched'] = v.value;
  return counts;
}

/** One statement's run time, in seconds; the database layer calls it for each statement. */
export function observeStatement(seconds: number): void {
  // A clock that stepped back must never fail the statement that reported it.
  if (seconds >= 0 && Number.isFinite(seconds)) statementSeconds.observe(seconds);
}

/** How long a write waited for the group commit's sync, in seconds. */
export function observeGroupCommitWait(seconds: number): void {
  if (seconds >= 0 && Number.isFinite(seconds)) groupCommitWaitSeconds.observe(seconds);
}

let processDefaults: Registry | null = null;
/** The process and Node metrics, started once per process on first use: each start adds observers that are never stopped. */
function defaultMetrics(): Registry {
  if (!processDefaults) {
    processDefaults = new Registry();
    collectDefaultMetrics({ register: processDefaults });
  }
  return processDefaults;
}

interface AppMetrics {
  /** This process's own metrics: what the primary aggregates across processes. */
  registry: Registry;
  /** The figures read from the database, read by the process that answers the scrape. */
  figures: Registry;
  /** The process metrics a scrape answers: this process's registry, or with WEB_CONCURRENCY every process's (ops/metrics-cluster.ts). */
  processText: () => Promise<string>;
}
const appMetrics = new WeakMap<FastifyInstance, AppMetrics>();

function metricsOf(app: FastifyInstance): AppMetrics {
  const m = appMetrics.get(app);
  if (!m) throw new Error('the metrics are not registered on this app');
  return m;
}

/** The app's registry: what a worker hands to the primary's aggregation. */
export const metricsRegistryOf = (app: FastifyInstance): Registry => metricsOf(app).registry;

/** Replaces where a scrape takes the process metrics from (a worker asks the primary instead). */
export function setProcessMetricsSource(app: FastifyInstance, processText: () => Promise<string>): void {
  metricsOf(app).processText = processText;
}

/** Two texts in the exposition format, each whole families, as one. */
const joinExpositions = (a: string, b: string) => (a.endsWith('\n') || a === '' ? a + b : `${a}\n${b}`);

/** The figures the gauges read from the database, one read per scrape. */
interface DbFigures {
  outbox: Record<'push' | 'sms', { waiting: number; failed: number }>;
  devices: Array<{ kind: string; online: number; offline: number }>;
  openAlarms: Array<{ kind: string; open: number }>;
  pendingTasks: Array<{ queue: string; pending: number }>;
  /** Approval deadline steps due and not yet fired (docs/approvals.md): near 0 while the timer keeps up. */
  approvalStepsDue: number;
  personImportsRunning: number;
  /** 1 while an emergency headcount runs (docs/muster.md), and its SMS batches still waiting. */
  musterRunning: number;
  musterSmsWaiting: number;
  /** The offline allow-list's version, and the gates whose last reported list is past ALLOWLIST_MAX_AGE (docs/offline-gates.md). */
  allowlistVersion: number;
  allowlistGatesStale: number;
}

/**
 * Counts only, each on an index: the push outbox on notification_push (push_state, id), waiting SMS on the
 * partial index outbox_message_waiting, devices on the small equipment table, open alarms on
 * stranded_alarm_open, pending tasks on process_task_due (state 0), imports on person_import_task_status,
 * failed SMS on the partial index outbox_message_failed.
 */
async function readFigures({ db }: Database_, listStaleBefore: string, nowMs: number): Promise<DbFigures> {
  const n = (v: unknown) => Number(v ?? 0);
  const [push, smsWaiting, smsFailed, devices, alarms, tasks, imports, muster, musterSms, listVersion, staleGates, stepsDue] = await Promise.all([
    db
      .selectFrom('notification')
      .select(['push_state', (eb) => eb.fn.countAll().as('n')])
      .where('push_state', 'in', [PushState.WAITING, PushState.GAVE_UP])
      .groupBy('push_state')
      .execute(),
    db
      .selectFrom('outbox_message')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('state', '=', OutboxState.WAITING)
      .where('channel', '=', SMS_CHANNEL)
      .executeTakeFirst(),
    db
      .selectFrom('outbox_message')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('state', '=', OutboxState.FAILED)
      .where('channel', '=', SMS_CHANNEL)
      .executeTakeFirst(),
    db
      .selectFrom('equipment')
      .select(['kind', (eb) => eb.fn.countAll().as('total'), (eb) => eb.fn.sum(eb.case().when('state', '=', 1).then(1).else(0).end()).as('online')])
      .where('deleted', '=', 0)
      .groupBy('kind')
      .execute(),
    db
      .selectFrom('stranded_alarm')
      .select(['kind', (eb) => eb.fn.countAll().as('n')])
      .where('handle_time', 'is', null)
      .groupBy('kind')
      .execute(),
    db
      .selectFrom('process_task')
      .select(['queue', (eb) => eb.fn.countAll().as('n')])
      .where('state', '=', TaskState.PENDING)
      .groupBy('queue')
      .execute(),
    db
      .selectFrom('person_import_task')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', ImportStatus.RUNNING)
      .executeTakeFirst(),
    db.selectFrom('muster').select('id').where('running', '=', 1).executeTakeFirst(),
    db
      .selectFrom('outbox_message')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('state', '=', OutboxState.WAITING)
      .where('origin', '=', 'muster')
      .executeTakeFirst(),
    db
      .selectFrom('allowlist_change')
      .select((eb) => eb.fn.max('id').as('n'))
      .executeTakeFirst(),
    db
      .selectFrom('equipment')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('kind', '=', 'gate')
      .where('deleted', '=', 0)
      .where('allowlist_time', '<', listStaleBefore)
      .executeTakeFirst(),
    // The deadline job's backlog (index process_task_next): steps whose time has come and not yet fired.
    db
      .selectFrom('process_task')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('next_at', 'is not', null)
      .where('next_at', '<=', nowMs)
      .executeTakeFirst(),
  ]);
  const pushCount = (state: number) => n(push.find((r) => r.push_state === state)?.n);
  const byKind = new Map(devices.map((d) => [d.kind, { total: n(d.total), online: n(d.online) }]));
  // Every queue, with zeros, so a dashboard's series do not come and go; a task of no queue (a plain approval step) is 'none'.
  const pendingByQueue = new Map<string, number>(Object.keys(approvalQueues).map((q) => [q, 0]));
  for (const t of tasks) pendingByQueue.set(t.queue ?? 'none', n(t.n));
  return {
    outbox: {
      push: { waiting: pushCount(PushState.WAITING), failed: pushCount(PushState.GAVE_UP) },
      sms: { waiting: n(smsWaiting?.n), failed: n(smsFailed?.n) },
    },
    // Every kind of the menu, with zeros: an alert on offline gates needs the series even when there are none.
    devices: equipmentKindList.map(({ kind }) => {
      const { total, online } = byKind.get(kind) ?? { total: 0, online: 0 };
      return { kind, online, offline: total - online };
    }),
    openAlarms: STRANDED_KINDS.map((kind) => ({ kind, open: n(alarms.find((a) => a.kind === kind)?.n) })),
    pendingTasks: [...pendingByQueue].map(([queue, pending]) => ({ queue, pending })),
    personImportsRunning: n(imports?.n),
    musterRunning: muster ? 1 : 0,
    musterSmsWaiting: n(musterSms?.n),
    allowlistVersion: n(listVersion?.n),
    allowlistGatesStale: n(staleGates?.n),
    approvalStepsDue: n(stepsDue?.n),
  };
}

/** Constant-time comparison of the bearer token with the configured one (digests, so lengths never differ). */
function tokenMatches(given: string | null, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given ?? ''), digest(expected)) && given !== null;
}

/** Registers the metrics (and the route) on the app; `probe` is the readiness probe the health gauges read. */
export function registerMetrics(app: FastifyInstance, database: Database_, probe: ReadinessProbe): Registry {
  const registry = new Registry();
  // The same metric objects in each app's registry: a metric may sit in several registries (prom-client types them as plain objects).
  for (const metric of [...(defaultMetrics().getMetricsAsArray() as unknown as Metric[]), statementSeconds, groupCommitWaitSeconds, allowlistRecordsSeconds]) registry.registerMetric(metric);
  const figuresRegistry = new Registry();
  const state: AppMetrics = { registry, figures: figuresRegistry, processText: () => registry.metrics() };
  appMetrics.set(app, state);

  const requests = new Counter({
    name: 'park_http_requests_total',
    help: 'HTTP 请求数，按方法、路由模板与状态码',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: 'park_http_request_duration_seconds',
    help: 'HTTP 请求耗时（秒），按方法与路由模板',
    labelNames: ['method', 'route'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  // The route's template (`/api/common/enum/:name`), never the path as sent: one series per route, whatever the ids or the probing.
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    requestSeconds.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    done();
  });

  // A car-list upload is checked and saved within its call: the imports running are the calls in flight in this process.
  const carListUpload = `/api${carListImportApi.upload.path}`;
  const carListImports = new Gauge({
    name: 'park_car_list_imports_in_flight',
    help: '正在处理的车辆黑白名单导入请求数',
    registers: [registry],
    aggregator: 'sum',
  });
  app.addHook('onRequest', (req, reply, done) => {
    if (req.method === 'POST' && req.routeOptions.url === carListUpload) {
      carListImports.inc();
      // 'close' comes once for every response, sent or abandoned by the client.
      reply.raw.once('close', () => carListImports.dec());
    }
    done();
  });

  // The gauges of one scrape ask at once (prom-client collects them together): they share one read, and the next scrape reads afresh.
  let reading: Promise<DbFigures | null> | null = null;
  const figures = () =>
    (reading ??= within(readFigures(database, formatInZone(app.ctx.now() - app.ctx.config.allowlistMaxAgeHours * 3_600_000, app.ctx.config.tz), app.ctx.now()), FIGURES_TIMEOUT_MS)
      .catch((err: unknown) => {
        // The scrape still answers, without these figures; the health gauges say what is wrong.
        app.log.warn({ err }, 'metrics: reading the database figures failed');
        return null;
      })
      .finally(() => {
        reading = null;
      }));

  /** A gauge filled from the database's figures: no sample when they could not be read, never a misleading zero. */
  const dbGauge = <L extends string>(name: string, help: string, labelNames: readonly L[], fill: (g: Gauge<L>, f: DbFigures) => void) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [figuresRegistry],
      async collect() {
        this.reset();
        this.remove({});
        const f = await figures();
        if (f) fill(this, f);
      },
    });

  dbGauge('park_outbox_backlog', '出站队列中等待发送的消息数（push：Web Push 通知，sms：短信）', ['channel'], (g, f) => {
    for (const channel of ['push', 'sms'] as const) g.set({ channel }, f.outbox[channel].waiting);
  });
  dbGauge('park_outbox_failed', '出站队列中发送失败的消息数（push：放弃推送的通知，sms：保留 30 天内发送失败的短信）', ['channel'], (g, f) => {
    for (const channel of ['push', 'sms'] as const) g.set({ channel }, f.outbox[channel].failed);
  });
  dbGauge('park_devices_online', '在线设备数，按设备类型', ['kind'], (g, f) => {
    for (const d of f.devices) g.set({ kind: d.kind }, d.online);
  });
  dbGauge('park_devices_offline', '离线设备数，按设备类型', ['kind'], (g, f) => {
    for (const d of f.devices) g.set({ kind: d.kind }, d.offline);
  });
  dbGauge('park_open_alarms', '未处理的滞留与路线偏离告警数，按车辆或人员', ['kind'], (g, f) => {
    for (const a of f.openAlarms) g.set({ kind: a.kind }, a.open);
  });
  dbGauge('park_approval_tasks_pending', '待审批任务数，按审批队列', ['queue'], (g, f) => {
    for (const t of f.pendingTasks) g.set({ queue: t.queue }, t.pending);
  });
  dbGauge('park_approval_steps_due', '审批时限：已到时间尚未执行的提醒、升级与自动处理（任务数；正常时接近0）', [], (g, f) => g.set(f.approvalStepsDue));
  dbGauge('park_imports_running', '正在运行的后台导入任务数（person：人员批量导入）', ['kind'], (g, f) => {
    g.set({ kind: 'person' }, f.personImportsRunning);
  });
  dbGauge('park_muster_running', '是否有应急清点（含演练）正在进行（1 是，0 否）', [], (g, f) => g.set(f.musterRunning));
  dbGauge('park_muster_sms_waiting', '应急清点待发送的短信批次（每批最多200个号码）', [], (g, f) => g.set(f.musterSmsWaiting));
  dbGauge('park_allowlist_version', '道闸离线名单的当前版本（变更记录的最大编号）', [], (g, f) => g.set(f.allowlistVersion));
  dbGauge('park_allowlist_gates_stale', '离线名单超过有效期（ALLOWLIST_MAX_AGE）的道闸数', [], (g, f) => g.set(f.allowlistGatesStale));

  new Gauge({
    name: 'park_backup_last_success_timestamp_seconds',
    help: '最近一次成功备份的时间（Unix 秒）',
    registers: [figuresRegistry],
    // No sample until a backup has succeeded: an alert on its age then fires on `absent`, not on a made-up zero.
    async collect() {
      this.reset();
      this.remove({});
      const last = await within(
        database.db
          .selectFrom('backup_run')
          .select((eb) => eb.fn.max('finished_ms').as('at'))
          .where('error', 'is', null)
          .executeTakeFirst(),
        FIGURES_TIMEOUT_MS,
      ).catch((err: unknown) => {
        app.log.warn({ err }, 'metrics: reading the last backup failed');
        return undefined;
      });
      if (last?.at !== null && last?.at !== undefined) this.set(Number(last.at) / 1000);
    },
  });

  // The readiness checks as gauges, so an alert sees what the balancer sees; 'min': one process failing shows.
  new Gauge({
    name: 'park_health_check_ok',
    help: '就绪检查结果（1 通过，0 未通过），按检查项：database、migrations、file_store、disk',
    labelNames: ['check'] as const,
    registers: [registry],
    aggregator: 'min',
    async collect() {
      this.reset();
      for (const c of (await probe.run()).checks) this.set({ check: c.name }, c.ok ? 1 : 0);
    },
  });
  const diskGauge = (name: string, help: string, read: (d: NonNullable<ReturnType<ReadinessProbe['disk']>>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      aggregator: 'min',
      collect() {
        this.reset();
        this.remove({});
        let space: ReturnType<ReadinessProbe['disk']> = null;
        try {
          space = probe.disk();
        } catch {
          // An unreadable data directory shows as no sample here and as a failed disk check in park_health_check_ok.
        }
        if (space) this.set(read(space));
      },
    });
  diskGauge('park_data_disk_free_ratio', 'DATA_DIR 所在磁盘的可用空间比例（0–1）', (d) => d.ratio);
  diskGauge('park_data_disk_free_bytes', 'DATA_DIR 所在磁盘的可用空间（字节）', (d) => d.freeBytes);

  // On the root, not under /api: where Prometheus looks by default, and outside the API's description and guards.
  app.route({
    method: 'GET',
    url: '/metrics',
    handler: async (req, reply) => {
      const token = app.ctx.config.metricsToken;
      // Not configured: the route answers as an unknown path would, so a scanner learns nothing.
      if (!token) return reply.status(404).send(failure(ErrorCode.NOT_FOUND, '页面不存在'));
      if (!tokenMatches(bearerToken(req), token)) {
        return reply.status(401).header('WWW-Authenticate', 'Bearer realm="metrics"').send(failure(ErrorCode.UNAUTHENTICATED, '指标接口的访问令牌缺失或不正确'));
      }
      let text: string;
      try {
        const [processText, figuresText] = await Promise.all([state.processText(), figuresRegistry.metrics()]);
        text = joinExpositions(processText, figuresText);
      } catch (err) {
        req.log.error({ err }, 'metrics: collecting failed');
        return reply.status(503).send(failure(ErrorCode.INTERNAL, '指标汇总失败，请稍后重试'));
      }
      return reply.header('Cache-Control', 'no-store').type(registry.contentType).send(text);
    },
  });

  return registry;
}

/**
 * The operators' routes: /api/health/live, /api/health/ready and /metrics, with the hooks that count calls.
 * buildApp calls it once the database is open and migrated, before the areas register their routes.
 */
export async function registerOps(app: FastifyInstance, database: Database_): Promise<void> {
  const probe = await registerHealth(app, database);
  registerMetrics(app, database, probe);
}
