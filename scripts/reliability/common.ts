import type { Kysely } from 'kysely';
import type { DB } from '../../server/db/schema';
import type { DialectName } from '../../tests/api/harness';

/** Pieces the reliability scripts share: arguments, tables (throw-away PostgreSQL databases: ../pg-database.ts). */

/** `--dialect sqlite|postgres|both` (default both). */
export function dialectsFromArgs(argv = process.argv.slice(2)): DialectName[] {
  const i = argv.findIndex((a) => a === '--dialect' || a.startsWith('--dialect='));
  const value = i < 0 ? 'both' : argv[i]!.includes('=') ? argv[i]!.split('=')[1]! : argv[i + 1];
  if (value === 'both') return ['sqlite', 'postgres'];
  if (value === 'sqlite' || value === 'postgres') return [value];
  throw new Error(`--dialect must be sqlite, postgres or both, got ${value}`);
}

export function argValue(name: string, argv = process.argv.slice(2)): string | undefined {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return argv[i]!.includes('=') ? argv[i]!.slice(argv[i]!.indexOf('=') + 1) : argv[i + 1];
}

export function intEnv(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback;
}

/** A plain text table: first row is the header. */
export function table(rows: Array<Array<string | number>>): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => displayWidth(String(r[c] ?? '')))));
  const line = (r: Array<string | number>) => r.map((v, c) => pad(String(v ?? ''), widths[c]!)).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

// CJK characters take two columns in a terminal.
const displayWidth = (s: string) => [...s].reduce((n, ch) => n + (/[\u1100-\uffff]/.test(ch) ? 2 : 1), 0);
const pad = (s: string, w: number) => s + ' '.repeat(Math.max(0, w - displayWidth(s)));

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Puts the demo admin back as seeded: enabled, not deleted, holding the
 * enabled admin role. The fuzzer calls it when a body that happened to be
 * valid took the signed-in admin's roles away (admins may do that).
 */
export async function restoreAdmin(db: Kysely<DB>): Promise<void> {
  const admin = await db.selectFrom('sys_user').select('user_id').where('account', '=', 'admin').executeTakeFirstOrThrow();
  const role = await db.selectFrom('sys_role').select('role_id').where('code', '=', 'admin').executeTakeFirstOrThrow();
  await db.updateTable('sys_user').set({ status: 1, deleted: 0 }).where('user_id', '=', admin.user_id).execute();
  await db.updateTable('sys_role').set({ status: 1, deleted: 0 }).where('role_id', '=', role.role_id).execute();
  await db.deleteFrom('sys_user_role').where('user_id', '=', admin.user_id).execute();
  await db.insertInto('sys_user_role').values({ user_id: admin.user_id, role_id: role.role_id }).execute();
}
