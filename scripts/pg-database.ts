import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Throwaway PostgreSQL databases on the machine's server, for the API suites
 * (one per suite, so they run side by side) and the bench's PostgreSQL figures.
 */
export const PG_ADMIN_URL = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let reachable: boolean | undefined;
export async function canReachPostgres(): Promise<boolean> {
  if (reachable !== undefined) return reachable;
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    reachable = true;
  } catch {
    reachable = false;
  }
  return reachable;
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A new empty database named `<prefix>_<time>_<random>`: its URL, and drop() (which also ends its connections). */
export async function createDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
