import { TaskResult, TaskState } from '../../domain/appointments';
import type { AppContext } from '../core/context';
import type { Db } from '../core/repository';
import { startApproval, type ApprovableDef } from '../modules/registers/approvable';
import { decide } from '../workflow/engine';
import { lockLive, revokeApproval } from '../workflow/subject-actions';
import { clockAt } from './seed-appointments';

/**
 * What happens to a demo row of a register under approval after it is saved:
 * the filer submits it, the pending task's approver approves or rejects it
 * (with the opinion), or the filer revokes it with a reason.
 */
export type WalkStep = 'submit' | 'approve' | ['reject', string] | ['revoke', string];

/**
 * Moves a seeded row of a register under approval (approvable.ts) through
 * `steps` with the engine, as the routes do: submit as the push route (the
 * row under its lock, then startApproval), decide the row's first pending
 * task as its approver, revoke as the revoke route (revokeApproval). The row
 * was filed `ago` minutes before `start`; each step runs five to ninety
 * minutes after the one before, never reaching into the future.
 */
export async function walkApproval(
  trx: Db,
  ctx: AppContext,
  start: number,
  def: Pick<ApprovableDef, 'table' | 'processType'>,
  id: number,
  ownerUserId: number,
  ago: number,
  steps: readonly WalkStep[],
): Promise<void> {
  let minutes = ago;
  for (const step of steps) {
    minutes = Math.max(0, minutes - (step === 'submit' ? 5 : Math.min(90, Math.floor(minutes / 3))));
    const c = clockAt(ctx, start, minutes);
    if (step === 'submit') {
      await lockLive(trx, c, def.table, id);
      await startApproval(trx, c, def, id, ownerUserId, ownerUserId);
      continue;
    }
    if (step !== 'approve' && step[0] === 'revoke') {
      const row = await lockLive(trx, c, def.table, id);
      await revokeApproval(trx, c, def.table, row, 'revoke', step[1], { update_user_id: ownerUserId, update_time: c.time() });
      continue;
    }
    const task = await trx
      .selectFrom('process_task')
      .select(['process_task_id', 'user_id'])
      .where('process_type', '=', def.processType)
      .where('ref_id', '=', id)
      .where('state', '=', TaskState.PENDING)
      .orderBy('process_task_id')
      .executeTakeFirstOrThrow();
    const approve = step === 'approve';
    await decide(trx, c, { taskId: task.process_task_id, userId: task.user_id, result: approve ? TaskResult.APPROVE : TaskResult.REJECT, remark: approve ? '审批通过。' : step[1] });
  }
}
