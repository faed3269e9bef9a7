import type { Kysely } from 'kysely';
import { ErrorCode } from '../../domain/errors';
import type { AppContext } from '../core/context';
import { transientDbConflict } from '../core/db-errors';
import { AppError, fail } from '../core/errors';
import type { DB } from '../db/schema';
import { decide } from './engine';
import { subjects } from './subjects';

/**
 * A queue's check call, single or batch, for every kind under approval: each
 * task is decided in its own transaction, so a task someone else settled
 * meanwhile does not undo the others. All done: answers the ids. One task
 * failed: its own error. Some of a batch failed: 409 naming each failed row the
 * caller owns (another user's task stays anonymous), with done and failed.
 */
export async function decideTasks(
  db: Kysely<DB>,
  ctx: AppContext,
  input: { taskIds: number[]; userId: number; result: number; remark: string; queues: readonly string[] },
): Promise<{ done: number[]; failed: never[] }> {
  const taskIds = [...new Set(input.taskIds)];
  const done: number[] = [];
  const failed: Array<{ taskId: number; message: string; error: AppError }> = [];
  for (const taskId of taskIds) {
    try {
      await db.transaction().execute((trx) => decide(trx, ctx, { taskId, userId: input.userId, result: input.result, remark: input.remark, queues: input.queues }));
      done.push(taskId);
    } catch (err) {
      // A deadlock victim (only possible if some path broke the lock order) is one failed task, not a 500 for the whole batch.
      const e = err instanceof AppError ? err : transientDbConflict(err);
      if (!e) throw err;
      failed.push({ taskId, message: e.message, error: e });
    }
  }
  if (failed.length === 0) return { done, failed: [] };
  if (taskIds.length === 1) throw failed[0]!.error;
  const names = new Map<number, string>();
  const owned = await db
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
    const row = await (db as unknown as Kysely<any>)
      .selectFrom(def.table)
      .select([...def.nameColumns])
      .where(def.key, '=', t.ref_id)
      .executeTakeFirst();
    if (row) names.set(t.process_task_id, def.ref(row));
  }
  const reasons = failed.map((f) => (names.has(f.taskId) ? `${names.get(f.taskId)} ${f.message}` : f.message));
  return fail(ErrorCode.STATE_CONFLICT, `${done.length} 条审核成功，${failed.length} 条未处理：${reasons.join('；')}`, {
    done,
    failed: failed.map(({ taskId, message }) => ({ taskId, message })),
  });
}
