/**
 * What the service worker keeps of API reads for offline use, and under which
 * key (DESIGN.md §5). Pure functions over strings, so node tests run them too;
 * the page imports the shared names from here.
 */

/** The Cache API store of list and detail answers; the page deletes it on sign-out. */
export const READ_CACHE = 'api-reads';
/** Attachments of the notices the person opened (issue 27), so they read offline too; the page fills it, the worker answers from it when the network fails, sign-out deletes it. */
export const NOTICE_FILE_CACHE = 'notice-files';
/** Set on an answer served from READ_CACHE because the network failed or was too slow: the ISO time it was fetched. */
export const OFFLINE_FROM_HEADER = 'X-Offline-From';
/** Stored with each kept answer: when it came from the network. */
export const CACHED_AT_HEADER = 'X-Cached-At';

/**
 * Read endpoints by method and last path segment. Lists and pages are POST
 * with a JSON filter body (spec 000 §7), details GET ?id= or POST {id}. Every
 * mutation ends in a verb (save, check, delete, push, amend…), none of these.
 */
const READ_SEGMENTS: Record<'GET' | 'POST', ReadonlySet<string>> = {
  // 'pass': an approved application's signed pass, which the visitor must be able to show at a gate without signal.
  GET: new Set(['info', 'detail', 'pending', 'list', 'page', 'pass']),
  POST: new Set(['list', 'page', 'taskPage', 'all', 'options', 'get', 'info', 'queryRemark', 'findByUserId']),
};

/** Paths under /api that are never kept whatever their name: sign-in and files have their own rules. */
const NEVER = /^\/api\/(user\/(v2login|captcha|publicKey|logout)|file\/|common\/enum|system\/)/;

export function isCachedRead(method: string, pathname: string): boolean {
  if (!pathname.startsWith('/api/') || NEVER.test(pathname)) return false;
  const segments = READ_SEGMENTS[method.toUpperCase() as 'GET' | 'POST'];
  if (!segments) return false;
  const last = pathname.slice(pathname.lastIndexOf('/') + 1);
  return segments.has(last);
}

/** JSON with object keys in one order, so {a,b} and {b,a} (the same filter) share an entry. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function canonicalBody(body: string): string {
  if (!body.trim()) return '';
  try {
    return canonicalJson(JSON.parse(body));
  } catch {
    return body;
  }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export interface ReadRequest {
  method: string;
  url: string;
  /** The request body as sent ('' for GET). */
  body: string;
  authorization: string | null;
}

/**
 * The Cache API stores GET only, so every read (POST lists included) is kept
 * under a synthetic GET URL: method, path and sorted query, plus a hash of
 * the body and a hash of the Authorization header. A different session can
 * never hit another's entry, and no token or filter is readable in the key.
 * Null when the request carries no Authorization: nothing personal to key by.
 */
export async function readCacheKey(req: ReadRequest): Promise<string | null> {
  if (!req.authorization) return null;
  const url = new URL(req.url);
  const query = [...url.searchParams.entries()].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  const [body, auth] = await Promise.all([sha256Hex(canonicalBody(req.body)), sha256Hex(req.authorization)]);
  const key = new URL(`/__offline-reads__/${req.method.toUpperCase()}${url.pathname}`, url.origin);
  for (const [k, v] of query) key.searchParams.append(k, v);
  key.searchParams.set('__b', body.slice(0, 32));
  key.searchParams.set('__a', auth.slice(0, 32));
  return key.href;
}

/** A kept answer is only worth serving while it is this young. */
export const READ_MAX_AGE_MS = 7 * 24 * 60 * 60_000;

/** Only whole, successful envelopes are kept: a refusal or an error page must never stand in for data. */
export function isStorableAnswer(status: number, contentType: string | null, bodyText: string): boolean {
  if (status !== 200 || !contentType?.includes('application/json')) return false;
  try {
    const body = JSON.parse(bodyText) as { success?: unknown };
    return body?.success === true;
  } catch {
    return false;
  }
}
