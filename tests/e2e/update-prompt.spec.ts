import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { STATIC_DIR } from '../../playwright.config';
import { shot, signInAs } from './support';

// This spec exercises the service worker, which the config blocks elsewhere.
test.use({ serviceWorkers: 'allow' });

/**
 * Issue 4 item 3: a new version is offered with a prompt and never reloads the
 * page by itself. A deploy is simulated by changing the served sw.js (and its
 * precompressed copies, which the server prefers); the originals are put back
 * afterwards so the suites that follow see the build they were built with.
 */

const files = ['sw.js', 'sw.js.br', 'sw.js.gz'].map((f) => path.join(STATIC_DIR, f));
let originals: Array<Buffer | null> = [];

test.beforeAll(() => {
  originals = files.map((f) => (fs.existsSync(f) ? fs.readFileSync(f) : null));
});
test.afterAll(() => {
  files.forEach((f, i) => originals[i] && fs.writeFileSync(f, originals[i]!));
});

/** A byte-different worker is a new version to the browser; this one also answers which version it is. */
function deployNewWorker(mark: string) {
  const answer = `self.addEventListener('message', (e) => e.data && e.data.type === 'E2E_VERSION' && e.source.postMessage({ version: ${JSON.stringify(mark)} }));`;
  const source = Buffer.concat([originals[0]!, Buffer.from(`\n${answer}\n`)]);
  fs.writeFileSync(files[0], source);
  if (originals[1]) fs.writeFileSync(files[1], brotliCompressSync(source));
  if (originals[2]) fs.writeFileSync(files[2], gzipSync(source));
}

const unsaved = (page: Page) => page.evaluate(() => (window as unknown as { unsaved?: boolean }).unsaved);
const typeSomething = (page: Page) => page.evaluate(() => ((window as unknown as { unsaved: boolean }).unsaved = true));

test('a new version is offered, waits while the person keeps working, and reloads only after 立即更新', async ({ page }, info) => {
  await signInAs(page, 'reviewer');
  await page.goto('/');
  await expect(page.getByText(/，李强/)).toBeVisible();
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller), { timeout: 15_000 }).toBe(true);

  const mark = `e2e-${info.project.name}-${Date.now()}`;
  deployNewWorker(mark);
  // A marker on the page stands for a half-filled form: any reload loses it.
  await typeSomething(page);
  // What the app does hourly and whenever it comes back to the foreground.
  await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());

  const prompt = page.getByRole('status').filter({ hasText: '发现新版本' });
  await expect(prompt).toBeVisible({ timeout: 30_000 });
  await expect(prompt).toContainText('更新后页面将刷新，请先保存正在填写的内容。');
  await shot(page, 'update-prompt');
  await page.getByRole('button', { name: '稍后' }).click();
  await expect(prompt).toHaveCount(0);
  await page.waitForTimeout(1000);
  expect(await unsaved(page)).toBe(true);

  // The next start offers it again (the new worker still waits); accepting switches and reloads.
  await page.reload();
  await expect(prompt).toBeVisible({ timeout: 30_000 });
  await typeSomething(page);
  const reloaded = page.waitForEvent('load', { timeout: 20_000 });
  await page.getByRole('button', { name: '立即更新' }).click();
  await reloaded;
  expect(await unsaved(page)).toBeUndefined();

  // The new worker controls the page and nothing waits any more.
  const state = () =>
    page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      const controller = navigator.serviceWorker.controller;
      const version = await new Promise<string | null>((resolve) => {
        if (!controller) return resolve(null);
        const onMessage = (e: MessageEvent<{ version?: string }>) => e.data?.version && resolve(e.data.version);
        navigator.serviceWorker.addEventListener('message', onMessage);
        controller.postMessage({ type: 'E2E_VERSION' });
        setTimeout(() => resolve(null), 1000);
      });
      return { waiting: !!registration?.waiting, version };
    });
  await expect.poll(state, { timeout: 20_000 }).toEqual({ waiting: false, version: mark });
  await expect(page.getByText(/，李强/)).toBeVisible();
  await expect(prompt).toHaveCount(0);
  expect(await page.evaluate(() => sessionStorage.getItem('park.update.accepted'))).toBeNull();
});
