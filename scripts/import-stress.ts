import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import ExcelJS from 'exceljs';
import { signInViaApi } from './demo-login';
import { startServerProcess } from './server-process';
import { bombWorkbook } from './xlsx-fixtures';

/**
 * Issue 23 item 1's figures: hostile xlsx uploads to the vehicle black-list
 * import and a vehicle appointment import of a real server (server/main.ts,
 * one process, SQLite, 127.0.0.1 only): (a) 100,000 rows (75,000 for the wider appointment template, within its 5 MB), (b) a 1 GiB sheet of
 * spaces zipped to 1 MB, each with its time to the answer and the server's
 * RSS growth (peak while it runs, and 1 s after), and a 20,000-row file that
 * is within the unzipped bound (so it is read); (c) 8 of them at once by four
 * accounts, in rounds for 5 s, while another thread calls
 * `/api/system/version` back to back: that call's p95 and max beside its p95
 * on the idle server.
 *
 *   npx tsx scripts/import-stress.ts
 */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const ROUTES = {
  blackList: { template: '/carBlackWhiteList/excelTemplate', upload: '/carBlackWhiteList/excelImport', account: 'lead' },
  appointment: { template: '/carApplications/template/getProprietor', upload: '/carApplications/import/proprietor', account: 'contact' },
} as const;
type Route = keyof typeof ROUTES;
/** No single call may run past this: the script always ends by itself. */
const CALL_TIMEOUT_MS = 120_000;

const rssMb = (pid: number) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] ?? NaN;
const f = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–');

/**
 * Calls /api/system/version back to back from its own thread (its own event
 * loop, so the uploads' serialisation in this one does not count) until stopped.
 */
