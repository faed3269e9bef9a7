import { describe, expect, it } from 'vitest';
import { approvalPendingCall } from '../../domain/schemas/approval-task';
import { authApi } from '../../domain/schemas/auth';
import { noticeApi } from '../../domain/schemas/notice';
import { notificationApi } from '../../domain/schemas/notifications';
import { strandedStatApi } from '../../domain/schemas/stranded';
import { shellCalls } from '../../domain/shell-calls';

/**
 * The shell's zod-free calls (domain/shell-calls.ts) are typed as their
 * declarations by a cast: each must be the method and path of the
 * declaration it is typed as, or the client would send one call typed as another.
 */
describe('shell calls', () => {
  const declared = {
    me: authApi.info,
    logout: authApi.logout,
    unreadCount: notificationApi.unreadCount,
    notificationPage: notificationApi.page,
    notificationRead: notificationApi.read,
    notificationReadAll: notificationApi.readAll,
    pendingApprovals: approvalPendingCall,
    openAlarms: strandedStatApi.open,
    receivedNotices: noticeApi.received,
  } satisfies Record<keyof typeof shellCalls, unknown>;

  it.each(Object.entries(declared))('%s is its declaration on the wire', (name, call) => {
    const ref = shellCalls[name as keyof typeof shellCalls];
    expect({ method: ref.method, path: ref.path }).toEqual({ method: call.method, path: call.path });
  });

  it('carries no schemas at run time', () => {
    for (const ref of Object.values(shellCalls)) expect(Object.keys(ref).sort()).toEqual(['method', 'path']);
  });
});
