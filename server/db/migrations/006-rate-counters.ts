import type { Kysely } from 'kysely';

/**
 * Fixed-window counters kept in the database (server/core/rate-limit.ts), so
 * that every server sharing one PostgreSQL counts the same sign-in attempts.
 * One row per bucket; `reset_at` (ms) is when its window ends.
 */
export function rateCounters() {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('rate_counter')
        .addColumn('bucket', 'varchar(200)', (c) => c.primaryKey())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('reset_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_counter_reset_at').on('rate_counter').column('reset_at').execute();
    },
  };
}
