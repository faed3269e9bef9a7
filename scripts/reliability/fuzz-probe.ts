import { errorTable } from '../../domain/errors';
import { fieldVocabulary, fieldsFromValidation, fuzzRequests, type FuzzRequest, type FuzzRoute } from './fuzz-bodies';

/**
 * Sends fuzz cases and judges the answers against DESIGN.md §3: every JSON
 * answer is the envelope; every failure is the envelope with a Chinese msg,
 * a code of the table and the HTTP status of that code's class; nothing
 * answers 5xx or takes longer than SLOW_MS. A 2xx that is not JSON (a file,
 * an export, the SSE stream) is judged by its content type only.
 * Shared by scripts/reliability/fuzz.ts and tests/api/fuzz.test.ts.
 */

export const SLOW_MS = 5_000;
const ABORT_MS = 30_000;

export type FailureKind = '5xx' | 'no-answer' | 'non-envelope' | 'status-mismatch' | 'msg-not-chinese' | 'slow';
export const FAILURE_KINDS: FailureKind[] = ['5xx', 'no-answer', 'non-envelope', 'status-mismatch', 'msg-not-chinese', 'slow'];

export interface FuzzAnswer {
  status: number;
  contentType: string;
  /** The body text, cut to what a report shows (a 2xx file is not read at all). */
  text: string;
  ms: number;
  error?: string;
}

export interface FuzzFailure {
  kind: FailureKind;
  route: string;
  family: string;
  index: number;
  summary: string;
  auth: string;
  idempotencyKey: boolean;
  status: number;
  answer: string;
  ms: number;
}

export interface Tokens {
  /** The admin's current token. */
  admin(): string;
  /** Signs the admin in again (after a case logged the session out); answers the new token. */
  renew(): Promise<string>;
  /**
   * Gives the admin back the admin role. A fuzz body can be valid by chance
   * (e.g. {"userId": 1} to /user/bindRole) and then strips the signed-in
   * admin of every permission, which would turn the rest of the run into 403s.
   */
  repair(): Promise<void>;
}

const CJK = /[\u3400-\u9fff]/;
const isJsonType = (ct: string) => /^application\/([\w.+-]*\+)?json\b/i.test(ct) || ct === '';

export async function send(origin: string, req: FuzzRequest, token: string): Promise<FuzzAnswer> {
  const headers: Record<string, string> = {};
  if (req.contentType) headers['content-type'] = req.contentType;
  if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
  if (req.auth === 'admin') headers.authorization = `Bearer ${token}`;
  if (req.auth === 'bogus') headers.authorization = 'Bearer never-issued-0000000000000000';
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ABORT_MS);
  const started = performance.now();
  try {
    const res = await fetch(origin + req.path, { method: req.method, headers, body: req.body, signal: abort.signal });
    const contentType = res.headers.get('content-type') ?? '';
    let text = '';
    if (res.status < 300 && !isJsonType(contentType)) {
      // A file or an event stream: its headers said what it is; the stream would never end.
      await res.body?.cancel().catch(() => undefined);
    } else {
      text = await res.text();
    }
    return { status: res.status, contentType, text, ms: performance.now() - started };
  } catch (err) {
    return { status: 0, contentType: '', text: '', ms: performance.now() - started, error: String((err as Error)?.cause ?? err) };
  } finally {
    clearTimeout(timer);
  }
}

/** What is wrong with one answer (empty when nothing). */
export function judge(answer: FuzzAnswer, slowMs = SLOW_MS): FailureKind[] {
  const out: FailureKind[] = [];
  if (answer.ms > slowMs) out.push('slow');
  if (answer.status === 0) return [...out, 'no-answer'];
  if (answer.status >= 500) out.push('5xx');
  const ok = answer.status >= 200 && answer.status < 300;
  if (ok && !isJsonType(answer.contentType)) return out;
  let body: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(answer.text);
    body = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    body = null;
  }
  const envelope =
    !!body &&
    typeof body.success === 'boolean' &&
    typeof body.code === 'number' &&
    typeof body.msg === 'string' &&
    typeof body.message === 'string' &&
    body.msg === body.message &&
    'data' in body &&
    body.success === ok &&
    (body.code === 1000) === ok;
  if (!envelope) return [...out, 'non-envelope'];
  if (!ok) {
    const row = errorTable[body!.code as keyof typeof errorTable];
    if (!row || row.status !== answer.status) out.push('status-mismatch');
    if (!CJK.test(body!.msg as string)) out.push('msg-not-chinese');
  }
  return out;
}

