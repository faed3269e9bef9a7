import { maskPersonal, personalKindOf } from '../../domain/personal-data';

/**
 * The one rule for what never reaches a log: the operation log's params (when
 * written, core/auth.ts, and again when read, modules/logs.ts) and pino's
 * request lines. A field whose name says secret (passwords, SMS codes,
 * captcha answers, tokens, device and push keys, encrypted `content`) and a
 * text shaped like a credential (a JWE/JWT, an Authorization value, a private
 * key) become '***', at any depth. ID numbers and phones are kept masked
 * as every reader sees them (docs/personal-data.md), so a log still tells
 * which person a call concerned without holding the number whole.
 */
const SECRET_NAME = /pass(word|wd)?|captcha|token|content|secret|authorization|cookie|private|credential|signature|sms_?code|verif(y|ication)_?code/i;
/** Names that are secrets only as a whole word: a push subscription's `keys`/`auth`/`p256dh`, a device `key`, one-time codes. */
const SECRET_WORD = /^(auth|keys?|p256dh|otp|code_?hash|key_?hash|password_?hash)$/i;
/** deviceKey, device_key, apiKey, pushKeys… (case-sensitive: `monkey` is no key). */
const KEY_SUFFIX = /(_[Kk]eys?|[a-z0-9]Keys?)$/;
const SECRET_VALUE = /^(Bearer|Device|Basic)\s+\S|-----BEGIN [A-Z ]*PRIVATE KEY-----|^[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*(\.[A-Za-z0-9_-]*){0,2}$/;
const MASK = '***';

export const isSecretName = (name: string): boolean => SECRET_NAME.test(name) || SECRET_WORD.test(name) || KEY_SUFFIX.test(name);
const isSecretValue = (value: string): boolean => SECRET_VALUE.test(value.trim());

/** A copy of a request body fit for a log: secrets and encrypted blobs replaced, size bounded. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '…';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, isSecretName(k) ? MASK : (personalText(k, v) ?? redact(v, depth + 1))]));
  }
  if (typeof value === 'string') {
    if (isSecretValue(value)) return MASK;
    if (value.length > 500) return value.slice(0, 500) + '…';
  }
  return value;
}

export function auditJson(value: unknown): string {
  const s = JSON.stringify(redact(value ?? {}));
  return s.length > 4000 ? s.slice(0, 4000) + '…' : s;
}

const JSON_STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/** `"name": value` in JSON text: the value is a string (possibly cut off), or anything up to the next separator. */
const MEMBER = new RegExp(String.raw`(${JSON_STRING})\s*:\s*(${JSON_STRING}|"(?:[^"\\]|\\.)*$|[^,}\]]*)`, 'g');
const STRING = new RegExp(JSON_STRING, 'g');

/**
 * Stored params as they may be shown: the same rule applied again on the way
 * out, so a row written before a name joined the rule (or by a path that
 * skipped it) still shows no secret. Params cut off at 4000 characters are
 * not JSON any more; their members are masked by name and value in the text.
 */
export function redactAuditText(text: string): string {
  try {
    return auditJson(JSON.parse(text));
  } catch {
    return text
      .replace(MEMBER, (whole, name: string, _value: string) => {
        let key: string;
        try {
          key = JSON.parse(name) as string;
        } catch {
          return whole;
        }
        return isSecretName(key) ? `${name}:"${MASK}"` : whole;
      })
      .replace(STRING, (literal) => {
        try {
          return isSecretValue(JSON.parse(literal) as string) ? `"${MASK}"` : literal;
        } catch {
          return literal;
        }
      });
  }
}

/** A field holding an ID number or a phone, masked; undefined for any other field (photos are stored names, no personal data in a log). */
function personalText(name: string, value: unknown): string | undefined {
  const kind = personalKindOf(name);
  if (kind === null || kind === 'photo' || typeof value !== 'string') return undefined;
  return maskPersonal(kind, value.slice(0, 500));
}

/** pino redaction paths: request headers and any body that might be logged by mistake. */
export const logRedactPaths = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["idempotency-key"]', '*.password', '*.captcha', '*.token', '*.content', 'body.password', 'body.content'];
