import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely, Transaction, Updateable } from 'kysely';
import { ErrorCode } from '../../domain/errors';
import type { Dialect } from '../db/index';
import { prepared } from '../db/prepared';
import type { DB, IdempotencyKeyTable } from '../db/schema';
import { sha256 } from './crypto';
import type { SecretAnswer } from './context';
import { AppError, failure, ok } from './errors';
import { currentRequestScope, requestScope } from './transactions';

/**
 * Idempotency keys (DESIGN.md §3, Stripe's model, IETF draft
 * "The Idempotency-Key HTTP Header Field").
 *
 * A key lives in one row of `idempotency_key`, unique per (user, key):
 *
 *   claimed ──(business transaction commits, same COMMIT)──▶ committed ──(answer known)──▶ done
 *      └──(5xx / 401 / 429 before committing)──▶ row deleted: the client may retry
 *
 * - The claim is an INSERT that the primary key decides, so of many concurrent
 *   sends (also from several servers on one PostgreSQL) exactly one goes on.
 * - "committed" is written by beforeCommit work inside every transaction of the
 *   request, so the change and the mark commit or roll back together. Its
 *   UPDATE is conditioned on the claim's owner token: a request whose key was
 *   taken over (its lease ran out) rolls its own change back instead of acting
 *   a second time.
 * - The answer (status and JSON) is stored once the reply is known; a crash
 *   between COMMIT and that store leaves "committed", which replays as
 *   "already done".
 * - A "claimed" row older than the lease belongs to a request that died before
 *   committing (nothing of it is in the database), so a new request takes it over.
 * Routes that write with single autocommitted statements (no transaction) are
 * still protected by the claim, but a crash after such a write and before the
 * answer is stored lets a retry after the lease act again.
 *
 * A unit-of-work route (core/unit-of-work.ts: the decisions) skips the two
 * commits of its own: the key is claimed by the first statement of the work's
 * transaction and finished with its answer by the last, so claim, change and
 * answer commit once, together. A key found there already is read as above
 * (keyTaken); what the work leaves undone (a refusal that rolled it back) is
 * claimed and stored on the way out, as for any route.
 */

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer that was not computed now but replayed from the first request. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** How long a key is remembered (an outbox may wait this long); older rows count as absent. */
export const KEY_RETENTION_MS = 7 * 24 * 3600_000;
/** A claim not committed or finished within this time belongs to a request that died. */
export const CLAIM_LEASE_MS = 60_000;

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// Visible ASCII and space; HTTP parsers already trim surrounding whitespace.
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
const INVALID_KEY_MESSAGE = '请求头 Idempotency-Key 不正确：须为1到255个可打印的ASCII字符';
const MISMATCH_MESSAGE = '请求头 Idempotency-Key 已用于另一个请求（接口或提交内容不同），新的操作请使用新的键';
const IN_PROGRESS_MESSAGE = '相同的请求（同一 Idempotency-Key）正在处理中，请稍后重试';
const TAKEN_OVER_MESSAGE = '相同的请求（同一 Idempotency-Key）已由另一次提交处理，本次未生效，请稍后重试以获取结果';
const ALREADY_DONE_MESSAGE = '该操作已完成（首次提交的结果未能保存，请刷新后查看）';
const SECRET_SHOWN_ONCE_MESSAGE = '该操作已完成，其结果中的密钥或令牌只在首次答复中显示一次，不能再次获取；如未保存，请重新操作（使用新的 Idempotency-Key）';

/**
 * What is stored, and replayed, in place of a successful answer that holds a
 * secret shown once: the secret exists only in the first answer, so the
 * replay says so (409) instead of handing out a copy kept in the database.
 */
export const SECRET_WITHHELD_ANSWER = JSON.stringify(failure(ErrorCode.STATE_CONFLICT, SECRET_SHOWN_ONCE_MESSAGE));

/**
 * An answer whose `data.url` carries a token in its query (an upload's
 * `?access=`), as kept for a replay: the rest (the stored name a resend
 * needs) stays, the token does not; /file/accessToken gives a fresh one.
 */
export function withoutUrlQuery(answer: { data?: unknown }): unknown {
  const data = answer.data as { url?: unknown } | null | undefined;
  if (!data || typeof data.url !== 'string') return answer;
  return { ...answer, data: { ...data, url: data.url.split('?')[0] } };
}