const cut = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

export interface FuzzRunOptions {
  origin: string;
  routes: FuzzRoute[];
  count: number;
  seed?: number;
  tokens: Tokens;
  /** Cases of one route in flight at once. */
  concurrency?: number;
  /** What counts as slow; a suite on a loaded shared machine may allow more than SLOW_MS. */
  slowMs?: number;
  /** false: skip learning a valid-looking body per route (faster; 'one-bad-field' then spoils {}). */
  templates?: boolean;
  onRoute?: (route: FuzzRoute, done: number, total: number) => void;
}

export interface RouteTally {
  route: string;
  sent: number;
  counts: Record<FailureKind, number>;
  statuses: Record<number, number>;
  slowestMs: number;
  template?: Record<string, unknown>;
  /** Whether the template got past validation (so 'one-bad-field' reaches the handler). */
  templateAccepted?: boolean;
}

export interface FuzzRunResult {
  sent: number;
  routes: RouteTally[];
  failures: FuzzFailure[];
  totals: Record<FailureKind, number>;
  statuses: Record<number, number>;
  renewals: number;
  /** Routes after which the admin had lost permissions and was given the admin role back. */
  repairs: string[];
}

const zero = (): Record<FailureKind, number> => Object.fromEntries(FAILURE_KINDS.map((k) => [k, 0])) as Record<FailureKind, number>;

/** Runs `count` cases against every route, one route at a time; keeps every failure. */
export async function runFuzz(o: FuzzRunOptions): Promise<FuzzRunResult> {
  const result: FuzzRunResult = { sent: 0, routes: [], failures: [], totals: zero(), statuses: {}, renewals: 0, repairs: [] };
  const concurrency = o.concurrency ?? 4;
  let adminPermissions: number | undefined = (await permissionCount(o.origin, o.tokens.admin())) ?? undefined;
  for (const [n, route] of o.routes.entries()) {
    o.onRoute?.(route, n, o.routes.length);
    const tally: RouteTally = { route: `${route.method} ${route.url}`, sent: 0, counts: zero(), statuses: {}, slowestMs: 0 };
    const {
      template,
      fields: routeFields,
      accepted,
    } = o.templates === false ? { template: {}, fields: await probeFields(o.origin, route, o.tokens.admin()), accepted: false } : await inferTemplate(o.origin, route, o.tokens.admin());
    tally.template = template;
    tally.templateAccepted = accepted;
    const cases = fuzzRequests(route, o.count, { seed: o.seed, routeFields, template });
    const worker = async () => {
      for (let next = cases.next(); !next.done; next = cases.next()) {
        const req = next.value;
        const answer = await send(o.origin, req, o.tokens.admin());
        tally.sent++;
        tally.statuses[answer.status] = (tally.statuses[answer.status] ?? 0) + 1;
        tally.slowestMs = Math.max(tally.slowestMs, answer.ms);
        for (const kind of judge(answer, o.slowMs)) {
          tally.counts[kind]++;
          result.failures.push({
            kind,
            route: tally.route,
            family: req.family,
            index: req.index,
            summary: req.summary,
            auth: req.auth,
            idempotencyKey: req.idempotencyKey !== undefined,
            status: answer.status,
            answer: answer.error ?? cut(answer.text || `(empty, content-type ${answer.contentType || 'none'})`),
            ms: Math.round(answer.ms),
          });
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    // A case may have ended the session (logout) or taken the admin's roles; later routes need the admin as it was.
    let permissions = await permissionCount(o.origin, o.tokens.admin());
    if (permissions === null) {
      await o.tokens.renew();
      result.renewals++;
      permissions = await permissionCount(o.origin, o.tokens.admin());
    }
    if (adminPermissions === undefined) adminPermissions = permissions ?? 0;
    else if ((permissions ?? 0) < adminPermissions) {
      await o.tokens.repair();
      result.repairs.push(tally.route);
    }
    result.routes.push(tally);
    result.sent += tally.sent;
    for (const k of FAILURE_KINDS) result.totals[k] += tally.counts[k];
    for (const [s, c] of Object.entries(tally.statuses)) result.statuses[Number(s)] = (result.statuses[Number(s)] ?? 0) + c;
  }
  return result;
}

/** Values tried, in order, for a field the route refuses: the first one it accepts stays in the template. */
const CANDIDATES: unknown[] = [2, 'x', 1, 0, '2026-12-20 08:00:00', '2026-12-21', [2], '粤A12345', '13800000000', '440102199001011234', 'ABCdef123_', {}, true, '同意'];
// Never the admin's own id (1): a template that happens to be valid would act on the signed-in account.

/**
 * Learns a body (a query for GET) that the route's validation accepts, or
 * refuses on fewer fields, by filling each field the 400 names with the next
 * candidate value until the field is no longer named. A route whose template
 * becomes valid runs its handler: the fuzz session's admin may thereby create
 * or change rows, which is fine on a throw-away database.
 */
export async function inferTemplate(origin: string, route: FuzzRoute, token: string): Promise<{ template: Record<string, unknown>; fields: string[]; accepted: boolean }> {
  const template: Record<string, unknown> = {};
  const fields = new Set<string>();
  if (/logout|captcha|v2login|updateSelf|\/file\/:/.test(route.url) || (route.method !== 'POST' && route.method !== 'GET'))
    return { template, fields: await probeFields(origin, route, token), accepted: false };
  let accepted = false;
  const tried = new Map<string, number>();
  const url = origin + route.url.replace(/:([A-Za-z_]+)/g, 'gender');
  for (let step = 0; step < 30; step++) {
    let status = 0;
    let answer: unknown = null;
    try {
      const query = Object.entries(template)
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
        .join('&');
      const res =
        route.method === 'GET'
          ? await fetch(query ? `${url}?${query}` : url, { headers: { authorization: `Bearer ${token}` } })
          : await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(template) });
      status = res.status;
      const ct = res.headers.get('content-type') ?? '';
      answer = ct.includes('json') ? await res.json() : (await res.body?.cancel(), null);
    } catch {
      break;
    }
    if (status !== 400) {
      accepted = status > 0 && status < 500;
      break;
    }
    const named = fieldsFromValidation(answer);
    if (named.length === 0) break;
    let progressed = false;
    for (const f of named) {
      fields.add(f);
      const next = (tried.get(f) ?? -1) + 1;
      if (next >= CANDIDATES.length) continue;
      tried.set(f, next);
      template[f] = CANDIDATES[next];
      progressed = true;
    }
    if (!progressed) break;
  }
  if (route.method === 'POST') {
    // Every known field at once, each an object no field takes: the 400 names all fields the route reads,
    // including the optional ones (list filters, size, pn) that refusing {} never names.
    const all = Object.fromEntries(fieldVocabulary().map((f) => [f, { probe: [] }]));
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(all) });
      if (res.status === 400) for (const f of fieldsFromValidation(await res.json())) fields.add(f);
      else await res.body?.cancel();
    } catch {
      // the fields learnt so far will do
    }
  }
  return { template, fields: [...fields], accepted };
}

