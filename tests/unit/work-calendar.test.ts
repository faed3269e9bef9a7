import { describe, expect, it } from 'vitest';
import { DayKind, addWorkingDays, isWorkingDay, type CalendarMarks } from '../../domain/work-calendar';

// 2026: National Day 10-01 (Thu) to 10-08 (Thu) off, with Sunday 09-27 and Saturday 10-10 worked (调休).
const golden: CalendarMarks = new Map([
  ...['2026-10-01', '2026-10-02', '2026-10-05', '2026-10-06', '2026-10-07', '2026-10-08'].map((d) => [d, DayKind.HOLIDAY] as const),
  ['2026-09-27', DayKind.WORKDAY] as const,
  ['2026-10-10', DayKind.WORKDAY] as const,
]);
const none: CalendarMarks = new Map();

describe('工作日历', () => {
  it('works Monday to Friday, rests at weekends, and follows the marks', () => {
    expect(isWorkingDay('2026-12-07', none)).toBe(true); // Monday
    expect(isWorkingDay('2026-12-05', none)).toBe(false); // Saturday
    expect(isWorkingDay('2026-12-06', none)).toBe(false); // Sunday
    expect(isWorkingDay('2026-10-01', golden)).toBe(false); // a Thursday off
    expect(isWorkingDay('2026-09-27', golden)).toBe(true); // a Sunday worked
    expect(isWorkingDay('2026-10-03', golden)).toBe(false); // a Saturday in the holiday, unmarked
  });

  it('counts a deadline in working days at the same clock time, skipping days off', () => {
    expect(addWorkingDays('2026-12-07 10:30:00', 0, none)).toBe('2026-12-07 10:30:00');
    expect(addWorkingDays('2026-12-07 10:30:00', 1, none)).toBe('2026-12-08 10:30:00');
    // Friday afternoon + 1: Monday afternoon.
    expect(addWorkingDays('2026-12-04 15:00:00', 1, none)).toBe('2026-12-07 15:00:00');
    expect(addWorkingDays('2026-12-04 15:00:00', 5, none)).toBe('2026-12-11 15:00:00');
    // Before the holiday: Wednesday 09-30 + 1 working day is Friday 10-09, + 2 the worked Saturday 10-10.
    expect(addWorkingDays('2026-09-30 09:00:00', 1, golden)).toBe('2026-10-09 09:00:00');
    expect(addWorkingDays('2026-09-30 09:00:00', 2, golden)).toBe('2026-10-10 09:00:00');
    // Friday 09-25 + 1: the worked Sunday 09-27.
    expect(addWorkingDays('2026-09-25 18:00:00', 1, golden)).toBe('2026-09-27 18:00:00');
  });

  it("counts from the next working day's start when the task arrives on a day off", () => {
    // Saturday noon + 1 working day: the end of Monday, which is Tuesday 00:00.
    expect(addWorkingDays('2026-12-05 12:00:00', 1, none)).toBe('2026-12-08 00:00:00');
    expect(addWorkingDays('2026-12-05 12:00:00', 0, none)).toBe('2026-12-07 00:00:00');
    expect(addWorkingDays('2026-10-03 08:00:00', 1, golden)).toBe('2026-10-10 00:00:00');
  });

  it('stops rather than loop when a year holds no working day', () => {
    const allOff: CalendarMarks = { get: () => DayKind.HOLIDAY } as unknown as CalendarMarks;
    expect(() => addWorkingDays('2026-12-07 10:00:00', 1, allOff)).toThrow(/没有工作日/);
  });
});