/** The status and answer that may be stored for a replay of a route whose answer holds a secret. */
export function storableAnswer(secret: SecretAnswer | undefined, status: number, payload: string): { status: number; payload: string } {
  if (!secret || status < 200 || status >= 300) return { status, payload };
  if (secret === 'refuse') return { status: 409, payload: SECRET_WITHHELD_ANSWER };
  try {
    return { status, payload: JSON.stringify(secret(JSON.parse(payload) as { data?: unknown })) };
  } catch {
    // An answer the route's function cannot read is not kept at all rather than kept with its secret.
    return { status: 409, payload: SECRET_WITHHELD_ANSWER };
  }
}

type KeyState = 'claimed' | 'committed' | 'done';

interface Claim {
  userId: number;
  key: string;
  /** Random per claim: whoever holds it may commit under the key. */
  owner: string;
  /** Set once the reply is being stored; later transactions of the request leave the row alone. */
  finished: boolean;
  /**
   * A unit-of-work route's claim before it is written: the unit of work
   * writes the row in its own transaction (claimInTransaction), so a decision
   * costs one commit, not three. Until that commits, no row exists.
   */
  pending?: { route: string; hash: string };
  /** The unit of work stores the answer itself, under the same owner check; the before-commit mark stands aside. */
  inUnitOfWork?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: Claim;
  }
}

/** JSON with object keys sorted at every level, so the same body hashes the same whatever its key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** Hash of a parsed JSON request: its body and query string. */
export function jsonFingerprint(body: unknown, query: unknown = {}): string {
  return sha256(canonicalJson({ body: body ?? null, query: query ?? {} }));
}

/**
 * What identifies the request's content. A multipart upload is read by its
 * handler after this check, so only what is known before parsing counts: the
 * media type and the length. The boundary is left out because browsers draw a
 * new one per send; its length is fixed per browser, so the same files re-sent
 * from the same device give the same length.
 */
export function requestFingerprint(req: FastifyRequest): string {
  const media = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (media === 'multipart/form-data') return sha256(`multipart:${req.headers['content-length'] ?? 'chunked'}:${canonicalJson(req.query ?? {})}`);
  if (Buffer.isBuffer(req.body)) return sha256(`raw:${media}:${sha256(req.body.toString('latin1'))}:${canonicalJson(req.query ?? {})}`);
  return jsonFingerprint(req.body, req.query);
}

export type ClaimOutcome = { kind: 'claimed'; owner: string } | { kind: 'replay'; status: number; response: string } | { kind: 'already-done' } | { kind: 'in-progress' } | { kind: 'mismatch' };

const changed = (r: { numInsertedOrUpdatedRows?: bigint; numUpdatedRows?: bigint; numDeletedRows?: bigint } | undefined) =>
  Number(r?.numInsertedOrUpdatedRows ?? r?.numUpdatedRows ?? r?.numDeletedRows ?? 0);

/** Claims (user, key) for a request, or says what the earlier request with that key decides. Autocommitted, outside any transaction. */
export async function claimKey(db: Kysely<DB>, k: { userId: number; key: string; route: string; hash: string }, now: number): Promise<ClaimOutcome> {
  const byKey = <Q extends { where: (...a: any[]) => any }>(q: Q) => q.where('user_id', '=', k.userId).where('idem_key', '=', k.key) as Q;
  // Each pass either decides or saw the row change under it (released, purged, taken over); a few passes settle any race.
  for (let pass = 0; pass < 5; pass++) {
    const owner = randomUUID();
    const inserted = await db
      .insertInto('idempotency_key')
      .values({ user_id: k.userId, idem_key: k.key, route: k.route, body_hash: k.hash, state: 'claimed', owner, http_status: null, response: null, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['user_id', 'idem_key']).doNothing())
      .executeTakeFirst();
    if (changed(inserted) === 1) return { kind: 'claimed', owner };

    const row = await byKey(db.selectFrom('idempotency_key').selectAll()).executeTakeFirst();
    if (!row) continue;
    if (row.created_at <= now - KEY_RETENTION_MS) {
      // Expired but not yet purged: as if absent.
      await byKey(db.deleteFrom('idempotency_key')).where('owner', '=', row.owner).execute();
      continue;
    }
    if (row.route !== k.route || row.body_hash !== k.hash) return { kind: 'mismatch' };
    const state = row.state as KeyState;
    if (state === 'done') return row.response !== null && row.http_status !== null ? { kind: 'replay', status: row.http_status, response: row.response } : { kind: 'already-done' };
    if (row.updated_at > now - CLAIM_LEASE_MS) return { kind: 'in-progress' };
    // Committed long ago without an answer: the process died after COMMIT.
    if (state === 'committed') return { kind: 'already-done' };
    // Claimed long ago and never committed: the first request died before changing anything.
    const taken = await byKey(db.updateTable('idempotency_key')).set({ owner, created_at: now, updated_at: now }).where('owner', '=', row.owner).where('state', '=', 'claimed').executeTakeFirst();
    if (changed(taken) === 1) return { kind: 'claimed', owner };
  }
  return { kind: 'in-progress' };
}

