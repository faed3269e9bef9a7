import { sql } from 'kysely';
import type { Page } from '../../domain/envelope';

/** Runs a list's count and page queries (both built from the same filters) and answers { list, total }. */
export async function pageOf<R>(
  q: { size: number; pn: number },
  count: () => Promise<{ total: number | string | bigint } | undefined>,
  rows: (limit: number, offset: number) => Promise<R[]>,
): Promise<Page<R>> {
  const [c, list] = await Promise.all([count(), rows(q.size, (q.pn - 1) * q.size)]);
  return { list, total: Number(c?.total ?? 0) };
}

/**
 * Totals of unfiltered lists, remembered briefly. Counting every matching row
 * of a million-row table costs more than the page itself, and the number is
 * the same for everyone who opens the same list: the all-history lists (one
 * total per table), a department's history (one per department branch), a
 * filer's own list, an approver's queue, the user list. A total is remembered
 * per database, table and scope (which rows of the table the list counts). A
 * write through this server, or another process of its cluster, forgets every
 * total over the table at once (`tableChanged`, called after the write
 * commits); writes through another server sharing the database show within
 * `TOTAL_TTL_MS`. Filtered lists count exactly, every time.
 */
export interface TotalKey {
  table: string;
  /** Which rows of the table the list counts: 'all', 'history:3,4' (a department branch), 'own:12' (a filer), 'queue:12:car_task' (an approver's queue), 'live'. */
  scope: string;
  /**
   * Whose database: any object that lives as long as one server's database
   * handle (the Kysely instance, a resource's repository). One process may
   * serve two databases (the API tests run SQLite and PostgreSQL side by side).
   */
  db?: object;
}

const totals = new WeakMap<object, Map<string, { at: number; generation: number; total: number }>>();
const generations = new Map<string, number>();
const anyDatabase = {};
export const TOTAL_TTL_MS = 5000;
/** Scopes remembered per database at most (a few per department and per filer who opened a list); the oldest go first. */
const MAX_TOTALS = 10_000;

const changeListeners = new Set<(table: string) => void>();

/** Forgets every remembered total over `table`, of every scope; call it once a write to the table has committed. */
export function tableChanged(table: string): void {
  generations.set(table, (generations.get(table) ?? 0) + 1);
  for (const listener of changeListeners) listener(table);
}

/** Calls fn after every `tableChanged` of this process (server/main.ts relays them to the other processes of a cluster). */
export function onTableChanged(fn: (table: string) => void): () => void {
  changeListeners.add(fn);
  return () => changeListeners.delete(fn);
}

/** `count`, or the total it answered for the same key less than TOTAL_TTL_MS ago with no write through this server since. */
export function rememberedTotal(key: string | TotalKey, count: () => Promise<{ total: number | string | bigint } | undefined>, now = Date.now()): () => Promise<{ total: number }> {
  const { table, scope, db } = typeof key === 'string' ? { table: key, scope: '', db: undefined } : key;
  const id = `${table}\u0000${scope}`;
  return async () => {
    let remembered = totals.get(db ?? anyDatabase);
    if (!remembered) totals.set(db ?? anyDatabase, (remembered = new Map()));
    const generation = generations.get(table) ?? 0;
    const hit = remembered.get(id);
    if (hit && hit.generation === generation && now - hit.at < TOTAL_TTL_MS) return { total: hit.total };
    const total = Number((await count())?.total ?? 0);
    // Stored under the generation read before counting: a write that lands meanwhile already outdates it.
    remembered.delete(id);
    remembered.set(id, { at: now, generation, total });
    if (remembered.size > MAX_TOTALS) remembered.delete(remembered.keys().next().value!);
    return { total };
  };
}

/**
 * "Column contains text", the same on both databases: the user's own % and _
 * are escaped, and the ESCAPE clause says so (SQLite has no default escape
 * character, so without it an escaped pattern matches nothing); both sides are
 * lower-cased because SQLite's LIKE ignores ASCII case and PostgreSQL's does not.
 * `upper`: the column is stored upper-case (plates, ID numbers, by their form
 * schemas), so the text is upper-cased instead and the column compared as
 * stored: lower() of every row scanned cost a plate search half its time.
 */
export const containsText = (column: string, text: string, upper = false) => {
  const pattern = `%${(upper ? text.toUpperCase() : text).replace(/[\\%_]/g, (m) => '\\' + m)}%`;
  return upper ? sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'` : sql<boolean>`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`;
};
