/**
 * The gate's decision without the server (docs/offline-gates.md): a signed
 * allow-list fetched by delta from GET /api/device/allowlist, and one pure
 * rule over it that says what POST /api/device/access would say (domain/gate.ts
 * gateDecision), in the same words where they correspond.
 *
 * Plates and ID numbers never appear in the list: each entry is keyed by
 * subjectHash, HMAC-SHA-256 under the gate's own key of the normalised
 * subject, truncated to 96 bits. This module does no I/O and uses WebCrypto
 * only, so a gate's JavaScript, the PWA, the simulator and the tests share it.
 */
import { appointmentKinds } from './appointment-kinds';
import { Direction, type GateDecision } from './gate';
import { fromBase64Url, toBase64Url } from './pass';

/** The JWS header's typ of an allow-list. Its payload is the list's JSON, gzip-compressed. */
export const ALLOWLIST_TYPE = 'park-allowlist+gzip';
/** A visit is listed from this many hours before it begins. */
export const ALLOWLIST_HORIZON_HOURS = 24;
/** Bytes of HMAC-SHA-256 kept per subject: 96 bits, 16 base64url characters. */
export const SUBJECT_HASH_BYTES = 12;
/** What a gate says of a list past its exp: visitors wait, exits go. */
export const LIST_EXPIRED = '名单已过期，离线时不能放行';

export type SubjectKind = 'car' | 'person';

/** One visit: [application number, begin, end, extra]; park times 'YYYY-MM-DD HH:mm:ss'. */
export type ListedVisit = [number: string, begin: string, end: string, extra?: VisitExtra];
export interface VisitExtra {
  /** 1: the vehicle's model needs a registration and none covers the visit (refused). */
  x?: 1;
  /** A hazardous-goods vehicle: the days ('YYYY-MM-DD') an approved waybill naming its plate covers (domain/gate.ts waybillCovers); any other day is refused. */
  d?: string[];
  /** 1: a hazardous-goods vehicle to a park with a cap on hazardous vehicles inside, which only the server can count: refused offline. */
  c?: 1;
  /** The published route of the visited department: a key of Allowlist.routes (information, access does not refuse off it). */
  r?: number;
}
/** A black-list entry in force within the list's dates: [start, end, reason]; null ends are open. */
export type ListedBlack = [start: string | null, end: string | null, reason: string];
export type ListedWhite = [start: string | null, end: string | null];

/** Everything the list says of one subject; each array newest first. */
export interface AllowEntry {
  /** subjectHash of the plate or ID number under this gate's key. */
  h: string;
  b?: ListedBlack[];
  /** A live vehicle mark of type 禁止入园: its remark. */
  m?: string;
  w?: ListedWhite[];
  a?: ListedVisit[];
}

/** The signed payload (JWS, ES256). A full list replaces what the gate holds; a delta (full false) updates it. */
export interface Allowlist {
  /** The version: the list holds every change up to it. */
  v: number;
  full: boolean;
  /** A delta's base version: apply it only to a list of exactly that version (else fetch the full list). */
  since?: number;
  /** The equipment id it was built for (its hashes are this device's own). */
  device: number;
  /** Park time it was built at, and after which the gate refuses visitors until it gets a newer one. */
  iat: string;
  exp: string;
  /** Route id → the gates (equipment ids) on it. */
  routes: Record<string, number[]>;
  /** Full: every entry; delta: the entries that changed (whole, replacing the gate's). */
  entries: AllowEntry[];
  /** Delta only: hashes whose entries are gone. */
  removed?: string[];
}

/** What a gate holds: the list's header and its entries by hash. */
export interface OfflineList {
  v: number;
  device: number;
  iat: string;
  exp: string;
  routes: Record<string, number[]>;
  byHash: Map<string, AllowEntry>;
}

export function indexAllowlist(list: Allowlist): OfflineList {
  if (!list.full) throw new Error('增量名单不能单独使用，请先获取完整名单');
  return { v: list.v, device: list.device, iat: list.iat, exp: list.exp, routes: list.routes, byHash: new Map(list.entries.map((e) => [e.h, e])) };
}

/** A delta applied to the list it was made for; null when its base is not the gate's version (fetch the full list). */
export function applyDelta(held: OfflineList, delta: Allowlist): OfflineList | null {
  if (delta.full) return indexAllowlist(delta);
  if (delta.since !== held.v || delta.device !== held.device) return null;
  const byHash = new Map(held.byHash);
  for (const h of delta.removed ?? []) byHash.delete(h);
  for (const e of delta.entries) byHash.set(e.h, e);
  return { v: delta.v, device: delta.device, iat: delta.iat, exp: delta.exp, routes: delta.routes, byHash };
}

// ---------------------------------------------------------------- hashing

/** The text hashed for a subject: its kind, a colon, the plate or ID number without spaces in upper case. */
export const normaliseSubject = (kind: SubjectKind, subject: string) => `${kind}:${subject.replace(/\s+/g, '').toUpperCase()}`;