/** Marks the key committed inside the business transaction; refuses (rolling the change back) when the key is no longer this request's. */
async function markCommitted(trx: Transaction<DB>, claim: Claim, now: number): Promise<void> {
  if (claim.finished || claim.inUnitOfWork) return;
  await advanceOwnClaim(trx, claim, { state: 'committed', updated_at: now });
}

/** Moves the request's own claim on, inside its transaction; a key taken over meanwhile (another owner, or done) refuses the whole change. */
async function advanceOwnClaim(trx: Transaction<DB>, claim: Claim, set: Updateable<IdempotencyKeyTable>): Promise<void> {
  const r = await trx
    .updateTable('idempotency_key')
    .set(set)
    .where('user_id', '=', claim.userId)
    .where('idem_key', '=', claim.key)
    .where('owner', '=', claim.owner)
    .where('state', 'in', ['claimed', 'committed'])
    .executeTakeFirst();
  if (changed(r) !== 1) throw new AppError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, TAKEN_OVER_MESSAGE);
}

/** A 409 with code 1008 says "try again later" (a transaction the database aborted, a claim taken over), not "settled". */
function retryLater(status: number, payload: string): boolean {
  if (status !== 409) return false;
  try {
    return (JSON.parse(payload) as { code?: unknown }).code === ErrorCode.IDEMPOTENCY_IN_PROGRESS;
  } catch {
    return false;
  }
}

/**
 * Stores the answer of a finished request. 5xx, 401, 429 and a retry-later
 * 409 say "try again later", so when nothing committed the claim is released for that retry;
 * every other answer (success, validation, state conflict) is what a replay
 * gets, with any secret it holds withheld (storableAnswer). An answer that is not JSON (a file stream) cannot be replayed: the
 * claim is released, or, when the request committed, kept as "already done".
 */
async function finishClaim(db: Kysely<DB>, claim: Claim, status: number, payload: unknown, now: number, secret?: SecretAnswer): Promise<void> {
  const mine = <Q extends { where: (...a: any[]) => any }>(q: Q) => q.where('user_id', '=', claim.userId).where('idem_key', '=', claim.key).where('owner', '=', claim.owner) as Q;
  const storable = typeof payload === 'string';
  if (!storable || status >= 500 || status === 401 || status === 429 || retryLater(status, payload)) {
    const released = await mine(db.deleteFrom('idempotency_key')).where('state', '=', 'claimed').executeTakeFirst();
    if (changed(released) === 1) return;
    await mine(db.updateTable('idempotency_key')).set({ state: 'done', http_status: null, response: null, updated_at: now }).execute();
    return;
  }
  const stored = storableAnswer(secret, status, payload);
  await mine(db.updateTable('idempotency_key')).set({ state: 'done', http_status: stored.status, response: stored.payload, updated_at: now }).execute();
}

const claimRow = prepared<{ userId: number; key: string; route: string; hash: string; owner: string; now: number }, unknown>((db, arg) =>
  db
    .insertInto('idempotency_key')
    .values({
      user_id: arg('userId'),
      idem_key: arg('key'),
      route: arg('route'),
      body_hash: arg('hash'),
      state: 'claimed',
      owner: arg('owner'),
      http_status: null,
      response: null,
      created_at: arg('now'),
      updated_at: arg('now'),
    })
    .onConflict((oc) => oc.columns(['user_id', 'idem_key']).doNothing()),
);

