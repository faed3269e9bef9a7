import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import lighthouse from 'lighthouse';
import { chromium } from '@playwright/test';

/**
 * 'first': a newcomer's browser, no service worker, empty HTTP cache and storage (Lighthouse resets the origin before
 * each run). 'returning': the service worker installed and its precache filled by one unmeasured load first.
 */
export type Visit = 'first' | 'returning';

export interface LighthousePage {
  name: string;
  url: string;
  visit: Visit;
  /** Put in localStorage before each run (a returning signed-in visit); a first visit is always signed out. */
  token?: string;
}

export interface LighthouseResult {
  name: string;
  url: string;
  visit: Visit;
  score: number;
  lcpMs: number;
  tbtMs: number;
}

/** Everything Lighthouse may clear: its default leaves localStorage and IndexedDB, which a newcomer would not have. */
const FIRST_VISIT_CLEAR: NonNullable<Parameters<typeof lighthouse>[1]>['clearStorageTypes'] = [
  'file_systems',
  'shader_cache',
  'service_workers',
  'cache_storage',
  'local_storage',
  'indexeddb',
  'websql',
  'cookies',
];

const BROWSER_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface FirstVisitScripts {
  /** Paths (no leading '/') of the scripts requested before the page's `mark`: what showing the first screen took. */
  beforeScreen: string[];
  /** Every script the page requested until the network was quiet, warm-up for the first tap included. */
  all: string[];
  /** Whether the page set the mark; without it everything counts as before the screen. */
  marked: boolean;
}

/**
 * The scripts of a newcomer's visit: a fresh browser context each (no service worker, empty cache, no storage).
 * Split by the page's own Resource Timing against its own performance.mark, on one clock: a chunk imported
 * after the mark cannot start before it, so the split does not depend on how busy the machine is.
 */
export async function firstVisitScripts(pages: Array<{ url: string; mark?: string }>): Promise<FirstVisitScripts[]> {
  const browser = await chromium.launch({ executablePath, headless: true, args: BROWSER_ARGS });
  try {
    const out: FirstVisitScripts[] = [];
    for (const p of pages) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      await page.goto(p.url, { waitUntil: 'load' });
      const marked = p.mark
        ? await page
            .waitForFunction((m) => (globalThis as unknown as { performance: { getEntriesByName(n: string): unknown[] } }).performance.getEntriesByName(m).length > 0, p.mark, { timeout: 15_000 })
            .then(
              () => true,
              () => false,
            )
        : false;
      // Quiet for half a second is not yet done: the update check waits for an idle moment after load.
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(3000);
      // Runs in the page; scripts/ type-checks without the DOM library, hence the structural types.
      const entries = await page.evaluate((m) => {
        const perf = (globalThis as unknown as { performance: { getEntriesByType(t: string): Array<{ name: string; startTime: number }>; getEntriesByName(n: string): Array<{ startTime: number }> } })
          .performance;
        const at = m ? perf.getEntriesByName(m)[0]?.startTime : undefined;
        return { at, resources: perf.getEntriesByType('resource').map((e) => ({ name: e.name, startTime: e.startTime })) };
      }, p.mark ?? null);
      await context.close();
      const origin = new URL(p.url).origin;
      // The worker script is the browser's download, not code the page runs.
      const scripts = entries.resources.filter((e) => e.name.startsWith(origin) && /\.m?js$/.test(new URL(e.name).pathname) && !/\/sw\.js$/.test(e.name));
      const rel = (e: { name: string }) => new URL(e.name).pathname.replace(/^\//, '');
      const all = [...new Set(scripts.map(rel))];
      const beforeScreen = entries.at === undefined ? all : [...new Set(scripts.filter((e) => e.startTime < entries.at!).map(rel))];
      out.push({ beforeScreen, all, marked: !p.mark || marked });
    }
    return out;
  } finally {
    await browser.close();
  }
}

/**
 * Runs per page; the median one (by score) is reported. One run on a shared
 * two-core machine moved the signed-in home's TBT between 330 and 530 ms for
 * the same build, which is more than the changes it is meant to judge.
 */
export const LIGHTHOUSE_RUNS = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS ?? 3));

