/** What the outbox can hold (DESIGN.md §5): actions a person may take without a signal. */
export type OutboxKind = 'approval' | 'batchApproval' | 'flag' | 'markCancel' | 'alarmDeal' | 'musterMark';

/**
 * pending: waiting for its turn (possibly until nextAttemptAt); sending: a drain is on it now;
 * done: the server accepted it; conflict: 409, someone else decided first or the state forbids it;
 * failed: refused (other 4xx) or the backoff steps are used up; the person retries or discards it.
 */
export type OutboxState = 'pending' | 'sending' | 'done' | 'conflict' | 'failed';

export const OUTBOX_KINDS: readonly OutboxKind[] = ['approval', 'batchApproval', 'flag', 'markCancel', 'alarmDeal', 'musterMark'];

export const kindLabels: Record<OutboxKind, string> = {
  approval: '审核',
  batchApproval: '批量审核',
  flag: '车辆标记',
  markCancel: '取消标记',
  alarmDeal: '告警处理',
  musterMark: '清点标记',
};

export const stateLabels: Record<OutboxState, string> = {
  pending: '待发送',
  sending: '发送中',
  done: '已发送',
  conflict: '有冲突',
  failed: '发送失败',
};

export interface EnqueueInput {
  kind: OutboxKind;
  /** A declared call's path under /api, e.g. a queue's `calls.check.path` (domain/appointment-kinds.ts). */
  url: string;
  /** The JSON body, without the photo names (those are appended once uploaded). */
  body: Record<string, unknown>;
  /** One Chinese line shown in the outbox, e.g. '审核 粤L12345 同意'. */
  title: string;
  /** Photos kept as Blobs until sent, per body field; uploaded first, then joined with ';' into body[field]. */
  photos?: Record<string, Blob[]>;
  /** Whatever the caller wants back (task ids, queue, plate...); never sent. */
  meta?: Record<string, unknown>;
}

export interface OutboxItem extends Required<Pick<EnqueueInput, 'kind' | 'url' | 'body' | 'title'>> {
  /** UUID; sent as Idempotency-Key on every try, so a replay never acts twice. */
  id: string;
  /** The signed-in user who made it; only their session sends it. */
  userId: number;
  photos?: Record<string, Blob[]>;
  /** Stored names of photos already uploaded, per field and index, so a retry never uploads one twice. */
  uploaded?: Record<string, Array<string | null>>;
  meta?: Record<string, unknown>;
  state: OutboxState;
  /** Why it is not done: the server's message, or the network's. */
  error?: string;
  /** HTTP status of the last answer that was not a success (0: no answer). */
  status?: number;
  /** Tries that failed for a passing reason (network, 5xx, 429); drives the backoff. */
  attempts: number;
  /** Epoch ms before which a drain leaves it alone. */
  nextAttemptAt: number;
  createdAt: number;
  updatedAt: number;
  /** When the server accepted it. */
  doneAt?: number;
  /** A failed item that only ran out of retries for network or server trouble: a reconnect tries it again. */
  transient?: boolean;
  /** The reply's data on success (e.g. a batch's { done, failed }). */
  result?: unknown;
}

export interface OutboxCounts {
  pending: number;
  sending: number;
  done: number;
  conflict: number;
  failed: number;
  /** Everything not done yet: what the badge shows. */
  waiting: number;
}
