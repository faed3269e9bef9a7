/**
 * Signed visit passes (issue 4 item 5): the QR an approved visitor shows at
 * the gate, which a patrol's phone verifies without a network.
 *
 * Format: a compact JWS (RFC 7515) signed and verified by jose, ES256 (ECDSA
 * P-256 with SHA-256), its protected header { alg, typ: 'park-pass', kid },
 * its payload the pass's JSON with short keys (the kid is the header's).
 * Passes issued before it (issue 25) are 'PK1.' + base64url(JSON payload) +
 * '.' + base64url(signature) over the text before the last dot: those are
 * still read and verified here, by hand, until the last of them has expired
 * (a visit's pass lives no longer than its visit), and no new one is made.
 * The server signs; the app verifies with the public key it cached while
 * online. WebCrypto (`crypto.subtle`) exists in Node ≥ 20 and browsers, so
 * one implementation serves both; this module does no I/O.
 */
import { CompactSign, compactVerify, decodeProtectedHeader, errors as joseErrors } from 'jose';
import { z } from 'zod';
import type { AppointmentKind } from './appointments';
import { defineCall } from './contract';
import { PLATE_PATTERN, isDocumentNumber, isMainlandIdNumber } from './identity';
import { SCAN_PERMISSION } from './permissions';
import { labelled } from './schemas/common';

/** The prefix of passes issued before they were JWS (read, never made). */
export const PASS_PREFIX = 'PK1.';
/** The JWS header's typ of a pass. */
export const PASS_TYPE = 'park-pass';
export { SCAN_PERMISSION };
export const PASS_KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNATURE_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
/** The signature of P-256 in P1363 form: r and s, 32 bytes each. */
const SIGNATURE_BYTES = 64;

/** What a pass states about its holder. Times are park time, 'YYYY-MM-DD HH:mm:ss'. */
export interface PassPayload {
  /** Application number (CA… / PA…). */
  number: string;
  kind: AppointmentKind;
  /** Vehicle passes: the plate and its colour (enums.plateColor), which a patrol compares too. */
  plate?: string;
  plateColor?: number;
  /** Person passes: the visitor's name and masked ID number. */
  name?: string;
  idMasked?: string;
  begin: string;
  end: string;
  issuedAt: string;
  /** Which signing key made it (see passKeyId), so a pass from another park or an old key reads as such, not as forged. */
  kid: string;
}

/** Short keys on the wire keep the QR small enough to read off a phone screen. */
const wireKeys = { number: 'n', kind: 'k', plate: 'p', plateColor: 'c', name: 'm', idMasked: 'd', begin: 'b', end: 'e', issuedAt: 'i', kid: 'kid' } as const satisfies Record<
  keyof PassPayload,
  string
>;

// ---------------------------------------------------------------- bytes (no DOM or Node types in domain/)

type Bytes = Uint8Array;
interface TextCodecs {
  TextEncoder: new () => { encode(text: string): Bytes };
  TextDecoder: new (label?: string, options?: { fatal?: boolean }) => { decode(bytes: Bytes): string };
}
/** The parts of SubtleCrypto this module uses; keys stay opaque. */
export type PassKey = object;
interface Subtle {
  importKey(format: 'spki', data: Bytes, algorithm: object, extractable: boolean, usages: string[]): Promise<PassKey>;
  sign(algorithm: object, key: PassKey, data: Bytes): Promise<ArrayBuffer>;
  verify(algorithm: object, key: PassKey, signature: Bytes, data: Bytes): Promise<boolean>;
  digest(algorithm: string, data: Bytes): Promise<ArrayBuffer>;
}
const runtime = globalThis as unknown as TextCodecs & { crypto?: { subtle?: Subtle } };
function subtle(): Subtle {
  const s = runtime.crypto?.subtle;
  // Browsers hide crypto.subtle outside secure contexts (plain http on a LAN address).
  if (!s) throw new Error('此环境不支持签名校验（需要 HTTPS 或 localhost）');
  return s;
}
const utf8 = (text: string) => new runtime.TextEncoder().encode(text);
const fromUtf8 = (bytes: Bytes) => new runtime.TextDecoder('utf-8', { fatal: true }).decode(bytes);

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

export function toBase64Url(bytes: Bytes): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let j = 0; j < chars; j++) out += B64[(n >> (18 - 6 * j)) & 63];
  }
  return out;
}

