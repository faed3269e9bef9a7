/**
 * Lighthouse mobile performance of the login screen and the signed-in home,
 * beside a baseline measured in the same run: a bare React 19 page built by
 * the same Vite and scored by the same Lighthouse on the same machine.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { build } from 'vite';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import { signInViaApi } from './demo-login';
import { LIGHTHOUSE_RUNS, lighthousePerformance, type LighthouseResult } from './lighthouse';

export const LIGHTHOUSE_TARGET = 95;

async function buildBaseline(outDir: string): Promise<number> {
  await build({ root: path.resolve('scripts/baseline'), configFile: false, logLevel: 'silent', build: { outDir, emptyOutDir: true } });
  const js = fs.readdirSync(path.join(outDir, 'assets')).filter((f) => f.endsWith('.js'));
  return js.reduce((sum, f) => sum + gzipSync(fs.readFileSync(path.join(outDir, 'assets', f))).length, 0) / 1024;
}

function serveStatic(dir: string): Promise<http.Server> {
  const types: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent((req.url ?? '/').split('?')[0]);
    let file = path.join(dir, rel === '/' ? 'index.html' : rel);
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) file = path.join(dir, 'index.html');
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export interface PerformanceReport {
  baselineJsKb: number;
  results: LighthouseResult[];
  ok: boolean;
}

export async function measurePerformance(dist: string): Promise<PerformanceReport> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'park-perf-'));
  const baselineDir = path.join(work, 'baseline');
  const baselineJsKb = await buildBaseline(baselineDir);
  const baseline = await serveStatic(baselineDir);
  const dataDir = path.join(work, 'data');
  const password = 'Perf' + Date.now() + 'x';
  const config = loadConfig({ DATA_DIR: dataDir, SMS_PROVIDER: 'file', DEMO_PASSWORD: password, PORT: '0', LOG_LEVEL: 'warn' }, { staticDir: path.resolve(dist) });
  const app = await buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    const token = await signInViaApi(origin, dataDir, 'admin', password);
    const results = await lighthousePerformance([
      { name: '基线: React 19 空页面', url: `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/` },
      { name: '登录 /login', url: `${origin}/login` },
      { name: '首页 / (已登录)', url: `${origin}/`, token },
    ]);
    return { baselineJsKb, results, ok: results.slice(1).every((r) => r.score >= LIGHTHOUSE_TARGET) };
  } finally {
    await app.close();
    baseline.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export function printPerformance(r: PerformanceReport) {
  console.log(`\nLighthouse mobile performance, returning visit, median of ${LIGHTHOUSE_RUNS} runs (target ≥ ${LIGHTHOUSE_TARGET}; baseline page JS ${r.baselineJsKb.toFixed(1)} KB gzip)`);
  console.log('page                          score   LCP ms   TBT ms');
  for (const x of r.results) console.log(`${x.name.padEnd(24)}${String(x.score).padStart(10)}${String(x.lcpMs).padStart(9)}${String(x.tbtMs).padStart(9)}`);
}
