import { describe, expect, it } from 'vitest';
import { isPersistedQuery, sessionTag, shareKeepingStamp } from '../../src/app/query-persistence';
import { cachedTimeText } from '../../src/components/offline-banner';
import { offlineStamp, stampOfflineAnswer } from '../../src/lib/offline-reads';

const at = '2026-03-02T01:05:00.000Z';

describe('offline stamps travel with the answer', () => {
  it('marks an answer from the offline copy with the time it was fetched, and a fresh one not at all', () => {
    const copy = stampOfflineAnswer({ list: [1], total: 1 }, at);
    const fresh = stampOfflineAnswer({ list: [1], total: 1 }, undefined);
    expect(offlineStamp(copy)).toBe(Date.parse(at));
    expect(offlineStamp(fresh)).toBeUndefined();
    // Primitives cannot carry a mark and are returned untouched.
    expect(stampOfflineAnswer(null, at)).toBeNull();
    expect(offlineStamp(stampOfflineAnswer({}, 'not a date'))).toBeUndefined();
  });

  it('a fresh answer equal to the copy on screen clears the mark on the object React Query keeps', () => {
    const onScreen = stampOfflineAnswer({ list: [{ id: 1 }], total: 1 }, at);
    const fresh = stampOfflineAnswer({ list: [{ id: 1 }], total: 1 }, undefined);
    const kept = shareKeepingStamp(onScreen, fresh);
    expect(kept).toBe(onScreen);
    expect(offlineStamp(kept)).toBeUndefined();
  });

  it('a copy equal to the fresh data on screen marks it, with the copy’s time', () => {
    const onScreen = stampOfflineAnswer({ list: [{ id: 1 }] }, undefined);
    const copy = stampOfflineAnswer({ list: [{ id: 1 }] }, at);
    const kept = shareKeepingStamp(onScreen, copy);
    expect(kept).toBe(onScreen);
    expect(offlineStamp(kept)).toBe(Date.parse(at));
  });

  it('a changed answer is used as it came, with its own mark', () => {
    const onScreen = stampOfflineAnswer({ list: [{ id: 1 }] }, at);
    const fresh = stampOfflineAnswer({ list: [{ id: 2 }] }, undefined);
    const kept = shareKeepingStamp(onScreen, fresh);
    expect(kept).not.toBe(onScreen);
    expect(offlineStamp(kept)).toBeUndefined();
    expect(offlineStamp(onScreen)).toBe(Date.parse(at));
  });
});

describe('persisted queries', () => {
  it('keeps the person, code tables, pending counts, approval queues and the dashboard’s figures only', () => {
    expect(isPersistedQuery(['me'])).toBe(true);
    expect(isPersistedQuery(['enum', 'gender'])).toBe(true);
    expect(isPersistedQuery(['home', 'approval-pending'])).toBe(true);
    expect(isPersistedQuery(['list', 'approval.car_task', { pn: 1 }])).toBe(true);
    expect(isPersistedQuery(['list', 'system.users', { pn: 1 }])).toBe(false);
    expect(isPersistedQuery(['list', 'appointments.car', {}])).toBe(false);
    expect(isPersistedQuery(['detail', 'approval.car_task', 3])).toBe(false);
    expect(isPersistedQuery(['home', 'other'])).toBe(false);
    expect(isPersistedQuery(['home', 'open-alarms'])).toBe(true);
    expect(isPersistedQuery(['notices', 'received', 'unread'])).toBe(true);
    expect(isPersistedQuery(['notices', 'received', 'page', 1])).toBe(false);
    expect(isPersistedQuery(['figures', 'dashboard', 'parkCounts'])).toBe(true);
    expect(isPersistedQuery(['figures', 'bigScreen'])).toBe(false);
    expect(isPersistedQuery(['file-access'])).toBe(false);
  });

  it('names a session by a short tag that differs per token and never contains it', () => {
    const a = sessionTag('0123456789abcdef-token-a');
    expect(a).toBe(sessionTag('0123456789abcdef-token-a'));
    expect(a).not.toBe(sessionTag('0123456789abcdef-token-b'));
    expect(a).toMatch(/^[0-9a-z]{1,7}$/);
  });
});

describe('the banner’s time', () => {
  it('is HH:mm for a copy of today and names the day for an older one', () => {
    const copy = new Date(2026, 2, 2, 9, 5).getTime();
    expect(cachedTimeText(copy, new Date(2026, 2, 2, 18, 0).getTime())).toBe('09:05');
    expect(cachedTimeText(copy, new Date(2026, 2, 3, 8, 0).getTime())).toBe('3月2日 09:05');
  });
});
