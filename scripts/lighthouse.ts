import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import lighthouse from 'lighthouse';
import { chromium } from '@playwright/test';

export interface LighthouseResult {
  name: string;
  url: string;
  score: number;
  lcpMs: number;
  tbtMs: number;
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
 * simulated slow 4G) for each page. A persistent profile lets a signed-in page
 * be measured: the token is put in localStorage first and Lighthouse is told
 * not to clear storage.
 */
export async function lighthousePerformance(pages: Array<{ name: string; url: string; token?: string }>): Promise<LighthouseResult[]> {
  const port = await freePort();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'park-lh-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', `--remote-debugging-port=${port}`],
  });
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    const results: LighthouseResult[] = [];
    for (const p of pages) {
      await page.goto(new URL('/favicon.svg', p.url).toString()).catch(() => undefined);
      // Runs in the page; scripts/ type-checks without the DOM library, hence the structural type.
      await page.evaluate((t) => {
        const ls = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void; removeItem(k: string): void } }).localStorage;
        if (t) ls.setItem('park.token', t);
        else ls.removeItem('park.token');
      }, p.token ?? null);
      const run = await lighthouse(p.url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: true });
      const lhr = run?.lhr;
      if (!lhr) throw new Error(`Lighthouse returned nothing for ${p.url}`);
      // For finding what a score lost: the full report of each page (long tasks, boot-up time by script…).
      if (process.env.LIGHTHOUSE_REPORT_DIR) {
        fs.mkdirSync(process.env.LIGHTHOUSE_REPORT_DIR, { recursive: true });
        fs.writeFileSync(path.join(process.env.LIGHTHOUSE_REPORT_DIR, `${results.length}.json`), JSON.stringify(lhr));
      }
      results.push({
        name: p.name,
        url: p.url,
        score: Math.round((lhr.categories.performance.score ?? 0) * 100),
        lcpMs: Math.round(Number(lhr.audits['largest-contentful-paint']?.numericValue ?? 0)),
        tbtMs: Math.round(Number(lhr.audits['total-blocking-time']?.numericValue ?? 0)),
      });
    }
    return results;
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
