import fs from 'node:fs';
import path from 'node:path';
import { CompactEncrypt, importSPKI } from 'jose';
import { expect, type Page } from '@playwright/test';
import { E2E_DATA_DIR, E2E_PORT } from '../../playwright.config';

export const DEMO_PASSWORD = 'Demo@2026';
export const base = `http://127.0.0.1:${E2E_PORT}`;

/** Newest SMS code sent to an account, read from the file outbox the server writes (SMS_PROVIDER=file). */
export function latestCode(account: string): string | undefined {
  const file = path.join(E2E_DATA_DIR, 'sms-outbox.jsonl');
  if (!fs.existsSync(file)) return undefined;
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { account: string; code: string })
    .filter((m) => m.account === account)
    .at(-1)?.code;
}

export async function waitForNewCode(account: string, previous: string | undefined): Promise<string> {
  let code: string | undefined;
  await expect.poll(() => (code = latestCode(account)) !== undefined && code !== previous, { timeout: 10_000 }).toBe(true);
  return code!;
}

async function api<T>(url: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(base + '/api' + url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  const json = (await res.json()) as { success: boolean; msg: string; data: T };
  if (!json.success) throw new Error(`${url}: ${json.msg}`);
  return json.data;
}

async function encrypt(payload: unknown): Promise<string> {
  const { data } = (await (await fetch(base + '/api/user/publicKey')).json()) as { data: { publicKey: string } };
  const key = (await importSPKI(data.publicKey, 'RSA-OAEP-256')) as CryptoKey;
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM' }).encrypt(key);
}

/** Signs in through the API (the UI sign-in has its own test) and hands the session to the page. */
export async function signInAs(page: Page, account: string): Promise<string> {
  const before = latestCode(account);
  // The e2e server's cooldown is a few seconds; a second sign-in of the same account waits it out.
  for (let i = 0; ; i += 1) {
    try {
      await api('/user/captcha', { content: await encrypt({ account }) });
      break;
    } catch (e) {
      if (i > 10 || !String(e).includes('秒后再获取')) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  const captcha = await waitForNewCode(account, before);
  const { token } = await api<{ token: string }>('/user/v2login', { content: await encrypt({ account, password: DEMO_PASSWORD, captcha }) });
  await page.goto('/login');
  await page.evaluate((t) => localStorage.setItem('park.token', t), token);
  return token;
}

export const shotDir = '.tmp/shots';
export async function shot(page: Page, name: string) {
  const project = (page.viewportSize()?.width ?? 0) < 768 ? 'phone' : 'desktop';
  await page.screenshot({ path: `${shotDir}/${name}-${project}.png`, fullPage: false });
}
