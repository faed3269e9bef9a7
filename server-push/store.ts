/**
 * What Web Push needs of storage, and nothing more: server-push/ knows no
 * table, dialect or query builder. The server implements it over its database
 * (server/modules/push-store.ts), so the two top-level folders lean one way:
 * the server imports server-push, never the reverse.
 */

/** A notification waiting to be pushed, as claimed. */
export interface PushRow {
  notification_id: number;
  user_id: number;
  kind: string;
  title: string;
  body: string;
  url: string;
  tag: string;
  /** Epoch ms. */
  created_at: number;
  /** Tries so far, this claim's included. */
  push_attempts: number;
}

/** A device that receives one user's pushes now (a subscription whose session is live). */
export interface PushTarget {
  push_subscription_id: number;
  user_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushStore {
  /**
   * Claims up to `batch` waiting rows whose lease has run out, leasing them
   * until `leaseUntil` and counting the try, so that several servers on one
   * database never push the same row at once.
   */
  claim(nowMs: number, leaseUntil: number, batch: number): Promise<PushRow[]>;
  /** Rows done or given up (`state`), or to be tried again after `lease`. */
  settle(ids: number[], change: { state: number } | { lease: number }): Promise<void>;
  targets(userIds: number[], nowMs: number): Promise<PushTarget[]>;
  /** A device's outcome: delivered, gone for good (only that endpoint, which may have been re-subscribed meanwhile), or failed with an error. */
  delivered(target: PushTarget, time: string): Promise<void>;
  gone(target: PushTarget): Promise<void>;
  failed(target: PushTarget, error: string): Promise<void>;
  /** Subscriptions whose session has ended, and notifications created before `before`; answers the subscriptions removed. */
  prune(nowMs: number, before: number): Promise<number>;
  /** A server-wide setting (the VAPID keys). */
  setting(key: string): Promise<string | undefined>;
  /** Stores a setting unless one is there already: of two servers starting at once, the first wins. */
  settingIfAbsent(key: string, value: string): Promise<void>;
}
