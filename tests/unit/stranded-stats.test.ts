import { describe, expect, it } from 'vitest';
import { handlingStateOf, strandedStatQuery, STRANDED_STAT_MAX_DAYS } from '../../domain/schemas/stranded';
import { addDays, eachDay } from '../../domain/visit-rules';

/** 滞留统计's pure rules (issue 24 item 6): the handling state of an alarm and the range it counts. */
describe('stranded statistics rules', () => {
  it('reads the handling state: unhandled, a false alarm, or judged right', () => {
    expect(handlingStateOf({ handle_time: null, false_alarm: null })).toBe(0);
    expect(handlingStateOf({ handle_time: '2020-03-01 10:00:00', false_alarm: 1 })).toBe(1);
    expect(handlingStateOf({ handle_time: '2020-03-01 10:00:00', false_alarm: 0 })).toBe(2);
  });

  it('takes whole days, refuses a reversed range and one longer than the bound', () => {
    expect(strandedStatQuery.parse({ begin_time: '2020-03-01', end_time: '2020-03-02' })).toMatchObject({ begin_time: '2020-03-01 00:00:00', end_time: '2020-03-02 23:59:59' });
    const reversed = strandedStatQuery.safeParse({ begin_time: '2020-03-02', end_time: '2020-03-01' });
    expect(reversed.success ? null : reversed.error.issues[0]).toMatchObject({ path: ['end_time'], message: '结束时间不能早于开始时间' });
    expect(strandedStatQuery.safeParse({ begin_time: '2020-01-01', end_time: addDays('2020-01-01', STRANDED_STAT_MAX_DAYS - 1) }).success).toBe(true);
    expect(strandedStatQuery.safeParse({ begin_time: '2020-01-01', end_time: addDays('2020-01-01', STRANDED_STAT_MAX_DAYS) }).success).toBe(false);
  });

  it('lists every day of a range by the clock, up to the last day the calendar has', () => {
    expect(eachDay('2024-02-28 08:00:00', '2024-03-01 23:59:59')).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
    expect(eachDay('2024-03-02', '2024-03-01')).toEqual([]);
    // The day after 9999-12-31 sorts before it as text: a loop comparing text never ended.
    expect(eachDay('9999-12-30 00:00:00', '9999-12-31 23:59:59')).toEqual(['9999-12-30', '9999-12-31']);
  });
});
