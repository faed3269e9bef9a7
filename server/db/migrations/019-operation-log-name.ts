import { sql, type Kysely } from 'kysely';

/**
 * The operation log keeps the user's name as it was when the row was written
 * (issue 23): before, the list joined today's name, so a rename rewrote the
 * past. Rows written before this migration get the name their user has now,
 * the best the database still knows; a deleted user keeps theirs, and a row
 * without a user (a call before sign-in) stays ''.
 */
export function operationLogName() {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('sys_operation_log')
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .execute();
      await sql`UPDATE sys_operation_log SET user_name = COALESCE((SELECT u.user_name FROM sys_user u WHERE u.user_id = sys_operation_log.user_id), '') WHERE user_id IS NOT NULL`.execute(db);
    },
  };
}
