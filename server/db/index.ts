import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  PostgresDriver,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type LogEvent,
  type PostgresDialectConfig,
  type SqliteDialectConfig,
} from 'kysely';
import pg from 'pg';
import { isDatabaseUnreachable } from '../core/db-errors';
import { withTransactionHooks } from '../core/transactions';
import { walGroupSync } from './group-sync';
import { preparedName } from './prepared';
import type { DB } from './schema';

export type Dialect = 'sqlite' | 'postgres';

export interface Database_ {
  db: Kysely<DB>;
  dialect: Dialect;
  /**
   * Resolves once every write made before the call is on disk. Transactions
   * already wait for it; a mutating call awaits it once more before its answer,
   * for the bookkeeping written outside them. PostgreSQL syncs each COMMIT
   * itself (and groups concurrent ones on its own).
   */
  durable(): Promise<void>;
  /**
   * A handle for long maintenance (migrations, restores) that the per-statement time limit of calls must not stop:
   * on PostgreSQL one connection of its own, without statement_timeout; on SQLite the database itself.
   */
  maintenance(): { db: Kysely<DB>; close(): Promise<void> };
  close(): Promise<void>;
}

// int8 (bigint) columns hold epoch milliseconds and counts: well inside 2^53, so read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * How a connection reads (issue 28): a 64 MiB page cache, not SQLite's
 * 2 MiB, and pages read through a memory map of the file instead of a read()
 * each. With WEB_CONCURRENCY every commit by another process empties this
 * connection's cache, and a page read again is a system call per page
 * without the map; on this machine a decision cost a second process 0.3 ms
 * more of CPU without them (docs/performance.md). Writes still go through
 * write() and the group commit's fdatasync, so durability is unchanged; the
 * map is address space, its pages the kernel's page cache. The bench's raw
 * baselines read with the same settings.
 */
export function applyReadPragmas(sqlite: Database.Database): void {
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 1073741824');
}

/** Where the database layer reports its timings (ops/metrics.ts), in seconds. */
export interface DatabaseObserver {
  statement(seconds: number): void;
  groupCommitWait(seconds: number): void;
}

