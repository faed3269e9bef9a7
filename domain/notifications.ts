/** What a notification reports; each kind has its own push urgency and lifetime on the server. */
export const NotificationKind = {
  TASK_ASSIGNED: 'task_assigned',
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

/** The Web Push payload the service worker shows (sw/sw.ts): the tag replaces an older notification of the same subject. */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  tag: string;
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
