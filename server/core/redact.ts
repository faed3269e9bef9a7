const SECRET_KEY = /pass(word)?|captcha|token|content|secret|authorization|cookie|private/i;

/** A copy of a request body fit for a log: secrets and encrypted blobs replaced, size bounded. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '…';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEY.test(k) ? '***' : redact(v, depth + 1)]));
  }
  if (typeof value === 'string' && value.length > 500) return value.slice(0, 500) + '…';
  return value;
}

export function auditJson(value: unknown): string {
  const s = JSON.stringify(redact(value ?? {}));
  return s.length > 4000 ? s.slice(0, 4000) + '…' : s;
}

/** pino redaction paths: request headers and any body that might be logged by mistake. */
export const logRedactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  '*.password',
  '*.captcha',
  '*.token',
  '*.content',
  'body.password',
  'body.content',
];
