import type { RouteSchema } from './route-schema';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import { flattenPermissions, openCodes } from '../../domain/permissions';
import { isBuiltinRole } from '../../domain/schemas/role';
import { AppError } from './errors';
import { sha256 } from './crypto';
import type { AuthContext } from './context';
import { auditJson } from './redact';
import { authenticateDevice } from './device-auth';
import type { Kysely } from 'kysely';
import { prepared } from '../db/prepared';
import type { DB } from '../db/schema';

const permissionNames = new Map(flattenPermissions().map((n) => [n.code, n.name]));
const RENEW_AFTER_MS = 60_000;

export function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h);
  return m ? m[1].trim() : null;
}

const sessionColumns = ['s.session_id', 's.created_at', 's.last_seen_at', 's.expires_at', 'u.user_id', 'u.account', 'u.user_name', 'u.depart_id', 'u.status', 'u.deleted'] as const;
const sessionsWithUser = (app: FastifyInstance) => app.ctx.db.selectFrom('sys_session as s').innerJoin('sys_user as u', 'u.user_id', 's.user_id').select(sessionColumns);
type SessionRow = Awaited<ReturnType<ReturnType<typeof sessionsWithUser>['executeTakeFirstOrThrow']>>;
const live = (row: SessionRow | undefined, now: number): row is SessionRow => !!row && row.expires_at > now && !row.deleted && row.status === 1;

/**
 * Identities this process has looked up, by token hash, with the auth epoch
 * (migration 016) they were read under. A call reads the epoch (one row) and
 * uses its cached identity only if nothing that identity rests on changed
 * since, on any server: the triggers bump the epoch on every logout, user,
 * role and permission change, and expiry is checked here. So the database
 * stays the truth and a change reaches every process on its next call, for a
 * one-row read instead of the session and role queries.
 */
interface CachedIdentity {
  epoch: number;
  row: SessionRow;
  auth: AuthContext;
}
const CACHE_SIZE = 10_000;
const identityCaches = new WeakMap<object, Map<string, CachedIdentity>>();
/** Calls served from the cache and calls that looked the identity up, per database (the bench and the tests read them). */
const identityCounts = new WeakMap<object, { cached: number; looked: number }>();
export const identityCacheCounts = (db: object) => ({ ...(identityCounts.get(db) ?? { cached: 0, looked: 0 }) });

const epochRead = prepared<Record<string, never>, { epoch: number }>((db) => db.selectFrom('auth_epoch').select('epoch').where('id', '=', 1));
const authEpoch = async (app: FastifyInstance) => {
  const row = (await epochRead(app.ctx.db, app.ctx.dialect, {})).rows[0];
  if (!row) throw new Error('auth_epoch has no row');
  return row.epoch;
};

/** Loads the session behind a token, renewing its idle expiry at most once a minute. */
export async function authenticate(app: FastifyInstance, token: string): Promise<AuthContext | null> {
  const { db, config } = app.ctx;
  const now = Date.now();
  const hash = sha256(token);
  let cache = identityCaches.get(db);
  if (!cache) identityCaches.set(db, (cache = new Map()));
  let counts = identityCounts.get(db);
  if (!counts) identityCounts.set(db, (counts = { cached: 0, looked: 0 }));
  // Read before the identity: a change committed after this read bumps past it, and the next call looks again.
  const epoch = await authEpoch(app);
  let hit = cache.get(hash);
  if (hit && hit.epoch !== epoch) hit = undefined;
  const row = hit?.row ?? (await sessionsWithUser(app).where('s.token_hash', '=', hash).executeTakeFirst());
  if (!live(row, now)) {
    cache.delete(hash);
    return null;
  }
  if (now - row.last_seen_at > RENEW_AFTER_MS) {
    const expires = Math.min(row.created_at + config.sessionMaxMs, now + config.sessionIdleMs);
    await db.updateTable('sys_session').set({ last_seen_at: now, expires_at: expires }).where('session_id', '=', row.session_id).execute();
    row.last_seen_at = now;
    row.expires_at = expires;
  }
  if (hit) {
    counts.cached += 1;
    // Most recently used last, so the oldest go first when the cache is full.
    cache.delete(hash);
    cache.set(hash, hit);
    return hit.auth;
  }
  counts.looked += 1;
  const auth = await authContextOf(app, row);
  cache.set(hash, { epoch, row, auth });
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return auth;
}

/**
 * The caller behind a session named by id (a signed file-access token an
 * <img> carries), without renewing it: showing a picture is not activity.
 */
export async function authenticateSession(app: FastifyInstance, sessionId: number, userId: number): Promise<AuthContext | null> {
  const row = await sessionsWithUser(app).where('s.session_id', '=', sessionId).where('s.user_id', '=', userId).executeTakeFirst();
  return live(row, Date.now()) ? authContextOf(app, row) : null;
}

/**
 * The user a signed action token names (a push notification's 同意,
 * modules/quick-approve.ts), as a session of theirs would see them now: their
 * roles and codes read afresh, and null once the user is disabled or deleted.
 * There is no session behind it (sessionId 0): the token allows its one action.
 */
export async function authenticateUser(app: FastifyInstance, userId: number): Promise<AuthContext | null> {
  const user = await app.ctx.db
    .selectFrom('sys_user as u')
    .select(['u.user_id', 'u.account', 'u.user_name', 'u.depart_id', 'u.status', 'u.deleted'])
    .where('u.user_id', '=', userId)
    .executeTakeFirst();
  if (!user || user.deleted || user.status !== 1) return null;
  return authContextOf(app, { ...user, session_id: 0, created_at: 0, last_seen_at: 0, expires_at: 0 });
}

