import { sql, type Kysely } from 'kysely';

/**
 * Hand-overs and added signers (docs/approvals.md):
 *
 * - process_task.required: 1 when the node waits for this task's approval
 *   (every task of a countersign node; an added signer; an approver who added
 *   one alongside), 0 when any one approval at the node decides for it (the
 *   candidates of a first-decision node, escalated approvers). Pending tasks
 *   of countersign nodes under way are marked so.
 * - A task may now also be in state 3, waiting: its approver added a signer
 *   before themself, and it returns to pending once that signer approves.
 */
export function addedSigners() {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('process_task')
        .addColumn('required', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db
        .updateTable('process_task')
        .set({ required: 1 })
        .where('state', '=', 0)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('process_instance_node as n')
              .select(sql.lit(1).as('one'))
              .whereRef('n.process_instance_id', '=', 'process_task.process_instance_id')
              .whereRef('n.sort', '=', 'process_task.sort')
              .where('n.countersign', '=', 1),
          ),
        )
        .execute();
    },
  };
}
