import fs from 'node:fs';
import path from 'node:path';
import { CompactEncrypt, importSPKI } from 'jose';

/** Newest SMS code sent to an account, from the file outbox (SMS_PROVIDER=file). */
export function latestSmsCode(dataDir: string, account: string): string | undefined {
  const file = path.join(dataDir, 'sms-outbox.jsonl');
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

async function call<T>(origin: string, url: string, body: unknown): Promise<T> {
  const res = await fetch(`${origin}/api${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { success: boolean; msg: string; data: T };
  if (!json.success) throw new Error(`${url}: ${json.msg}`);
  return json.data;
}

async function encrypt(origin: string, payload: unknown): Promise<string> {
  const { data } = (await (await fetch(`${origin}/api/user/publicKey`)).json()) as { data: { publicKey: string } };
  const key = await importSPKI(data.publicKey, 'RSA-OAEP-256');
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM' }).encrypt(key);
}

/**
 * Signs a demo account in through the real API, as the PWA does: encrypted
 * captcha request, the code read back from the SMS outbox, encrypted login.
 * A request inside the server's (short, in tests) cooldown is retried.
 */
export async function signInViaApi(origin: string, dataDir: string, account: string, password: string): Promise<string> {
  const before = latestSmsCode(dataDir, account);
  for (let attempt = 0; ; attempt += 1) {
    try {
      await call(origin, '/user/captcha', { content: await encrypt(origin, { account }) });
      break;
    } catch (e) {
      if (attempt > 10 || !String(e).includes('秒后再获取')) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  let captcha: string | undefined;
  for (let i = 0; i < 100 && (!(captcha = latestSmsCode(dataDir, account)) || captcha === before); i += 1) await new Promise((r) => setTimeout(r, 100));
  if (!captcha || captcha === before) throw new Error(`no SMS code for ${account}`);
  const { token } = await call<{ token: string }>(origin, '/user/v2login', { content: await encrypt(origin, { account, password, captcha }) });
  return token;
}
