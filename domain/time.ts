/** Wire formats (DESIGN.md §3): times in park time, dates as plain calendar days. */
export const DATETIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';
export const DATE_FORMAT = 'YYYY-MM-DD';
export const DEFAULT_PARK_TZ = 'Asia/Shanghai';

const pad = (n: number) => String(n).padStart(2, '0');

/** One formatter per time zone: building an Intl.DateTimeFormat costs far more than formatting with it (docs/performance.md). */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * The last second formatted, per zone: a server asks for "now" several times
 * a call (a decision four), and formatToParts is 10–15 µs each; within one
 * second of one zone the text is the same.
 */
const lastSecond = new Map<string, { second: number; text: string }>();

/** Formats an instant as 'YYYY-MM-DD HH:mm:ss' in the given IANA zone without a date library. */
export function formatInZone(instant: Date | number, timeZone: string = DEFAULT_PARK_TZ): string {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  const second = Math.floor(ms / 1000);
  const last = lastSecond.get(timeZone);
  if (last && last.second === second) return last.text;
  const parts = formatterFor(timeZone).formatToParts(ms);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
  const text = `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
  lastSecond.set(timeZone, { second, text });
  return text;
}

/** 'mm:ss' for a countdown of whole seconds (captcha cooldown, spec 002 §2). */
export function formatCountdown(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
}

/**
 * A park time `minutes` later, by wall clock ('YYYY-MM-DD HH:mm:ss' in and
 * out): the park's zone keeps no daylight saving, so wall-clock arithmetic is
 * exact.
 */
export function addMinutes(time: string, minutes: number): string {
  const ms = Date.parse(`${time.replace(' ', 'T')}Z`) + minutes * 60_000;
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
