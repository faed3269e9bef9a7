import type { Kysely } from 'kysely';
import type { Dialect } from '../index';

/**
 * Uploaded files kept in the database (FILE_STORE=postgres, core/storage.ts),
 * so that servers on several machines that share only PostgreSQL read one
 * another's uploads. stored_file is a file's header: its name (the store's
 * 32-hex-digit name), size and when it was begun; complete turns 1 in the
 * statement that ends its upload, and only complete files are ever read, so
 * a half-written one is never seen. stored_file_chunk holds its bytes in
 * pieces of about 256 KiB, numbered from 0, so that neither an upload nor a
 * read ever holds a whole file in memory.
 *
 * Made on SQLite too, where they stay empty (FILE_STORE=postgres needs
 * DATABASE_URL): one schema for both, and the DB types hold on either.
 */
export function fileStore(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('stored_file')
        .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
        // Epoch ms: an incomplete file older than a day was abandoned by a server that died, and is swept.
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('complete', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // The sweep reads only incomplete files.
      await db.schema.createIndex('stored_file_incomplete').on('stored_file').columns(['complete', 'created_at']).execute();

      await db.schema
        .createTable('stored_file_chunk')
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('bytes', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .addPrimaryKeyConstraint('stored_file_chunk_pk', ['name', 'seq'])
        .execute();
    },
  };
}
