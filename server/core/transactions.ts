import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely, type Transaction, type TransactionBuilder } from 'kysely';
import { AppError } from './errors';

/**
 * Hooks around every `db.transaction().execute(fn)` of the server, so that
 * cross-cutting work joins the business change without each service knowing:
 *
 * - `beforeCommit` work registered for the current request (via
 *   `requestScope`) runs inside each transaction of that request, after the
 *   service's own statements and before COMMIT: the idempotency record of
 *   DESIGN.md §3 is marked done atomically with the change it guards.
 * - `afterCommit(trx, fn)` runs fn once that transaction has committed, and
 *   never when it rolls back: signals such as "notifications are waiting" or
 *   "a cached total is stale" must not fire for a change that did not happen.
 * - With a `durable` function (SQLite's group commit, db/group-sync.ts), a
 *   transaction resolves, and its after-commit work runs, only once the commit
 *   is on disk: no push or answer tells of a change a power loss could undo.
 */

export interface RequestScope {
  /** Runs inside each transaction of the request, just before COMMIT. */
  beforeCommit: Array<(trx: Transaction<any>) => Promise<void>>;
  /** Set while the request's unit of work (core/unit-of-work.ts) holds its transaction: every write of the call goes through it. */
  unitOfWork?: Transaction<any>;
}

const requests = new AsyncLocalStorage<RequestScope>();
const committed = new WeakMap<object, Array<() => void>>();

/** Runs fn with a request scope; transactions started inside it run the scope's beforeCommit work. */
export function requestScope<T>(scope: RequestScope, fn: () => T): T {
  return requests.run(scope, fn);
}

/** The scope of the request being served, if any (enterWith keeps it for the rest of a Fastify hook chain). */
export function enterRequestScope(scope: RequestScope): void {
  requests.enterWith(scope);
}

export function currentRequestScope(): RequestScope | undefined {
  return requests.getStore();
}

/**
 * Calls fn after trx commits. Outside a transaction opened through a hooked
 * database (a plain Kysely, or the db itself), fn runs at once: the write
 * that preceded it was already autocommitted.
 */
export function afterCommit(trx: Kysely<any>, fn: () => void): void {
  const list = committed.get(trx);
  if (list) list.push(fn);
  else queueMicrotask(fn);
}

function runQuietly(fns: Array<() => void>) {
  for (const fn of fns) {
    try {
      // Detached from the request: work it starts (a delivery pass) must not join that request's before-commit work.
      requests.exit(fn);
    } catch (err) {
      // A signal that fails must not turn a committed change into an error answer.
      console.error('after-commit hook failed:', err);
    }
  }
}

function hookBuilder<DB>(builder: TransactionBuilder<DB>, durable?: () => Promise<void>): TransactionBuilder<DB> {
  const execute = builder.execute.bind(builder);
  const setAccessMode = builder.setAccessMode.bind(builder);
  const setIsolationLevel = builder.setIsolationLevel.bind(builder);
  return Object.assign(builder, {
    setAccessMode: (mode: Parameters<typeof setAccessMode>[0]) => hookBuilder(setAccessMode(mode), durable),
    setIsolationLevel: (level: Parameters<typeof setIsolationLevel>[0]) => hookBuilder(setIsolationLevel(level), durable),
    async execute<T>(callback: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
      // On SQLite a second transaction would wait for the one connection the unit of work holds, for ever.
      if (requests.getStore()?.unitOfWork) throw new Error('a transaction opened inside a unit of work: use the transaction it passes (or inSavepoint)');
      const after: Array<() => void> = [];
      const result = await execute(async (trx) => {
        committed.set(trx, after);
        const value = await callback(trx);
        const scope = requests.getStore();
        if (scope) for (const work of scope.beforeCommit) await work(trx);
        return value;
      });
      if (durable) await durable();
      runQuietly(after);
      return result;
    },
  });
}

/** How deep in savepoints each open transaction is. */
const depths = new WeakMap<object, number>();

/**
 * Runs fn inside trx as one step that fails alone: on an error, what fn
 * wrote is rolled back (and the after-commit work it registered dropped), the
 * rest of the transaction stays, and the error goes on to the caller. On
 * PostgreSQL this also clears the aborted state a failed statement leaves.
 */
export async function inSavepoint<T>(trx: Transaction<any>, fn: () => Promise<T>): Promise<T> {
  // Named by depth, not numbered: steps one after another reuse one name (a savepoint's name need only be unique among
  // those open), so the statements' SQL repeats and SQLite's compiled statements are reused (db/index.ts).
  const depth = (depths.get(trx) ?? 0) + 1;
  depths.set(trx, depth);
  const name = sql.raw(`step_${depth}`);
  const after = committed.get(trx);
  const mark = after?.length ?? 0;
  try {
    await sql`savepoint ${name}`.execute(trx);
    try {
      const value = await fn();
      await sql`release savepoint ${name}`.execute(trx);
      return value;
    } catch (err) {
      if (after) after.length = mark;
      try {
        await sql`rollback to savepoint ${name}`.execute(trx);
        await sql`release savepoint ${name}`.execute(trx);
      } catch (lost) {
        // The transaction is gone already (SQLite rolled it back itself on a full disk, the connection broke): the
        // caller must not go on as if only this step failed, so a refusal it would catch becomes the loss itself.
        throw err instanceof AppError ? lost : err;
      }
      throw err;
    }
  } finally {
    depths.set(trx, depth - 1);
  }
}

/** Makes every transaction of db run the hooks above. Called once where the database is opened. */
export function withTransactionHooks<DB>(db: Kysely<DB>, durable?: () => Promise<void>): Kysely<DB> {
  const transaction = db.transaction.bind(db);
  (db as { transaction: () => TransactionBuilder<DB> }).transaction = () => hookBuilder(transaction(), durable);
  return db;
}
