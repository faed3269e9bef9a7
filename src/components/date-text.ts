import dayjs from 'dayjs';
import { DATE_FORMAT, DATETIME_FORMAT } from '../../domain/time';

/**
 * What a date field shows and accepts: the wire formats themselves (DESIGN.md §3),
 * so the text reads the same in every browser language, 24-hour.
 */
export const fieldFormat = (withTime: boolean) => (withTime ? DATETIME_FORMAT : DATE_FORMAT);

/** A value from a caller as the field shows it; '' for nothing or something that is no date. */
export function shownDate(value: unknown, withTime: boolean): string {
  if (typeof value !== 'string' || !value) return '';
  const d = dayjs(value);
  return d.isValid() ? d.format(fieldFormat(withTime)) : '';
}

const PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/** Whether the numbers name a real calendar day and clock time (no 02-30, no 24:00:00). */
function isReal(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d && t.getUTCHours() === h && t.getUTCMinutes() === mi && t.getUTCSeconds() === s;
}

export type TypedDate = { ok: true; value: string | undefined } | { ok: false; hint: string };

/**
 * Typed text, read strictly in the field's format: the wire value (undefined
 * for an emptied field), or the short hint the field shows. `min` and `max` are
 * days ('YYYY-MM-DD') and bound the day part only, as the pickers do.
 */
export function parseTypedDate(text: string, withTime: boolean, min?: string, max?: string): TypedDate {
  const trimmed = text.trim();
  if (!trimmed) return { ok: true, value: undefined };
  const m = PATTERN.exec(trimmed);
  const format = fieldFormat(withTime);
  if (!m || Boolean(m[4]) !== withTime) return { ok: false, hint: `请按 ${format} 输入` };
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  if (!isReal(y, mo, d, h, mi, s)) return { ok: false, hint: withTime ? '没有这个日期或时间' : '没有这个日期' };
  const day = trimmed.slice(0, 10);
  if (min && day < min) return { ok: false, hint: `不能早于 ${min}` };
  if (max && day > max) return { ok: false, hint: `不能晚于 ${max}` };
  return { ok: true, value: trimmed };
}

/** A picked Date (browser-local wall clock, as both pickers work) in the field's wire format. */
export const dateToWire = (d: Date, withTime: boolean) => dayjs(d).format(fieldFormat(withTime));

/** A wire value or day as a local Date for the pickers; `time` ('HH:mm:ss') when it has none. */
export function wireToDate(value: string, time = '00:00:00'): Date {
  return dayjs(value.length > 10 ? value : `${value} ${time}`).toDate();
}
