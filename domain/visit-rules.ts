/**
 * Visit-time rules of spec 000 §5 for person and vehicle appointments.
 *
 * Pure: "today" is passed in as park time ('YYYY-MM-DD HH:mm:ss' or
 * 'YYYY-MM-DD'), and all arithmetic is on calendar dates through Date.UTC, so
 * neither the server's nor the phone's time zone can shift a day.
 */
import { isDumpTruckModel, isHazardousModel, isMixerModel } from './appointments';

export interface FieldError {
  field: string;
  message: string;
}

const DAY_MS = 86_400_000;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The 'YYYY-MM-DD' part of a date or date-time string. */
export const dateOf = (value: string): string => value.slice(0, 10);

function utc(date: string): number {
  const [y, m, d] = dateOf(date).split('-').map(Number);
  return Date.UTC(y, m - 1, d);
}

function fromUtc(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

export const addDays = (date: string, n: number): string => fromUtc(utc(date) + n * DAY_MS);

/**
 * Every day from `start` to `end` (dates or date-times), in order; none when `end` is before `start`. Counted on the
 * clock, not by comparing text: the day after 9999-12-31 is 10000-01-01, which sorts before it.
 */
export function eachDay(start: string, end: string): string[] {
  const days: string[] = [];
  const last = utc(end);
  for (let t = utc(start); t <= last; t += DAY_MS) days.push(fromUtc(t));
  return days;
}

/** Calendar months; the day is clamped to the target month's last day (01-31 + 1 month = 02-28/29), as dayjs does. */
export function addMonths(date: string, n: number): string {
  const [y, m, d] = dateOf(date).split('-').map(Number);
  const first = new Date(Date.UTC(y, m - 1 + n, 1));
  const lastDay = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return fromUtc(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(d, lastDay)));
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const diffDays = (from: string, to: string): number => Math.round((utc(to) - utc(from)) / DAY_MS);

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export function isValidDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) return false;
  return fromUtc(Date.UTC(+m[1], +m[2] - 1, +m[3])) === value;
}

/** 'YYYY-MM-DD HH:mm:ss' naming a real calendar day and clock time (no 02-30, no 25:61:61). */
export function isValidDateTime(value: string): boolean {
  const m = DATETIME_RE.exec(value);
  return !!m && isValidDate(value.slice(0, 10)) && +m[4] < 24 && +m[5] < 60 && +m[6] < 60;
}

/**
 * Wire form of a visit time: 'YYYY-MM-DD HH:mm:ss'. A plain date means the
 * whole day, so a begin becomes 00:00:00 and an end 23:59:59. Null when the
 * text is no real date or time.
 */
export function normaliseVisitTime(value: string, edge: 'begin' | 'end'): string | null {
  const v = value.trim();
  if (isValidDate(v)) return `${v} ${edge === 'begin' ? '00:00:00' : '23:59:59'}`;
  return isValidDateTime(v) ? v : null;
}

/** Full time for comparisons; a bare date compares as the given edge of its day. */
const fullTime = (value: string, edge: 'begin' | 'end') => normaliseVisitTime(value, edge) ?? value;

const present = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';

// ---------------------------------------------------------------- person

export interface PersonVisitValues {
  visitor_type: number | null | undefined;
  visit_begin_time: string | null | undefined;
  visit_end_time: string | null | undefined;
}

/** Longest span in days per person visitor type (spec 000 §5, §9). */
export const PERSON_SPAN_DAYS: Record<number, { days: number; message: string }> = {
  1: { days: 365, message: '业主来访时间差不能超过1年' },
  2: { days: 180, message: '服务商/建设单位来访时间差不能超过180天' },
  3: { days: 180, message: '服务商/建设单位来访时间差不能超过180天' },
  4: { days: 10, message: '临时来访时间差不能超过10天' },
};

export function personVisitErrors(v: PersonVisitValues, today: string): FieldError[] {
  const errors: FieldError[] = [];
  const day = dateOf(today);
  const { visit_begin_time: begin, visit_end_time: end } = v;
  if (present(begin)) {
    const beginDate = dateOf(begin.trim());
    if (beginDate < day) errors.push({ field: 'visit_begin_time', message: '来访开始时间不能早于今天' });
    if (addMonths(day, 1) < beginDate) errors.push({ field: 'visit_begin_time', message: '来访开始时间不能超过1个月' });
  }
  if (present(begin) && present(end)) {
    if (fullTime(end, 'end') < fullTime(begin, 'begin')) {
      errors.push({ field: 'visit_end_time', message: '来访结束时间不能早于开始时间' });
    } else {
      const limit = v.visitor_type == null ? undefined : PERSON_SPAN_DAYS[v.visitor_type];
      if (limit && diffDays(begin.trim(), end.trim()) > limit.days) errors.push({ field: 'visit_end_time', message: limit.message });
    }
  }
  return errors;
}

// ---------------------------------------------------------------- vehicle

export interface CarVisitValues {
  visitor_type: number | null | undefined;
  visitor_begin_time: string | null | undefined;
  visitor_end_time: string | null | undefined;
}

export interface CarVisitOptions {
  /**
   * Longest construction visit. Spec 000 §5: the type hint says one month and
   * one form says three; one month (the stricter reading) is the default.
   */
  constructionMonths?: 1 | 3;
}