export function openDatabase(opts: { databaseUrl?: string; dataDir: string; dbStatementTimeoutMs?: number; observe?: DatabaseObserver }): Database_ {
  const observe = opts.observe;
  // Kysely times each statement only when it has somewhere to log it.
  const log = observe ? (event: LogEvent) => observe.statement(event.queryDurationMillis / 1000) : undefined;
  if (opts.databaseUrl) {
    const statementTimeout = opts.dbStatementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 10,
      // A database that cannot be reached answers the call with a 503 in seconds instead of holding it: a new
      // connection, or a wait for a free one, gives up after this long.
      connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
      // A link that goes silent (packets dropped, no reset) fails the statement on this side too, and the
      // server itself stops a runaway statement a little earlier.
      query_timeout: statementTimeout + 5_000,
      statement_timeout: statementTimeout,
      keepAlive: true,
    });
    // An idle client dropped by the server (restart, admin kill, a dropped test database) is replaced on next use; unhandled, it would crash the process.
    pool.on('error', (err) => console.error('PostgreSQL idle client error:', err.message));
    pool.on('connect', (client) => {
      // A client in use whose connection breaks emits 'error' too, and pg-pool listens only while it is idle: the
      // statement in flight fails (answered 503) and the pool drops the client when it comes back.
      client.on('error', (err) => console.error('PostgreSQL connection error:', err.message));
      namePreparedStatements(client);
    });
    const db = withTransactionHooks(new Kysely<DB>({ dialect: new CauseKeepingPostgresDialect({ pool }), log }));
    const maintenance = () => {
      const one = new pg.Pool({ connectionString: opts.databaseUrl, max: 1, keepAlive: true });
      one.on('error', (err) => console.error('PostgreSQL maintenance connection error:', err.message));
      const mdb = new Kysely<DB>({ dialect: new PostgresDialect({ pool: one }) });
      return { db: mdb, close: () => mdb.destroy() };
    };
    return { db, dialect: 'postgres', durable: () => Promise.resolve(), maintenance, close: () => db.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = path.join(opts.dataDir, 'park.db');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL alone can lose an acknowledged write on power loss, after a phone already cleared it from its outbox:
  // the server syncs the WAL itself before it tells anyone of a write (group commit, db/group-sync.ts).
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  applyReadPragmas(sqlite);
  const counter = commitCounter(sqlite);
  const sync = walGroupSync(file, counter.commits);
  const busyTimeout = { off: sqlite.prepare('pragma busy_timeout = 0'), on: sqlite.prepare(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`) };
  // SQLite applies this pragma when it compiles it, and a statement's first run does not apply it again: each is run
  // once here, so that every later run sets the timeout (otherwise the first contended BEGIN would block the thread).
  busyTimeout.off.get();
  busyTimeout.on.get();
  const dialect = new ImmediateSqliteDialect(
    { database: withStatementCache(sqlite, STATEMENT_CACHE_SIZE, counter.running) },
    (wait) => void (wait ? busyTimeout.on : busyTimeout.off).get(),
    () => sqlite.inTransaction,
  );
  const durable = observe
    ? () => {
        const started = performance.now();
        return sync.durable().finally(() => observe.groupCommitWait((performance.now() - started) / 1000));
      }
    : sync.durable;
  const db = withTransactionHooks(new Kysely<DB>({ dialect, log }), durable);
  return {
    db,
    dialect: 'sqlite',
    durable,
    maintenance: () => ({ db, close: () => Promise.resolve() }),
    close: async () => {
      await db.destroy();
      sync.close();
    },
  };
}

/**
 * Sends the hot path's statements (db/prepared.ts) as named ones: the first
 * use on a connection prepares the statement, later ones only bind and run
 * it, so PostgreSQL parses and plans a decision's statements once per
 * connection. Other SQL goes as it came. The client's own query method is
 * looked up on each call (tests count statements by wrapping it).
 */
function namePreparedStatements(client: pg.PoolClient): void {
  client.query = function (text: unknown, values?: unknown, ...rest: unknown[]) {
    const query = Object.getPrototypeOf(client).query as (...args: unknown[]) => unknown;
    const name = typeof text === 'string' && Array.isArray(values) ? preparedName(text) : undefined;
    const result = name ? query.call(client, { name, text, values }, ...rest) : query.call(client, text, values, ...rest);
    if (result instanceof Promise) {
      result.catch((err: unknown) => {
        // pg answers a read timeout but leaves the statement on the connection, where every later one would queue
        // behind it: the connection is closed, and the pool drops the client when it is released.
        if ((err as Error | null)?.message === 'Query read timeout') (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      });
    }
    return result;
  } as typeof client.query;
}

/** The longest one statement may run on PostgreSQL (statement_timeout, DB_STATEMENT_TIMEOUT_MS); the client gives up 5 s after. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** How long a call waits to connect to PostgreSQL, or for a free connection of the pool. */
const PG_CONNECT_TIMEOUT_MS = 3_000;

/**
 * A rollback that fails must not replace the error that caused it: on a connection that broke mid-transaction the
 * ROLLBACK fails too, and the caller should learn that the database went away, not that a rollback did.
 */
class CauseKeepingPostgresDriver extends PostgresDriver {
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (err) {
      if (!isDatabaseUnreachable(err)) throw err;
    }
  }
}

class CauseKeepingPostgresDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;
  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver() {
    return new CauseKeepingPostgresDriver(this.#config);
  }
}

/** How long a statement waits for another process's write lock before it fails with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Transactions take SQLite's write lock when they begin (BEGIN IMMEDIATE),
 * not at their first write. With several server processes on one file
 * (WEB_CONCURRENCY), a deferred transaction that read and then wrote after
 * another process committed would fail at once with SQLITE_BUSY (its snapshot
 * is stale and cannot be upgraded); taken at BEGIN, the lock is waited for and
 * the reads see the latest commit. In one process it changes nothing: Kysely
 * already runs one transaction at a time on the connection.
 *
 * The wait is asynchronous (issue 28 item 3). SQLite's own busy handler
 * sleeps the thread (1, 2, 5, 10 … ms), and the thread is the process's event
 * loop: while another process held the lock for a millisecond, this one parsed
 * no request and answered none, and a second process lowered decisions/s
 * instead of adding to them. So BEGIN IMMEDIATE is tried with no busy wait,
 * and on SQLITE_BUSY tried again after the event loop has turned (at once a
 * few times, then every millisecond), up to the same 5 s. Statements outside
 * a transaction keep SQLite's wait: they are single writes, rare here.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #busyWait: (wait: boolean) => void;
  readonly #inTransaction: () => boolean;
  constructor(config: SqliteDialectConfig, busyWait: (wait: boolean) => void, inTransaction: () => boolean) {
    super(config);
    this.#busyWait = busyWait;
    this.#inTransaction = inTransaction;
  }
  /**
   * SQLite rolls a transaction back by itself on some errors (SQLITE_FULL, SQLITE_IOERR, …): a ROLLBACK then fails
   * with "no transaction is active", and that error would replace the cause the caller must be told.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.#inTransaction()) await super.rollbackTransaction(connection);
  }
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      this.#busyWait(false);
      try {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'));
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() - started >= BUSY_TIMEOUT_MS) throw err;
      } finally {
        this.#busyWait(true);
      }
      await new Promise((resolve) => (attempt < 4 ? setImmediate(resolve) : setTimeout(resolve, 1)));
    }
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #busyWait: (wait: boolean) => void;
  readonly #inTransaction: () => boolean;
  constructor(config: SqliteDialectConfig, busyWait: (wait: boolean) => void, inTransaction: () => boolean) {
    super(config);
    this.#config = config;
    this.#busyWait = busyWait;
    this.#inTransaction = inTransaction;
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config, this.#busyWait, this.#inTransaction);
  }
}

/**
 * Counts the connection's commits for the group commit (db/group-sync.ts), so
 * that a call that wrote nothing waits for no sync. Kysely prepares each
 * statement right before running it, at once and on this thread, so whenever
 * anything else runs, the statement last prepared has run: it committed if it
 * ended the transaction it ran in (COMMIT, or RELEASE of the outermost
 * savepoint), or wrote outside one. A ROLLBACK counts too: one sync too many,
 * never one too few. Every statement of the server goes through Kysely; the
 * busy-wait pragmas, the only ones that do not, write nothing.
 */
function commitCounter(sqlite: Database.Database) {
  let last: Database.Statement | null = null;
  let inTransactionBefore = false;
  let commits = 0;
  const settle = () => {
    if (last && !sqlite.inTransaction && (inTransactionBefore || !last.readonly)) commits++;
    last = null;
  };
  return {
    running(stmt: Database.Statement) {
      settle();
      inTransactionBefore = sqlite.inTransaction;
      last = stmt;
    },
    commits() {
      settle();
      return commits;
    },
  };
}

/** Distinct SQL texts kept compiled (a list's filters and IN-lists make variants; the least recently used go first). */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Kysely asks better-sqlite3 to prepare (compile) every query it runs, and a
 * fresh compile was a seventh of a list call's time (docs/performance.md).
 * The same SQL text is the same statement, so the compiled ones are kept and
 * reused. Safe because Kysely runs each statement to completion at once on
 * this one connection (nothing here streams), and SQLite recompiles a kept
 * statement by itself when a migration changes the schema under it.
 */
export function withStatementCache(
  sqlite: Database.Database,
  size = STATEMENT_CACHE_SIZE,
  running?: (stmt: Database.Statement) => void,
): { prepare: (sql: string) => Database.Statement; close: () => void } {
  const kept = new Map<string, Database.Statement>();
  return {
    prepare(sql: string) {
      let stmt = kept.get(sql);
      if (stmt) kept.delete(sql);
      else stmt = sqlite.prepare(sql);
      kept.set(sql, stmt);
      if (kept.size > size) kept.delete(kept.keys().next().value!);
      running?.(stmt);
      return stmt;
    },
    close: () => {
      kept.clear();
      sqlite.close();
    },
  };
}