/** Strict: anything outside the base64url alphabet, or a length no encoder makes, is null. */
export function fromBase64Url(text: string): Bytes | null {
  if (text.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (const c of text) {
    const v = B64_INDEX.get(c);
    if (v === undefined) return null;
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  // Leftover bits must be zero, so that each pass has exactly one spelling.
  if (acc & ((1 << bits) - 1)) return null;
  return out;
}

// ---------------------------------------------------------------- payload

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const text = (v: unknown, max: number) => typeof v === 'string' && v.length > 0 && v.length <= max;
/** Whom each kind's pass must name: a vehicle its plate, a person the name and masked ID number. */
const holderValid: Record<AppointmentKind, (p: Record<string, unknown>) => boolean> = {
  car: (p) => text(p.plate, 16),
  person: (p) => text(p.name, 60) && text(p.idMasked, 40),
};

/** The payload's JSON as the wire carries it. */
export function payloadToJson(p: PassPayload): string {
  const wire: Record<string, string | number> = {};
  for (const [field, key] of Object.entries(wireKeys) as Array<[keyof PassPayload, string]>) {
    const v = p[field];
    if (v !== undefined) wire[key] = v;
  }
  return JSON.stringify(wire);
}

/** The payload from its wire JSON (with the key id a JWS carries in its header), or null when any field is missing, malformed or of the wrong kind. */
export function payloadFromJson(json: string, kid?: string): PassPayload | null {
  let wire: unknown;
  try {
    wire = JSON.parse(json);
  } catch {
    return null;
  }
  if (!wire || typeof wire !== 'object' || Array.isArray(wire)) return null;
  const w = wire as Record<string, unknown>;
  const p: Record<string, unknown> = {};
  for (const [field, key] of Object.entries(wireKeys)) if (w[key] !== undefined) p[field] = w[key];
  if (kid !== undefined) {
    if (p.kid !== undefined) return null;
    p.kid = kid;
  }
  const base = text(p.number, 32) && Object.hasOwn(holderValid, p.kind as string) && text(p.kid, 64) && [p.begin, p.end, p.issuedAt].every((t) => typeof t === 'string' && TIME.test(t));
  if (!base) return null;
  if (!holderValid[p.kind as AppointmentKind](p)) return null;
  if (p.plateColor !== undefined && !(Number.isInteger(p.plateColor) && (p.plateColor as number) > 0 && (p.plateColor as number) < 100)) return null;
  return p as unknown as PassPayload;
}

// ---------------------------------------------------------------- keys

/** The first 12 bytes of SHA-256 over the SPKI bytes, base64url (16 characters). */
export async function passKeyId(spki: Bytes): Promise<string> {
  const hash = new Uint8Array(await subtle().digest('SHA-256', spki));
  return toBase64Url(hash.slice(0, 12));
}

/** A verifying key from the SPKI bytes the server publishes (base64url). */
export async function importPassPublicKey(spkiBase64Url: string): Promise<PassKey> {
  const spki = fromBase64Url(spkiBase64Url);
  if (!spki) throw new Error('签名公钥格式不正确');
  return subtle().importKey('spki', spki, PASS_KEY_ALGORITHM, false, ['verify']);
}

// ---------------------------------------------------------------- sign, parse, verify

/** The private key as jose takes it (a WebCrypto CryptoKey; domain/ names no DOM type). */
type SigningKey = Parameters<CompactSign['sign']>[0];

/** Signs a payload with an ECDSA P-256 private key (a WebCrypto CryptoKey with usage 'sign'): a compact JWS. */
export async function signPass(payload: PassPayload, privateKey: PassKey): Promise<string> {
  const { kid, ...claims } = payload;
  return new CompactSign(utf8(payloadToJson(claims as PassPayload))).setProtectedHeader({ alg: 'ES256', typ: PASS_TYPE, kid }).sign(privateKey as SigningKey);
}

const JWS_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The header of a pass's JWS, or null when the text is not one. */
function passHeader(t: string): { kid: string } | null {
  if (!JWS_SHAPE.test(t)) return null;
  try {
    const h = decodeProtectedHeader(t);
    return h.alg === 'ES256' && h.typ === PASS_TYPE && typeof h.kid === 'string' ? { kid: h.kid } : null;
  } catch {
    return null;
  }
}

export const looksLikePass = (scanned: string) => {
  const t = scanned.trim();
  return t.startsWith(PASS_PREFIX) || passHeader(t) !== null;
};

interface ParsedPass {
  payload: PassPayload;
  /** A JWS, verified by jose; or a PK1 pass's signed text and signature, verified by hand. */
  jws?: string;
  signedText?: string;
  signature?: Bytes;
}

/** The parts of a pass, or null when the text is not a well-formed pass (whatever its signature). */
export function parsePass(scanned: string): ParsedPass | null {
  const t = scanned.trim();
  const header = passHeader(t);
  if (header) {
    const body = fromBase64Url(t.split('.')[1]!);
    if (!body) return null;
    let json: string;
    try {
      json = fromUtf8(body);
    } catch {
      return null;
    }
    const payload = payloadFromJson(json, header.kid);
    return payload ? { payload, jws: t } : null;
  }
  if (!t.startsWith(PASS_PREFIX)) return null;
  const parts = t.slice(PASS_PREFIX.length).split('.');
  if (parts.length !== 2) return null;
  const body = fromBase64Url(parts[0]);
  const signature = fromBase64Url(parts[1]);
  if (!body || !signature || signature.length !== SIGNATURE_BYTES) return null;
  let json: string;
  try {
    json = fromUtf8(body);
  } catch {
    return null;
  }
  const payload = payloadFromJson(json);
  return payload ? { payload, signedText: PASS_PREFIX + parts[0], signature } : null;
}

/** Whether the pass's signature holds under the key (jose for a JWS; the PK1 passes' own rule otherwise). */
async function genuine(parsed: ParsedPass, key: PassKey): Promise<boolean> {
  if (parsed.jws) {
    try {
      await compactVerify(parsed.jws, key as SigningKey, { algorithms: ['ES256'] });
      return true;
    } catch (err) {
      if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWSInvalid) return false;
      throw err;
    }
  }
  return subtle().verify(SIGNATURE_ALGORITHM, key, parsed.signature!, utf8(parsed.signedText!));
}

/** Where `now` falls against the validity; both in park time. */
export type Validity = 'valid' | 'not-yet' | 'expired';
export function validityAt(begin: string, end: string, now: string): Validity {
  if (now < begin) return 'not-yet';
  if (now > end) return 'expired';
  return 'valid';
}

/**
 * What a scanned pass proves. `forged`: the signature does not match the text
 * (altered or made up); `unknown-key`: signed by a key this device does not
 * hold (another park, or a key changed since the device last went online);
 * `malformed`: not a pass at all. Only the first three carry a payload that
 * can be believed.
 */
export type PassStatus = Validity | 'forged' | 'unknown-key' | 'malformed';
export interface PassCheck {
  status: PassStatus;
  /** Present when the signature holds. */
  payload?: PassPayload;
}

export interface PassVerifyKey {
  kid: string;
  key: PassKey;
}

export async function verifyPass(scanned: string, key: PassVerifyKey, now: string): Promise<PassCheck> {
  const parsed = parsePass(scanned);
  if (!parsed) return { status: 'malformed' };
  if (parsed.payload.kid !== key.kid) return { status: 'unknown-key' };
  if (!(await genuine(parsed, key.key))) return { status: 'forged' };
  return { status: validityAt(parsed.payload.begin, parsed.payload.end, now), payload: parsed.payload };
}

/** The headline a patrol reads first. */
export const passStatusText: Record<PassStatus, string> = {
  valid: '通行码有效',
  'not-yet': '通行码未到有效期',
  expired: '通行码已过期',
  forged: '伪造或被篡改的通行码',
  'unknown-key': '无法核验：签名密钥未知',
  malformed: '不是园区通行码',
};

// ---------------------------------------------------------------- what a scan or typed text is

export type ScanTarget = { type: 'pass'; text: string } | { type: 'idcard'; idcard: string } | { type: 'plate'; plate: string } | { type: 'unknown'; text: string };

/**
 * A scanned or typed text: a pass, an ID QR (the 18-character resident ID
 * number, as ID-reading apps encode it), a plate, or something else.
 */
export function classifyScan(raw: string): ScanTarget {
  const t = raw.trim();
  if (looksLikePass(t)) return { type: 'pass', text: t };
  const upper = t.toUpperCase().replace(/\s+/g, '');
  if (isMainlandIdNumber(upper)) return { type: 'idcard', idcard: upper };
  if (PLATE_PATTERN.test(upper)) return { type: 'plate', plate: upper };
  return { type: 'unknown', text: t };
}

// ---------------------------------------------------------------- the API's answers

const validity = z.enum(['valid', 'not-yet', 'expired']);

/** GET /api/pass/publicKey */
export const passPublicKey = z.object({
  alg: z.literal('ES256'),
  kid: z.string(),
  /** SPKI DER, base64url. */
  publicKey: z.string(),
});
export type PassPublicKey = z.infer<typeof passPublicKey>;

/** What a pass states, as the issue and the lookup answer it (PassPayload). */
export const passPayloadRow = z.object({
  number: z.string(),
  kind: z.enum(['car', 'person']),
  plate: z.string().optional(),
  plateColor: z.number().int().optional(),
  name: z.string().optional(),
  idMasked: z.string().optional(),
  begin: z.string(),
  end: z.string(),
  issuedAt: z.string(),
  kid: z.string(),
});

/** GET /api/carApplications/pass, /api/personApplications/pass */
export const issuedPass = z.object({ pass: z.string(), payload: passPayloadRow, validity });
export type IssuedPass = z.infer<typeof issuedPass>;

/** One application as the scan screen shows it; person ID numbers masked. The vehicle fields are absent on a person's. */
export const lookupApplication = z.object({
  kind: z.enum(['car', 'person']),
  id: z.number().int(),
  application_number: z.string(),
  state: z.number().int(),
  begin: z.string(),
  end: z.string(),
  validity,
  /** Applicant (vehicle) or visitor (person). */
  name: z.string(),
  idcard_masked: z.string(),
  visitor_company: z.string(),
  interviewee_name: z.string(),
  interviewee_depart_name: z.string().nullable(),
  is_delayed: z.number().int(),
  in_black_list: z.number().int(),
  license_plate: z.string().optional(),
  license_plate_color: z.number().int().optional(),
  vehicle_type_name: z.string().nullable().optional(),
  label_status: z.number().int().optional(),
  label_remark: z.string().optional(),
});
export type LookupApplication = z.infer<typeof lookupApplication>;

/** A black (type 1) or white (type 2) list entry in force today. */
export const lookupListEntry = z.object({
  id: z.number().int(),
  type: z.number().int(),
  in_reason: z.string(),
  start_time: z.string().nullable(),
  end_time: z.string().nullable(),
});
export type LookupListEntry = z.infer<typeof lookupListEntry>;

/** A live vehicle flag (vehicle_mark, status 1). */
export const lookupFlag = z.object({
  id: z.number().int(),
  car_application_id: z.number().int().nullable(),
  remark: z.string(),
  color_id: z.number().int(),
  label_type_id: z.number().int(),
  alarm_id: z.number().int(),
  photo: z.string(),
  create_time: z.string(),
  create_user_name: z.string().nullable(),
});
export type LookupFlag = z.infer<typeof lookupFlag>;

/** GET /api/pass/lookup: what the park knows about a scanned pass, plate or ID number. */
export const passLookup = z.object({
  /** Only for a pass: the server's own verdict on it. */
  pass: z.object({ status: z.enum(['valid', 'not-yet', 'expired', 'forged', 'unknown-key', 'malformed']), payload: passPayloadRow.optional() }).optional(),
  subject: z.union([z.object({ kind: z.literal('car'), license_plate: z.string() }), z.object({ kind: z.literal('person'), idcard_masked: z.string(), name: z.string().nullable() }), z.null()]),
  /** The pass's application; for a plate or ID, the one in force, else the next, else the newest. */
  application: lookupApplication.nullable(),
  /** Submitted applications of the subject, newest first (at most 5). */
  applications: z.array(lookupApplication),
  lists: z.array(lookupListEntry),
  flags: z.array(lookupFlag),
  checkedAt: z.string(),
});
export type PassLookup = z.infer<typeof passLookup>;

const blankToUndefined = (v: unknown) => (typeof v === 'string' ? v.trim() || undefined : (v ?? undefined));

const lookupLabels = { pass: '通行码', license_plate: '车牌号', idcard: '证件号码' };
/** What the scan screen asks: exactly one of a pass, a plate or an ID number. */
export const lookupQuery = labelled(
  z
    .object({
      pass: z.preprocess(blankToUndefined, z.string().max(2000, { error: '通行码内容过长' }).optional()),
      license_plate: z.preprocess(
        (v) => (typeof v === 'string' ? v.replace(/\s+/g, '').toUpperCase() || undefined : (v ?? undefined)),
        z.string().regex(PLATE_PATTERN, { error: '车牌号格式不正确' }).optional(),
      ),
      idcard: z.preprocess(
        (v) => (typeof v === 'string' ? v.trim().toUpperCase() || undefined : (v ?? undefined)),
        z.string().refine(isDocumentNumber, { error: '证件号码格式不正确（身份证号，或其他证件的 5-30 位字母数字）' }).optional(),
      ),
    })
    .refine((q) => [q.pass, q.license_plate, q.idcard].filter(Boolean).length === 1, { error: '请提供通行码、车牌号或证件号码中的一项', path: ['pass'] }),
  lookupLabels,
);
export type LookupQuery = z.output<typeof lookupQuery>;

/** The pass calls beside each kind's own (appointment-kinds.ts kindCalls.pass). */
export const passApi = {
  // Every signed-in phone caches it, so that the scan screen verifies with no network.
  publicKey: defineCall({ method: 'GET', path: '/pass/publicKey', permission: 'signed-in', summary: '通行码验签公钥', input: z.object({}), answer: passPublicKey }),
  lookup: defineCall({ method: 'GET', path: '/pass/lookup', permission: SCAN_PERMISSION, summary: '扫码查验（通行码、车牌号或身份证号）', input: lookupQuery, answer: passLookup }),
};
