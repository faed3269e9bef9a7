import { expect, type Page } from '@playwright/test';
import { E2E_DATA_DIR, E2E_PORT } from '../../playwright.config';
import { latestSmsCode, signInViaApi } from '../../scripts/demo-login';

export const DEMO_PASSWORD = 'Demo@2026';
export const base = `http://127.0.0.1:${E2E_PORT}`;

export const latestCode = (account: string) => latestSmsCode(E2E_DATA_DIR, account);

export async function waitForNewCode(account: string, previous: string | undefined): Promise<string> {
  let code: string | undefined;
  await expect.poll(() => (code = latestCode(account)) !== undefined && code !== previous, { timeout: 10_000 }).toBe(true);
  return code!;
}

/** Signs in through the API (the UI sign-in has its own test) and hands the session to the page. */
export async function signInAs(page: Page, account: string): Promise<string> {
  const token = await signInViaApi(base, E2E_DATA_DIR, account, DEMO_PASSWORD);
  await page.goto('/login');
  await page.evaluate((t) => localStorage.setItem('park.token', t), token);
  return token;
}

export const shotDir = '.tmp/shots';
export async function shot(page: Page, name: string) {
  const project = (page.viewportSize()?.width ?? 0) < 768 ? 'phone' : 'desktop';
  await page.screenshot({ path: `${shotDir}/${name}-${project}.png`, fullPage: false });
}
