import { ErrorCode } from '../../domain/errors';
import { AppError } from './errors';

/**
 * The deepest nesting of objects and arrays a request body may have. The
 * deepest body the PWA sends (an application with cargo_info and its
 * documents) is four levels; what walks a body afterwards (the idempotency
 * hash, zod, the operation log's redaction) is recursive, so a body of
 * thousands of levels must be refused before anything walks it.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** The nesting depth of JSON text, counted without parsing it; stops counting once past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return max;
}

/** Parses a JSON request body: an empty body reads as {} (list calls from older clients post nothing); too deep or malformed is a 400. */
export function parseJsonBody(raw: string): unknown {
  const text = raw.trim();
  if (!text) return {};
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new AppError(ErrorCode.VALIDATION, `请求体嵌套层数过深：最多${MAX_JSON_DEPTH}层`);
  }
  let nulIn: string | null = null;
  let parsed: unknown;
  try {
    // PostgreSQL cannot store U+0000 in text (SQLite can): refused here, for every route and both databases alike.
    parsed = JSON.parse(text, (key, value) => {
      if (nulIn === null && typeof value === 'string' && value.includes('\u0000')) nulIn = key;
      return value;
    });
  } catch {
    throw new AppError(ErrorCode.VALIDATION, '请求体不是有效的JSON');
  }
  if (nulIn !== null) throw new AppError(ErrorCode.VALIDATION, nulMessage(nulIn));
  return parsed;
}

export const nulMessage = (field: string) => `${field ? `${field}：` : ''}不能包含空字符（U+0000）`;

/** The first query-string parameter holding U+0000, if any (the same rule as for bodies). */
export function nulInQuery(query: unknown): string | null {
  if (!query || typeof query !== 'object') return null;
  for (const [key, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes('\u0000'))) return key;
  }
  return null;
}
