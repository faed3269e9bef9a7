import { addDays, dateOf } from './visit-rules';

/**
 * 工作日历: which days count as working days for approval deadlines
 * (docs/work-calendar.md). Monday to Friday work and weekends rest, unless
 * the administrator marked the day: 节假日 rests on a weekday, 调休上班 works
 * on a weekend. Pure, so the screen, the deadline timer and the tests read
 * one rule.
 */

export const DayKind = { HOLIDAY: 1, WORKDAY: 2 } as const;
export type DayKind = (typeof DayKind)[keyof typeof DayKind];
export const dayKindLabels: Record<DayKind, string> = { [DayKind.HOLIDAY]: '节假日', [DayKind.WORKDAY]: '调休上班' };

/** The marked days: date 'YYYY-MM-DD' → its kind. A date not in it follows the week. */
export type CalendarMarks = ReadonlyMap<string, DayKind>;

/** One save marks at most this many days (a month: the longest official holiday is 8 or 9 days). */
export const MAX_RANGE_DAYS = 31;
/** A deadline in working days is at most this many (Jiandaoyun's longest node deadline is 30 days). */
export const MAX_DEADLINE_WORKING_DAYS = 30;
/** A run of days off longer than this is not a calendar a park keeps: the deadline search stops there. */
const MAX_DAYS_OFF_IN_A_ROW = 366;

/** Day of the week of a date: 0 Sunday … 6 Saturday. */
export const weekdayOf = (date: string): number => new Date(`${date}T00:00:00Z`).getUTCDay();

export const isWeekend = (date: string): boolean => {
  const d = weekdayOf(date);
  return d === 0 || d === 6;
};

/** Whether `date` is a working day under the marks. */
export function isWorkingDay(date: string, marks: CalendarMarks): boolean {
  const mark = marks.get(date);
  if (mark === DayKind.HOLIDAY) return false;
  if (mark === DayKind.WORKDAY) return true;
  return !isWeekend(date);
}

/** The first working day on or after `date`. */
function nextWorkingDay(date: string, marks: CalendarMarks): string {
  let d = date;
  for (let i = 0; i <= MAX_DAYS_OFF_IN_A_ROW; i++, d = addDays(d, 1)) if (isWorkingDay(d, marks)) return d;
  throw new Error(`工作日历中 ${date} 起连续 ${MAX_DAYS_OFF_IN_A_ROW} 天没有工作日`);
}

/**
 * The park time `days` working days after `start` ('YYYY-MM-DD HH:mm:ss'):
 * the same clock time on the `days`-th working day after, counting only
 * working days. A start on a day off counts from the next working day's
 * 00:00, so one working day from Saturday noon ends as Monday does.
 */
export function addWorkingDays(start: string, days: number, marks: CalendarMarks): string {
  let day = dateOf(start);
  let clock = start.slice(11);
  if (!isWorkingDay(day, marks)) {
    day = nextWorkingDay(day, marks);
    clock = '00:00:00';
  }
  for (let n = 0; n < days; n++) day = nextWorkingDay(addDays(day, 1), marks);
  return `${day} ${clock}`;
}
