import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';

/**
 * What a signed-in call's identity rests on (sessions, users, their roles,
 * the roles' permissions) is cached per server process (core/auth.ts); this
 * counter says when the cache is stale. Triggers bump it on every change that
 * could alter a caller's identity or codes, whoever makes it (a route, the
 * seed, a migration, a second server, a hand-written UPDATE), so the database
 * stays the truth and every process sees a change on its next call:
 *
 * - a session deleted (logout, password change, a user disabled or deleted)
 *   or cut short by hand; renewal only moves expires_at later, and the cache
 *   checks expiry itself;
 * - a user updated or deleted (name, department, status, deletion);
 * - a user's roles, a role, a role's permissions, or any permission (the
 *   built-in administrator holds every live one, so a new one counts too).
 *
 * A new user or session needs no bump: nothing cached can be stale about it.
 */
const WATCHED: Array<{ table: string; events: string[] }> = [
  { table: 'sys_session', events: ['DELETE'] },
  { table: 'sys_user', events: ['UPDATE', 'DELETE'] },
  { table: 'sys_user_role', events: ['INSERT', 'UPDATE', 'DELETE'] },
  { table: 'sys_role', events: ['UPDATE', 'DELETE'] },
  { table: 'sys_role_permission', events: ['INSERT', 'UPDATE', 'DELETE'] },
  { table: 'sys_permission', events: ['INSERT', 'UPDATE', 'DELETE'] },
];

export function authEpoch(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('auth_epoch')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('epoch', 'bigint', (c) => c.notNull())
        .execute();
      await db.insertInto('auth_epoch').values({ id: 1, epoch: 1 }).execute();
      const cutShort = 'NEW.expires_at < OLD.expires_at OR NEW.user_id <> OLD.user_id OR NEW.token_hash <> OLD.token_hash';
      if (dialect === 'postgres') {
        await sql`CREATE FUNCTION bump_auth_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; RETURN NULL; END $$`.execute(db);
        for (const { table, events } of WATCHED) {
          // Once per statement: a bulk bind bumps once.
          await sql.raw(`CREATE TRIGGER ${table}_auth_epoch AFTER ${events.join(' OR ')} ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_epoch()`).execute(db);
        }
        await sql.raw(`CREATE TRIGGER sys_session_auth_epoch_cut AFTER UPDATE ON sys_session FOR EACH ROW WHEN (${cutShort}) EXECUTE FUNCTION bump_auth_epoch()`).execute(db);
      } else {
        // SQLite has row triggers only, one per event.
        for (const { table, events } of WATCHED) {
          for (const event of events) {
            await sql.raw(`CREATE TRIGGER ${table}_auth_epoch_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END`).execute(db);
          }
        }
        await sql.raw(`CREATE TRIGGER sys_session_auth_epoch_cut AFTER UPDATE ON sys_session WHEN ${cutShort} BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END`).execute(db);
      }
    },
  };
}
