import type { Kysely } from 'kysely';
import { stateAllows, stateConflictMessage, TaskState, type AppointmentAction } from '../../domain/appointments';
import { ErrorCode } from '../../domain/errors';
import type { AppContext, AuthContext } from '../core/context';
import { fail, notFound } from '../core/errors';
import type { Db, RowValues } from '../core/repository';
import type { FieldLabels } from '../../domain/schemas/common';
import { lockSubjectRow, processInfo, revokeInstance, startInstance, type StartInput } from './engine';
import { subjectByTable, type SubjectTable } from './subjects';

/**
 * The actions every record under approval shares (DESIGN.md §4, §7; the
 * state table of spec 000 §4 and spec 001 §4): lock the live row, check the
 * state, start the approval, revoke it, show its process. Appointments'
 * service and the registers' routes both act through these; what a kind adds
 * (rules, black lists, registrations) runs around them.
 */

/**
 * What every kind under approval declares, whatever else it adds: appointments'
 * kinds (modules/appointments/kinds.ts) and the registers' ApprovableDef
 * (modules/registers/approvable.ts) both extend it, and the engine's subject
 * table (subjects.ts) says how the engine reads the same table.
 */
export interface UnderApproval {
  /** '车辆预约', '车辆备案' …: in messages, operation-log names and route summaries. */
  noun: string;
  table: SubjectTable;
  /** Application numbers (applicationNumber), written when a row is created. */
  numberPrefix?: string;
  /** The key of the row inside a task wrapper (spec 000 §3, spec 001 §3). */
  wrapper: string;
  /** The entity's label catalogue: every field error and column header is named from it. */
  labels: FieldLabels;
}

/** A row as the state table reads it; `status` is the spec's state, whichever column holds it. */
export type SubjectRow = RowValues & { status: number; process_instance_id: number | null; create_user_id: number | null };

/**
 * Step 1 of the engine's lock order, for a row that must be live: 404 naming
 * the kind when absent or deleted. With `owner`, only that user's row: anybody
 * else's reads as absent, so rows are never revealed.
 */
export async function lockLive(trx: Db, ctx: AppContext, table: SubjectTable, id: number, owner?: AuthContext): Promise<SubjectRow> {
  const subject = subjectByTable[table];
  const row = await lockSubjectRow(trx, ctx, table, id);
  if (!row || row[subject.deletedColumn] !== 0) notFound(subject.noun);
  if (owner && row!.create_user_id !== owner.userId) notFound(subject.noun);
  return { ...row!, status: row![subject.stateColumn] as number } as SubjectRow;
}

/** 409 with the state table's message when the row's state forbids the action. */
export function assertAllows(action: AppointmentAction, state: number): void {
  if (!stateAllows(action, state)) fail(ErrorCode.STATE_CONFLICT, stateConflictMessage(action, state));
}

/** Submit: the row's process starts at its first node; the row holds the instance and loses an old revoke reason. */
export async function submitForApproval(trx: Db, ctx: AppContext, table: SubjectTable, id: number, start: Omit<StartInput, 'refId'>, stamp: RowValues): Promise<number> {
  const subject = subjectByTable[table];
  const instanceId = await startInstance(trx, ctx, { ...start, refId: id });
  await (trx as unknown as Kysely<any>)
    .updateTable(table)
    .set({ process_instance_id: instanceId, revoke_reason: '', ...stamp })
    .where(subject.key, '=', id)
    .execute();
  return instanceId;
}

/** Revoke (a state the action allows: under review or approved) with a reason: open tasks close and the row is revoked. */
export async function revokeApproval(trx: Db, ctx: AppContext, table: SubjectTable, row: SubjectRow, action: AppointmentAction, reason: string, stamp: RowValues): Promise<void> {
  const subject = subjectByTable[table];
  assertAllows(action, row.status);
  await revokeInstance(trx, ctx, instanceOf(row, action));
  await (trx as unknown as Kysely<any>)
    .updateTable(table)
    .set({ revoke_reason: reason, ...stamp })
    .where(subject.key, '=', row[subject.key] as number)
    .execute();
}

/** The row's instance, which every state but draft has; 409 as the state table words it otherwise. */
export function instanceOf(row: SubjectRow, action: AppointmentAction): number {
  if (row.process_instance_id == null) fail(ErrorCode.STATE_CONFLICT, stateConflictMessage(action, row.status));
  return row.process_instance_id!;
}

/** The process view of a row the caller may read (the caller checked): 409 for a draft, which has none. */
export async function approvalProcess(db: Db, row: SubjectRow) {
  assertAllows('process', row.status);
  return processInfo(db, instanceOf(row, 'process'));
}

/** Application numbers: prefix + yyyyMMdd of the creation + six-digit id. */
export const applicationNumber = (prefix: string, now: string, id: number) => `${prefix}${now.slice(0, 10).replace(/-/g, '')}${String(id).padStart(6, '0')}`;

/**
 * The caller's pending task, in one of `queues`, of the row's current
 * instance, with the row's state: what an approver's amend of the dates
 * needs. Null when the row is gone, the instance is not its current one or
 * the caller holds no such task.
 */
export async function pendingTaskOn(db: Db, table: SubjectTable, id: number, instanceId: number, userId: number, queues: readonly string[]): Promise<{ queue: string; status: number } | null> {
  const subject = subjectByTable[table];
  const row = await (db as unknown as Kysely<any>)
    .selectFrom(`${table} as a`)
    .innerJoin('process_task as t', (j) => j.onRef('t.process_instance_id', '=', 'a.process_instance_id'))
    .select(['t.queue', `a.${subject.stateColumn} as status`])
    .where(`a.${subject.key}`, '=', id)
    .where(`a.${subject.deletedColumn}`, '=', 0)
    .where('a.process_instance_id', '=', instanceId)
    .where('t.user_id', '=', userId)
    .where('t.state', '=', TaskState.PENDING)
    .where('t.queue', 'in', queues)
    .executeTakeFirst();
  return (row as { queue: string; status: number } | undefined) ?? null;
}
