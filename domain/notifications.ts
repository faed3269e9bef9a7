/** What a notification reports; each kind has its own push urgency and lifetime on the server. */
export const NotificationKind = {
  TASK_ASSIGNED: 'task_assigned',
  /** A pending task passed its node's deadline (docs/approvals.md): its approver is reminded. */
  TASK_REMINDED: 'task_reminded',
  /** The applicant urged the approvers of a pending task. */
  TASK_URGED: 'task_urged',
  APPLICATION_DECIDED: 'application_decided',
  STRANDED_ALARM: 'stranded_alarm',
  /** A notice enabled for the reader's department (issue 27). */
  NOTICE: 'notice',
  /** A visit's vehicle crossed a gate off its route: once per visit, when its 偏离路线告警 is raised. */
  ROUTE_DEVIATION: 'route_deviation',
  /** The nightly backup failed (server/jobs/backup.ts): told to every holder of the built-in administrator role. */
  BACKUP_FAILED: 'backup_failed',
  /** Repeated real alarms of one plate or ID number filed a black-list draft (server/modules/stranded/repeat-offenders.ts): told to the list's keepers. */
  REPEAT_OFFENDER: 'repeat_offender',
  /** An emergency headcount started (docs/muster.md): pushed to every enabled user; not a banner alarm, its board is the muster screen. */
  MUSTER: 'muster',
} as const;
export type NotificationKindValue = (typeof NotificationKind)[keyof typeof NotificationKind];

/** The kinds that are alarms: the banner shows them (counted per kind), they beep, and 全部标为已查看 reads them. */
export const ALARM_NOTIFICATION_KINDS = [NotificationKind.STRANDED_ALARM, NotificationKind.ROUTE_DEVIATION] as const;
export const isAlarmNotification = (kind: string): boolean => (ALARM_NOTIFICATION_KINDS as readonly string[]).includes(kind);

/** The buttons of a notification (sw/notification-actions.ts): 同意 decides from the notification, 查看 opens the task as a tap does. */
export const NotificationAction = { APPROVE: 'approve', VIEW: 'view' } as const;
export type NotificationActionValue = (typeof NotificationAction)[keyof typeof NotificationAction];

/** A new task's two buttons (docs/approvals.md): 驳回 is no button, the reviewer opens the task for that. */
export const TASK_ACTIONS: ReadonlyArray<{ action: NotificationActionValue; title: string }> = [
  { action: NotificationAction.APPROVE, title: '同意' },
  { action: NotificationAction.VIEW, title: '查看' },
];

/** The opinion a decision from a notification's 同意 carries. */
export const QUICK_APPROVE_REMARK = '同意';

/** The call 同意 makes without a session (domain/schemas/quick-approve.ts), relative to /api. */
export const QUICK_APPROVE_PATH = '/approvalTask/quickApprove';

/**
 * What a new task's push carries for its 同意 button: the signed token that
 * stands in for a session for this one decision (bound to the task, its
 * approver and an expiry, the push's lifetime), and what the service worker
 * needs to leave the decision in the page's outbox when the device is offline,
 * as the queue's review would (src/components/approval/review-modal.tsx).
 */
export interface QuickApproveGrant {
  taskId: number;
  /** `taskId.userId.expirySeconds.HMAC`: POST /api/approvalTask/quickApprove takes it in place of a session. */
  token: string;
  /** The task's approver: the outbox item is theirs, only their session sends it. */
  userId: number;
  /** The queue the task is in (domain/approval-queues.ts), and its check call's path under /api. */
  queue: string;
  checkPath: string;
  /** The record under review. */
  refId: number;
  /** The record as a notification names it: '粤L12345（C20260101001）'. */
  name: string;
}

/** The Web Push payload the service worker shows (sw/sw.ts): the tag replaces an older notification of the same subject. */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  tag: string;
  /** The notification's kind (NotificationKind). */
  kind: string;
  /** task_assigned only, with `approve`: 同意 and 查看. */
  actions?: Array<{ action: NotificationActionValue; title: string }>;
  approve?: QuickApproveGrant;
}

/** Events of GET /api/notifications/stream (text/event-stream). */
/**
 * The stream's events: the unread count, a new notification, `figures` when something the board counts changed (no
 * data beyond the time), and `import` with a person batch import's counters while it runs (ImportProgressEvent).
 */
export const StreamEvent = { UNREAD: 'unread', NOTIFICATION: 'notification', FIGURES: 'figures', IMPORT: 'import' } as const;
export interface UnreadEvent {
  count: number;
}
// A row of the centre (NotificationItem), the stream's NotificationEvent and a push device (PushDevice) are declared in schemas/notifications.ts.

/**
 * A notification opens the record it is about, not only its screen: the list
 * screen at `route` opens the row whose key is `id` once its page has loaded
 * (src/list-screen/list-screen.tsx reads OPEN_PARAM).
 */
export const OPEN_PARAM = 'open';
export const recordLink = (route: string, id: number): string => `${route}?${OPEN_PARAM}=${id}`;