/**
 * The first statement of a unit of work with a pending claim: writes the
 * claim in the work's transaction. On PostgreSQL a concurrent request with
 * the same key waits here until this transaction ends, then finds the row; on
 * SQLite the writers take turns anyway. False: another request holds the key.
 */
export async function claimInTransaction(trx: Transaction<DB>, dialect: Dialect, claim: Claim, now: number): Promise<boolean> {
  claim.inUnitOfWork = true;
  if (!claim.pending) return true;
  const r = await claimRow(trx, dialect, { userId: claim.userId, key: claim.key, route: claim.pending.route, hash: claim.pending.hash, owner: claim.owner, now });
  return Number(r.numAffectedRows ?? 0) === 1;
}

const storeAnswer = prepared<{ status: number; response: string; now: number; userId: number; key: string; owner: string }, unknown>((db, arg) =>
  db
    .updateTable('idempotency_key')
    .set({ state: 'done', http_status: arg('status'), response: arg('response'), updated_at: arg('now') })
    .where('user_id', '=', arg('userId'))
    .where('idem_key', '=', arg('key'))
    .where('owner', '=', arg('owner'))
    .where('state', 'in', ['claimed', 'committed']),
);

/** The last statement of a unit of work: its answer, stored in the same commit as the change. Refuses (rolling back) a key taken over meanwhile. */
export async function finishInTransaction(trx: Transaction<DB>, dialect: Dialect, claim: Claim, status: number, payload: string, now: number, secret?: SecretAnswer): Promise<void> {
  const stored = storableAnswer(secret, status, payload);
  const r = await storeAnswer(trx, dialect, { status: stored.status, response: stored.payload, now, userId: claim.userId, key: claim.key, owner: claim.owner });
  if (Number(r.numAffectedRows ?? 0) !== 1) throw new AppError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, TAKEN_OVER_MESSAGE);
}

/**
 * For a unit of work whose claim found the key already there (an earlier
 * send, or a concurrent one that committed first): what that request
 * decided, as any route's claim would read it. The answer to send; or null
 * when the key belonged to a request that died, and is this one's now (the
 * work runs again under it). Throws the 409 "come back" and the 422 of a key
 * used for another request.
 */
export async function keyTaken(db: Kysely<DB>, claim: Claim, now: number): Promise<{ status: number; payload: string } | null> {
  const outcome = await claimKey(db, { userId: claim.userId, key: claim.key, ...claim.pending! }, now);
  switch (outcome.kind) {
    case 'claimed':
      claim.pending = undefined;
      claim.owner = outcome.owner;
      return null;
    case 'replay':
      return { status: outcome.status, payload: outcome.response };
    case 'already-done':
      return { status: 200, payload: JSON.stringify(ok(null, ALREADY_DONE_MESSAGE)) };
    case 'in-progress':
      throw new AppError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, IN_PROGRESS_MESSAGE);
    case 'mismatch':
      throw new AppError(ErrorCode.IDEMPOTENCY_MISMATCH, MISMATCH_MESSAGE);
  }
}

/** Deletes keys older than the retention; answers how many. */
export async function purgeIdempotencyKeys(db: Kysely<DB>, now: number): Promise<number> {
  const r = await db
    .deleteFrom('idempotency_key')
    .where('created_at', '<=', now - KEY_RETENTION_MS)
    .executeTakeFirst();
  return changed(r);
}

const invalidKey = () => new AppError(ErrorCode.VALIDATION, INVALID_KEY_MESSAGE, { errors: [{ field: 'Idempotency-Key', label: '请求头 Idempotency-Key', message: '须为1到255个可打印的ASCII字符' }] });
const routeOf = (req: FastifyRequest) => `${req.method} ${req.url.split('?')[0]}`;

/**
 * The Idempotency-Key of a unit-of-work route whose caller is known only once
 * its body has been read: a signed action token in place of a session
 * (modules/quick-approve.ts, a 'public' route), which sets `req.auth` in its
 * preHandler and then calls this. The key is scoped to that user and claimed
 * in the work's transaction as the hook below does for a signed-in caller
 * (whose key it claims before validation; here the fingerprint is of the
 * validated body, the same on every send). Throws the 400 of a malformed key.
 */