async function probeFields(origin: string, route: FuzzRoute, token: string): Promise<string[]> {
  if (route.method !== 'POST' || /logout/.test(route.url)) return [];
  const url = origin + route.url.replace(/:([A-Za-z_]+)/g, 'gender');
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' });
    return res.status === 400 ? fieldsFromValidation(await res.json()) : (await res.body?.cancel(), []);
  } catch {
    return [];
  }
}

/** How many permission codes the session holds; null when it is no longer signed in. */
async function permissionCount(origin: string, token: string): Promise<number | null> {
  const res = await fetch(`${origin}/api/user/info`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) {
    await res.body?.cancel();
    return null;
  }
  const info = (await res.json()) as { data?: { permissions?: unknown[]; permissionCodes?: unknown[] } };
  const codes = info.data?.permissions ?? info.data?.permissionCodes;
  return Array.isArray(codes) ? codes.length : 0;
}

/** The API's own description: documents (OpenAPI, HTML) rather than envelopes, and they read no input. */
const DOCUMENTS = new Set(['/api/openapi.json', '/api/docs']);

/** The routes a server registered under /api, in registration order, without duplicates. */
export function apiRoutes(routes: ReadonlyArray<{ method: string; url: string }>): FuzzRoute[] {
  const seen = new Set<string>();
  return routes
    .filter((r) => r.url.startsWith('/api') && !DOCUMENTS.has(r.url) && !seen.has(`${r.method} ${r.url}`) && seen.add(`${r.method} ${r.url}`))
    .map((r) => ({ method: r.method, url: r.url }));
}

/** First `perKind` failures of each kind, for a report. */
export function firstExamples(failures: FuzzFailure[], perKind: number): FuzzFailure[] {
  const taken = new Map<string, number>();
  return failures.filter((f) => {
    const n = taken.get(f.kind) ?? 0;
    if (n >= perKind) return false;
    taken.set(f.kind, n + 1);
    return true;
  });
}
