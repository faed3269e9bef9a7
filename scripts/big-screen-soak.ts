/**
 * Soak of the big screen (issue 26 item 5: it runs unattended for days).
 * Opens /big-screen signed in, in Chromium, drives live updates through the
 * device API (crossings, refusals and device alarms at the demo park's gates:
 * each commit makes the server send a `figures` event on the notification
 * stream and the page refetch its panels), and measures the page's JS heap
 * over CDP, after a forced garbage collection, against the target of at most
 * 10 MB of growth. Prints the figure; exits 1 when it is over.
 *
 *   npm run soak:big-screen                       # its own server on a throwaway SQLite database
 *   npm run soak:big-screen -- --updates 2000     # fewer updates
 *   npm run soak:big-screen -- --base http://127.0.0.1:8080 --data-dir ./data --password '…'
 *
 * Against a running server (--base) it needs SMS_PROVIDER=file there (the
 * sign-in reads the code from DATA_DIR/sms-outbox.jsonl) and issues new keys
 * to GATE-W-01, GATE-W-P01 and TC-W-01, so a simulator running against it
 * loses those gates. Not a test: `npm test` does not run it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type CDPSession } from '@playwright/test';
import { formatInZone } from '../domain/time';
import { signInViaApi } from './demo-login';
import { startServerProcess, type ServerProcess } from './server-process';

const TARGET_MB = 10;
const MB = 1024 * 1024;

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    'data-dir': { type: 'string' },
    password: { type: 'string' },
    updates: { type: 'string', default: '10000' },
    // Events per request: the server sends one figures event per burst (300 ms), so a round is one refetch of every panel.
    batch: { type: 'string', default: '10' },
    chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
});
const updates = Number(args.updates);
const batch = Number(args.batch);
if (!(updates > 0) || !(batch > 0)) throw new Error('--updates and --batch must be positive numbers');

const PLATE_CHARS = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
const randomPlate = () => `粤L${Array.from({ length: 5 }, () => PLATE_CHARS[Math.floor(Math.random() * PLATE_CHARS.length)]).join('')}`;
/** A resident ID number with its GB 11643 check character. */
function idNumber(seq: number): string {
  const body = `44130219850505${String(seq % 10000).padStart(4, '0')}`.slice(0, 17);
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...body].reduce((s, c, i) => s + Number(c) * weights[i]!, 0);
  return body + '10X98765432'[sum % 11];
}

async function api<T>(base: string, token: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}/api${url}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { success: boolean; msg: string; data: T };
  if (!json.success) throw new Error(`${url}: ${json.msg}`);
  return json.data;
}

async function heapMb(cdp: CDPSession): Promise<{ heap: number; nodes: number; listeners: number }> {
  // Twice: a first collection may leave what finalizers free for the second.
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const get = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0;
  return { heap: get('JSHeapUsedSize') / MB, nodes: get('Nodes'), listeners: get('JSEventListeners') };
}

