import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompactEncrypt, importSPKI } from 'jose';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app';
import { loadConfig, type Config } from '../../server/config';
import type { Envelope } from '../../domain/envelope';
import { latestSmsCode } from '../../scripts/demo-login';
import { canReachPostgres, createDatabase, PG_ADMIN_URL } from '../../scripts/pg-database';

export const DEMO_PASSWORD = 'Demo@2026';

export type DialectName = 'sqlite' | 'postgres';

/**
 * The dialects this run covers: SQLite always; PostgreSQL when reachable. In CI
 * an unreachable PostgreSQL is a failure, not a skip.
 */
export async function dialects(): Promise<DialectName[]> {
  if (await canReachPostgres()) return ['sqlite', 'postgres'];
  if (process.env.CI === 'true') throw new Error(`PostgreSQL is required in CI but ${PG_ADMIN_URL} is unreachable`);
  console.warn(`[api tests] PostgreSQL at ${PG_ADMIN_URL} is unreachable: the PostgreSQL suite is SKIPPED on this machine.`);
  return ['sqlite'];
}

export interface TestServer {
  app: FastifyInstance;
  base: string;
  dataDir: string;
  dialect: DialectName;
  close(): Promise<void>;
}

/** A server on a free loopback port, logging at info to `logFile` (suites read it back). */
async function listening(config: Config, logFile: string): Promise<{ app: FastifyInstance; base: string }> {
  const app = await buildApp({ ...config, logLevel: 'info' }, { logFile });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  return { app, base: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` };
}

export async function startServer(dialect: DialectName, overrides: Partial<Config> = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-api-'));
  const database = dialect === 'postgres' ? await createDatabase('park_test') : undefined;
  const databaseUrl = database?.url;
  const config = loadConfig(
    { DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD, PORT: '0', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    {
      staticDir: undefined,
      seedGateHistory: false,
      captchaCooldownSeconds: 0,
      rateLimits: { captchaPerAccount: 1000, captchaPerIp: 1000, loginPerAccount: 1000, loginPerIp: 1000 },
      logLevel: 'warn',
      // Every answer is held to its route's declaration (core/route-schema.ts).
      checkAnswers: true,
      ...overrides,
    },
  );
  const { app, base } = await listening(config, path.join(dataDir, 'server.log'));
  return {
    app,
    base,
    dataDir,
    dialect,
    async close() {
      const closing = app.close();
      // Every call of a suite has been answered by now: a keep-alive socket left open would hold the close for
      // the server's keepAliveTimeout (72 s), longer than vitest's hook timeout (seen once on a full CI run).
      app.server.closeAllConnections();
      await closing;
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Another server on the database of `first` (the same DATABASE_URL on
 * PostgreSQL), as a second process behind a balancer would be: its own
 * Fastify instance, connection pool, in-process listeners, dispatcher and
 * port, sharing only the database and the data directory (a shared volume,
 * so SMS codes and uploads are where either server looks). It migrates but
 * does not seed: `first` did. Closing it leaves the database and the
 * directory to `first`.
 */
export async function startSecondServer(first: TestServer, overrides: Partial<Config> = {}, name = 'second'): Promise<TestServer> {
  const { app, base } = await listening({ ...first.app.ctx.config, seedDemo: false, ...overrides }, path.join(first.dataDir, `server-${name}.log`));
  return {
    app,
    base,
    dataDir: first.dataDir,
    dialect: first.dialect,
    async close() {
      await app.close();
    },
  };
}

export interface Reply<T = unknown> {
  status: number;
  body: Envelope<T>;
}

/** A client of one server: encrypts `content` like the PWA, reads SMS codes from the file outbox, keeps the token. */
export class Client {
  token: string | null = null;
  private key: CryptoKey | null = null;
  constructor(readonly server: TestServer) {}

  async call<T = unknown>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    const res = await fetch(this.server.base + '/api' + url, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : (null as never) };
  }
  post<T = unknown>(url: string, body: unknown = {}) {
    return this.call<T>('POST', url, body);
  }
  get<T = unknown>(url: string) {
    return this.call<T>('GET', url);
  }

  async encrypt(payload: unknown): Promise<string> {
    if (!this.key) {
      const r = await this.get<{ publicKey: string }>('/user/publicKey');
      this.key = (await importSPKI(r.body.data.publicKey, 'RSA-OAEP-256')) as CryptoKey;
    }
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM' }).encrypt(this.key);
  }

  async requestCaptcha(account: string) {
    return this.post<{ expireOfSeconds: number }>('/user/captcha', { content: await this.encrypt({ account }) });
  }

  latestCode(account: string): string | undefined {
    return latestSmsCode(this.server.dataDir, account);
  }

  async login(account: string, password = DEMO_PASSWORD): Promise<Reply<{ token: string }>> {
    const c = await this.requestCaptcha(account);
    if (c.status !== 200) throw new Error(`captcha failed: ${JSON.stringify(c.body)}`);
    const captcha = this.latestCode(account) ?? '000000';
    const r = await this.post<{ token: string }>('/user/v2login', { content: await this.encrypt({ account, password, captcha }) });
    if (r.body.success) this.token = r.body.data.token;
    return r;
  }

  async as(account: string): Promise<this> {
    const r = await this.login(account);
    if (!r.body.success) throw new Error(`login ${account} failed: ${r.body.msg}`);
    return this;
  }
}

export const readLog = (server: TestServer) => {
  const f = path.join(server.dataDir, 'server.log');
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
};
