/**
 * The database fails and comes back, under a load of DBFAULT_CLIENTS (default 4) clients that each write a
 * department under an Idempotency-Key and read the list, over and over:
 *   - PostgreSQL reset: a proxy between the server and PostgreSQL resets every connection for DBFAULT_SECONDS
 *     (default 30), then lets them through again;
 *   - PostgreSQL silent: the same link drops every packet instead (no reset) for the same time;
 *   - SQLite full: the server's own connection may not grow the file (PRAGMA max_page_count) for the same time.
 * Printed per scenario: the calls answered during the fault by status, the slowest answer, what /api/health/ready
 * said, the acknowledged writes lost (target 0; refused ones are sent again under their key and must land once),
 * and the seconds from the end of the fault to the first write that succeeds.
 *
 *   npx tsx scripts/reliability/dbfault.ts [--dialect sqlite|postgres|both]
 *   DBFAULT_SECONDS=30 DBFAULT_CLIENTS=4
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { Client, DEMO_PASSWORD, type TestServer } from '../../tests/api/harness';
import { createDatabase } from '../pg-database';
import { dialectsFromArgs, intEnv, sleep, table } from './common';
import { startFaultProxy } from './fault-proxy';

const SECONDS = intEnv('DBFAULT_SECONDS', 30);
const CLIENTS = intEnv('DBFAULT_CLIENTS', 4);

interface Answer {
  code: string;
  key: string;
  status: number;
  ms: number;
  at: number;
}

async function serverOn(env: Record<string, string>, dataDir: string): Promise<TestServer> {
  const config = loadConfig(
    { DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD, PORT: '0', ...env },
    {
      staticDir: undefined,
      seedGateHistory: false,
      captchaCooldownSeconds: 0,
      logLevel: 'fatal',
      rateLimits: { captchaPerAccount: 1000, captchaPerIp: 1000, loginPerAccount: 1000, loginPerIp: 1000 },
    },
  );
  const app = await buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  return { app, base: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, dataDir, dialect: env.DATABASE_URL ? 'postgres' : 'sqlite', close: async () => undefined };
}

const write = (admin: Client, code: string, key: string) =>
  admin.call('POST', '/depart/save', { name: `故障演练${code}`.slice(0, 30), code, visit_area: 1 }, { 'idempotency-key': key, connection: 'close' });

/** CLIENTS loops of a write and a read, each answer timed; a call that gets no answer at all counts as status 0. */
function load(admin: Client, tag: string) {
  const answers: Answer[] = [];
  let running = true;
  let n = 0;
  const loop = async (w: number) => {
    while (running) {
      const code = `${tag}${w}N${n++}`;
      const key = randomUUID();
      let started = Date.now();
      const r = await write(admin, code, key).catch(() => ({ status: 0 }));
      answers.push({ code, key, status: r.status, ms: Date.now() - started, at: started });
      started = Date.now();
      const read = await admin.post('/depart/all', {}).catch(() => ({ status: 0 }));
      answers.push({ code: '', key: '', status: read.status, ms: Date.now() - started, at: started });
      if (r.status !== 200) await sleep(50);
    }
  };
  const loops = Array.from({ length: CLIENTS }, (_, w) => loop(w));
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

async function scenario(name: string, server: TestServer, tag: string, fault: { start(): Promise<void>; end(): Promise<void> }): Promise<Array<string | number>> {
  const admin = await new Client(server).as('admin');
  const traffic = load(admin, tag);
  await sleep(3000);
  const began = Date.now();
  await fault.start();
  let ready = 0;
  for (let t = 0; t < SECONDS; t++) {
    if (t === Math.floor(SECONDS / 2)) ready = (await fetch(`${server.base}/api/health/ready`).catch(() => ({ status: 0 }))).status;
    await sleep(1000);
  }
  await fault.end();
  const ended = Date.now();
  let recovered = NaN;
  for (let i = 0; i < 600; i++) {
    if (traffic.answers.some((a) => a.code && a.status === 200 && a.at >= ended)) {
      recovered = (Date.now() - ended) / 1000;
      break;
    }
    await sleep(100);
  }
  await traffic.stop();

  // Every call that was in flight at some moment of the fault.
  const during = traffic.answers.filter((a) => a.at < ended && a.at + a.ms >= began);
  const byStatus = new Map<number, number>();
  for (const a of during) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
  const slowest = Math.max(0, ...during.map((a) => a.ms));

  // Acknowledged writes must all be there; refused ones, sent again under their key, must land exactly once.
  const db = server.app.ctx.db;
  for (const a of traffic.answers.filter((x) => x.code && x.status !== 200)) {
    for (let tries = 0; tries < 20; tries++) {
      const again = await write(admin, a.code, a.key).catch(() => ({ status: 0 }));
      if (again.status === 200) break;
      await sleep(200);
    }
  }
  const stored = (await db.selectFrom('sys_department').select('code').where('code', 'like', `${tag}%`).where('deleted', '=', 0).execute()).map((r) => r.code);
  const have = new Set(stored);
  const lost = traffic.answers.filter((a) => a.code && a.status === 200 && !have.has(a.code)).length;
  const twice = stored.length - have.size;
  const statuses = [...byStatus.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s || '无应答'}×${n}`)
    .join(' ');
  return [name, statuses || '无', `${slowest} ms`, ready || '—', lost + twice, Number.isNaN(recovered) ? '未恢复' : `${recovered.toFixed(1)} s`];
}

const rows: Array<Array<string | number>> = [['故障', '故障期间的应答（状态×次数）', '最慢应答', '就绪检查', '丢失或重复的写入', '恢复用时']];

for (const dialect of dialectsFromArgs()) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-dbfault-'));
  if (dialect === 'postgres') {
    const database = await createDatabase('park_dbfault');
    const url = new URL(database.url);
    const proxy = await startFaultProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(proxy.port);
    const server = await serverOn({ DATABASE_URL: url.toString() }, dataDir);
    try {
      rows.push(await scenario(`PostgreSQL 连接被重置 ${SECONDS} s`, server, 'PGR', { start: async () => proxy.reset(), end: async () => proxy.heal() }));
      rows.push(await scenario(`PostgreSQL 链路静默 ${SECONDS} s`, server, 'PGS', { start: async () => proxy.silence(), end: async () => proxy.heal() }));
    } finally {
      server.app.server.closeAllConnections();
      await server.app.close();
      await proxy.close();
      await database.drop();
    }
  } else {
    const server = await serverOn({}, dataDir);
    const db = server.app.ctx.db;
    try {
      rows.push(
        await scenario(`SQLite 磁盘空间耗尽 ${SECONDS} s`, server, 'SQF', {
          start: async () => {
            const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0]!.page_count;
            await sql`pragma max_page_count = ${sql.raw(String(pages))}`.execute(db);
          },
          end: async () => {
            await sql`pragma max_page_count = 1073741823`.execute(db);
          },
        }),
      );
    } finally {
      server.app.server.closeAllConnections();
      await server.app.close();
    }
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

console.log(`\n数据库故障演练：${CLIENTS} 个客户端持续写入与查询，故障持续 ${SECONDS} 秒\n`);
console.log(table(rows));
console.log('\n目标：故障期间每个调用 2 秒内得到 503/507 应答（静默链路以语句超时为限），就绪检查为 503，丢失或重复的写入为 0，故障结束后自动恢复。');
