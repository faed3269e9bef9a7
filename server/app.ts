import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ErrorCode } from '../domain/errors';
import { formatInZone } from '../domain/time';
import { tileSource, type Config } from './config';
import { openDatabase, type Database_ } from './db/index';
import { migrate } from './db/migrate';
import { seed } from './seed/seed';
import { registerGuards } from './core/auth';
import type { AppContext } from './core/context';
import { loadServerKeys } from './core/crypto';
import { securityHeaders } from './core/security-headers';
import { registerIdempotency } from './core/idempotency';
import { AppError, failure } from './core/errors';
import { databaseFailure, isUniqueViolation, transientDbConflict } from './core/db-errors';
import { clientErrorHandler, frameworkFailure } from './core/framework-errors';
import { nulInQuery, nulMessage, parseJsonBody } from './core/json-body';
import { logRedactPaths } from './core/redact';
import { createSmsSender } from './core/sms';
import { openApiRoutes } from './core/openapi';
import { registerPersonalDataMasking } from './core/personal-data';
import { registerRouteSchemas } from './core/route-schema';
import { approvalPendingRoutes } from './modules/approval-pending';
import { appointmentRoutes } from './modules/appointments/index';
import { authRoutes } from './modules/auth';
import { boardRoutes } from './modules/board';
import { bigScreenRoutes } from './modules/big-screen';
import { reportRoutes } from './modules/reports/routes';
import { commonRoutes } from './modules/common';
import { departmentRoutes } from './modules/departments';
import { equipmentRoutes } from './modules/equipment';
import { markRoutes } from './modules/marks';
import { noticeRoutes } from './modules/notices';
import { gateRecordRoutes } from './modules/gate-records';
import { deviceRoutes } from './modules/devices/routes';
import { allowlistRoutes } from './modules/devices/allowlist';
import { strandedRoutes } from './modules/stranded/routes';
import { carListImportRoutes } from './modules/registers/list-import';
import { listRoutes } from './modules/registers/lists';
import { registrationRoutes } from './modules/registers/registrations';
import { waybillRoutes } from './modules/registers/waybills';
import { fileRoutes } from './modules/files';
import { passRoutes } from './modules/passes';
import { personImportRoutes } from './modules/person-import/routes';
import { roleRoutes } from './modules/roles';
import { permissionRoutes } from './modules/permissions';
import { iconRoutes } from './modules/icons';
import { logRoutes } from './modules/logs';
import { processConfigRoutes } from './modules/process-config';
import { notificationRoutes } from './modules/notifications';
import { pushRoutes } from './modules/push';
import { quickApproveRoutes } from './modules/quick-approve';
import { userRoutes } from './modules/users';
import { vehicleTypeRoutes } from './modules/vehicle-types';
import { drivingRouteRoutes } from './modules/driving-routes/routes';
import { backupRoutes } from './modules/backups';
import { piiRoutes } from './modules/pii';
import { retentionRoutes } from './modules/retention/routes';
import { musterRoutes } from './modules/muster/routes';
import { safetySettingRoutes } from './modules/safety-settings';
import { workCalendarRoutes } from './modules/work-calendar';
import { taskActionRoutes } from './workflow/task-actions';
import { observeGroupCommitWait, observeStatement, registerOps } from './ops/metrics';

/** Area plugins, each registering its own routes under /api. */
const areas = [
  authRoutes,
  commonRoutes,
  userRoutes,
  roleRoutes,
  permissionRoutes,
  iconRoutes,
  departmentRoutes,
  equipmentRoutes,
  vehicleTypeRoutes,
  pushRoutes,
  quickApproveRoutes,
  notificationRoutes,
  fileRoutes,
  approvalPendingRoutes,
  appointmentRoutes,
  listRoutes,
  registrationRoutes,
  waybillRoutes,
  carListImportRoutes,
  personImportRoutes,
  passRoutes,
  markRoutes,
  noticeRoutes,
  deviceRoutes,
  allowlistRoutes,
  boardRoutes,
  bigScreenRoutes,
  reportRoutes,
  gateRecordRoutes,
  drivingRouteRoutes,
  strandedRoutes,
  musterRoutes,
  logRoutes,
  processConfigRoutes,
  backupRoutes,
  retentionRoutes,
  safetySettingRoutes,
  workCalendarRoutes,
  taskActionRoutes,
  piiRoutes,
];

/** Every failure leaves as the envelope with a Chinese message: our own errors, the database's, the framework's. */
function sendFailure(req: FastifyRequest, reply: FastifyReply, err: FastifyError | AppError | Error) {
  if (err instanceof AppError) {
    if (err.status >= 500) req.log.error({ err }, err.message);
    return reply.status(err.status).send(failure(err.code, err.message, err.data));
  }
  // A last resort: the lock order (server/workflow/engine.ts) keeps deadlocks away; if the database still aborts a transaction, the client may retry.
  const transient = transientDbConflict(err);
  if (transient) {
    req.log.warn({ err }, 'transaction aborted by the database');
    return reply.status(transient.status).send(failure(transient.code, transient.message));
  }
  // The database went away, stopped the statement, or has no room: the call failed as a whole, nothing of it was saved.
  const unavailable = databaseFailure(err);
  if (unavailable) {
    req.log.error({ err }, unavailable.message);
    return reply.status(unavailable.status).send(failure(unavailable.code, unavailable.message));
  }
  // A unique index caught a race that the service's own check missed.
  if (isUniqueViolation(err)) {
    return reply.status(409).send(failure(ErrorCode.DUPLICATE, '记录已存在，请勿重复提交'));
  }
  const framework = frameworkFailure(err as FastifyError);
  if (framework) return reply.status(framework.status).send(failure(framework.code, framework.message));
  req.log.error({ err }, 'unhandled error');
  return reply.status(500).send(failure(ErrorCode.INTERNAL, '服务器内部错误，请稍后重试'));
}

