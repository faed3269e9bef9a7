import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection, type SqliteDialectConfig } from 'kysely';
import pg from 'pg';
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
  close(): Promise<void>;
}

// int8 (bigint) columns hold epoch milliseconds and counts: well inside 2^53, so read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export function openDatabase(opts: { databaseUrl?: string; dataDir: string }): Database_ {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client dropped by the server (restart, admin kill, a dropped test database) is replaced on next use; unhandled, it would crash the process.
    pool.on('error', (err) => console.error('PostgreSQL idle client error:', err.message));
    pool.on('connect', namePreparedStatements);
    const db = withTransactionHooks(new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }));
    return { db, dialect: 'postgres', durable: () => Promise.resolve(), close: () => db.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = path.join(opts.dataDir, 'park.db');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL alone can lose an acknowledged write on power loss, after a phone already cleared it from its outbox:
  // the server syncs the WAL itself before it tells anyone of a write (group commit, db/group-sync.ts).
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const sync = walGroupSync(file);
  const db = withTransactionHooks(new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) }), sync.durable);
  return {
    db,
    dialect: 'sqlite',
    durable: sync.durable,
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
    return name ? query.call(client, { name, text, values }, ...rest) : query.call(client, text, values, ...rest);
  } as typeof client.query;
}

/**
 * Transactions take SQLite's write lock when they begin (BEGIN IMMEDIATE),
 * not at their first write. With several server processes on one file
 * (WEB_CONCURRENCY), a deferred transaction that read and then wrote after
 * another process committed would fail at once with SQLITE_BUSY (its snapshot
 * is stale and cannot be upgraded); taken at BEGIN, the lock is waited for
 * (busy_timeout) and the reads see the latest commit. In one process it
 * changes nothing: Kysely already runs one transaction at a time on the
 * connection.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config);
  }
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
export function withStatementCache(sqlite: Database.Database, size = STATEMENT_CACHE_SIZE): { prepare: (sql: string) => Database.Statement; close: () => void } {
  const kept = new Map<string, Database.Statement>();
  return {
    prepare(sql: string) {
      let stmt = kept.get(sql);
      if (stmt) kept.delete(sql);
      else stmt = sqlite.prepare(sql);
      kept.set(sql, stmt);
      if (kept.size > size) kept.delete(kept.keys().next().value!);
      return stmt;
    },
    close: () => {
      kept.clear();
      sqlite.close();
    },
  };
}
