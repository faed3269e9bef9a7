import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { withTransactionHooks } from '../core/transactions';
import type { DB } from './schema';

export type Dialect = 'sqlite' | 'postgres';

export interface Database_ {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
}

// int8 (bigint) columns hold epoch milliseconds and counts: well inside 2^53, so read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export function openDatabase(opts: { databaseUrl?: string; dataDir: string }): Database_ {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client dropped by the server (restart, admin kill, a dropped test database) is replaced on next use; unhandled, it would crash the process.
    pool.on('error', (err) => console.error('PostgreSQL idle client error:', err.message));
    const db = withTransactionHooks(new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }));
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const sqlite = new Database(path.join(opts.dataDir, 'park.db'));
  sqlite.pragma('journal_mode = WAL');
  // WAL with NORMAL can lose an acknowledged write on power loss, after a phone already cleared it from its outbox.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = withTransactionHooks(new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) }));
  return { db, dialect: 'sqlite', close: () => db.destroy() };
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
