import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { SmsMessage, SmsSender } from './sms';

/**
 * SMS leave the process through the outbox (issue 25 item 5, DESIGN.md §11),
 * as Web Push does through its notification rows (server-push/dispatch.ts):
 * the message is a row written in the transaction of what it reports, and
 * is sent only after that commits. The server whose conditional UPDATE
 * moves the row from waiting to sending is the one that sends it, so it
 * goes out once across processes; a second caller finds nothing to claim.
 * The provider is called outside any transaction, with no lock held, and
 * bounded by SMS_TIMEOUT_MS, so a provider that hangs delays no other
 * write. A server that stops between the claim and the outcome leaves the
 * row claimed: unsent rather than sent twice (a sign-in code or an alarm
 * text twice is worse than a resend the person can ask for).
 */

export const OutboxState = { WAITING: 0, SENDING: 1, SENT: 2, FAILED: 3 } as const;
export const SMS_CHANNEL = 'sms';
/** What an SMS is about: where its outcome is recorded. */
export type SmsOrigin = 'captcha' | 'stranded_alarm' | 'muster' | 'approval_remind';

/** Longer than a slow provider's answer (10 s), short enough that an alarm pass is not held for long. */
export const SMS_TIMEOUT_MS = 15_000;

export interface SmsOutcome {
  /** Every recipient's message was accepted by the provider. */
  sent: boolean;
  /** `phone：reason` per refused message, sorted. */
  errors: string[];
}

type Db = Kysely<DB>;

/** Writes the messages into the outbox in the caller's transaction; answers the row's id, to deliver after commit. */
export async function enqueueSms(trx: Db, origin: SmsOrigin, originId: number | null, messages: SmsMessage[], nowMs: number): Promise<number> {
  const row = await trx
    .insertInto('outbox_message')
    .values({ channel: SMS_CHANNEL, origin, origin_id: originId, payload: JSON.stringify(messages), created_at: nowMs })
    .returning('message_id')
    .executeTakeFirstOrThrow();
  return row.message_id;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`短信服务${Math.round(ms / 1000)}秒内未响应`)), ms)))]).finally(() => clearTimeout(timer));
}

/** A sign-in code stays in the outbox only until it is sent: the settled row keeps who and when, not the code. */
const settledPayload = (messages: SmsMessage[]) => JSON.stringify(messages.map((m) => (m.code ? { ...m, code: '***', text: '***' } : m)));

/**
 * Sends one committed outbox row, if this call claims it; answers null when
 * another call or server has (or it is settled). Call it after the commit
 * that wrote the row, never inside a transaction.
 */
export async function deliverSms(deps: { db: Db; sms: SmsSender; now(): number }, messageId: number, timeoutMs = SMS_TIMEOUT_MS): Promise<SmsOutcome | null> {
  const { db } = deps;
  const claimed = await db.updateTable('outbox_message').set({ state: OutboxState.SENDING }).where('message_id', '=', messageId).where('state', '=', OutboxState.WAITING).executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return null;
  const row = await db.selectFrom('outbox_message').select('payload').where('message_id', '=', messageId).executeTakeFirstOrThrow();
  const messages = JSON.parse(row.payload) as SmsMessage[];
  const errors: string[] = [];
  await Promise.all(
    messages.map(async (m) => {
      try {
        await withTimeout(deps.sms.send(m), timeoutMs);
      } catch (err) {
        errors.push(`${m.phone}：${err instanceof Error ? err.message : String(err)}`);
      }
    }),
  );
  errors.sort();
  await db
    .updateTable('outbox_message')
    .set({
      state: errors.length ? OutboxState.FAILED : OutboxState.SENT,
      settled_at: deps.now(),
      error: errors.length ? errors.join('；').slice(0, 500) : null,
      payload: settledPayload(messages),
    })
    .where('message_id', '=', messageId)
    .execute();
  return { sent: errors.length === 0, errors };
}

/**
 * Sends the waiting rows of one origin (of one record of it, with `originId`),
 * each once: called after the commit that wrote them, and by a minute pass for
 * rows a stopped server left waiting (those older than `olderThanMs`).
 * Answers how many rows this call sent.
 */
export async function deliverWaitingSms(deps: { db: Db; sms: SmsSender; now(): number }, origin: SmsOrigin, opts: { originId?: number; olderThanMs?: number } = {}): Promise<number> {
  let q = deps.db
    .selectFrom('outbox_message')
    .select('message_id')
    .where('origin', '=', origin)
    .where('state', '=', OutboxState.WAITING)
    .where('created_at', '<=', deps.now() - (opts.olderThanMs ?? 0));
  if (opts.originId !== undefined) q = q.where('origin_id', '=', opts.originId);
  const rows = await q.orderBy('message_id').limit(1000).execute();
  let sent = 0;
  for (const { message_id } of rows) if (await deliverSms(deps, message_id)) sent++;
  return sent;
}

/** The waiting row of one origin's record (an alarm's SMS), if any. */
export async function waitingSmsOf(db: Db, origin: SmsOrigin, originId: number): Promise<number | null> {
  const row = await db
    .selectFrom('outbox_message')
    .select('message_id')
    .where('origin', '=', origin)
    .where('origin_id', '=', originId)
    .where('state', '=', OutboxState.WAITING)
    .orderBy('message_id')
    .limit(1)
    .executeTakeFirst();
  return row?.message_id ?? null;
}

/** Settled messages are kept this long (who was texted when, and the provider's refusals), then go in the hourly cleanup. */
export const KEEP_SETTLED_MS = 30 * 24 * 3600_000;

export async function purgeSettledSms(db: Db, nowMs: number): Promise<number> {
  const res = await db
    .deleteFrom('outbox_message')
    .where('state', 'in', [OutboxState.SENT, OutboxState.FAILED])
    .where('settled_at', '<', nowMs - KEEP_SETTLED_MS)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
