import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BACKOFF, backoffDelay } from '../../domain/backoff';
import { SCREEN_KEY, refreshWithBackoff } from '../../src/features/person-import/task-modals';

/**
 * 开始导入's follow-up (spec 001 §2; src/features/person-import/task-modals.tsx):
 * after a start the batch import list reloads on the retry helper's
 * schedule, 6 steps from 1 s doubling, so at 1, 3, 7, 15, 31 and 63 s after
 * the start, and then no more.
 */

// The modals' UI kit cannot load under Node (its CommonJS build requires CSS); the scheduling never touches it.
vi.mock('antd-mobile', () => ({}));
vi.mock('antd-mobile-icons', () => ({}));

const CUMULATIVE_MS = [1_000, 3_000, 7_000, 15_000, 31_000, 63_000];

describe('person batch import: list refresh with backoff after a start', () => {
  let qc: QueryClient;
  let reloads: number[];
  let t0: number;

  beforeEach(() => {
    vi.useFakeTimers();
    t0 = Date.now();
    qc = new QueryClient();
    reloads = [];
    vi.spyOn(qc, 'invalidateQueries').mockImplementation(() => {
      reloads.push(Date.now() - t0);
      return Promise.resolve();
    });
  });
  afterEach(() => {
    qc.clear();
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('the schedule is the spec’s: 6 steps from 1 s doubling, cumulative 1, 3, 7, 15, 31, 63 s', () => {
    expect(BACKOFF).toEqual({ steps: 6, initialMs: 1000, factor: 2 });
    let at = 0;
    const sums = Array.from({ length: BACKOFF.steps }, (_, i) => (at += backoffDelay(i)!));
    expect(sums).toEqual(CUMULATIVE_MS);
  });

  it('reloads the list exactly 6 times, at 1, 3, 7, 15, 31 and 63 s after the start, and then stops', () => {
    refreshWithBackoff(qc);
    expect(vi.getTimerCount()).toBe(6);
    expect(reloads).toEqual([]);

    // Just before and at each step: nothing early, one reload on the dot.
    for (const [i, ms] of CUMULATIVE_MS.entries()) {
      vi.advanceTimersByTime(ms - 1 - (Date.now() - t0));
      expect(reloads, `before ${ms} ms`).toHaveLength(i);
      vi.advanceTimersByTime(1);
      expect(reloads, `at ${ms} ms`).toHaveLength(i + 1);
    }
    expect(reloads).toEqual(CUMULATIVE_MS);
    // Each reload invalidates this screen's list (every page of it).
    expect(qc.invalidateQueries).toHaveBeenCalledTimes(6);
    for (const call of vi.mocked(qc.invalidateQueries).mock.calls) expect(call[0]).toEqual({ queryKey: ['list', SCREEN_KEY] });

    // Nothing is left scheduled: ten more minutes bring no further reload.
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * 60_000);
    expect(reloads).toEqual(CUMULATIVE_MS);
  });

  it('runs all its steps in one go when time jumps past the last one', () => {
    refreshWithBackoff(qc);
    vi.runAllTimers();
    expect(reloads).toEqual(CUMULATIVE_MS);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('two starts each keep their own schedule', () => {
    refreshWithBackoff(qc);
    vi.advanceTimersByTime(2_000);
    const second = Date.now() - t0;
    refreshWithBackoff(qc);
    vi.runAllTimers();
    expect(reloads).toEqual([...CUMULATIVE_MS, ...CUMULATIVE_MS.map((ms) => ms + second)].sort((a, b) => a - b));
  });
});
