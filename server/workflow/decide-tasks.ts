import type { Kysely, Transaction } from 'kysely';
import { ErrorCode } from '../../domain/errors';
import type { AppContext } from '../core/context';
import { transientDbConflict } from '../core/db-errors';
import { AppError } from '../core/errors';
import { inSavepoint } from '../core/transactions';
import type { DB } from '../db/schema';
import { decide, lockSubjectRow } from './engine';
import { subjectOf, subjects } from './subjects';

/**
 * A queue's check call, single or batch, for every kind under approval, in
 * the call's one transaction (core/unit-of-work.ts). In a batch each task is
 * decided in a savepoint of its own, so a task someone else settled
 * meanwhile does not undo the others. All done: answers the ids. One task
 * failed: throws its own error (nothing is kept). Some of a batch failed:
 * `failure` is the 409 naming each failed row the caller owns (another user's
 * task stays anonymous), with done and failed; the done ones commit.
 */
export async function decideTasks(
  trx: Transaction<DB>,
  ctx: AppContext,
  input: { taskIds: number[]; userId: number; result: number; remark: string; queues: readonly string[] },
): Promise<{ done: number[]; failed: never[]; failure?: AppError }> {
  const taskIds = [...new Set(input.taskIds)];
  const done: number[] = [];
  const failed: Array<{ taskId: number; message: string; error: AppError }> = [];
  const one = (taskId: number) => decide(trx, ctx, { taskId, userId: input.userId, result: input.result, remark: input.remark, queues: input.queues });
  // A single task needs no savepoint: its failure fails the call, and the whole transaction rolls back.
  if (taskIds.length === 1) {
    await one(taskIds[0]!);
    return { done: taskIds, failed: [] };
  }
  await lockBatchSubjects(trx, ctx, taskIds, input.userId);
  for (const taskId of taskIds) {
    try {
      await inSavepoint(trx, () => one(taskId));
      done.push(taskId);
    } catch (err) {
      // A deadlock victim (only possible if some path broke the lock order) is one failed task, not a 500 for the whole batch.
      const e = err instanceof AppError ? err : transientDbConflict(err);
      if (!e) throw err;
      failed.push({ taskId, message: e.message, error: e });
    }
  }
  if (failed.length === 0) return { done, failed: [] };
  const names = new Map<number, string>();
  const owned = await trx
    .selectFrom('process_task')
    .select(['process_task_id', 'process_type', 'ref_id'])
    .where(
      'process_task_id',
      'in',
      failed.map((f) => f.taskId),
    )
    .where('user_id', '=', input.userId)
    .where('queue', 'in', [...input.queues])
    .execute();
  for (const t of owned) {
    const def = subjects[t.process_type];
    if (!def) continue;
    const row = await (trx as unknown as Kysely<any>)
      .selectFrom(def.table)
      .select([...def.nameColumns])
      .where(def.key, '=', t.ref_id)
      .executeTakeFirst();
    if (row) names.set(t.process_task_id, def.ref(row));
  }
  const reasons = failed.map((f) => (names.has(f.taskId) ? `${names.get(f.taskId)} ${f.message}` : f.message));
  const failure = new AppError(ErrorCode.STATE_CONFLICT, `${done.length} 条审核成功，${failed.length} 条未处理：${reasons.join('；')}`, {
    done,
    failed: failed.map(({ taskId, message }) => ({ taskId, message })),
  });
  return { done, failed: [], failure };
}

/**
 * The lock order (engine.ts) for a batch in one transaction, on PostgreSQL:
 * every application row the batch decides, first and in one order, before
 * any task's step. Deciding one task also updates the reports' shared
 * counters (migration 023); a batch that then locked its next application
 * while a return or revoke of that application waited for the same counter
 * deadlocked (scripts/reliability/race.ts found 32 in 1,200 requests).
 */
async function lockBatchSubjects(trx: Transaction<DB>, ctx: AppContext, taskIds: number[], userId: number): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  const rows = await trx.selectFrom('process_task').select(['process_type', 'ref_id']).where('process_task_id', 'in', taskIds).where('user_id', '=', userId).execute();
  const order = [...new Map(rows.map((r) => [`${subjectOf(r.process_type).table}:${r.ref_id}`, { table: subjectOf(r.process_type).table, id: r.ref_id }])).values()].sort(
    (a, b) => a.table.localeCompare(b.table) || a.id - b.id,
  );
  for (const { table, id } of order) await lockSubjectRow(trx, ctx, table, id);
}
