import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { STATIC_DIR } from '../../playwright.config';
import { shot } from './support';

// This spec exercises the service worker, which the config blocks elsewhere.
test.use({ serviceWorkers: 'allow' });

/**
 * Issue 9 item 9: a newcomer's first visit (fresh browser, no service worker,
 * empty cache, signed out) to the address the README gives must cost what the
 * login screen costs. The signed-in shell's chunks, looked up in the build's
 * Vite manifest, must never be requested on the way to /login.
 */

type Manifest = Record<string, { file: string }>;
const manifest = JSON.parse(fs.readFileSync(path.join(STATIC_DIR, '.vite', 'manifest.json'), 'utf8')) as Manifest;
const chunkOf = (key: string) => {
  const hit = manifest[key] ?? Object.entries(manifest).find(([k]) => k.startsWith(key))?.[1];
  if (!hit) throw new Error(`${key} is not in ${STATIC_DIR}/.vite/manifest.json: rename the check`);
  return hit.file;
};
/** The shell (layouts, session watch), its menu icons and data layer, the home screen and the 403 page. */
const signedInChunks = [
  chunkOf('src/app/app-shell.tsx'),
  chunkOf('_menu-icons-'),
  chunkOf('_useQuery-'),
  chunkOf('src/features/home/home-page.tsx'),
  chunkOf('src/features/errors/forbidden-page.tsx'),
];

/** Every script the page asks for, from the first byte until the network has been quiet. */
function recordScripts(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (req) => {
    if (req.resourceType() === 'script' || /\.m?js(\?|$)/.test(req.url())) urls.push(new URL(req.url()).pathname.replace(/^\//, ''));
  });
  return urls;
}

test('a signed-out first visit to / shows the login screen without fetching the signed-in shell', async ({ page }) => {
  const scripts = recordScripts(page);
  await page.goto('/');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByText('欢迎登录')).toBeVisible();
  await expect(page.getByPlaceholder('请输入用户名')).toBeVisible();
  await page.waitForLoadState('networkidle');
  await shot(page, 'first-visit-login');

  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.filter((s) => signedInChunks.includes(s))).toEqual([]);
});

test('a signed-out deep link goes to /login with its way back, still without the shell', async ({ page }) => {
  const scripts = recordScripts(page);
  await page.goto('/approval/car?open=12');
  await expect(page).toHaveURL(/\/login\?redirect=%2Fapproval%2Fcar%3Fopen%3D12$/);
  await expect(page.getByText('欢迎登录')).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(scripts.filter((s) => signedInChunks.includes(s))).toEqual([]);
});
