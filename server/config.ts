import os from 'node:os';
import path from 'node:path';
import { DEFAULT_PARK_TZ } from '../domain/time';
import { CAPTCHA_COOLDOWN_SECONDS } from '../domain/auth-rules';

export type SmsProviderName = 'log' | 'file';

/** Where uploaded files live (FILE_STORE, core/storage.ts): DATA_DIR/files, or PostgreSQL tables that every server sharing DATABASE_URL reads. */
export type FileStoreKind = 'disk' | 'postgres';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * FILE_STORE: `disk` (the default) keeps uploads in DATA_DIR/files; `postgres` keeps them in the database
   * (DATABASE_URL required), so servers on several machines that share only PostgreSQL see one another's uploads.
   */
  fileStore: FileStoreKind;
  smsProvider: SmsProviderName;
  demoPassword: string | undefined;
  tz: string;
  /** Directory of the built PWA; absent in API-only tests. */
  staticDir: string | undefined;
  logLevel: string;
  /** Sessions end after this long without a call (renewed while used) and at most after sessionMaxMs. */
  sessionIdleMs: number;
  sessionMaxMs: number;
  seedDemo: boolean;
  /** The demo seed's 90 days of gate crossings (seed-gate-history.ts); off for API test servers that do not read them, which start faster. */
  seedGateHistory: boolean;
  /** Seconds before the same account may ask for another SMS code (answered as expireOfSeconds). */
  captchaCooldownSeconds: number;
  /**
   * Proxies whose X-Forwarded-For is believed (TRUST_PROXY): false (the default) believes nobody, so
   * req.ip is the connecting peer; otherwise the proxies' addresses or CIDRs, comma-separated.
   */
  trustProxy: false | string;
  /**
   * Sign-in limits: codes per address per hour; codes per account per hour before the wait between
   * codes grows; sign-in attempts per address per 15 minutes; wrong passwords (typed with a correct
   * code) per account per 15 minutes before it is locked for the rest of that window.
   */
  rateLimits: { captchaPerAccount: number; captchaPerIp: number; loginPerAccount: number; loginPerIp: number };
  /** Images one device may upload per park-local day (POST /api/device/files); past it, 429 (DEVICE_DAILY_UPLOADS). */
  deviceDailyUploads: number;
  /**
   * Server processes sharing the port (WEB_CONCURRENCY): by default one per core when
   * NODE_ENV=production, otherwise one (development, tests). server/main.ts forks them.
   */
  webConcurrency: number;
  /**
   * CHECK_ANSWERS=1 (the API and e2e test servers): every JSON answer is parsed against its route's
   * declared answer before it is sent, and one that does not match, or carries a field the
   * declaration does not name, is a 500. Off in production, where the check would only cost time.
   */
  checkAnswers: boolean;
  /**
   * The map board's tiles (MAP_TILE_URL): a Leaflet URL template such as
   * https://tiles.example/{z}/{x}/{y}.png, and the coordinate system its tiles
   * are drawn in (MAP_TILE_CRS: gcj02, the Chinese providers' offset system,
   * or wgs84). Unset, the map shows the gates on a plain background.
   */
  mapTiles: { url: string; crs: 'gcj02' | 'wgs84' } | null;
  /**
   * The nightly backup (docs/operations.md): where archives go (BACKUP_DIR, default DATA_DIR/backups), the park-local
   * time it is taken at (BACKUP_AT, HH:mm, default 02:30; `off` takes none) and how many are kept (BACKUP_KEEP, 14).
   */
  backup: { dir: string; at: string | null; keep: number };
  /** The longest one statement may run on PostgreSQL before it is stopped and the call answered 503 (DB_STATEMENT_TIMEOUT_MS, 30 s). */
  dbStatementTimeoutMs: number;
  /** The bearer token /metrics asks for (METRICS_TOKEN); unset, /metrics answers 404. */
  metricsToken: string | undefined;
  /** Hours an offline gate's allow-list holds (ALLOWLIST_MAX_AGE, default 72): older, the gate refuses visitors until it syncs (docs/offline-gates.md). */
  allowlistMaxAgeHours: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const sms = (env.SMS_PROVIDER ?? 'log').toLowerCase();
  if (sms !== 'log' && sms !== 'file') throw new Error(`SMS_PROVIDER must be 'log' or 'file', got '${sms}'`);
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got '${env.PORT}'`);
  const config: Config = {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    fileStore: parseFileStore(env.FILE_STORE),
    smsProvider: sms,
    demoPassword: env.DEMO_PASSWORD || undefined,
    tz: env.PARK_TZ ?? DEFAULT_PARK_TZ,
    staticDir: path.resolve(env.STATIC_DIR ?? './dist'),
    logLevel: env.LOG_LEVEL ?? 'info',
    sessionIdleMs: 7 * 24 * 3600_000,
    sessionMaxMs: 30 * 24 * 3600_000,
    seedDemo: env.SEED_DEMO !== '0',
    seedGateHistory: env.SEED_GATE_HISTORY !== '0',
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    captchaCooldownSeconds: env.CAPTCHA_COOLDOWN_SECONDS !== undefined ? Number(env.CAPTCHA_COOLDOWN_SECONDS) : CAPTCHA_COOLDOWN_SECONDS,
    webConcurrency: parseWebConcurrency(env),
    checkAnswers: env.CHECK_ANSWERS === '1',
    deviceDailyUploads: parseDeviceDailyUploads(env.DEVICE_DAILY_UPLOADS),
    mapTiles: parseMapTiles(env.MAP_TILE_URL, env.MAP_TILE_CRS),
    backup: parseBackup(env),
    metricsToken: env.METRICS_TOKEN?.trim() || undefined,
    allowlistMaxAgeHours: parseAllowlistMaxAge(env.ALLOWLIST_MAX_AGE),
    dbStatementTimeoutMs: parseStatementTimeout(env.DB_STATEMENT_TIMEOUT_MS),
    rateLimits: scaleLimits({ captchaPerAccount: 10, captchaPerIp: 30, loginPerAccount: 10, loginPerIp: 50 }, env.SIGN_IN_RATE_LIMIT_FACTOR),
    ...overrides,
  };
  // Checked after the overrides: a test or script that sets either one is held to the same rule.
  if (config.fileStore === 'postgres' && !config.databaseUrl) {
    throw new Error('FILE_STORE=postgres 要求同时设置 DATABASE_URL：文件存放在 PostgreSQL 数据库中。请设置 DATABASE_URL，或将 FILE_STORE 设为 disk（默认，文件存放在 DATA_DIR/files）');
  }
  return config;
}

function parseAllowlistMaxAge(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 72;
  const hours = Number(value);
  if (!(hours > 0 && hours <= 24 * 30)) throw new Error(`ALLOWLIST_MAX_AGE 必须是 0 到 720 之间的小时数，收到 '${value}'`);
  return hours;
}

function parseFileStore(value: string | undefined): FileStoreKind {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'disk') return 'disk';
  if (v === 'postgres') return 'postgres';
  throw new Error(`FILE_STORE 只能是 disk 或 postgres，收到 '${value}'`);
}

function parseStatementTimeout(value: string | undefined): number {
  const raw = value?.trim();
  if (!raw) return 30_000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1000) throw new Error(`DB_STATEMENT_TIMEOUT_MS must be a whole number of milliseconds of at least 1000, got '${raw}'`);
  return n;
}

function parseBackup(env: NodeJS.ProcessEnv): Config['backup'] {
  const dir = path.resolve(env.BACKUP_DIR?.trim() || path.join(env.DATA_DIR ?? './data', 'backups'));
  const at = (env.BACKUP_AT ?? '02:30').trim();
  if (at !== 'off' && !/^([01]\d|2[0-3]):[0-5]\d$/.test(at)) throw new Error(`BACKUP_AT must be a park-local time HH:mm or 'off', got '${at}'`);
  const keepRaw = (env.BACKUP_KEEP ?? '14').trim();
  const keep = Number(keepRaw);
  if (!Number.isInteger(keep) || keep < 1 || keep > 1000) throw new Error(`BACKUP_KEEP must be a whole number of archives from 1 to 1000, got '${keepRaw}'`);
  return { dir, at: at === 'off' ? null : at, keep };
}

/** Two images a crossing, a busy gate's 2,500 crossings a day: 5,000 by default. */
function parseDeviceDailyUploads(value: string | undefined): number {
  const raw = value?.trim();
  if (!raw) return 5000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`DEVICE_DAILY_UPLOADS must be a whole number of images of at least 1, got '${raw}'`);
  return n;
}

function parseWebConcurrency(env: NodeJS.ProcessEnv): number {
  const raw = env.WEB_CONCURRENCY?.trim();
  if (!raw) return env.NODE_ENV === 'production' ? os.availableParallelism() : 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`WEB_CONCURRENCY must be a whole number of processes from 1 to 64, got '${raw}'`);
  return n;
}

/**
 * TRUST_PROXY: a comma-separated list of proxy addresses or CIDRs (also
 * proxy-addr's names loopback, linklocal, uniquelocal). `true` (believe
 * anyone) is refused: it would let any client choose its own address and so
 * walk past every per-address limit.
 */
function parseTrustProxy(value: string | undefined): Config['trustProxy'] {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || /^\d+$/.test(v)) throw new Error(`TRUST_PROXY must name the proxies' addresses or CIDRs, got '${v}'`);
  return v;
}

