import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

/**
 * Approvals beyond the spec's overtime review (docs/approvals.md):
 *
 * - process_node and its copy on each instance (process_instance_node) get a
 *   deadline rule: deadline_value (0 none) in deadline_unit (1 hours, 2 working
 *   days), remind_times reminders remind_interval hours apart, escalate_role_id
 *   (whose holders join at the deadline) and auto_action (0 none, 1 approve, 2
 *   reject). The spec's 超时自动审核 becomes the rule "overtime_hours hours, then
 *   approve", for nodes and for instances under way.
 * - process_task.next_at: when the deadline job next acts on the task (ms; null:
 *   never), deadline_step the steps it has fired, urged how often the applicant
 *   urged it; origin and origin_task_id say how a task beyond the node's own
 *   candidates came (escalated, handed over, an added signer) and from which task.
 * - process_event: what happened to an instance besides decisions (a reminder,
 *   an escalation, an urge, a hand-over, an added signer, a skipped node), by a
 *   person or by the system (user_id null), shown in the process view.
 */
export function approvalDeadlines(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      for (const table of ['process_node', 'process_instance_node']) {
        await db.schema
          .alterTable(table)
          .addColumn('deadline_value', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable(table)
          .addColumn('deadline_unit', 'integer', (c) => c.notNull().defaultTo(1))
          .execute();
        await db.schema
          .alterTable(table)
          .addColumn('remind_times', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .alterTable(table)
          .addColumn('remind_interval', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema.alterTable(table).addColumn('escalate_role_id', 'integer').execute();
        await db.schema
          .alterTable(table)
          .addColumn('auto_action', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await db
          .updateTable(table)
          .set({ deadline_value: sql.ref('overtime_hours'), deadline_unit: 1, auto_action: 1 })
          .where('overtime_auto_check', '=', 1)
          .execute();
      }
      await db.schema.alterTable('process_task').addColumn('next_at', 'bigint').execute();
      await db.schema
        .alterTable('process_task')
        .addColumn('deadline_step', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('process_task')
        .addColumn('urged', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('process_task')
        .addColumn('origin', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('process_task').addColumn('origin_task_id', 'integer').execute();
      await db
        .updateTable('process_task')
        .set({ next_at: sql.ref('due_at') })
        .where('state', '=', 0)
        .where('due_at', 'is not', null)
        .execute();
      // The deadline job's one read: the earliest pending steps.
      await db.schema.createIndex('process_task_next').on('process_task').columns(['next_at', 'process_task_id']).where(sql.ref('next_at'), 'is not', null).execute();

      await withId(db.schema.createTable('process_event'), 'event_id', dialect)
        .addColumn('process_instance_id', 'integer', (c) => c.notNull())
        .addColumn('process_task_id', 'integer')
        .addColumn('sort', 'integer', (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('user_id', 'integer')
        .addColumn('text', 'varchar(300)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', 'varchar(19)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('process_event_instance').on('process_event').columns(['process_instance_id', 'event_id']).execute();
    },
  };
}
