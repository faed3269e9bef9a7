import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { MIGRATION_LEVEL } from '../../server/db/migrate';
import { createDatabase } from '../../scripts/pg-database';
import { Client, DEMO_PASSWORD, dialects, type DialectName, type TestServer } from './harness';

/**
 * Upgrades: a park's database as the release before the operations work left it (migration level
 * 031-route-deviation-alarms, with the demo seed in it; tests/fixtures/upgrade, made by that release's server
 * on its first start) is brought to this build's level with no row lost, and this build then serves it. A
 * database that a newer build has migrated is refused, naming both levels.
 */

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/upgrade');
const OLD_LEVEL = '031-route-deviation-alarms';

function configFor(dialect: DialectName, dataDir: string, databaseUrl?: string, seedDemo = false) {
  return loadConfig(
    { DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD, PORT: '0', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    {
      staticDir: undefined,
      seedDemo,
      seedGateHistory: false,
      captchaCooldownSeconds: 0,
      logLevel: 'fatal',
      checkAnswers: true,
      rateLimits: { captchaPerAccount: 1000, captchaPerIp: 1000, loginPerAccount: 1000, loginPerIp: 1000 },
    },
  );
}

/** Rows in every table of the database but the migrator's own bookkeeping. */
async function rowCounts(db: Kysely<unknown>, dialect: DialectName): Promise<Record<string, number>> {
  const tables =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`.execute(db)
      : await sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_%'`.execute(db);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    counts[name] = Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}`.execute(db)).rows[0]!.n);
  }
  return counts;
}

for (const dialect of await dialects()) {
  describe(`upgrade on ${dialect}`, () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-upgrade-'));
    let database: { url: string; drop(): Promise<void> } | undefined;
    afterAll(async () => {
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it(`brings a demo park at ${OLD_LEVEL} to this build's level with no row lost, serves it, and refuses a newer database`, async () => {
      if (dialect === 'sqlite') {
        const file = new Database(path.join(dataDir, 'park.db'));
        file.exec(zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, 'sqlite-031-demo.sql.gz'))).toString('utf8'));
        file.close();
      } else {
        database = await createDatabase('park_upgrade');
        execFileSync('pg_restore', ['--no-owner', '--no-privileges', '--dbname', database.url, path.join(FIXTURES, 'postgres-031-demo.pgdump')]);
      }

      // The level it is at and what it holds, read before this build migrates anything.
      const before = await (async () => {
        if (dialect === 'sqlite') {
          const { Kysely: K, SqliteDialect } = await import('kysely');
          const k = new K<unknown>({ dialect: new SqliteDialect({ database: new Database(path.join(dataDir, 'park.db')) }) });
          const level = (await sql<{ name: string }>`select max(name) as name from kysely_migration`.execute(k)).rows[0]!.name;
          const counts = await rowCounts(k, dialect);
          await k.destroy();
          return { level, counts };
        }
        const { Kysely: K, PostgresDialect } = await import('kysely');
        const pg = (await import('pg')).default;
        const k = new K<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database!.url, max: 1 }) }) });
        const level = (await sql<{ name: string }>`select max(name) as name from kysely_migration`.execute(k)).rows[0]!.name;
        const counts = await rowCounts(k, dialect);
        await k.destroy();
        return { level, counts };
      })();
      expect(before.level).toBe(OLD_LEVEL);
      expect(before.counts.car_application ?? 0).toBeGreaterThan(0);

      const upgraded = await buildApp(configFor(dialect, dataDir, database?.url));
      const db = upgraded.ctx.db as unknown as Kysely<unknown>;
      expect((await sql<{ name: string }>`select max(name) as name from kysely_migration`.execute(db)).rows[0]!.name).toBe(MIGRATION_LEVEL);
      const after = await rowCounts(db, dialect);
      for (const [table, n] of Object.entries(before.counts)) expect(after[table], `${table} after the upgrade`).toBeGreaterThanOrEqual(n);
      await upgraded.close();

      // This build serves it: the demo's admin signs in and reads the applications the old release filed.
      const app = await buildApp(configFor(dialect, dataDir, database?.url, true));
      await app.listen({ port: 0, host: '127.0.0.1' });
      const addr = app.server.address();
      const server: TestServer = { app, base: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, dataDir, dialect, close: async () => undefined };
      const admin = await new Client(server).as('admin');
      const page = await admin.post<{ total: number }>('/carApplications/all/history/list', { size: 10, pn: 1 });
      expect(page.status).toBe(200);
      expect(page.body.data.total).toBeGreaterThan(0);

      // A newer build's migration on this database: this build will not start on it.
      await sql`insert into kysely_migration (name, timestamp) values ('999-from-a-newer-release', ${new Date().toISOString()})`.execute(app.ctx.db);
      app.server.closeAllConnections();
      await app.close();
      await expect(buildApp(configFor(dialect, dataDir, database?.url))).rejects.toThrow(`数据库的迁移级别 999-from-a-newer-release 高于本程序的 ${MIGRATION_LEVEL}`);
    }, 180_000);
  });
}
