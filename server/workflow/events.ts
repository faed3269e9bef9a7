import type { Kysely, Transaction } from 'kysely';
import { SYSTEM_ACTOR, type ProcessEventKind } from '../../domain/approval-events';
import type { AppContext } from '../core/context';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

export interface NewProcessEvent {
  process_instance_id: number;
  process_task_id: number | null;
  sort: number;
  kind: ProcessEventKind;
  /** Null: the system did it. */
  user_id: number | null;
  text: string;
}

/** The most rows one INSERT writes: a batch of reminders stays a few statements. */
const CHUNK = 200;

/** Records steps of instances (docs/approvals.md) in the caller's transaction. */
export async function recordEvents(trx: Db, ctx: AppContext, events: NewProcessEvent[]): Promise<void> {
  const create_time = ctx.time();
  const created_at = ctx.now();
  for (let i = 0; i < events.length; i += CHUNK) {
    await trx
      .insertInto('process_event')
      .values(events.slice(i, i + CHUNK).map((e) => ({ ...e, text: e.text.slice(0, 300), create_time, created_at })))
      .execute();
  }
}

/** An instance's steps in order, each with who took it (系统 for the system), for the process view. */
export async function eventsOf(db: Db, instanceId: number) {
  const rows = await db
    .selectFrom('process_event as e')
    .leftJoin('sys_user as u', 'u.user_id', 'e.user_id')
    .select(['e.event_id', 'e.process_task_id', 'e.sort', 'e.kind', 'e.user_id', 'u.user_name', 'e.text', 'e.create_time'])
    .where('e.process_instance_id', '=', instanceId)
    .orderBy('e.event_id')
    // An instance's steps are bounded by its deadline rules (10 reminders a node) and people's actions; this keeps a view bounded regardless.
    .limit(500)
    .execute();
  return rows.map((r) => ({
    event_id: r.event_id,
    process_task_id: r.process_task_id,
    sort: r.sort,
    kind: r.kind,
    user_name: r.user_id === null ? SYSTEM_ACTOR : (r.user_name ?? ''),
    text: r.text,
    create_time: r.create_time,
  }));
}
