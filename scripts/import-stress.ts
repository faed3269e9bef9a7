import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { signInViaApi } from './demo-login';
import { startServerProcess } from './server-process';
import { bombWorkbook } from './xlsx-fixtures';

/**
 * Issue 23 item 1's figures: hostile xlsx uploads to the vehicle black-list
 * import and a vehicle appointment import of a real server (server/main.ts,
 * one process, SQLite, 127.0.0.1 only): (a) 100,000 rows, (b) a 1 GiB sheet of
 * spaces zipped to 1 MB, each with its time to the answer and the server's
 * RSS growth (peak while it runs, and 1 s after); (c) 8 of them at once by
 * four accounts while `/api/system/version` is called back to back, with that
 * call's p95 and max beside its p95 on an idle server.
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
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] ?? NaN;
const f = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–');

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
  try {
    const tokens: Record<string, string> = {};
    for (const a of ['lead', 'contact', 'portcontact', 'admin']) tokens[a] = await signInViaApi(server.base, dataDir, a, password);

    const upload = async (route: Route, data: Buffer, account: string = ROUTES[route].account) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(data)], { type: XLSX }), 'import.xlsx');
      const t = performance.now();
      const res = await fetch(`${server.base}/api${ROUTES[route].upload}`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${tokens[account]}` },
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      const body = (await res.json()) as { msg: string };
      return { ms: performance.now() - t, status: res.status, msg: body.msg };
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
      '100,000 rows': { blackList: await large('blackList', 100_000), appointment: await large('appointment', 100_000) },
      '1 GiB of spaces': { blackList: bombWorkbook(), appointment: bombWorkbook() },
    };

    /** The server's RSS sampled every 20 ms until `stop`, which answers the peak growth. */
    const sampleRss = () => {
      const before = rssMb(pid);
      let peak = before;
      let running = true;
      const sampler = (async () => {
        while (running) {
          peak = Math.max(peak, rssMb(pid));
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
      await (await fetch(`${server.base}/api/system/version`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) })).text();
      return performance.now() - t;
    };
    const idle: number[] = [];
    for (let i = 0; i < 100; i++) idle.push(await version());

    // Eight at once, two per account, alternating a 100,000-row file and a bomb over both imports.
    const senders: Array<{ route: Route; account: string; data: Buffer }> = [];
    const accounts: Array<[Route, string]> = [['blackList', 'lead'], ['appointment', 'contact'], ['appointment', 'portcontact'], ['blackList', 'admin']];
    for (let i = 0; i < 8; i++) {
      const [route, account] = accounts[i % 4]!;
      senders.push({ route, account, data: i % 2 ? files['100,000 rows']![route] : files['1 GiB of spaces']![route] });
    }
    await sleep(1000);
    const rss = sampleRss();
    const during: number[] = [];
    let done = false;
    const t0 = performance.now();
    const uploads = Promise.all(senders.map((s) => upload(s.route, s.data, s.account))).finally(() => (done = true));
    while (!done && performance.now() - t0 < CALL_TIMEOUT_MS) {
      during.push(await version());
    }
    const answers = await uploads;
    const peak = await rss.stop();
    const all = performance.now() - t0;
    const statuses = new Map<string, number>();
    for (const a of answers) statuses.set(`${a.status} ${a.msg}`, (statuses.get(`${a.status} ${a.msg}`) ?? 0) + 1);
    console.log('\n| 8 at once | figure |');
    console.log('|---|---|');
    console.log(`| all answered after (ms) | ${f(all)} |`);
    console.log(`| answers | ${[...statuses].map(([k, n]) => `${n}× ${k}`).join('; ')} |`);
    console.log(`| slowest upload answer (ms) | ${f(Math.max(...answers.map((a) => a.ms)))} |`);
    console.log(`| server RSS growth, peak (MB) | +${f(peak)} |`);
    console.log(`| /api/system/version meanwhile: calls, p95, max (ms) | ${during.length}, ${f(p95(during))}, ${f(Math.max(...during))} |`);
    console.log(`| /api/system/version idle: p95 (ms) | ${f(p95(idle))} |`);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