async function main() {
  let server: ServerProcess | undefined;
  let base = args.base;
  let dataDir = args['data-dir'] ?? process.env.DATA_DIR ?? './data';
  let password = args.password ?? process.env.DEMO_PASSWORD;
  if (!base) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'big-screen-soak-'));
    password = 'Soak@2026';
    console.log(`starting a server on ${dataDir} …`);
    server = await startServerProcess({
      DATA_DIR: dataDir,
      SMS_PROVIDER: 'file',
      DEMO_PASSWORD: password,
      CAPTCHA_COOLDOWN_SECONDS: '1',
      SEED_GATE_HISTORY: '0',
      LOG_LEVEL: 'warn',
      STATIC_DIR: process.env.STATIC_DIR ?? 'dist',
    });
    base = server.base;
  }
  const credentials = path.join(dataDir, 'demo-credentials.txt');
  password ??= fs.existsSync(credentials) ? /密码[^:\n]*:\s*(\S+)/.exec(fs.readFileSync(credentials, 'utf8'))?.[1] : undefined;
  if (!password) throw new Error('no password: pass --password or DEMO_PASSWORD');

  const browser = await chromium.launch({ executablePath: args.chromium });
  try {
    const admin = await signInViaApi(base, dataDir, 'admin', password);
    const lead = await signInViaApi(base, dataDir, 'lead', password);
    const devices: Record<string, { number: string; key: string }> = {};
    for (const [kind, number] of [
      ['gate', 'GATE-W-01'],
      ['gate', 'GATE-W-P01'],
      ['tireCrushing', 'TC-W-01'],
    ] as const) {
      const { list } = await api<{ list: { id: number; number: string }[] }>(base, admin, `/equipment/${kind}/list`, { size: 50, pn: 1, number });
      const device = list.find((d) => d.number === number);
      if (!device) throw new Error(`${number} is not in the equipment register`);
      const { key } = await api<{ key: string }>(base, admin, `/equipment/${kind}/issueKey`, { id: device.id });
      devices[number] = { number, key };
    }

    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    await page.goto(`${base}/login`);
    await page.evaluate(`localStorage.setItem('park.token', ${JSON.stringify(lead)})`);
    await page.goto(`${base}/big-screen`);
    await page.getByTestId('big-screen-canvas').waitFor();
    await page.getByTestId('alarm-total').filter({ hasText: /\d/ }).waitFor();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');

    let seq = 0;
    const runId = Date.now().toString(36);
    const event = (): [string, Record<string, unknown>] => {
      const n = ++seq;
      const base = { event_id: `soak-${runId}-${n}`, capture_time: formatInZone(new Date()) };
      switch (n % 5) {
        case 0:
          return ['TC-W-01', { ...base, type: 'alarm', alarm_type: '破胎器故障', remark: `soak ${n}` }];
        case 1:
          return ['GATE-W-01', { ...base, type: 'vehicle', license_plate: randomPlate(), direction: 1 + (n % 2), open_result: 1 }];
        case 2:
          return ['GATE-W-01', { ...base, type: 'vehicle', license_plate: randomPlate(), direction: 1, open_result: 0 }];
        case 3:
          return ['GATE-W-P01', { ...base, type: 'person', idcard: idNumber(n), person_name: '测试', direction: 1 + (n % 2), open_result: n % 7 === 0 ? 0 : 1 }];
        default:
          return ['GATE-W-P01', { ...base, type: 'person', idcard: idNumber(n), person_name: '测试', direction: 2, open_result: 1 }];
      }
    };
    const send = async (count: number) => {
      const byDevice = new Map<string, Record<string, unknown>[]>();
      for (let i = 0; i < count; i++) {
        const [number, e] = event();
        byDevice.set(number, [...(byDevice.get(number) ?? []), e]);
      }
      for (const [number, events] of byDevice) {
        const d = devices[number]!;
        const res = await fetch(`${base}/api/device/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Device ${d.number}:${d.key}` },
          body: JSON.stringify({ events }),
        });
        if (!res.ok) throw new Error(`device events answered ${res.status}: ${await res.text()}`);
      }
    };
    /** One round: a batch of events, then the page's refetch of the feed that the figures event causes. */
    const round = async (count: number) => {
      const refetched = page.waitForResponse((r) => r.url().includes('/api/board/liveFeed'), { timeout: 15_000 }).catch(() => null);
      await send(count);
      return refetched;
    };

    // Warm up: the first updates fill react-query's cache and the JIT's; growth is measured from after them.
    const warmup = Math.min(200, Math.floor(updates / 10));
    for (let sent = 0; sent < warmup; sent += batch) await round(Math.min(batch, warmup - sent));
    const start = await heapMb(cdp);
    console.log(`baseline after ${warmup} updates: heap ${start.heap.toFixed(2)} MB, ${start.nodes} DOM nodes, ${start.listeners} listeners`);

    const started = Date.now();
    let missed = 0;
    for (let sent = 0; sent < updates;) {
      const count = Math.min(batch, updates - sent);
      if (!(await round(count))) missed++;
      sent += count;
      if (sent % Math.max(batch, Math.floor(updates / 10 / batch) * batch) === 0 || sent === updates) {
        const m = await heapMb(cdp);
        console.log(
          `${String(sent).padStart(6)} updates  heap ${m.heap.toFixed(2)} MB (${(m.heap - start.heap >= 0 ? '+' : '') + (m.heap - start.heap).toFixed(2)})  ${m.nodes} nodes  ${m.listeners} listeners  ${((Date.now() - started) / 1000).toFixed(0)} s`,
        );
      }
    }
    // The clock's and the poll's timers run on: a minute more with no updates shows nothing accumulates between them either.
    await page.waitForTimeout(Number(process.env.SOAK_IDLE_MS ?? 60_000));
    const end = await heapMb(cdp);
    const growth = end.heap - start.heap;
    const counts = await page.locator('.bs-total-num').textContent();
    console.log('');
    console.log(`big screen soak: ${updates} live updates (${Math.ceil(updates / batch)} figures rounds${missed ? `, ${missed} without a refetch seen` : ''}), alarm total on screen ${counts}`);
    console.log(`JS heap ${start.heap.toFixed(2)} MB → ${end.heap.toFixed(2)} MB: growth ${growth.toFixed(2)} MB (target ≤ ${TARGET_MB} MB) ${growth <= TARGET_MB ? 'met' : 'MISSED'}`);
    console.log(`DOM nodes ${start.nodes} → ${end.nodes}, listeners ${start.listeners} → ${end.listeners}`);
    process.exitCode = growth <= TARGET_MB ? 0 : 1;
  } finally {
    await browser.close();
    await server?.stop();
  }
}

await main();
