import * as authSchemas from '../../domain/schemas/auth';
import * as carSchemas from '../../domain/schemas/car-application';
import * as commonSchemas from '../../domain/schemas/common';
import * as departmentSchemas from '../../domain/schemas/department';
import * as notificationSchemas from '../../domain/schemas/notifications';
import * as personSchemas from '../../domain/schemas/person-application';
import * as userSchemas from '../../domain/schemas/user';
import * as vehicleTypeSchemas from '../../domain/schemas/vehicle-type';

/**
 * Malformed requests for every route, shared by the reliability fuzzer
 * (scripts/reliability/fuzz.ts) and the API suite (tests/api/fuzz.test.ts),
 * so that both throw the same things at a new route. Generation is seeded:
 * a failure names its route and case index, and the same pair gives the
 * same request again.
 */

export interface FuzzRoute {
  method: string;
  /** Fastify's pattern, e.g. /api/common/enum/:name */
  url: string;
}

export type FuzzAuth = 'admin' | 'none' | 'bogus';

export interface FuzzRequest {
  index: number;
  family: string;
  /** What was sent, short enough to print. */
  summary: string;
  method: string;
  /** Path under the origin, params filled in and query attached. */
  path: string;
  body?: string | Uint8Array<ArrayBuffer>;
  contentType?: string;
  idempotencyKey?: string;
  auth: FuzzAuth;
}

/** Families in the order they cycle, so that even 20 cases per route cover each at least once. */
export const FAMILIES = [
  'one-bad-field',
  'wrong-types',
  'deep-object',
  'numbers',
  'deep-array',
  'prototype-keys',
  'one-bad-field',
  'huge-string',
  'content-type',
  'unicode',
  'enormous-array',
  'malformed-json',
  'one-bad-field',
  'query-ids',
  'top-level',
  'long-query',
  'path-params',
  'deep-body',
  'idempotency-key',
  'too-large',
  'one-bad-field',
  'number-strings',
  'nested-types',
  'bad-formats',
] as const;
export type Family = (typeof FAMILIES)[number];

export const DEEP_OBJECT_LEVELS = 10_000;
export const DEEP_ARRAY_LEVELS = 100_000;
export const LONG_QUERY_CHARS = 60_000;

/** mulberry32: small, fast and good enough to pick cases reproducibly. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hash = (s: string) => {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
};

// ---------------------------------------------------------------- field vocabulary

/**
 * Every field name the shared zod schemas know. Bodies are built from these
 * (and from the fields a route itself names when refusing `{}`), so that
 * wrong values reach the validators and the code behind them instead of
 * being dropped as unknown keys.
 */
function schemaFields(): string[] {
  const names = new Set<string>(['id', 'ids', 'taskIds', 'content', 'name', 'size', 'pn', 'account', 'remark', 'reason', 'result', 'endpoint', 'keys', 'access']);
  const seen = new Set<unknown>();
  const walk = (node: unknown, depth: number) => {
    if (!node || typeof node !== 'object' || depth > 6 || seen.has(node)) return;
    seen.add(node);
    const def = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return;
    const shape = def.shape as Record<string, unknown> | undefined;
    if (shape && typeof shape === 'object') {
      for (const [k, v] of Object.entries(shape)) {
        names.add(k);
        walk(v, depth + 1);
      }
    }
    for (const k of ['in', 'out', 'innerType', 'element', 'left', 'right', 'schema']) walk(def[k], depth + 1);
    if (Array.isArray(def.options)) for (const o of def.options) walk(o, depth + 1);
  };
  for (const mod of [authSchemas, carSchemas, commonSchemas, departmentSchemas, notificationSchemas, personSchemas, userSchemas, vehicleTypeSchemas]) {
    for (const v of Object.values(mod)) walk(v, 0);
  }
  return [...names].sort();
}

let vocabulary: string[] | undefined;
export const fieldVocabulary = (): string[] => (vocabulary ??= schemaFields());

// ---------------------------------------------------------------- values

