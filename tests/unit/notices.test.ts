import { describe, expect, it } from 'vitest';
import { NoticeStatus, noticeAllows, noticeConflictMessage, type NoticeAction } from '../../domain/notices';
import { noticeCreate, noticeStatusInput, noticeUpdate } from '../../domain/schemas/notice';

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

describe('attachments chosen in the create form', () => {
  const base = { title: '停电通知', type: 1, content: '正文', departList: [3] };
  const file = (i: number) => ({ file_url: `${String(i).padStart(32, 'a')}.png`, file_name: `附件${i}.png` });
  const messages = (input: unknown) => {
    const r = noticeCreate.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => i.message);
  };
  it('takes up to five stored files, each once, and none at all', () => {
    expect(noticeCreate.parse({ ...base, attachments: [1, 2, 3, 4, 5].map(file) }).attachments).toHaveLength(5);
    expect(noticeCreate.parse(base).attachments).toBeUndefined();
    // What the form holds beside (the size it shows) does not go on.
    expect(noticeCreate.parse({ ...base, attachments: [{ ...file(1), file_size: 10 }] }).attachments).toEqual([file(1)]);
  });
  it('refuses a sixth, one twice, a name the store did not give and a file without its name', () => {
    expect(messages({ ...base, attachments: [1, 2, 3, 4, 5, 6].map(file) })).toEqual(['每个通知最多上传5个附件，请先删除不需要的附件']);
    expect(messages({ ...base, attachments: [file(1), file(1)] })).toEqual(['同一个附件不能添加两次']);
    expect(messages({ ...base, attachments: [{ file_url: '../park.db', file_name: 'x' }] })).toEqual(['附件文件名不正确，请重新上传']);
    expect(messages({ ...base, attachments: [{ file_url: file(1).file_url, file_name: ' ' }] })).toEqual(['附件缺少原文件名']);
  });
  it('are the create form’s only: an edit does not take them', () => {
    expect(noticeUpdate.parse({ ...base, noticeId: 1, attachments: [file(1)] })).not.toHaveProperty('attachments');
  });
});