export function medianRun(runs: LighthouseResult[]): LighthouseResult {
  const sorted = [...runs].sort((a, b) => a.score - b.score || b.tbtMs - a.tbtMs);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * Lighthouse mobile performance (its default: Moto G-class emulation with
 * simulated slow 4G) for each page. A persistent profile lets a returning
 * signed-in page be measured: the token is put in localStorage first and
 * Lighthouse is told not to clear storage. A first visit lets Lighthouse clear
 * everything of the origin (worker, caches, storage) and the HTTP cache before
 * each run; list first visits before returning ones, since the reset also
 * removes the worker a returning page installed.
 */
export async function lighthousePerformance(pages: LighthousePage[]): Promise<LighthouseResult[]> {
  const port = await freePort();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'park-lh-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [...BROWSER_ARGS, `--remote-debugging-port=${port}`],
  });
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    const results: LighthouseResult[] = [];
    for (const p of pages) {
      const runs: LighthouseResult[] = [];
      // A run whose trace broke (runtimeError, e.g. NO_NAVSTART) has no score: it is run again, not counted as 0.
      for (let i = 0; runs.length < LIGHTHOUSE_RUNS && i < LIGHTHOUSE_RUNS + 2; i++) {
        const first = p.visit === 'first';
        // A first visit needs nothing from the helper tab, and must not keep an old worker alive as its client.
        await page.goto(first ? 'about:blank' : new URL('/favicon.svg', p.url).toString()).catch(() => undefined);
        // Runs in the page; scripts/ type-checks without the DOM library, hence the structural type.
        if (!first) {
          await page.evaluate((t) => {
            const ls = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void; removeItem(k: string): void } }).localStorage;
            if (t) ls.setItem('park.token', t);
            else ls.removeItem('park.token');
          }, p.token ?? null);
        }
        if (i === 0 && !first) {
          // Measured as the returning visit it is in use (the sign-in page comes before the home, and a person
          // reopens the app): one unmeasured load installs the service worker and fills its precache first, so
          // every measured run starts from the same state.
          await page.goto(p.url, { waitUntil: 'load' });
          // A page without a worker (the baseline) never gets ready: wait at most a few seconds either way.
          await page
            .evaluate(() => {
              const g = globalThis as unknown as { navigator: { serviceWorker?: { ready: Promise<unknown> } }; setTimeout(f: () => void, ms: number): void };
              return Promise.race([g.navigator.serviceWorker?.ready, new Promise<void>((resolve) => g.setTimeout(resolve, 8000))]);
            })
            .catch(() => undefined);
          await page.waitForTimeout(2000);
        }
        const run = await lighthouse(p.url, {
          port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance'],
          disableStorageReset: !first,
          ...(first ? { clearStorageTypes: FIRST_VISIT_CLEAR } : {}),
        });
        const lhr = run?.lhr;
        if (!lhr) throw new Error(`Lighthouse returned nothing for ${p.url}`);
        if (lhr.runtimeError) {
          console.warn(`Lighthouse run ${i + 1} of ${p.name} failed (${lhr.runtimeError.code}); running it again`);
          continue;
        }
        // For finding what a score lost: the full report of each run (long tasks, boot-up time by script…).
        if (process.env.LIGHTHOUSE_REPORT_DIR) {
          fs.mkdirSync(process.env.LIGHTHOUSE_REPORT_DIR, { recursive: true });
          fs.writeFileSync(path.join(process.env.LIGHTHOUSE_REPORT_DIR, `${results.length}-${i}.json`), JSON.stringify(lhr));
        }
        runs.push({
          name: p.name,
          url: p.url,
          visit: p.visit,
          score: Math.round((lhr.categories.performance.score ?? 0) * 100),
          lcpMs: Math.round(Number(lhr.audits['largest-contentful-paint']?.numericValue ?? 0)),
          tbtMs: Math.round(Number(lhr.audits['total-blocking-time']?.numericValue ?? 0)),
        });
      }
      if (runs.length === 0) throw new Error(`Lighthouse could not measure ${p.url}`);
      results.push(medianRun(runs));
    }
    return results;
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
