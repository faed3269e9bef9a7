import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's headers for these options, worked out once. @fastify/helmet built
 * a new helmet middleware (its CSP parsed again) and an async hook on every
 * request, for headers that never change: a fixed share of every list call
 * (issue 28 item 4). Helmet runs once here against a response that only
 * records what it sets; the server then copies the result onto each reply.
 * A route that needs another header of the same name (the file route's own
 * CSP) sets it on its reply, which wins.
 */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let failed: unknown;
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    failed = err;
  });
  if (failed) throw failed;
  return headers;
}