export function claimForAuthenticatedBody(req: FastifyRequest): void {
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined || !req.auth || req.idempotency || !req.routeOptions.config?.unitOfWork) return;
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!VALID_KEY.test(key)) throw invalidKey();
  req.idempotency = { userId: req.auth.userId, key, owner: randomUUID(), finished: false, pending: { route: routeOf(req), hash: requestFingerprint(req) } };
}

/**
 * Hooks every mutating call under /api, before the route's schema validates
 * the body: a refused body is an answer to replay like any other, and the
 * fingerprint is of the body as sent. The hook is callback-style on
 * purpose: the rest of the request runs inside `requestScope(..., done)`, and
 * AsyncLocalStorage.run around Fastify's done() carries the scope into the
 * handler, where enterWith from an async hook does not reliably.
 */
export function registerIdempotency(app: FastifyInstance): void {
  const { db } = app.ctx;

  app.addHook('preValidation', (req, reply, done) => {
    const raw = req.headers[IDEMPOTENCY_HEADER];
    // Without a signed-in user (sign-in, captcha) there is nobody to scope the key to: it is ignored, never shared.
    if (raw === undefined || !req.auth || !MUTATING.has(req.method) || !req.url.startsWith('/api')) return done();
    const key = Array.isArray(raw) ? raw.join(', ') : raw;
    if (!VALID_KEY.test(key)) return done(invalidKey());
    const userId = req.auth.userId;
    const route = routeOf(req);
    const hash = requestFingerprint(req);
    // A unit of work claims the key in its own transaction (claimInTransaction): nothing to write or read here.
    if (req.routeOptions.config?.unitOfWork) {
      req.idempotency = { userId, key, owner: randomUUID(), finished: false, pending: { route, hash } };
      return done();
    }
    claimKey(db, { userId, key, route, hash }, app.ctx.now()).then(
      (outcome) => {
        switch (outcome.kind) {
          case 'claimed': {
            const claim: Claim = { userId, key, owner: outcome.owner, finished: false };
            req.idempotency = claim;
            const work = (trx: Transaction<any>) => markCommitted(trx as Transaction<DB>, claim, app.ctx.now());
            const scope = currentRequestScope();
            if (scope) {
              scope.beforeCommit.push(work);
              done();
            } else {
              requestScope({ beforeCommit: [work] }, () => done());
            }
            return;
          }
          case 'replay':
            reply.code(outcome.status).header(REPLAYED_HEADER, 'true').type('application/json; charset=utf-8').send(outcome.response);
            return;
          case 'already-done':
            reply.code(200).header(REPLAYED_HEADER, 'true').send(ok(null, ALREADY_DONE_MESSAGE));
            return;
          case 'in-progress':
            return done(new AppError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, IN_PROGRESS_MESSAGE));
          case 'mismatch':
            return done(new AppError(ErrorCode.IDEMPOTENCY_MISMATCH, MISMATCH_MESSAGE));
        }
      },
      (err: unknown) => done(err as Error),
    );
  });

  app.addHook('onSend', (req, reply, payload, done) => {
    const claim = req.idempotency;
    if (!claim || claim.finished) return done(null, payload);
    void storeAnswerOf(req, reply, payload, claim).then(() => done(null, payload));
  });

  /** The call's answer kept under its key; never fails the call (its failure is logged). */
  async function storeAnswerOf(req: FastifyRequest, reply: FastifyReply, payload: unknown, claim: Claim): Promise<void> {
    claim.finished = true;
    try {
      if (claim.pending) {
        // The unit of work did not commit (a refusal, a failure): its claim never was. Claim now, as any route does, to keep the answer.
        const outcome = await claimKey(db, { userId: claim.userId, key: claim.key, ...claim.pending }, app.ctx.now());
        if (outcome.kind !== 'claimed') return;
        claim.owner = outcome.owner;
      }
      await finishClaim(db, claim, reply.statusCode, payload, app.ctx.now(), req.routeOptions.config?.secretAnswer);
    } catch (err) {
      // The answer still goes out; the row stays claimed or committed and the lease or "already done" covers a replay.
      req.log.error({ err }, 'storing the idempotent answer failed');
    }
  }
}
