import webpush from 'web-push';
import type { PushPayload } from '../domain/notifications';
import type { VapidKeys } from './vapid';

export type Urgency = 'very-low' | 'low' | 'normal' | 'high';

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushOptions {
  /** Seconds the push service keeps the message for a device that is offline. */
  ttl: number;
  urgency: Urgency;
  /** Replaces a message with the same topic still waiting at the push service. */
  topic?: string;
}

/**
 * - sent: the push service accepted the message.
 * - gone: 404/410, the subscription no longer exists and must be deleted.
 * - retry: the push service or the network failed for now (429, 5xx, timeout).
 * - refused: any other answer (bad keys, payload too large); trying again would not help.
 */
export type PushResult = { outcome: 'sent' } | { outcome: 'gone' | 'retry' | 'refused'; status: number | null; error: string };

const TIMEOUT_MS = 10_000;

/** A topic is at most 32 characters of the URL-safe base64 alphabet (RFC 8030 §5.4). */
export const topicOf = (tag: string) => tag.replace(/[^A-Za-z0-9_-]/g, '_').slice(-32);

/**
 * Sends one message. web-push encrypts the payload (RFC 8291, aes128gcm) and
 * signs the VAPID header; the request itself goes out through fetch, with a
 * timeout, so that one hanging push service never holds up the others.
 */
export async function sendPush(keys: VapidKeys, target: PushTarget, payload: PushPayload, opts: PushOptions): Promise<PushResult> {
  let details: webpush.RequestDetails;
  try {
    details = webpush.generateRequestDetails({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, JSON.stringify(payload), {
      vapidDetails: { subject: keys.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
      TTL: opts.ttl,
      urgency: opts.urgency,
      contentEncoding: 'aes128gcm',
      ...(opts.topic ? { topic: topicOf(opts.topic) } : {}),
    });
  } catch (err) {
    // Keys the browser gave us that do not form a valid P-256 point: this subscription can never be served.
    return { outcome: 'gone', status: null, error: `订阅密钥无效：${(err as Error).message}` };
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(details.headers)) if (k.toLowerCase() !== 'content-length') headers[k] = String(v);
  try {
    const res = await fetch(details.endpoint, { method: 'POST', headers, body: details.body ? new Uint8Array(details.body) : undefined, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = (await res.text().catch(() => '')).slice(0, 150);
    if (res.ok) return { outcome: 'sent' };
    const error = `推送服务返回 ${res.status}${text ? `：${text}` : ''}`;
    if (res.status === 404 || res.status === 410) return { outcome: 'gone', status: res.status, error };
    if (res.status === 429 || res.status >= 500) return { outcome: 'retry', status: res.status, error };
    return { outcome: 'refused', status: res.status, error };
  } catch (err) {
    const e = err as Error;
    return { outcome: 'retry', status: null, error: e.name === 'TimeoutError' ? '推送服务超时' : `推送服务无法连接：${e.message}` };
  }
}
