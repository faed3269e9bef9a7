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

/** LIKE pattern for "contains", with the user's own % and _ taken literally. */
export const contains = (s: string) => `%${s.replace(/[\\%_]/g, (m) => '\\' + m)}%`;
