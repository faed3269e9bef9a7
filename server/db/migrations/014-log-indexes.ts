import type { Kysely } from 'kysely';

/**
 * 登录日志 and 操作日志 (spec 002 §2): each list reads a time window newest
 * first (time, then id), optionally of one login state / result or one
 * account. With the id in the index (PostgreSQL does not add it as SQLite's
 * rowid does) a page is a backward walk of one index range and its count
 * reads that range alone, at any table size. They replace the foundation's
 * indexes, which lacked the id (and, for the login log, had the state after
 * the time, so "state 1 in the window" had to skip through every state).
 */
export function logIndexes() {
  return {
    async up(db: Kysely<any>) {
      await db.schema.dropIndex('sys_login_log_time').execute();
      await db.schema.createIndex('sys_login_log_time').on('sys_login_log').columns(['login_time', 'id']).execute();
      await db.schema.createIndex('sys_login_log_result_time').on('sys_login_log').columns(['result', 'login_time', 'id']).execute();

      await db.schema.dropIndex('sys_operation_log_time').execute();
      await db.schema.dropIndex('sys_operation_log_account').execute();
      await db.schema.createIndex('sys_operation_log_time').on('sys_operation_log').columns(['operate_time', 'id']).execute();
      await db.schema.createIndex('sys_operation_log_result_time').on('sys_operation_log').columns(['result', 'operate_time', 'id']).execute();
      await db.schema.createIndex('sys_operation_log_account').on('sys_operation_log').columns(['account', 'operate_time', 'id']).execute();
    },
  };
}
