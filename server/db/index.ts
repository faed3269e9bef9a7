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
  const db = withTransactionHooks(new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) }));
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}