/** Vehicles the spec caps at under 3 months for construction and maintenance visits. */
export const isHeavyModel = (name: string | null | undefined) => isDumpTruckModel(name) || isMixerModel(name) || isHazardousModel(name);

export function carVisitErrors(v: CarVisitValues, model: { name: string } | null, today: string, options: CarVisitOptions = {}): FieldError[] {
  const errors: FieldError[] = [];
  const { visitor_begin_time: begin, visitor_end_time: end, visitor_type: type } = v;
  if (present(begin) && dateOf(begin.trim()) < earliestCarVisitDate(today)) {
    errors.push({ field: 'visitor_begin_time', message: '来访开始时间须晚于后天' });
  }
  if (!present(begin) || !present(end)) return errors;
  if (fullTime(end, 'end') < fullTime(begin, 'begin')) {
    errors.push({ field: 'visitor_end_time', message: '来访结束时间不能早于开始时间' });
    return errors;
  }
  const beginDate = dateOf(begin.trim());
  const endDate = dateOf(end.trim());
  const field = 'visitor_end_time';
  // Both this and the per-type limit below can fail at once; each names its own rule.
  if (model && isHeavyModel(model.name) && (type === 1 || type === 2) && endDate >= addMonths(beginDate, 3)) {
    errors.push({ field, message: '来访时间不能超过3个月' });
  }
  const months = options.constructionMonths ?? 1;
  if (type === 1 && endDate > addMonths(beginDate, months)) errors.push({ field, message: `施工车辆来访时间不能超过${months}个月` });
  if (type === 2 && endDate > addMonths(beginDate, 1)) errors.push({ field, message: '维保车辆来访时间不能超过1个月' });
  if (type === 3 && diffDays(beginDate, endDate) > 3) errors.push({ field, message: '临时车辆来访时间不能超过3天' });
  if (type === 4 && endDate > addMonths(beginDate, 12)) errors.push({ field, message: '业主车辆来访时间不能超过1年' });
  return errors;
}

// ---------------------------------------------------------------- delay

/**
 * Delay request: the new end must fall after today. `fields` names the wire
 * fields the errors belong to (visitor_… for cars, visit_… for persons).
 */
export function delayErrors(
  range: { begin: string | null | undefined; end: string | null | undefined },
  today: string,
  fields: { begin: string; end: string } = { begin: 'begin', end: 'end' },
): FieldError[] {
  const errors: FieldError[] = [];
  const { begin, end } = range;
  if (present(end) && dateOf(end.trim()) <= dateOf(today)) errors.push({ field: fields.end, message: '延期结束时间必须晚于今天' });
  if (present(begin) && present(end) && fullTime(end, 'end') < fullTime(begin, 'begin')) {
    errors.push({ field: fields.end, message: '延期结束时间不能早于开始时间' });
  }
  return errors;
}

// ---------------------------------------------------------------- hints and pickers

export const PASSAGE_HOURS_HINT = '通行时间 9:00-18:00';

export function carVisitTypeHint(visitor_type: number | null | undefined, options: CarVisitOptions = {}): string {
  switch (visitor_type) {
    case 1:
      return `施工车辆：最长${options.constructionMonths ?? 1}个月，通行时间9:00-18:00`;
    case 2:
      return '维保车辆：最长1个月，通行时间9:00-18:00';
    case 3:
      return '临时车辆：最长3天，通行时间9:00-18:00';
    case 4:
      return '业主车辆：最长1年';
    default:
      return '';
  }
}

export function personVisitTypeHint(visitor_type: number | null | undefined): string {
  switch (visitor_type) {
    case 1:
      return '业主：最长1年';
    case 2:
    case 3:
      return '服务商/建设单位：最长180天';
    case 4:
      return '临时访客：最长10天';
    default:
      return '';
  }
}

/** First selectable vehicle visit date: after the end of the day after tomorrow. */
export const earliestCarVisitDate = (today: string): string => addDays(dateOf(today), 3);

/** Last selectable person visit start: one month from today. */
export const latestPersonVisitStart = (today: string): string => addMonths(dateOf(today), 1);

/** A visit's type and window, whatever the kind names its fields. */
export interface VisitWindow {
  visitor_type: number | null | undefined;
  begin: string | undefined;
  end: string | undefined;
}

/**
 * Each kind's visit rules, asked by kind (domain/appointment-kinds.ts): the
 * errors of a window (named by the kind's own fields) and the type's hint.
 * A vehicle's rules also read its model; a person's have none.
 */
export const visitRulesOf = {
  car: {
    errors: (v: VisitWindow, model: { name: string } | null, today: string) => carVisitErrors({ visitor_type: v.visitor_type, visitor_begin_time: v.begin, visitor_end_time: v.end }, model, today),
    hint: (visitorType: number | null | undefined) => carVisitTypeHint(visitorType),
  },
  person: {
    errors: (v: VisitWindow, _model: { name: string } | null, today: string) => personVisitErrors({ visitor_type: v.visitor_type, visit_begin_time: v.begin, visit_end_time: v.end }, today),
    hint: (visitorType: number | null | undefined) => personVisitTypeHint(visitorType),
  },
};
