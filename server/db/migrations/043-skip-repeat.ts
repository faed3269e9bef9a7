import type { Kysely } from 'kysely';

/**
 * 相同审核人自动通过 (docs/approvals.md): a process definition's setting, on by
 * default, that a node whose approver just approved the node before it
 * passes by itself; each instance keeps the setting it was submitted under.
 */
export function skipRepeat() {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('process_definition')
        .addColumn('skip_repeat', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema
        .alterTable('process_instance')
        .addColumn('skip_repeat', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
    },
  };
}
