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

/** Socket failures and PostgreSQL's "cannot serve you now" SQLSTATEs (class 08 connection exceptions, 57P0x shutdowns, 53300 too many connections). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '53300']);
/** What pg says, without a code, when a connection ends, cannot be made in time, or a statement's answer never came. */
const UNREACHABLE_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /^Query read timeout$/, /not queryable/, /^Client was closed/];

/** Whether err says the database could not be reached or went away mid-call (nothing of an open transaction committed). */
export function isDatabaseUnreachable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (UNREACHABLE_CODES.has(code) || code.startsWith('08')) return true;
  return typeof e?.message === 'string' && UNREACHABLE_MESSAGES.some((re) => re.test(e.message as string));
}

/**
 * The answer for a database that failed the call as a whole rather than refusing its content: unreachable
 * (503: try again later; the offline outbox resends), a statement stopped by PostgreSQL's time limit (503), or
 * no room left to write (SQLite's SQLITE_FULL or a full disk: 507, naming the cause; reads still work). Null for
 * any other error.
 */
export function databaseFailure(err: unknown): AppError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === '53100') return new AppError(ErrorCode.STORAGE_FULL);
  if (code === '57014') return new AppError(ErrorCode.DB_UNAVAILABLE, '数据库处理超时，本次操作未生效，请稍后重试或缩小查询范围');
  if (isDatabaseUnreachable(err)) return new AppError(ErrorCode.DB_UNAVAILABLE);
  return null;
}