/** A request path decoded, with backslashes as slashes and dot segments resolved, as a browser or a proxy in front would read it. */
function requestedPath(raw: string): string {
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // A malformed escape is read as written: still a path to answer, not a 500.
  }
  return path.posix.normalize(`/${decoded.replace(/\\/g, '/')}`);
}

const isApiPath = (p: string) => p === '/api' || p.startsWith('/api/');

/** `logFile` sends the log to a file instead of stdout (tests read it back to prove nothing secret is logged). */
export async function buildApp(config: Config, opts: { logFile?: string } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: logRedactPaths, censor: '***' },
      ...(opts.logFile ? { file: opts.logFile } : {}),
    },
    bodyLimit: 2 * 1024 * 1024,
    // Forwarded addresses are believed only from the proxies named in TRUST_PROXY: from anyone else,
    // X-Forwarded-For would let a client pick a new address per request and walk past every per-address limit.
    trustProxy: config.trustProxy,
    clientErrorHandler,
    frameworkErrors: (err, req, reply) => sendFailure(req, reply, err),
  });

  const database: Database_ = openDatabase({ ...config, observe: { statement: observeStatement, groupCommitWait: observeGroupCommitWait } });
  await migrate(database);
  const keys = await loadServerKeys(database.db);
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    keys,
    sms: createSmsSender(config.smsProvider, config.dataDir, app.log),
    time: () => formatInZone(Date.now(), config.tz),
    now: () => Date.now(),
    routes: [],
  };
  app.decorate('ctx', ctx);
  app.addHook('onClose', async () => database.close());
  if (config.seedDemo) await seed(ctx, app.log);

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(String(body)));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  const headers = securityHeaders({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        // 'wasm-unsafe-eval' lets the plate reader's worker compile its WebAssembly engine (docs/plate-reading.md); it allows no JavaScript eval.
        scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
        // antd-mobile sets inline styles on elements.
        styleSrc: ["'self'", "'unsafe-inline'"],
        // The map board's tiles (MAP_TILE_URL) are images from their provider.
        imgSrc: ["'self'", 'data:', 'blob:', ...(config.mapTiles ? [tileSource(config.mapTiles.url)] : [])],
        connectSrc: ["'self'"],
        workerSrc: ["'self'", 'blob:'],
        manifestSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: false,
  });
  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(headers);
    done();
  });

  // The hooks every call passes are callback-style: an async hook costs each call a promise and its turns even when it has nothing to do.
  app.addHook('preValidation', (req, _reply, done) => {
    const key = nulInQuery(req.query);
    done(key === null ? undefined : new AppError(ErrorCode.VALIDATION, nulMessage(key)));
  });
  registerRouteSchemas(app, { checkAnswers: config.checkAnswers });
  registerGuards(app);
  // After the guards, which set the caller whose codes decide what shows.
  registerPersonalDataMasking(app);
  // After the guards (the key is scoped to the signed-in user) and before the areas, so it covers every route.
  registerIdempotency(app);
  // Last of the onSend hooks: a call that may have written is answered once its writes (the change, the stored
  // idempotent answer, the operation log) are on disk. Concurrent calls share the sync.
  app.addHook('onSend', (req, _reply, payload, done) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return done(null, payload);
    database.durable().then(() => done(null, payload), done);
  });

  app.setErrorHandler((err: FastifyError | AppError, req, reply) => sendFailure(req, reply, err));

  await registerOps(app, database);
  for (const area of areas) await app.register(area, { prefix: '/api' });
  await app.register(openApiRoutes, { prefix: '/api', version: process.env.npm_package_version ?? '0.1.0' });

  const staticDir = config.staticDir;
  const indexHtml = staticDir ? path.join(staticDir, 'index.html') : '';
  const hasUi = !!staticDir && fs.existsSync(indexHtml);
  if (hasUi) {
    await app.register(fastifyStatic, {
      root: staticDir!,
      wildcard: false,
      index: false,
      // The build writes .br and .gz beside each asset; they are sent to browsers that accept them.
      preCompressed: true,
      setHeaders(res, filePath) {
        // Hashed assets never change; the shell, the worker and the manifest must be revalidated to pick up a release.
        if (filePath.includes(`${path.sep}assets${path.sep}`)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        else res.setHeader('Cache-Control', 'no-cache');
      },
    });
  }

  app.setNotFoundHandler((req, reply) => {
    const raw = req.url.split('?')[0];
    const where = requestedPath(raw);
    // The path as written or as any browser or proxy would resolve it (`/api/file/..\..\park.db`, `/x/../api/y`, `/%61pi/y`):
    // an API path that names no route is the API's 404, never the app's page (issue 23).
    if (isApiPath(raw) || isApiPath(where)) return reply.status(404).send(failure(ErrorCode.NOT_FOUND, `接口不存在：${req.method} ${raw}`));
    if (hasUi && (req.method === 'GET' || req.method === 'HEAD')) {
      const file = path.join(staticDir!, where);
      if (file.startsWith(staticDir! + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile()) return reply.sendFile(path.relative(staticDir!, file));
      // The page is for the app's screens; a missing file (`/park.db`, an old release's asset) is a 404, not HTML under its name.
      if (!/\.[^/]*$/.test(where)) return reply.header('Cache-Control', 'no-cache').type('text/html').sendFile('index.html');
    }
    return reply.status(404).send(failure(ErrorCode.NOT_FOUND, '页面不存在'));
  });

  return app;
}
