import { NotificationKind, TASK_ACTIONS, type PushPayload, type QuickApproveGrant } from '../domain/notifications';
import { sendPush, type PushOptions } from './send';
import type { PushRow, PushStore } from './store';
import type { VapidKeys } from './vapid';

/**
 * Urgency and lifetime per kind: a new task or an alarm should wake a phone
 * (high); a decision can wait for the next time the phone is awake anyway
 * (normal). After its TTL a message is dropped by the push service, and rows
 * older than that are not pushed at all (the centre still has them).
 */
export const deliveryOf: Record<string, PushOptions> = {
  [NotificationKind.TASK_ASSIGNED]: { urgency: 'high', ttl: 24 * 3600 },
  [NotificationKind.TASK_REMINDED]: { urgency: 'high', ttl: 24 * 3600 },
  [NotificationKind.TASK_URGED]: { urgency: 'high', ttl: 24 * 3600 },
  [NotificationKind.APPLICATION_DECIDED]: { urgency: 'normal', ttl: 3 * 24 * 3600 },
  [NotificationKind.STRANDED_ALARM]: { urgency: 'high', ttl: 4 * 3600 },
  [NotificationKind.ROUTE_DEVIATION]: { urgency: 'high', ttl: 4 * 3600 },
  [NotificationKind.NOTICE]: { urgency: 'normal', ttl: 3 * 24 * 3600 },
  // Someone must act before the next night: wake the phone, and keep it a day.
  [NotificationKind.BACKUP_FAILED]: { urgency: 'high', ttl: 24 * 3600 },
  // An evacuation is over within hours: a push that arrives later only confuses.
  [NotificationKind.MUSTER]: { urgency: 'high', ttl: 2 * 3600 },
};
const fallback: PushOptions = { urgency: 'normal', ttl: 24 * 3600 };

export const PushState = { WAITING: 0, DONE: 1, GAVE_UP: 2 } as const;

const BATCH = 50;
/** How long a claim holds; a server that dies mid-batch loses its rows to the next sweep after this. */
const LEASE_MS = 2 * 60_000;
const MAX_ATTEMPTS = 4;
const retryDelayMs = (attempt: number) => 30_000 * 2 ** (attempt - 1);
const SWEEP_MS = 30_000;
const PRUNE_EVERY_MS = 3600_000;
/** The centre keeps half a year; older rows go in the hourly prune. */
const KEEP_MS = 183 * 24 * 3600_000;

export interface Dispatcher {
  /** Pushes whatever waits; concurrent kicks coalesce into one more pass. */
  kick(): void;
  /** Resolves when no pass is running (tests, shutdown). */
  idle(): Promise<void>;
  stop(): void;
}

export interface DispatchDeps {
  store: PushStore;
  keys: VapidKeys;
  now(): number;
  time(): string;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /**
   * The 同意 grant of a new task's push, valid until `expiresAt` (its TTL from now): the signed token and what
   * the service worker needs (server/modules/quick-approve.ts). Null, or absent: the push has no buttons.
   */
  approveGrant?(row: PushRow, expiresAt: number): Promise<QuickApproveGrant | null>;
}

/** What a row's push says; a new task's, given its grant, also 同意 and 查看 (sw/notification-actions.ts). */
export const payloadOf = (r: Pick<PushRow, 'title' | 'body' | 'url' | 'tag' | 'kind'>, approve?: QuickApproveGrant | null): PushPayload => ({
  title: r.title,
  body: r.body,
  url: r.url,
  tag: r.tag,
  kind: r.kind,
  ...(approve ? { actions: TASK_ACTIONS.map((a) => ({ ...a })), approve } : {}),
});

/** A task_assigned row's grant; only that kind ever gets one, and a failure to make it costs the buttons, not the push. */
async function grantOf(deps: DispatchDeps, row: PushRow, ttlSeconds: number): Promise<QuickApproveGrant | null> {
  if (row.kind !== NotificationKind.TASK_ASSIGNED || !deps.approveGrant) return null;
  try {
    return await deps.approveGrant(row, deps.now() + ttlSeconds * 1000);
  } catch (err) {
    deps.log.warn({ err, notification: row.notification_id }, 'quick-approve grant failed: pushed without buttons');
    return null;
  }
}

/** Pushes one claimed batch; answers how many rows it handled. */
export async function pushBatch(deps: DispatchDeps, rows: PushRow[]): Promise<number> {
  const { store, keys } = deps;
  const now = deps.now();
  const subs = await store.targets([...new Set(rows.map((r) => r.user_id))], now);
  // Most rows have nobody to push to (no device opted in, or too old to matter): one statement settles them all.
  const nothingToSend = rows.filter((r) => !subs.some((s) => s.user_id === r.user_id) || now - r.created_at > (deliveryOf[r.kind] ?? fallback).ttl * 1000);
  if (nothingToSend.length)
    await store.settle(
      nothingToSend.map((r) => r.notification_id),
      { state: PushState.DONE },
    );
  for (const row of rows) {
    if (nothingToSend.includes(row)) continue;
    const opts = deliveryOf[row.kind] ?? fallback;
    const targets = subs.filter((s) => s.user_id === row.user_id);
    const payload = payloadOf(row, await grantOf(deps, row, opts.ttl));
    const results = await Promise.all(targets.map((t) => sendPush(keys, t, payload, { ...opts, topic: row.tag })));
    let retry = false;
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i]!;
      const r = results[i]!;
      if (r.outcome === 'sent') {
        await store.delivered(t, deps.time());
      } else if (r.outcome === 'gone') {
        // Only the endpoint that answered goes: the row may have been re-subscribed with fresh keys meanwhile.
        await store.gone(t);
      } else {
        retry ||= r.outcome === 'retry';
        deps.log.warn({ push: { subscription: t.push_subscription_id, status: r.status } }, `web push failed: ${r.error}`);
        await store.failed(t, r.error.slice(0, 200));
      }
    }
    // A retry goes to every device again: the ones that already got it replace it in place (same tag).
    await store.settle(
      [row.notification_id],
      retry && row.push_attempts < MAX_ATTEMPTS ? { lease: deps.now() + retryDelayMs(row.push_attempts) } : { state: retry ? PushState.GAVE_UP : PushState.DONE },
    );
  }
  return rows.length;
}

/**
 * One per server process. Kicked after each commit that adds notifications
 * here; a sweep every 30 s picks up rows that another server committed but
 * never pushed (it crashed) and rows whose retry time has come.
 */
export function startDispatcher(deps: DispatchDeps): Dispatcher {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let lastPrune = 0;

  async function pass() {
    do {
      again = false;
      for (;;) {
        if (stopped) return;
        const now = deps.now();
        const rows = await deps.store.claim(now, now + LEASE_MS, BATCH);
        if (rows.length === 0) break;
        await pushBatch(deps, rows);
      }
    } while (again && !stopped);
    if (deps.now() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = deps.now();
      await deps.store.prune(deps.now(), deps.now() - KEEP_MS);
    }
  }

  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((err) => deps.log.error({ err }, 'push dispatch failed'))
      .finally(() => {
        running = null;
      });
  }

  const timer = setInterval(kick, SWEEP_MS);
  timer.unref();
  kick();
  return {
    kick,
    idle: async () => {
      while (running) await running;
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
