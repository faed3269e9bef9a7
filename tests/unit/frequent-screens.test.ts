import { describe, expect, it } from 'vitest';
import { readVisits, recordVisit, shortcutEntries } from '../../src/app/frequent-screens';

const entry = (route: string) => ({ code: `menu:${route}`, name: route, route: `/${route}` });
const menu = ['a', 'b', 'c', 'd', 'e'].map(entry);

function memoryStorage() {
  const data = new Map<string, string>();
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) };
}

describe('home shortcuts', () => {
  it('picks the screens opened most and shows them in the menu order', () => {
    expect(shortcutEntries(menu, { '/d': 5, '/b': 2, '/e': 9 }, 3).map((e) => e.route)).toEqual(['/b', '/d', '/e']);
  });

  it('fills with the menu order: a first sign-in shows the first screens, a small menu all of them', () => {
    expect(shortcutEntries(menu, {}, 2).map((e) => e.route)).toEqual(['/a', '/b']);
    expect(shortcutEntries(menu, { '/e': 1 }, 2).map((e) => e.route)).toEqual(['/a', '/e']);
    expect(shortcutEntries(menu.slice(0, 2), {}, 8)).toHaveLength(2);
  });

  it('counts openings per person and survives unreadable storage', () => {
    const storage = memoryStorage();
    recordVisit(1, '/a', storage);
    recordVisit(1, '/a', storage);
    recordVisit(2, '/b', storage);
    expect(readVisits(1, storage)).toEqual({ '/a': 2 });
    expect(readVisits(2, storage)).toEqual({ '/b': 1 });
    storage.setItem('park.visits.3', 'not json');
    expect(readVisits(3, storage)).toEqual({});
    expect(readVisits(1, undefined)).toEqual({});
  });
});