/**
 * The user's enabled roles and the codes they grant (plus the open codes of
 * anyone holding a role), read from the database on every call in one query:
 * a role's new permissions, status or members reach its signed-in users on
 * their next call on every server, whoever wrote them (the role screen, the
 * seed, a migration). The built-in administrator role holds every live
 * permission, bound or not, so however the other roles are configured
 * somebody can still repair them (one more query, for administrators only).
 */
async function authContextOf(app: FastifyInstance, row: SessionRow): Promise<AuthContext> {
  const { db } = app.ctx;
  const rows = await db
    .selectFrom('sys_user_role as ur')
    .innerJoin('sys_role as r', 'r.role_id', 'ur.role_id')
    .leftJoin('sys_role_permission as rp', 'rp.role_id', 'r.role_id')
    .leftJoin('sys_permission as p', (j) => j.onRef('p.permission_id', '=', 'rp.permission_id').on('p.deleted', '=', 0).on('p.status', '=', 1))
    .select(['r.role_id', 'r.name', 'r.code', 'p.code as permission'])
    .where('ur.user_id', '=', row.user_id)
    .where('r.deleted', '=', 0)
    .where('r.status', '=', 1)
    .orderBy('r.role_id')
    .execute();
  const roles = [...new Map(rows.map((r) => [r.role_id, { role_id: r.role_id, name: r.name, code: r.code }])).values()];
  const roleIds = roles.map((r) => r.role_id);
  const permissions = new Set<string>();
  if (roles.some(isBuiltinRole)) {
    for (const p of await db.selectFrom('sys_permission').select('code').where('deleted', '=', 0).where('status', '=', 1).execute()) permissions.add(p.code);
  } else {
    for (const r of rows) if (r.permission) permissions.add(r.permission);
  }
  if (roleIds.length) for (const c of openCodes) permissions.add(c);
  return {
    userId: row.user_id,
    account: row.account,
    userName: row.user_name,
    departId: row.depart_id,
    sessionId: row.session_id,
    roleIds,
    roleNames: roles.map((r) => r.name),
    permissions,
  };
}

/**
 * One guard for everything under /api: every route must declare its access
 * (checked when the route is registered), and the declared access is enforced
 * before the body is even read.
 */
export function registerGuards(app: FastifyInstance) {
  app.decorateRequest('auth', null);

  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api')) return;
    const permission = route.config?.permission;
    if (!permission) throw new Error(`Route ${route.method} ${route.url} declares no permission`);
    const operation = route.config?.operation;
    const schema = route.schema as RouteSchema | undefined;
    for (const m of [route.method].flat()) if (m !== 'HEAD') app.ctx.routes.push({ method: m, url: route.url, permission, ...(operation ? { operation } : {}), ...(schema ? { schema } : {}) });
  });

  app.addHook('onRequest', async (req) => {
    const permission = req.routeOptions.config?.permission;
    if (!permission || permission === 'public') return;
    if (permission === 'device') {
      req.device = await authenticateDevice(app, req);
      return;
    }
    const token = bearerToken(req);
    const auth = token ? await authenticate(app, token) : null;
    if (!auth) throw new AppError(ErrorCode.UNAUTHENTICATED, token ? '登录已过期，请重新登录' : '请先登录');
    req.auth = auth;
    if (permission === 'signed-in') return;
    if (auth.roleIds.length === 0) throw new AppError(ErrorCode.NO_ROLE);
    if (permission === 'role') return;
    if (!auth.permissions.has(permission)) {
      const name = permissionNames.get(permission);
      throw new AppError(ErrorCode.FORBIDDEN, `没有操作权限：缺少权限 ${permission}${name ? `（${name}）` : ''}`);
    }
  });

  // Mutating calls land in the operation log whatever their outcome, with secrets removed. Written
  // before the answer goes (onSend), so the answer waits for the log entry's sync with the change it records.
  app.addHook('onSend', (req, reply, payload, done) => {
    const operation = req.routeOptions.config?.operation;
    // A replayed Idempotency-Key did nothing new: the first send is already in the log.
    if (!operation || !req.url.startsWith('/api') || req.operationLogged || reply.getHeader('idempotent-replayed')) return done(null, payload);
    writeOperationLog(app.ctx.db, app, req, reply.statusCode).then(
      () => done(null, payload),
      (err: unknown) => {
        req.log.error({ err }, 'operation log write failed');
        done(null, payload);
      },
    );
  });
}

/** The call's operation-log entry; a unit of work (core/unit-of-work.ts) writes it in its own transaction. */
type LogEntry = {
  userId: number | null;
  account: string;
  userName: string;
  departId: number | null;
  operation: string;
  result: number;
  time: string;
  api: string;
  method: string;
  params: string;
};
const logInsert = prepared<LogEntry, unknown>((db, arg) =>
  db.insertInto('sys_operation_log').values({
    user_id: arg('userId'),
    account: arg('account'),
    user_name: arg('userName'),
    depart_id: arg('departId'),
    operation: arg('operation'),
    result: arg('result'),
    operate_time: arg('time'),
    api: arg('api'),
    method: arg('method'),
    params: arg('params'),
  }),
);

export async function writeOperationLog(db: Kysely<DB>, app: FastifyInstance, req: FastifyRequest, status: number): Promise<void> {
  const auth = req.auth;
  await logInsert(db, app.ctx.dialect, {
    userId: auth?.userId ?? null,
    account: auth?.account ?? '',
    userName: auth?.userName ?? '',
    departId: auth?.departId ?? null,
    operation: req.routeOptions.config!.operation!,
    result: status < 400 ? 1 : 0,
    time: app.ctx.time(),
    api: req.url.split('?')[0]!,
    method: req.method,
    params: auditJson(req.auditParams ?? req.body),
  });
}