const WRONG_TYPES: unknown[] = [
  [],
  {},
  true,
  false,
  null,
  0,
  -1,
  1.5,
  '',
  ' ',
  'abc',
  [1, 2, 3],
  { a: 1 },
  ['x'],
  [null],
  "' OR 1=1 --",
  '1; DROP TABLE sys_user;--',
  '<script>alert(1)</script>',
  // Objects that Number() and String() cannot convert: a coercion without a type check throws a TypeError.
  { toString: 'x' },
  { valueOf: 1, toString: 1 },
  { toString: {} },
];
const NUMBERS: unknown[] = [1e15, -1, 0, 2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53 + 1, 1e308, -1e308, 1.5, -0, 4294967296, 9007199254740993, 1e-7];
const NUMBER_STRINGS: unknown[] = ['NaN', 'Infinity', '-Infinity', '1e15', '2147483648', '-1', '0x7fffffff', '  12  ', '１２', '1,000', '99999999999999999999999', '-2147483649', '0.5', '+1', '٣'];
const UNICODE: string[] = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '\u202eevil',
  '\u200b\u200c\u200d\ufeff',
  'e\u0301\u0301\u0301\u0301',
  '𠀀𠀁𠀂',
  '👨‍👩‍👧‍👦🏳️‍🌈',
  '\uffff\ufffe',
  'Ａ１２３４５６',
  '\r\n\t\v\f',
  'ﷺ'.repeat(50),
  '\u0085\u2028\u2029',
  '%00%ff%2e%2e%2f',
  '../../../../etc/passwd',
];
const BAD_FORMATS: unknown[] = [
  '2026-13-45 25:61:61',
  '0000-00-00 00:00:00',
  '9999-12-31 23:59:59',
  '2026-02-30',
  '2026/01/01',
  '1970-01-01T00:00:00Z',
  '粤',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  '11010519491231002X',
  '00000000000000000000',
  '1380013800',
  'not-an-email@',
  'http://127.0.0.1:1/x',
  'data:text/html,<b>x</b>',
];
const OUT_OF_RANGE_IDS = ['-1', '0', '2147483648', '1e15', '4294967296', '9007199254740993', 'NaN', 'abc', '1.5', '-2147483649', '99999999999999999999', '%00', '', '0x10', '1 OR 1=1'];

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

function someFields(rand: () => number, routeFields: readonly string[], n: number): string[] {
  const out = new Set<string>();
  const vocab = fieldVocabulary();
  while (out.size < n) out.add(routeFields.length && rand() < 0.75 ? pick(rand, routeFields) : pick(rand, vocab));
  return [...out];
}

const deepObject = (levels: number, leaf = '1') => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** Replaces every :param with `value` (URL-encoded unless `raw`). */
function fillParams(url: string, value: string, raw = false): string {
  return url.replace(/:([A-Za-z_]+)/g, () => (raw ? value : encodeAny(value)));
}

/** encodeURIComponent that also carries lone surrogates, as the bytes a sloppy client would send (invalid UTF-8). */
function encodeAny(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s].map((ch) => (/[\ud800-\udfff]/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch))).join('');
  }
}

const queryOf = (entries: Array<[string, string]>) => entries.map(([k, v]) => `${encodeAny(k)}=${encodeAny(v)}`).join('&');

/** A value placed in a query string: strings as they are, anything else as JSON, never longer than `max`. */
const asQueryValue = (v: unknown, max = 2000) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))).slice(0, max);

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface FuzzOptions {
  seed?: number;
  /**
   * A body (query, for GET) the route's validation accepts or nearly accepts
   * (see inferTemplate in fuzz-probe.ts): 'one-bad-field' spoils one field of
   * it, so the bad value travels past validation into the code behind.
   */
  template?: Record<string, unknown>;
  /** Fields this route names when it refuses `{}`; weighted over the global vocabulary. */
  routeFields?: readonly string[];
  /** Size of the body over the server's limit (bytes); the 413 case. */
  tooLargeBytes?: number;
}

/**
 * `count` malformed requests for one route, lazily (some are megabytes).
 * Case i is of family FAMILIES[i % FAMILIES.length]; about two in three
 * mutating cases carry an Idempotency-Key; one in ten goes unsigned or with
 * a token that was never issued.
 */
