/** How many shortcuts the home shows: two rows of the phone's grid. */
export const SHORTCUT_COUNT = 8;
/** Routes remembered per person; the least opened go first when the list is full. */
const KEPT = 40;

const keyOf = (userId: number) => `park.visits.${userId}`;

export type VisitCounts = Record<string, number>;

/** How often this person opened each menu screen on this device; nothing when storage is unreadable. */
export function readVisits(userId: number, storage: Pick<Storage, 'getItem'> | undefined = safeLocal()): VisitCounts {
  try {
    const value: unknown = JSON.parse(storage?.getItem(keyOf(userId)) ?? '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as VisitCounts) : {};
  } catch {
    return {};
  }
}

/** Counts one opening of a menu screen. Per person, since a gate post's phone is shared by a shift. */
export function recordVisit(userId: number, route: string, storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = safeLocal()): void {
  const counts = readVisits(userId, storage);
  counts[route] = (counts[route] ?? 0) + 1;
  const kept = Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, KEPT);
  try {
    storage?.setItem(keyOf(userId), JSON.stringify(Object.fromEntries(kept)));
  } catch {
    // The shortcuts are a comfort only: a full or blocked storage keeps the menu's order.
  }
}

/**
 * The home's shortcuts: the screens this person opens most, the menu's own
 * order filling the rest (a first sign-in shows the menu's first screens, a
 * role of few screens all of them). They stand in the menu's order, so a
 * tile does not move each time the counts change.
 */
export function shortcutEntries<E extends { route: string }>(entries: readonly E[], visits: VisitCounts, count = SHORTCUT_COUNT): E[] {
  const chosen = new Set(
    entries
      .map((e, i) => ({ e, i, n: visits[e.route] ?? 0 }))
      .sort((a, b) => b.n - a.n || a.i - b.i)
      .slice(0, count)
      .map((x) => x.e),
  );
  return entries.filter((e) => chosen.has(e));
}

function safeLocal(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}
