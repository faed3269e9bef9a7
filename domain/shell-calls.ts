/**
 * The calls the signed-in shell and the home make on their first load (who
 * am I, sign out, the bell, the alarm banner, 待我审批, 待处理告警, 未读通知), free of
 * the schemas: the schemas bring zod, which the first screen should not wait
 * for (`npm run size` holds the home to its budget). Their declarations in
 * domain/schemas spread `shellWire`, so method and path are written here
 * once; `shellCalls` are the same objects typed as those declarations
 * (type-only imports), which tests/unit/shell-calls.test.ts holds to them.
 * At run time a shell call has its method and path only.
 */
import type { Call } from './contract';
import type { approvalPendingCall } from './schemas/approval-task';
import type { authApi } from './schemas/auth';
import type { noticeApi } from './schemas/notice';
import type { notificationApi } from './schemas/notifications';
import type { strandedStatApi } from './schemas/stranded';

export const shellWire = {
  me: { method: 'GET', path: '/user/info' },
  logout: { method: 'POST', path: '/user/logout' },
  unreadCount: { method: 'GET', path: '/notifications/unreadCount' },
  notificationPage: { method: 'POST', path: '/notifications/page' },
  notificationRead: { method: 'POST', path: '/notifications/read' },
  notificationReadAll: { method: 'POST', path: '/notifications/readAll' },
  pendingApprovals: { method: 'GET', path: '/approval/pending' },
  openAlarms: { method: 'GET', path: '/stranded/open' },
  receivedNotices: { method: 'POST', path: '/notice/received/page' },
} as const;

/** A call as the client sends it: typed as its declaration, carrying its method and path. */
export type CallRef<C extends Call> = Pick<C, 'method' | 'path' | 'input' | 'answer'>;

export const shellCalls = {
  me: shellWire.me as CallRef<typeof authApi.info>,
  logout: shellWire.logout as CallRef<typeof authApi.logout>,
  unreadCount: shellWire.unreadCount as CallRef<typeof notificationApi.unreadCount>,
  notificationPage: shellWire.notificationPage as CallRef<typeof notificationApi.page>,
  notificationRead: shellWire.notificationRead as CallRef<typeof notificationApi.read>,
  notificationReadAll: shellWire.notificationReadAll as CallRef<typeof notificationApi.readAll>,
  pendingApprovals: shellWire.pendingApprovals as CallRef<typeof approvalPendingCall>,
  openAlarms: shellWire.openAlarms as CallRef<typeof strandedStatApi.open>,
  receivedNotices: shellWire.receivedNotices as CallRef<typeof noticeApi.received>,
};
