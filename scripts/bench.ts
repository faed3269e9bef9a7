/**
 * `npm run bench`: the bundle budgets of `npm run size`, then list-endpoint
 * throughput on the embedded database at scale, each beside a baseline
 * measured in the same run (for lists: the same page read straight from
 * better-sqlite3, with no HTTP, auth or JSON in between).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import { signInViaApi } from './demo-login';
import { measureScreens } from './size';

const USERS = Number(process.env.BENCH_USERS ?? 200_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = 16;

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];

async function main() {
  const dist = path.resolve('dist');
  if (fs.existsSync(path.join(dist, '.vite', 'manifest.json'))) {
    console.log('First-load JS (KB gzip)');
    for (const r of measureScreens(dist)) console.log(`  ${r.screen.padEnd(20)} ${r.totalKb.toFixed(1).padStart(7)} / budget ${r.budgetKb}  ${r.ok ? 'ok' : 'OVER'}`);
  } else console.log('dist/ not built: run `npm run build` for the bundle figures (`npm run size` adds Lighthouse).');

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-bench-'));
  const password = 'Bench' + Date.now() + 'x';
  const config = loadConfig({ DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD: password, PORT: '0', LOG_LEVEL: 'warn' }, { staticDir: undefined });
  let app = await buildApp(config);
  await app.close();

  // Bulk-load users straight into the file: the API would spend minutes hashing passwords.
  const raw = new Database(path.join(dataDir, 'park.db'));
  const t0 = performance.now();
  const hash = (raw.prepare("select password_hash from sys_user where account = 'admin'").get() as { password_hash: string }).password_hash;
  const departs = (raw.prepare('select depart_id from sys_department').all() as Array<{ depart_id: number }>).map((d) => d.depart_id);
  const insert = raw.prepare('insert into sys_user (user_name, account, password_hash, gender, phone, depart_id, status, uuid, create_time, update_time) values (?,?,?,?,?,?,?,?,?,?)');
  raw.transaction(() => {
    for (let i = 0; i < USERS; i += 1) insert.run(`用户${i}`, `bench_${i}`, hash, i % 2, `139${String(i).padStart(8, '0')}`, departs[i % departs.length], i % 10 ? 1 : 0, randomUUID(), '2026-01-01 08:00:00', '2026-01-01 08:00:00');
  })();
  console.log(`\nSeeded ${USERS.toLocaleString()} users in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const pages = Array.from({ length: 50 }, (_, i) => 1 + ((i * 7919) % 2000));
  const rawPage = raw.prepare('select u.user_id, u.user_name, u.account, u.gender, u.phone, u.depart_id, d.name as depart_name, u.status, u.uuid, u.create_time from sys_user u left join sys_department d on d.depart_id = u.depart_id where u.deleted = 0 order by u.user_id desc limit 10 offset ?');
  const rawCount = raw.prepare('select count(*) as total from sys_user where deleted = 0');
  const rawTimes: number[] = [];
  for (let i = 0; i < REQUESTS; i += 1) {
    const s = performance.now();
    rawCount.get();
    rawPage.all((pages[i % pages.length] - 1) * 10);
    rawTimes.push(performance.now() - s);
  }
  raw.close();

  app = await buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const token = await signInViaApi(origin, dataDir, 'admin', password);
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const i = next++;
        const s = performance.now();
        const res = await fetch(`${origin}/api/user/page`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ size: 10, pn: pages[i % pages.length] }) });
        if (!res.ok) throw new Error(`user/page answered ${res.status}`);
        await res.arrayBuffer();
        times.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });

  console.log(`\nPOST /api/user/page over ${USERS.toLocaleString()} users, ${REQUESTS} requests, ${CONCURRENCY} concurrent, signed in`);
  console.log(`  API (HTTP + session + JSON)   ${(REQUESTS / seconds).toFixed(0).padStart(7)} req/s   p95 ${p95(times).toFixed(2)} ms`);
  const rawTotal = rawTimes.reduce((a, b) => a + b, 0) / 1000;
  console.log(`  baseline: raw better-sqlite3  ${(REQUESTS / rawTotal).toFixed(0).padStart(7)} pages/s p95 ${p95(rawTimes).toFixed(2)} ms`);
}

await main();
