import type { Kysely } from 'kysely';

/**
 * Idempotency keys as server/core/idempotency.ts uses them: 255-character keys
 * (the IETF draft sets no smaller limit), the claim's owner token and state,
 * and the time of the last state change for the claim's lease. The table of
 * migration 001 was never written to, so it is replaced rather than altered.
 */
export function idempotency() {
  return {
    async up(db: Kysely<any>) {
      await db.schema.dropTable('idempotency_key').ifExists().execute();
      await db.schema
        .createTable('idempotency_key')
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('idem_key', 'varchar(255)', (c) => c.notNull())
        .addColumn('route', 'text', (c) => c.notNull())
        .addColumn('body_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('state', 'varchar(10)', (c) => c.notNull())
        .addColumn('owner', 'varchar(36)', (c) => c.notNull())
        .addColumn('http_status', 'integer')
        .addColumn('response', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        // The claim: of concurrent INSERTs of one (user, key), this index lets exactly one through.
        .addPrimaryKeyConstraint('idempotency_key_pk', ['user_id', 'idem_key'])
        .execute();
      await db.schema.createIndex('idempotency_key_created').on('idempotency_key').column('created_at').execute();
    },
  };
}