/**
 * SIGN_IN_RATE_LIMIT_FACTOR multiplies every sign-in limit: a test rig signs
 * every account in dozens of times an hour from one address, which the
 * production limits rightly refuse. Anything not a number ≥ 1 keeps them.
 */
function scaleLimits(limits: Config['rateLimits'], factor: string | undefined): Config['rateLimits'] {
  const f = Number(factor);
  if (!Number.isFinite(f) || f < 1) return limits;
  return Object.fromEntries(Object.entries(limits).map(([k, v]) => [k, Math.round(v * f)])) as Config['rateLimits'];
}

/** MAP_TILE_URL and MAP_TILE_CRS: a template Leaflet can fill ({z}, {x}, {y}) over http(s), and the system its tiles are drawn in. */
function parseMapTiles(url: string | undefined, crs: string | undefined): Config['mapTiles'] {
  const system = (crs ?? 'gcj02').trim().toLowerCase();
  if (system !== 'gcj02' && system !== 'wgs84') throw new Error(`MAP_TILE_CRS must be 'gcj02' or 'wgs84', got '${crs}'`);
  const template = url?.trim();
  if (!template) return null;
  if (!/^https?:\/\//.test(template) || !(template.includes('{z}') && template.includes('{x}') && /\{-?y\}/.test(template))) {
    throw new Error(`MAP_TILE_URL must be an http(s) URL template with {z}, {x} and {y}, got '${template}'`);
  }
  return { url: template, crs: system };
}

/**
 * The source the map's tile images come from, for the page's Content-Security-Policy (img-src): the template's
 * scheme, host and port, with Leaflet's subdomain placeholder {s} as a wildcard.
 */
export function tileSource(template: string): string {
  const origin = /^(https?:\/\/[^/?#]+)/.exec(template)?.[1] ?? template;
  return origin.replace(/\{s\}/g, '*');
}
