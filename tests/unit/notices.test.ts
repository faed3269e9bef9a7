import { describe, expect, it } from 'vitest';
import { NoticeStatus, noticeAllows, noticeConflictMessage, type NoticeAction } from '../../domain/notices';
import { noticeCreate, noticeStatusInput } from '../../domain/schemas/notice';

/** Spec 001 §2's state rule for notices, the one function the list's buttons and the server's refusals share. */
describe('notice state rule', () => {
  const table: Array<[NoticeAction, number[]]> = [
    ['enable', [NoticeStatus.DRAFT, NoticeStatus.DISABLED]],
    ['disable', [NoticeStatus.ENABLED]],
    ['edit', [NoticeStatus.DRAFT, NoticeStatus.DISABLED]],
    ['delete', [NoticeStatus.DRAFT, NoticeStatus.DISABLED]],
    ['attach', [NoticeStatus.DRAFT, NoticeStatus.DISABLED]],
  ];
  it.each(table)('%s is allowed from %j only', (action, allowed) => {
    for (const status of [0, 1, 2]) expect(noticeAllows(action, status), `${action} from ${status}`).toBe(allowed.includes(status));
    expect(noticeConflictMessage[action]).toMatch(/通知/);
  });
});

describe('notice form', () => {
  const base = { title: '停电通知', type: 1, content: '正文', departList: [3] };
  it('takes departments as an array or a comma list, once each, and a day as its midnight', () => {
    expect(noticeCreate.parse({ ...base, departList: '3,4,3', publish_time: '2026-12-01' })).toMatchObject({ departList: [3, 4], publish_time: '2026-12-01 00:00:00' });
    expect(noticeCreate.parse({ ...base, publish_time: '' }).publish_time).toBeNull();
  });
  it('refuses what the rules refuse', () => {
    expect(noticeCreate.safeParse({ ...base, departList: [] }).success).toBe(false);
    expect(noticeCreate.safeParse({ ...base, departList: Array.from({ length: 101 }, (_, i) => i + 1) }).success).toBe(false);
    expect(noticeCreate.safeParse({ ...base, publish_time: '2026-02-30' }).success).toBe(false);
    expect(noticeCreate.safeParse({ ...base, type: 0 }).success).toBe(false);
    expect(noticeStatusInput.safeParse({ noticeId: 1, status: 0 }).success).toBe(false);
    expect(noticeStatusInput.safeParse({ noticeId: 1, status: '2' }).success).toBe(true);
  });
});