export function* fuzzRequests(route: FuzzRoute, count: number, opts: FuzzOptions = {}): Generator<FuzzRequest> {
  const routeFields = opts.routeFields ?? [];
  const mutating = MUTATING.has(route.method);
  const hasParams = /:[A-Za-z_]/.test(route.url);
  const base = fillParams(route.url, 'gender');
  for (let i = 0; i < count; i++) {
    const family = FAMILIES[i % FAMILIES.length]!;
    const rand = prng(hash(`${opts.seed ?? 1}|${route.method} ${route.url}|${i}`));
    const slot = i % 20;
    const auth: FuzzAuth = slot === 7 ? 'none' : slot === 13 ? 'bogus' : 'admin';
    let idempotencyKey = mutating && i % 3 !== 2 ? `fuzz-${hash(route.url)}-${i}-${opts.seed ?? 1}` : undefined;
    let path = base;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    let contentType: string | undefined = 'application/json';
    let summary = '';

    const fields = someFields(rand, routeFields, 1 + Math.floor(rand() * 5));
    const obj = (value: () => unknown) => Object.fromEntries(fields.map((f) => [f, value()]));
    const json = (v: unknown) => JSON.stringify(v);

    switch (family) {
      case 'one-bad-field': {
        const template = opts.template ?? {};
        const keys = Object.keys(template);
        const f = keys.length && rand() < 0.8 ? pick(rand, keys) : fields[0]!;
        const pool = Math.floor(rand() * 9);
        // The placeholder as JSON.stringify writes it; the deep value replaces it in the text.
        const PLACEHOLDER = '\u0000deep\u0000';
        const RAW = JSON.stringify(PLACEHOLDER);
        let value: unknown;
        let raw: string | undefined;
        if (pool === 0) value = pick(rand, WRONG_TYPES);
        else if (pool === 1) value = pick(rand, NUMBERS);
        else if (pool === 2) value = pick(rand, NUMBER_STRINGS);
        else if (pool === 3) value = pick(rand, UNICODE);
        else if (pool === 4) value = pick(rand, BAD_FORMATS);
        else if (pool === 5) value = pick(rand, ['x', '中', '9']).repeat(pick(rand, [256, 10_001, 100_000]));
        else if (pool === 6) raw = rand() < 0.5 ? deepObject(DEEP_OBJECT_LEVELS) : deepArray(DEEP_ARRAY_LEVELS);
        else if (pool === 7) value = Array.from({ length: pick(rand, [1001, 10_000, 50_000]) }, (_, k) => (rand() < 0.5 ? k + 1 : 2 ** 31 + k));
        else value = pick<unknown>(rand, [{ ['__proto__']: 1 }, { constructor: { prototype: { x: 1 } } }, { toString: 'x' }, [{}], [[1]]]);
        const text = JSON.stringify({ ...template, [f]: raw === undefined ? value : PLACEHOLDER });
        body = raw === undefined ? text : text.replace(RAW, raw);
        summary = `valid-looking ${JSON.stringify(template).slice(0, 120)} with "${f}": ${raw !== undefined ? (raw.startsWith('[') ? `${DEEP_ARRAY_LEVELS} nested arrays` : `${DEEP_OBJECT_LEVELS} nested objects`) : (JSON.stringify(value) ?? String(value)).slice(0, 100)}${raw === undefined && (JSON.stringify(value)?.length ?? 0) > 100 ? `… (${JSON.stringify(value)!.length} chars)` : ''}`;
        break;
      }
      case 'wrong-types': {
        const o = obj(() => pick(rand, WRONG_TYPES));
        body = json(o);
        summary = `fields of wrong types ${json(o).slice(0, 160)}`;
        break;
      }
      case 'nested-types': {
        const o = obj(() => ({ [pick(rand, fieldVocabulary())]: [pick(rand, WRONG_TYPES), { x: pick(rand, NUMBERS) }] }));
        body = json(o);
        summary = `fields holding objects/arrays ${json(o).slice(0, 160)}`;
        break;
      }
      case 'numbers': {
        const o = obj(() => pick(rand, NUMBERS));
        body = json(o);
        summary = `numbers out of range ${json(o).slice(0, 160)}`;
        break;
      }
      case 'number-strings': {
        const o = obj(() => pick(rand, NUMBER_STRINGS));
        body = json(o);
        summary = `numeric strings ${json(o).slice(0, 160)}`;
        break;
      }
      case 'bad-formats': {
        const o = obj(() => pick(rand, BAD_FORMATS));
        body = json(o);
        summary = `malformed dates/ids/plates ${json(o).slice(0, 160)}`;
        break;
      }
      case 'unicode': {
        const o = obj(() => pick(rand, UNICODE).repeat(1 + Math.floor(rand() * 3)));
        body = json(o);
        summary = `unicode oddities ${json(o).slice(0, 160)}`;
        break;
      }
      case 'huge-string': {
        const f = fields[0]!;
        const n = rand() < 0.5 ? 1_000_000 : 100_000;
        const s = rand() < 0.5 ? 'x'.repeat(n) : '中'.repeat(n / 4);
        body = json({ ...obj(() => 'ok'), [f]: s });
        summary = `"${f}": string of ${s.length} chars (${s[0]})`;
        break;
      }
      case 'deep-object': {
        const f = fields[0]!;
        body = `{${json(f)}:${deepObject(DEEP_OBJECT_LEVELS)}}`;
        summary = `"${f}": ${DEEP_OBJECT_LEVELS} levels of nested objects`;
        break;
      }
      case 'deep-array': {
        const f = fields[0]!;
        body = `{${json(f)}:${deepArray(DEEP_ARRAY_LEVELS)}}`;
        summary = `"${f}": ${DEEP_ARRAY_LEVELS} levels of nested arrays`;
        break;
      }
      case 'deep-body': {
        const arrays = rand() < 0.5;
        body = arrays ? deepArray(DEEP_ARRAY_LEVELS) : deepObject(DEEP_OBJECT_LEVELS);
        summary = `whole body ${arrays ? `${DEEP_ARRAY_LEVELS} nested arrays` : `${DEEP_OBJECT_LEVELS} nested objects`}`;
        break;
      }
      case 'enormous-array': {
        const f = rand() < 0.5 && routeFields.length ? pick(rand, routeFields) : pick(rand, ['taskIds', 'ids', 'permissionIds', 'roleIds', fields[0]!]);
        const n = 100_000;
        const kind = Math.floor(rand() * 3);
        const arr = kind === 0 ? Array.from({ length: n }, (_, k) => k + 1) : kind === 1 ? new Array(n).fill(1) : new Array(n / 10).fill({ a: 'x' });
        body = rand() < 0.2 ? json(arr) : json({ ...obj(() => 3), [f]: arr });
        summary = `${body.startsWith('[') ? 'whole body' : `"${f}"`}: array of ${arr.length} ${kind === 0 ? 'distinct ids' : kind === 1 ? 'ones' : 'objects'}`;
        break;
      }
      case 'prototype-keys': {
        const variants = [
          '{"__proto__":{"admin":true,"permission":"public","polluted":1}}',
          '{"constructor":{"prototype":{"polluted":1}}}',
          `{"__proto__":{"id":1},"constructor":{"name":"x"},"${fields[0]}":{"__proto__":{"toString":1}}}`,
          `{"${fields[0]}":"x","__proto__":[],"hasOwnProperty":1,"toString":"x","valueOf":{}}`,
          '{"__proto__":null}',
          `{"${fields[0]}":{"constructor":{"prototype":{"isAdmin":true}}}}`,
        ];
        body = pick(rand, variants);
        summary = `prototype keys ${body}`;
        break;
      }
      case 'content-type': {
        const variants: Array<[string | undefined, string | Uint8Array<ArrayBuffer>]> = [
          ['text/plain', json(obj(() => 3))],
          ['application/x-www-form-urlencoded', 'id=1&size=10&__proto__[x]=1'],
          ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--\r\n'],
          ['multipart/form-data', 'garbage without boundary'],
          ['application/xml', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'],
          ['application/json; charset=utf-16', json(obj(() => 3))],
          ['application/octet-stream', new Uint8Array([0, 1, 2, 255, 254])],
          [undefined, json(obj(() => 3))],
          ['image/png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
          ['application/json', new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00])],
          ['text/event-stream', 'data: x\n\n'],
          ['application/vnd.api+json', json(obj(() => 3))],
        ];
        [contentType, body] = pick(rand, variants);
        summary = `content-type ${contentType ?? '(none)'} with ${typeof body === 'string' ? body.slice(0, 80) : `${body.length} raw bytes`}`;
        break;
      }
      case 'malformed-json': {
        const variants = [
          '{',
          '{"a":}',
          "{'a':1}",
          '{"a":1,}',
          '[1,2,',
          'nul',
          '{"a":1}{"b":2}',
          '\u0000',
          '{"a":"\\u00"}',
          '{"a":NaN}',
          '{"a":1e999999}',
          '{"a":-}',
          ' '.repeat(1000) + '{',
          '\ufeff{"a":1}',
          '{"a":"\n"}',
          '/* c */{}',
        ];
        body = pick(rand, variants);
        summary = `malformed JSON ${JSON.stringify(body.slice(0, 60))}`;
        break;
      }
      case 'top-level': {
        body = pick(rand, ['null', '[]', '0', '"string"', 'true', '-1', '[{}]', '[null]', '1e15', '""']);
        summary = `top-level ${body}`;
        break;
      }
      case 'query-ids': {
        const names = [...new Set(['id', 'size', 'pn', 'access', ...fields])];
        const q = queryOf(names.map((n) => [n, pick(rand, OUT_OF_RANGE_IDS)]));
        path = `${base}?${q}${rand() < 0.3 ? `&id=1&id=2&__proto__[admin]=1&constructor[prototype][x]=1` : ''}`;
        body = mutating ? json(obj(() => pick(rand, OUT_OF_RANGE_IDS))) : undefined;
        summary = `query ${path.split('?')[1]!.slice(0, 160)}`;
        break;
      }
      case 'long-query': {
        const name = pick(rand, ['id', 'size', 'q', fields[0]!]);
        const long = pick(rand, ['1', 'x', '中', '%']).repeat(LONG_QUERY_CHARS / 3);
        path = `${base}?${queryOf([[name, long]])}`.slice(0, base.length + LONG_QUERY_CHARS);
        body = mutating ? '{}' : undefined;
        summary = `query string of ${path.length - base.length} chars (${name}=${long[0]}…)`;
        break;
      }
      case 'path-params': {
        if (hasParams) {
          const v = pick(rand, [...OUT_OF_RANGE_IDS, 'x'.repeat(600), '中'.repeat(300), '..%2F..%2Fetc%2Fpasswd', '%2e%2e', '__proto__', 'constructor', 'a'.repeat(30_000)]);
          path = fillParams(route.url, v, v.includes('%'));
          summary = `path param ${v.slice(0, 60)}${v.length > 60 ? `… (${v.length} chars)` : ''}`;
        } else {
          path = `${base}?${queryOf([['id', pick(rand, OUT_OF_RANGE_IDS)]])}`;
          summary = `no path params; query ${path.split('?')[1]}`;
        }
        body = mutating ? json(obj(() => pick(rand, NUMBERS))) : undefined;
        break;
      }
      case 'idempotency-key': {
        const o = obj(() => pick(rand, WRONG_TYPES));
        body = json(o);
        // The second half of these reuse one key per route with different bodies: 422, never 500.
        idempotencyKey = mutating ? pick(rand, ['k'.repeat(300), ' ', 'ok\u00e9', `reused-${hash(route.url)}`, `reused-${hash(route.url)}`, 'a b c']) : undefined;
        summary = `Idempotency-Key ${JSON.stringify(idempotencyKey?.slice(0, 20))}${(idempotencyKey?.length ?? 0) > 20 ? '…' : ''} with ${json(o).slice(0, 100)}`;
        break;
      }
      case 'too-large': {
        // Once per route: megabytes are slow to send, and one case tells whether the limit answers 413.
        if (i < FAMILIES.length) {
          const n = opts.tooLargeBytes ?? 3 * 1024 * 1024;
          body = json({ [fields[0]!]: 'x'.repeat(n) });
          summary = `body of ${body.length} bytes (over the limit)`;
        } else {
          const o = obj(() => pick(rand, [...WRONG_TYPES, ...NUMBERS]));
          body = json(o);
          summary = `mixed wrong values ${json(o).slice(0, 160)}`;
        }
        break;
      }
    }

    if (!mutating) {
      // GET and HEAD carry no body: the same values travel in the query string instead.
      if (body !== undefined && !path.includes('?')) {
        let parsed: unknown;
        try {
          // Deep bodies stay raw text: parsing and re-serialising them would only test this generator's stack.
          parsed = typeof body === 'string' && body.length < 10_000 ? JSON.parse(body) : undefined;
        } catch {
          parsed = undefined;
        }
        if (family === 'one-bad-field' && typeof body === 'string' && body.length >= 10_000) {
          // Too deep or too long to re-encode: the spoilt field travels raw, cut to what a URL carries.
          parsed = { ...(opts.template ?? {}), q: body.slice(0, 4000) };
        }
        const entries: Array<[string, string]> =
          parsed && typeof parsed === 'object' && !Array.isArray(parsed)
            ? Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k, asQueryValue(v)])
            : [['q', asQueryValue(typeof body === 'string' ? body : 'bytes')]];
        path = `${path}?${queryOf(entries)}`;
      }
      body = undefined;
      contentType = undefined;
      idempotencyKey = undefined;
    }
    yield { index: i, family, summary, method: route.method, path, body, contentType, idempotencyKey, auth };
  }
}

/** The route's own field names, from the 400 it answers to `{}` (data.errors[].field). */
export function fieldsFromValidation(answer: unknown): string[] {
  const errors = (answer as { data?: { errors?: Array<{ field?: unknown }> } } | null)?.data?.errors;
  return Array.isArray(errors) ? [...new Set(errors.map((e) => e.field).filter((f): f is string => typeof f === 'string' && f.length > 0))] : [];
}
