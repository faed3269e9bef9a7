import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import { looksMasked, maskPersonal, personalKindOf, type PersonalKind } from '../../domain/personal-data';
import type { AuthContext } from './context';
import { fail } from './errors';

/**
 * Personal data masked on the way out (docs/personal-data.md). Every JSON
 * answer of a user's route passes maskAnswer before it is written: ID and
 * document numbers and phones masked for every reader, face and ID photos
 * hidden from readers without pii:view, by the field-name rule of
 * domain/personal-data.ts. So a new list, detail or field is masked without
 * anyone remembering to. A device's routes (DESIGN.md §8 contract) answer
 * what the gate needs to match, unmasked; a route marks an answer clear with
 * answerInClear only for what its filer typed and may reuse: their own draft,
 * their own approved waybills offered to a new appointment.
 */

/** Face and ID photos, and revealing one masked field: the code that sees personal data whole. */
export const PII_VIEW = 'pii:view';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by answerInClear: this answer's personal data goes out as stored. */
    personalInClear?: boolean;
  }
}

/** Marks an answer that carries personal data as stored, so a client or an audit can tell it from a masked one. */
export const IN_CLEAR_HEADER = 'x-personal-data';

/** This call's answer shows personal data as stored: the filer reading their own draft, which they may still correct. */
export function answerInClear(req: FastifyRequest): void {
  req.personalInClear = true;
}

export const holdsPiiView = (auth: AuthContext | null | undefined): boolean => !!auth?.permissions.has(PII_VIEW);

/** Deep enough for a detail's nested persons and a waybill's cargo inside an application. */
const MAX_DEPTH = 8;

/**
 * A copy of `value` with each personal field masked, sharing every part that
 * had nothing to mask. JSON text inside a string (a car application's
 * cargo_info) is masked inside, as the client parses it.
 */
export function maskAnswer(value: unknown, photos: boolean, depth = 0): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const masked = maskAnswer(value[i], photos, depth + 1);
      if (masked !== value[i]) (out ??= value.slice())[i] = masked;
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | null = null;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const masked = maskField(key, v, photos, depth);
    if (masked !== v) (out ??= { ...(value as Record<string, unknown>) })[key] = masked;
  }
  return out ?? value;
}

function maskField(key: string, v: unknown, photos: boolean, depth: number): unknown {
  const kind = personalKindOf(key);
  if (kind && !(kind === 'photo' && photos)) {
    if (typeof v === 'string') return maskPersonal(kind, v);
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? maskPersonal(kind, x) : x));
    return v;
  }
  if (typeof v === 'string') return maskJsonText(v, photos, depth);
  return maskAnswer(v, photos, depth + 1);
}

function maskJsonText(text: string, photos: boolean, depth: number): string {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const masked = maskAnswer(parsed, photos, depth + 1);
  return masked === parsed ? text : JSON.stringify(masked);
}

/**
 * Masks every JSON answer of a user's route. preSerialization runs for object
 * payloads only: files, streams and the exports' xlsx pass untouched (the
 * exports mask their own columns, core/xlsx-export.ts).
 */
export function registerPersonalDataMasking(app: FastifyInstance): void {
  app.addHook('preSerialization', (req, reply, payload, done) => {
    const permission = req.routeOptions.config?.permission;
    if (permission === undefined || permission === 'device' || permission === 'public') return done(null, payload);
    if (req.personalInClear) {
      reply.header(IN_CLEAR_HEADER, 'as-stored');
      return done(null, payload);
    }
    done(null, maskAnswer(payload, holdsPiiView(req.auth)));
  });
}

/**
 * What an edit sends, with each personal field that is the mask of the stored
 * value put back to the stored value: it came back unchanged from a form
 * that only ever showed it masked. Any other masked-looking value is refused,
 * naming the field, rather than stored as stars. Nested rows (a car's
 * persons) pair with the stored ones by their id when both have one, else by
 * position; JSON text stored for an object (cargo_info) is read as that object.
 */
export function keepStoredWhereMasked<T>(input: T, stored: unknown, labels: Record<string, string | undefined> = {}, depth = 0): T {
  if (depth > MAX_DEPTH || input === null || typeof input !== 'object') return input;
  const before = typeof stored === 'string' ? parsedJson(stored) : stored;
  if (Array.isArray(input)) {
    const storedRows = Array.isArray(before) ? (before as unknown[]) : [];
    let out: unknown[] | null = null;
    input.forEach((item, i) => {
      const kept = keepStoredWhereMasked(item, pairOf(item, i, storedRows), labels, depth + 1);
      if (kept !== item) (out ??= input.slice())[i] = kept;
    });
    return (out ?? input) as T;
  }
  const prior = before && typeof before === 'object' && !Array.isArray(before) ? (before as Record<string, unknown>) : {};
  let out: Record<string, unknown> | null = null;
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const kind = personalKindOf(key);
    let kept: unknown = value;
    if (kind && typeof value === 'string') {
      if (!looksMasked(kind, value)) continue;
      const was = prior[key];
      if (typeof was !== 'string' || maskPersonal(kind, was) !== value) fail(ErrorCode.VALIDATION, maskedInputMessage(kind, labels[key] ?? key));
      kept = was;
    } else if (value && typeof value === 'object') kept = keepStoredWhereMasked(value, prior[key], labels, depth + 1);
    if (kept !== value) (out ??= { ...(input as Record<string, unknown>) })[key] = kept;
  }
  return (out ?? input) as T;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The stored row an edited nested row stands for: the one of the same id, else the one at its position. */
function pairOf(item: unknown, index: number, stored: unknown[]): unknown {
  const idOf = (row: unknown) => {
    if (!row || typeof row !== 'object') return undefined;
    const [key] = Object.keys(row).filter((k) => k === 'id' || k.endsWith('_id'));
    return key === undefined ? undefined : (row as Record<string, unknown>)[key];
  };
  const id = idOf(item);
  if (id !== undefined && id !== null) return stored.find((row) => idOf(row) === id);
  return stored[index];
}

const maskedInputMessage = (kind: PersonalKind, label: string) =>
  kind === 'photo' ? `${label}为隐藏显示，不能修改；请保持原样或重新上传` : `${label}为脱敏显示，请填写完整的${label}，或保持原样不改`;