function versionPoller(base: string) {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const times = [];
      let failed = 0;
      const started = Date.now();
      while (Atomics.load(workerData.stop, 0) === 0 && Date.now() - started < ${CALL_TIMEOUT_MS}) {
        const t = performance.now();
        const ok = await fetch(workerData.base + '/api/system/version', { signal: AbortSignal.timeout(${CALL_TIMEOUT_MS}) }).then((r) => r.text().then(() => r.ok), () => false);
        if (ok) times.push(performance.now() - t);
        else { failed++; await new Promise((r) => setTimeout(r, 100)); }
      }
      parentPort.postMessage({ times, failed });
    })();`;
  const worker = new Worker(code, { eval: true, workerData: { base, stop } });
  const result = new Promise<{ times: number[]; failed: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      Atomics.store(stop, 0, 1);
      const r = await result;
      await worker.terminate();
      return r;
    },
  };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-import-stress-'));
  const password = 'Stress@2026';
  const server = await startServerProcess({
    DATA_DIR: dataDir,
    SMS_PROVIDER: 'file',
    DEMO_PASSWORD: password,
    LOG_LEVEL: 'warn',
    STATIC_DIR: path.join(dataDir, 'no-ui'),
    WEB_CONCURRENCY: '1',
    DATABASE_URL: '',
    CAPTCHA_COOLDOWN_SECONDS: '0',
  });
  const pid = server.primary.pid!;
  const alive = () => server.primary.exitCode === null && server.primary.signalCode === null;
  try {
    const tokens: Record<string, string> = {};
    for (const a of ['lead', 'contact', 'portcontact', 'admin']) tokens[a] = await signInViaApi(server.base, dataDir, a, password);

    const upload = async (route: Route, data: Buffer, account: string = ROUTES[route].account) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(data)], { type: XLSX }), 'import.xlsx');
      const t = performance.now();
      try {
        const res = await fetch(`${server.base}/api${ROUTES[route].upload}`, {
          method: 'POST',
          body: form,
          headers: { authorization: `Bearer ${tokens[account]}` },
          signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        });
        const body = (await res.json()) as { msg: string };
        return { ms: performance.now() - t, status: res.status, msg: body.msg };
      } catch (err) {
        return { ms: performance.now() - t, status: 0, msg: `no answer (${(err as Error).cause ?? (err as Error).message})${alive() ? '' : ', the server died'}` };
      }
    };

    /** The route's template with `n` rows below its example (the example's values, each with its own plate). */
    const large = async (route: Route, n: number) => {
      const res = await fetch(`${server.base}/api${ROUTES[route].template}`, { headers: { authorization: `Bearer ${tokens[ROUTES[route].account]}` } });
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load((await res.arrayBuffer()) as ArrayBuffer);
      const ws = wb.worksheets[0]!;
      const example = (ws.getRow(2).values as ExcelJS.CellValue[]).slice(1);
      // The example is recognised by its reason or remark: rows that keep it would be skipped, not counted.
      const marker = (ws.getRow(1).values as unknown[]).slice(1).findIndex((h) => ['*原因', '原因', '备注'].includes(String(h)));
      for (let i = 0; i < n; i++) ws.addRow(example.map((v, c) => (c === 0 ? `粤B${String(i).padStart(5, '0')}` : c === marker ? `第${i}条` : v)));
      return Buffer.from(await wb.xlsx.writeBuffer());
    };

    console.log('building the files …');
    const files: Record<string, Record<Route, Buffer>> = {
      // The appointment template has three times the columns: 75,000 of its rows fit the 5 MB upload limit.
      'many rows': { blackList: await large('blackList', 100_000), appointment: await large('appointment', 75_000) },
      // Within the directory's bounds: read by the worker, which stops at row 502.
      '20,000 rows': { blackList: await large('blackList', 20_000), appointment: await large('appointment', 10_000) },
      '1 GiB of spaces': { blackList: bombWorkbook(), appointment: bombWorkbook() },
    };

    /** The server's RSS sampled every 20 ms until `stop`, which answers the peak growth. */
    const sampleRss = () => {
      const before = rssMb(pid);
      let peak = before;
      let running = true;
      const sampler = (async () => {
        while (running) {
          const now = rssMb(pid);
          if (now > peak) peak = now;
          await sleep(20);
        }
      })();
      return {
        before,
        async stop() {
          running = false;
          await sampler;
          return peak - before;
        },
      };
    };

    const measured = async (route: Route, data: Buffer) => {
      await sleep(1000);
      const rss = sampleRss();
      const r = await upload(route, data);
      const peak = await rss.stop();
      await sleep(1000);
      return { ...r, peak, after: rssMb(pid) - rss.before };
    };

    console.log('\n| file | import | size | answer | time to answer (ms) | RSS growth, peak (MB) | RSS growth 1 s after (MB) |');
    console.log('|---|---|---|---|---|---|---|');
    for (const [name, byRoute] of Object.entries(files)) {
      for (const route of Object.keys(ROUTES) as Route[]) {
        const data = byRoute[route];
        const r = await measured(route, data);
        console.log(`| ${name} | ${route} | ${(data.length / 1024 / 1024).toFixed(1)} MB | ${r.status} ${r.msg} | ${f(r.ms)} | +${f(r.peak)} | +${f(r.after)} |`);
      }
    }

    const version = async () => {
      const t = performance.now();
      const res = await fetch(`${server.base}/api/system/version`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) }).catch(() => null);
      await res?.text();
      return res?.ok ? performance.now() - t : NaN;
    };
    const idle: number[] = [];
    for (let i = 0; i < 100; i++) idle.push(await version());

    const accounts: Array<[Route, string]> = [
      ['blackList', 'lead'],
      ['appointment', 'contact'],
      ['appointment', 'portcontact'],
      ['blackList', 'admin'],
    ];
    /** Eight uploads at once, two per account over both imports, `pick` choosing each one's file, while another thread calls /api/system/version. */
    const atOnce = async (label: string, pick: (route: Route, i: number) => Buffer) => {
      const senders = Array.from({ length: 8 }, (_, i) => {
        const [route, account] = accounts[i % 4]!;
        return { route, account, data: pick(route, i) };
      });
      await sleep(1000);
      const rss = sampleRss();
      const poller = versionPoller(server.base);
      // Rounds of eight until 5 s have passed (at most 10), so that the other calls' p95 rests on more than a handful.
      const answers: Array<Awaited<ReturnType<typeof upload>>> = [];
      const rounds: number[] = [];
      const t0 = performance.now();
      while (rounds.length < 10 && (rounds.length === 0 || performance.now() - t0 < 5000)) {
        const t = performance.now();
        answers.push(...(await Promise.all(senders.map((s) => upload(s.route, s.data, s.account)))));
        rounds.push(performance.now() - t);
      }
      const { times, failed } = await poller.stop();
      const peak = await rss.stop();
      const statuses = new Map<string, number>();
      for (const a of answers) statuses.set(`${a.status} ${a.msg}`, (statuses.get(`${a.status} ${a.msg}`) ?? 0) + 1);
      console.log(`\n| 8 at once: ${label} | figure |`);
      console.log('|---|---|');
      console.log(`| rounds; each all answered after (ms, slowest round) | ${rounds.length}; ${f(Math.max(...rounds))} |`);
      console.log(`| answers | ${[...statuses].map(([k, n]) => `${n}× ${k}`).join('; ')} |`);
      console.log(`| server RSS growth, peak (MB) | +${f(peak)} |`);
      console.log(`| /api/system/version meanwhile: answered calls; p95, max (ms); failed | ${times.length}; ${f(p95(times))}, ${f(Math.max(...times))}; ${failed} |`);
      if (!alive()) console.log(`\nThe server died: ${server.output().slice(-1500)}`);
    };
    console.log(`\n/api/system/version on the idle server: p95 ${f(p95(idle))} ms`);
    await atOnce('bombs and 100,000-row files', (route, i) => (i % 2 ? files['many rows']![route] : files['1 GiB of spaces']![route]));
    await atOnce('20,000-row files (within the unzipped bound)', (route) => files['20,000 rows']![route]);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
