import type { CompiledQuery, Compilable, Kysely, QueryResult } from 'kysely';
import type { Dialect } from './index';
import type { DB } from './schema';

const SLOT = Symbol('prepared slot');
type Slot = { readonly [SLOT]: string };
const isSlot = (v: unknown): v is Slot => typeof v === 'object' && v !== null && SLOT in v;

/** Stands for the value named `name` while the statement is built; typed as that value so the builder checks it. */
export type Arg<A> = <K extends keyof A & string>(name: K) => A[K];

/**
 * A statement of the hot path built and compiled once per dialect, then run
 * with each call's values (issue 28): a decision's statements cost their
 * Kysely query tree and SQL compilation on every call, a seventh of its main
 * thread, for SQL text that never changes. `build` writes the statement with
 * `arg('name')` where a value goes; the compiled SQL keeps a parameter there,
 * which each run fills from its arguments. The shape must not depend on the
 * values: no IN lists, no branches on them (those stay ordinary queries).
 * better-sqlite3 then reuses its compiled statement by the same SQL text,
 * and each PostgreSQL connection prepares it once by name (db/index.ts), so
 * the server parses and plans it once per connection, not per call.
 */
/** The SQL texts compiled for PostgreSQL, each with the name its connections prepare it under (db/index.ts). */
const pgNames = new Map<string, string>();

/** The name a connection prepares this SQL under, if it is one of these statements. */
export const preparedName = (sqlText: string): string | undefined => pgNames.get(sqlText);

export function prepared<A extends Record<string, unknown>, R>(build: (db: Kysely<DB>, arg: Arg<A>) => Compilable<R>) {
  const compiled = new Map<Dialect, { query: CompiledQuery<R>; slots: Array<string | null> }>();
  const arg = ((name: string) => ({ [SLOT]: name })) as unknown as Arg<A>;
  return (db: Kysely<any>, dialect: Dialect, args: A): Promise<QueryResult<R>> => {
    let c = compiled.get(dialect);
    if (!c) {
      const query = build(db as Kysely<DB>, arg).compile();
      c = { query, slots: query.parameters.map((p) => (isSlot(p) ? p[SLOT] : null)) };
      compiled.set(dialect, c);
      if (dialect === 'postgres' && !pgNames.has(query.sql)) pgNames.set(query.sql, `park_${pgNames.size + 1}`);
    }
    const { query, slots } = c;
    const parameters = query.parameters.map((p, i) => {
      const name = slots[i];
      if (name === null) return p;
      const value = args[name];
      if (value === undefined) throw new Error(`prepared statement: no value for '${name}'`);
      return value;
    });
    return db.executeQuery<R>({ ...query, parameters });
  };
}

/**
 * One prepared statement per key, built on first use: for a statement whose
 * table is the value that varies (each subject table's state update or name).
 */
export function preparedPer<K, A extends Record<string, unknown>, R>(build: (key: K, db: Kysely<DB>, arg: Arg<A>) => Compilable<R>) {
  const each = new Map<K, ReturnType<typeof prepared<A, R>>>();
  return (key: K) => {
    let statement = each.get(key);
    if (!statement) each.set(key, (statement = prepared<A, R>((db, arg) => build(key, db, arg))));
    return statement;
  };
}

/**
 * The lengths an `in (…)` list is prepared for. A list is padded to the next
 * with its last value (a repeated value matches nothing more), so a page's
 * keys, ten on a full page and fewer on the last, use one of a few statements
 * rather than one per length.
 */
const IN_LENGTHS = [1, 10, 20, 50, 100];

/**
 * A statement over a list of values, `in (…)`, prepared per key and list
 * length: `build` writes the list where it goes, each item a slot. A list
 * longer than the longest length gets a statement of its own length (the
 * callers' lists are pages, at most MAX_PAGE_SIZE). An empty list is the
 * caller's to answer without a query.
 */
export function preparedIn<K, A extends Record<string, unknown>, R>(build: (key: K, db: Kysely<DB>, arg: Arg<A>, list: never[]) => Compilable<R>) {
  const each = new Map<K, Map<number, ReturnType<typeof prepared<Record<string, unknown>, R>>>>();
  return (key: K, values: readonly unknown[]) => {
    if (values.length === 0) throw new Error('preparedIn: an empty list');
    const length = IN_LENGTHS.find((n) => n >= values.length) ?? values.length;
    let byLength = each.get(key);
    if (!byLength) each.set(key, (byLength = new Map()));
    let statement = byLength.get(length);
    if (!statement) {
      const slots = Array.from({ length }, (_, i) => `in${i}`);
      statement = prepared<Record<string, unknown>, R>((db, arg) => build(key, db, arg as unknown as Arg<A>, slots.map((s) => arg(s)) as never[]));
      byLength.set(length, statement);
    }
    const run = statement;
    return (db: Kysely<any>, dialect: Dialect, args: A): Promise<QueryResult<R>> => {
      const all: Record<string, unknown> = { ...args };
      for (let i = 0; i < length; i++) all[`in${i}`] = values[Math.min(i, values.length - 1)];
      return run(db, dialect, all);
    };
  };
}