interface Hmac {
  importKey(format: 'raw', data: Uint8Array, algorithm: object, extractable: boolean, usages: string[]): Promise<object>;
  sign(algorithm: string, key: object, data: Uint8Array): Promise<ArrayBuffer>;
}
const runtime = globalThis as unknown as { crypto?: { subtle?: Hmac }; TextEncoder: new () => { encode(text: string): Uint8Array } };

/** The gate's HMAC key (base64url, as issueKey answers it) as a WebCrypto key, imported once. */
export async function importSubjectKey(hmacKey: string): Promise<object> {
  const raw = fromBase64Url(hmacKey);
  const subtle = runtime.crypto?.subtle;
  if (!raw || raw.length < 16) throw new Error('名单密钥格式不正确');
  if (!subtle) throw new Error('此环境不支持 WebCrypto（需要 HTTPS 或 localhost）');
  return subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/** HMAC-SHA-256(gate key, normaliseSubject(kind, subject)), its first 96 bits in base64url: an entry's `h`. */
export async function subjectHash(key: object, kind: SubjectKind, subject: string): Promise<string> {
  const mac = await runtime.crypto!.subtle!.sign('HMAC', key, new runtime.TextEncoder().encode(normaliseSubject(kind, subject)));
  return toBase64Url(new Uint8Array(mac).slice(0, SUBJECT_HASH_BYTES));
}

// ---------------------------------------------------------------- the decision

export interface OfflineCrossing {
  /** subjectHash of what the gate read. */
  hash: string;
  kind: SubjectKind;
  direction: number;
  /** This gate's equipment id: whether the visit's route passes here. */
  device_id: number;
  /** The plate as read, for the display only (the registration refusal names it, as access does). */
  label?: string;
}

export interface OfflineDecision extends GateDecision {
  /** The allowing visit's department has a published route that does not pass this gate (information: access does not refuse it). */
  off_route?: boolean;
}

const validity = (begin: string, end: string, now: string) => (now < begin ? 'not-yet' : now > end ? 'expired' : 'valid');

/**
 * gateDecision over the list, in its order: an exit always goes; a list past
 * its exp refuses every entry (fail closed); a black-list entry in force today
 * refuses; a 禁止入园 mark refuses; a white-list entry in force today allows;
 * the newest visit valid now (else the next to begin, else the newest) allows
 * unless it is not yet begun or over, its vehicle lacks the registration its
 * model needs, or (hazardous goods) no waybill covers today or its park caps
 * the hazardous vehicles inside (a count only the server has); nothing listed
 * refuses. `now` is park time, 'YYYY-MM-DD HH:mm:ss'.
 */
export function decideOffline(list: OfflineList, c: OfflineCrossing, now: string): OfflineDecision {
  if (c.direction === Direction.OUT) return { allow: true, reason: '出场放行' };
  if (now > list.exp) return { allow: false, reason: LIST_EXPIRED };
  const who = appointmentKinds[c.kind].words.subject;
  const e = list.byHash.get(c.hash);
  const day = now.slice(0, 10);
  const inForce = ([start, end]: [string | null, string | null, ...unknown[]]) => (start === null || start <= `${day} 23:59:59`) && (end === null || end >= `${day} 00:00:00`);
  const black = e?.b?.find(inForce);
  if (black) return { allow: false, reason: `黑名单${who}：${black[2]}`, list_type: 1 };
  if (e?.m !== undefined) return { allow: false, reason: `车辆已被标记为禁止入园：${e.m}` };
  const white = e?.w?.find(inForce);
  if (white) return { allow: true, reason: `白名单${who}，放行`, list_type: 2, ...(white[1] ? { valid_until: white[1] } : {}) };

  const visits = e?.a ?? [];
  const current = visits.find((a) => validity(a[1], a[2], now) === 'valid') ?? visits.find((a) => validity(a[1], a[2], now) === 'not-yet') ?? visits[0];
  if (!current) return { allow: false, reason: `无${who}预约记录，不能放行` };
  const [number, begin, end, extra = {}] = current;
  const application = { application_number: number };
  const v = validity(begin, end, now);
  if (v === 'not-yet') return { allow: false, reason: `未到预约来访时间（${begin} 起），不能放行`, ...application };
  if (v === 'expired') return { allow: false, reason: `预约已过期（${end} 止），不能放行`, ...application };
  if (extra.x) return { allow: false, reason: `车辆${c.label ? `（${c.label}）` : ''}未备案或备案不在来访日期内，不能放行`, ...application };
  if (extra.d && !extra.d.includes(day)) return { allow: false, reason: `危化品车辆${c.label ? `（${c.label}）` : ''}无有效运单，不能放行`, ...application };
  if (extra.c) return { allow: false, reason: '危化品车辆受在园数量上限管控，离线时不能放行', ...application };
  const route = extra.r === undefined ? undefined : list.routes[String(extra.r)];
  return { allow: true, reason: '预约已通过，放行', ...application, valid_until: end, ...(route && !route.includes(c.device_id) ? { off_route: true } : {}) };
}
