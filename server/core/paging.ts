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
 * Totals of whole-table lists, remembered briefly. Counting every live row of
 * a million-row table costs more than the page itself, and the number is the
 * same for everyone who opens the unfiltered list. A write through this
 * server forgets the total at once (`tableChanged`); writes through another
 * server sharing the database show within `TOTAL_TTL_MS`.
 */
const totals = new Map<string, { at: number; generation: number; total: number }>();
const generations = new Map<string, number>();
export const TOTAL_TTL_MS = 5000;

export function tableChanged(table: string): void {
  generations.set(table, (generations.get(table) ?? 0) + 1);
}

export function rememberedTotal(
  table: string,
  count: () => Promise<{ total: number | string | bigint } | undefined>,
  now = Date.now(),
): () => Promise<{ total: number }> {
  return async () => {
    const generation = generations.get(table) ?? 0;
    const hit = totals.get(table);
    if (hit && hit.generation === generation && now - hit.at < TOTAL_TTL_MS) return { total: hit.total };
    const total = Number((await count())?.total ?? 0);
    // Stored under the generation read before counting: a write that lands meanwhile already outdates it.
    totals.set(table, { at: now, generation, total });
    return { total };
  };
}

/**
 * "Column contains text", the same on both databases: the user's own % and _
 * are escaped, and the ESCAPE clause says so (SQLite has no default escape
 * character, so without it an escaped pattern matches nothing); both sides are
 * lower-cased because SQLite's LIKE ignores ASCII case and PostgreSQL's does not.
 */
export const containsText = (column: string, text: string) =>
  sql<boolean>`lower(${sql.ref(column)}) like lower(${`%${text.replace(/[\\%_]/g, (m) => '\\' + m)}%`}) escape '\\'`;
