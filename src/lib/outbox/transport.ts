import { ErrorCode } from '../../../domain/errors';

/**
 * One POST of the outbox and what its answer means for the item: done,
 * the session is over, refused for good (409 or another 4xx), or worth
 * another try later (network, timeout, 5xx, 429, the same key still running).
 */

const MSG_NETWORK = '网络连接失败，将自动重新发送';
const MSG_TIMEOUT = '请求超时，将自动重新发送';

export type Reply =
  | { type: 'ok'; data: unknown }
  | { type: 'unauthorized' }
  | { type: 'conflict'; message: string; status: number }
  | { type: 'refused'; message: string; status: number }
  | { type: 'transient'; message: string; status: number }
  | { type: 'network'; message: string; status: 0 };

interface EnvelopeLike {
  success?: boolean;
  code?: number;
  msg?: string;
  message?: string;
  data?: unknown;
}

export async function postOnce(doFetch: typeof fetch, url: string, body: FormData | Record<string, unknown>, key: string, token: string, timeoutMs: number): Promise<Reply> {
  const json = !(body instanceof FormData);
  let res: Response;
  try {
    res = await doFetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': key, ...(json ? { 'Content-Type': 'application/json' } : {}) },
      body: json ? JSON.stringify(body) : body,
      signal: typeof AbortSignal.timeout === 'function' ? AbortSignal.timeout(timeoutMs) : undefined,
    });
  } catch (err) {
    const timedOut = (err as { name?: string } | null)?.name === 'TimeoutError';
    return { type: 'network', message: timedOut ? MSG_TIMEOUT : MSG_NETWORK, status: 0 };
  }
  let env: EnvelopeLike | null = null;
  try {
    const parsed = (await res.json()) as unknown;
    if (parsed && typeof parsed === 'object') env = parsed as EnvelopeLike;
  } catch {
    // not JSON: a proxy's or captive portal's page; judged by the status below
  }
  if (res.status === 401) return { type: 'unauthorized' };
  if (res.ok && env?.success) return { type: 'ok', data: env.data ?? null };
  const message = env?.msg || env?.message || `服务器错误（${res.status}）`;
  const status = res.status;
  // The same key still running elsewhere (a lost reply's first try): wait and ask again, it answers the first answer.
  if (status === 409 && env?.code === ErrorCode.IDEMPOTENCY_IN_PROGRESS) return { type: 'transient', message, status };
  if (status === 409) return { type: 'conflict', message, status };
  if (res.ok) return { type: 'transient', message: env ? message : '服务器返回了无法识别的内容', status };
  if (status === 408 || status === 425 || status === 429 || status >= 500) return { type: 'transient', message, status };
  return { type: 'refused', message, status };
}
