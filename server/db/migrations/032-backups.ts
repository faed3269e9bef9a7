import type { Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * Backups (server/ops/backup.ts). backup_run records every backup taken,
 * nightly, from 立即备份 or from `npm run backup`, successful or not, with
 * the archive's name and size, whether it was read back and matched its
 * manifest, and the host and process that took it. A row is written once the
 * run has ended, so the database copy inside an archive never holds a run
 * that looks unfinished forever.
 *
 * backup_claim holds claims by key, made by a conditional insert: 'night:YYYY-MM-DD' (park date) is taken by the one
 * server that takes that night's backup, 'running' is the lease of the backup in progress (expires_at, renewed while
 * it runs), so servers sharing one database take one night's backup once and never two at the same time.
 */
export function backups(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('backup_run'), 'id', dialect)
        .addColumn('started_at', time, (c) => c.notNull())
        .addColumn('finished_at', time, (c) => c.notNull())
        // Epoch ms of the end, for the age of the last good backup whatever the park's zone.
        .addColumn('finished_ms', 'bigint', (c) => c.notNull())
        .addColumn('duration_ms', 'bigint', (c) => c.notNull())
        // The archive's name in the backup directory; '' when the run failed before it had one.
        .addColumn('file_name', 'varchar(100)', (c) => c.notNull().defaultTo(''))
        .addColumn('size_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
        // 1 once the archive was read back and every SHA-256 matched its manifest.
        .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'varchar(2000)')
        // 'nightly' | 'manual' | 'cli'
        .addColumn('reason', 'varchar(10)', (c) => c.notNull())
        .addColumn('host', 'varchar(100)', (c) => c.notNull())
        .addColumn('pid', 'integer', (c) => c.notNull())
        .execute();
      // The list: newest first.
      await db.schema.createIndex('backup_run_started').on('backup_run').columns(['started_at', 'id']).execute();

      await db.schema
        .createTable('backup_claim')
        .addColumn('claim_key', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('holder', 'varchar(100)', (c) => c.notNull())
        .addColumn('claimed_at', 'bigint', (c) => c.notNull())
        // Epoch ms after which a 'running' lease is free again (a server that died mid-backup); null never expires.
        .addColumn('expires_at', 'bigint')
        .execute();
    },
  };
}
