import { describe, expect, it } from 'vitest';
import { dateToWire, parseTypedDate, shownDate, wireToDate } from '../../src/components/date-text';

/** Issue 24 item 8: date fields read and take YYYY-MM-DD (HH:mm:ss, 24-hour) in every browser language. */
describe('date field text', () => {
  it('shows a value in the field format, 24-hour, and nothing for no date', () => {
    expect(shownDate('2026-11-30', false)).toBe('2026-11-30');
    expect(shownDate('2026-11-30 15:30:00', true)).toBe('2026-11-30 15:30:00');
    expect(shownDate('2026-11-30 15:30:00', false)).toBe('2026-11-30');
    for (const none of [undefined, null, '', 'soon', 20261130]) expect(shownDate(none, false)).toBe('');
  });

  it('takes typed text only in the field format', () => {
    expect(parseTypedDate('2026-11-30', false)).toEqual({ ok: true, value: '2026-11-30' });
    expect(parseTypedDate(' 2026-11-30 15:30:00 ', true)).toEqual({ ok: true, value: '2026-11-30 15:30:00' });
    expect(parseTypedDate('', true)).toEqual({ ok: true, value: undefined });
    for (const text of ['11/30/2026', '2026-11-3', '2026/11/30', '2026-11-30 15:30:00', '2026-11-30T00:00:00']) {
      expect(parseTypedDate(text, false), text).toEqual({ ok: false, hint: '请按 YYYY-MM-DD 输入' });
    }
    for (const text of ['2026-11-30', '2026-11-30 3:30 PM', '2026-11-30 15:30', '2026-11-30T15:30:00']) {
      expect(parseTypedDate(text, true), text).toEqual({ ok: false, hint: '请按 YYYY-MM-DD HH:mm:ss 输入' });
    }
  });

  it('refuses days and times that do not exist', () => {
    for (const text of ['2026-02-29', '2026-13-01', '2026-11-31', '2026-00-10']) expect(parseTypedDate(text, false), text).toEqual({ ok: false, hint: '没有这个日期' });
    expect(parseTypedDate('2028-02-29', false)).toEqual({ ok: true, value: '2028-02-29' });
    for (const text of ['2026-11-30 24:00:00', '2026-11-30 12:60:00', '2026-11-30 12:00:60']) expect(parseTypedDate(text, true), text).toEqual({ ok: false, hint: '没有这个日期或时间' });
  });

  it('keeps the day within min and max, whole days for a time field', () => {
    expect(parseTypedDate('2026-11-26', false, '2026-11-27')).toEqual({ ok: false, hint: '不能早于 2026-11-27' });
    expect(parseTypedDate('2026-12-01', false, undefined, '2026-11-30')).toEqual({ ok: false, hint: '不能晚于 2026-11-30' });
    expect(parseTypedDate('2026-11-27 00:00:00', true, '2026-11-27', '2026-11-27').ok).toBe(true);
    expect(parseTypedDate('2026-11-27 23:59:59', true, '2026-11-27', '2026-11-27').ok).toBe(true);
  });

  it('turns picked dates into wire values and back', () => {
    const d = new Date(2026, 10, 30, 15, 30, 5);
    expect(dateToWire(d, true)).toBe('2026-11-30 15:30:05');
    expect(dateToWire(d, false)).toBe('2026-11-30');
    expect(wireToDate('2026-11-30', '23:59:59').getTime()).toBe(new Date(2026, 10, 30, 23, 59, 59).getTime());
    expect(wireToDate('2026-11-30 08:00:00', '23:59:59').getTime()).toBe(new Date(2026, 10, 30, 8, 0, 0).getTime());
  });
});
