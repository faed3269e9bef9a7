import { ErrorCode } from '../../domain/errors';
import { AppError } from './errors';

/**
 * PostgreSQL aborts a transaction to break a cycle of row locks (40P01
 * deadlock_detected) or a serialization conflict (40001
 * serialization_failure). Nothing of the aborted transaction committed, so the
 * same request may simply be sent again: the answer is a 409 that says so,
 * not a 500. This is a safety net only; the paths that change an application
 * and its approval take their locks in one order (server/workflow/engine.ts,
 * "LOCK ORDER") so that they queue instead of deadlocking.
 *
 * SQLite's counterpart is SQLITE_BUSY: with several server processes on one
 * file (WEB_CONCURRENCY), a write that waited busy_timeout for another
 * process's write lock gives up, and nothing of it was written.
 */

const TRANSIENT_SQLSTATES = new Set(['40P01', '40001']);

export const TRANSIENT_CONFLICT_MESSAGE = '数据正被其他操作同时修改，本次操作未生效，请稍后重试';

/** Whether err is a PostgreSQL deadlock or serialization failure, or an SQLite lock wait that gave up (nothing was written). */
export function isTransientDbConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (TRANSIENT_SQLSTATES.has(code) || code.startsWith('SQLITE_BUSY'));
}

/**
 * The 409 answer for a deadlock or serialization failure, or null for any
 * other error. Its code is IDEMPOTENCY_IN_PROGRESS because that is the 409
 * clients already treat as "try again later" (the offline outbox backs off and
 * resends), whereas STATE_CONFLICT means "settled, do not resend".
 */
export function transientDbConflict(err: unknown): AppError | null {
  if (!isTransientDbConflict(err)) return null;
  return new AppError(ErrorCode.IDEMPOTENCY_IN_PROGRESS, TRANSIENT_CONFLICT_MESSAGE);
}

/**
 * Whether err is a unique index refusing a row (PostgreSQL 23505, SQLite's
 * UNIQUE or PRIMARY KEY constraint): a concurrent write got there first, and
 * nothing of this one was written.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
