import { z } from 'zod';
import { col } from '../contract';

/**
 * The process view of a record under approval (spec 000 §3 "process info",
 * server/workflow/engine.ts processInfo): the instance, its chain of nodes
 * as copied at submit, and its tasks so far. Every kind under approval
 * answers it the same, so it is declared once here.
 */
export const processInfoAnswer = z.object({
  processInstance: z.object({
    process_instance_id: col.id,
    process_type: col.int,
    state: col.int,
    current_sort: col.int,
    create_time: col.time,
    update_time: col.time,
  }),
  processNodeList: z.array(
    z.object({
      sort: col.int,
      name: col.text,
      definitionNodeId: col.id,
      processNodeId: col.id,
      countersign: col.flag,
      company_check: col.flag,
      role: z.object({ role_id: col.id, name: col.text }),
      /** Empty for a visited-enterprise node: it reviews in the application's department. */
      departList: z.array(z.object({ depart_id: col.id, name: col.text })),
    }),
  ),
  processTaskList: z.array(
    z.object({
      process_task_id: col.id,
      state: col.int,
      result: col.int.nullable(),
      remark: col.text,
      approve_time: col.time.nullable(),
      submit_time: col.time,
      auto: col.flag,
      processDefinitionNode: z.object({ name: col.text, sort: col.int }),
      user: z.object({ user_name: col.text }),
      depart: z.object({ name: col.text }),
    }),
  ),
  /** Steps besides decisions (docs/approvals.md): reminders, escalations, urges, hand-overs, added signers, skips; user_name 系统 for the system's. */
  processEventList: z.array(
    z.object({
      event_id: col.id,
      process_task_id: col.id.nullable(),
      sort: col.int,
      kind: col.text,
      user_name: col.text,
      text: col.text,
      create_time: col.time,
    }),
  ),
});
export type ProcessInfo = z.infer<typeof processInfoAnswer>;
