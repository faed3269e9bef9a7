import { shellCalls } from '../../domain/shell-calls';
import { call } from './http';

/**
 * The notices that reached the signed-in user (issue 27): the home's 未读通知
 * and the reader's list share this key, and a notice's notification arriving
 * on the live stream refreshes both (features/notifications/live.ts).
 */
export const receivedNoticesKey = ['notices', 'received'] as const;

/** The home's card: the few newest unread, with the unread count. Zod-free (domain/shell-calls.ts): the home's first load waits for none of the schemas. */
export const unreadNoticesQuery = {
  queryKey: [...receivedNoticesKey, 'unread'],
  queryFn: () => call(shellCalls.receivedNotices, { size: 3, pn: 1, unread: 1 }),
};
