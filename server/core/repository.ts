import { sql, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { containsText } from './paging';

/**
 * The queries of one register table (fastify/demo's repositories): live rows,
 * one row, a page, insert, update and (soft) delete. A declared resource
 * (core/resource.ts) gets one; a module with queries of its own extends it.
 * Typed loosely on purpose: the table is a declaration's parameter, and the
 * zod schema at the route is what types the values.
 */
export type Db = Kysely<DB> | Transaction<DB>;
// Generic over the table name, so Kysely's per-table typing cannot help here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any> | Transaction<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySelect = SelectQueryBuilder<any, any, any>;
export type RowValues = Record<string, unknown>;

/** How a list filter matches its column: 'contains' text (escaped, case-insensitive on both databases), 'equals', or a branch of the department tree. */
export type FilterMatch = 'contains' | 'equals' | 'prefix' | ((q: AnySelect, value: unknown, db: Db) => AnySelect | Promise<AnySelect>);

/** A list's filter: the column it reads and how it matches; `upper`, the column is stored upper-case (a 'contains' on plates: paging.ts containsText). */
export type ListFilter = { column: string; match: FilterMatch; upper?: boolean };

export interface TableSpec {
  table: keyof DB & string;
  key: string;
  /** The column that marks a soft-deleted row; hard delete without it. */
  softDelete?: string;
  /** The columns a list, get and detail answer. */
  columns: readonly string[];
  /** Fixed column values of the rows this repository sees and writes (several kinds sharing one table). */
  scope?: RowValues;
  /** Newest first unless said otherwise. */
  orderBy?: ReadonlyArray<[column: string, direction: 'asc' | 'desc']>;
}

export function tableRepository(database: Db, spec: TableSpec) {
  const db = database as AnyDb;
  const { table, key, softDelete } = spec;
  const scope = Object.entries(spec.scope ?? {});
  const scoped = <Q extends { where: AnySelect['where'] }>(q: Q): Q => scope.reduce((acc, [c, v]) => acc.where(c, '=', v) as unknown as Q, q);
  const live = (on: AnyDb = db): AnySelect => {
    const q = scoped(on.selectFrom(table) as AnySelect);
    return softDelete ? q.where(softDelete, '=', 0) : q;
  };
  const ordered = (q: AnySelect) => (spec.orderBy ?? [[key, 'desc'] as const]).reduce((acc, [c, d]) => acc.orderBy(c, d), q);

  return {
    spec,
    live,
    ordered,
    async applyFilters(q: AnySelect, filters: Record<string, ListFilter>, values: RowValues): Promise<AnySelect> {
      for (const [name, f] of Object.entries(filters)) {
        const v = values[name];
        if (v === undefined || v === null || v === '') continue;
        if (f.match === 'contains') q = q.where(containsText(f.column, String(v), f.upper));
        else if (f.match === 'prefix') q = q.where(sql<boolean>`${sql.ref(f.column)} like ${`${String(v).replace(/[\\%_]/g, (m) => '\\' + m)}%`} escape '\\'`);
        else if (f.match === 'equals') q = q.where(f.column, '=', v);
        else q = await f.match(q, v, database);
      }
      return q;
    },
    async count(q: AnySelect): Promise<number> {
      const r = await q.select((eb) => eb.fn.countAll().as('total')).executeTakeFirst();
      return Number((r as { total?: unknown } | undefined)?.total ?? 0);
    },
    async page(q: AnySelect, limit: number, offset: number): Promise<RowValues[]> {
      return (await ordered(q.select(spec.columns as string[]))
        .limit(limit)
        .offset(offset)
        .execute()) as RowValues[];
    },
    async all(q: AnySelect, limit: number): Promise<RowValues[]> {
      return (await ordered(q.select(spec.columns as string[]))
        .limit(limit)
        .execute()) as RowValues[];
    },
    async get(id: number, on: AnyDb = db): Promise<RowValues | undefined> {
      return (await live(on)
        .select(spec.columns as string[])
        .where(key, '=', id)
        .executeTakeFirst()) as RowValues | undefined;
    },
    async exists(id: number, on: AnyDb = db): Promise<boolean> {
      return !!(await live(on).select(key).where(key, '=', id).executeTakeFirst());
    },
    /** Is `value` taken in `column` by another live row (the uniqueness rules of a declaration)? */
    async taken(column: string, value: unknown, exceptId: number | undefined, opts: { acrossScope?: boolean } = {}, on: AnyDb = db): Promise<boolean> {
      let q = opts.acrossScope ? on.selectFrom(table).select(key) : live(on).select(key);
      if (opts.acrossScope && softDelete) q = q.where(softDelete, '=', 0);
      q = q.where(column, '=', value);
      if (exceptId !== undefined) q = q.where(key, '!=', exceptId);
      return !!(await q.executeTakeFirst());
    },
    async insert(values: RowValues, on: AnyDb = db): Promise<number> {
      const row = (await on
        .insertInto(table)
        .values({ ...values, ...spec.scope })
        .returning(key)
        .executeTakeFirstOrThrow()) as Record<string, number>;
      return Number(row[key]);
    },
    async update(id: number, values: RowValues, on: AnyDb = db): Promise<number> {
      let q = on.updateTable(table).set(values).where(key, '=', id);
      for (const [c, v] of scope) q = q.where(c, '=', v);
      if (softDelete) q = q.where(softDelete, '=', 0);
      return Number((await q.executeTakeFirst()).numUpdatedRows);
    },
    async remove(id: number, extra: RowValues, on: AnyDb = db): Promise<number> {
      if (softDelete) {
        let q = on
          .updateTable(table)
          .set({ [softDelete]: 1, ...extra })
          .where(key, '=', id)
          .where(softDelete, '=', 0);
        for (const [c, v] of scope) q = q.where(c, '=', v);
        return Number((await q.executeTakeFirst()).numUpdatedRows);
      }
      let q = on.deleteFrom(table).where(key, '=', id);
      for (const [c, v] of scope) q = q.where(c, '=', v);
      return Number((await q.executeTakeFirst()).numDeletedRows);
    },
  };
}

export type TableRepository = ReturnType<typeof tableRepository>;
