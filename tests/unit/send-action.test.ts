import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepLocalPhoto, trackPhoto } from '../../src/lib/files';
import { ApiError, post } from '../../src/lib/http';
import { outboxPhotos, sendAction, type SendActionOptions } from '../../src/lib/outbox/action';
import { OutboxUnavailableError, type SendOutcome } from '../../src/lib/outbox/send';
import type { EnqueueInput, OutboxItem } from '../../src/lib/outbox/types';

/**
 * sendAction (src/lib/outbox/action.tsx): what the review, flag and
 * mark-cancel modals tell the person for each outcome of sendOrQueue (whose
 * own decisions tests/unit/send-or-queue.test.ts covers), and the direct send
 * without a usable IndexedDB. The toasts and the outbox are stubbed.
 */

const h = vi.hoisted(() => ({ outcome: null as (() => Promise<SendOutcome>) | null, toasts: [] as Array<{ icon?: unknown; content: string; duration?: number }> }));
vi.mock('../../src/lib/feedback', () => ({ showToast: (p: { icon?: unknown; content: string; duration?: number }) => void h.toasts.push(p) }));
vi.mock('../../src/lib/outbox/index', async (importOriginal) => ({ ...(await importOriginal<object>()), sendOrQueue: () => h.outcome!() }));
vi.mock('../../src/lib/http', async (importOriginal) => ({ ...(await importOriginal<object>()), post: vi.fn() }));

afterEach(() => {
  h.toasts.length = 0;
  vi.mocked(post).mockReset();
});

const input: EnqueueInput = { kind: 'markCancel', url: '/label/vehicle/cancel', body: { id: 3, cancel_reason: '已整改', cancel_photo: 'a.jpg' }, title: '取消标记 粤L12345' };
const item = (over: Partial<OutboxItem>): OutboxItem => ({ ...input, id: 'x', userId: 7, state: 'pending', attempts: 0, nextAttemptAt: 0, createdAt: 0, ...over }) as OutboxItem;

function options(over: Partial<SendActionOptions> = {}) {
  const calls: string[] = [];
  const o: SendActionOptions = {
    waitMs: 1000,
    okText: '取消成功！',
    waitingText: { offline: '当前无网络，取消已保存，联网后自动发送', slow: '网络不稳定，取消已保存，将自动重新发送' },
    onDone: () => void calls.push('done'),
    onRefused: (r) => void calls.push(`refused ${r.status} ${r.message} ${r.fieldErrors.map((f) => f.field).join(',')}`.trim()),
    onQueued: () => void calls.push('queued'),
    ...over,
  };
  return { o, calls };
}

describe('sendAction', () => {
  it('done: the success toast, then onDone', async () => {
    h.outcome = async () => ({ state: 'done', item: item({ state: 'done' }) });
    const { o, calls } = options();
    await sendAction(input, o);
    expect(h.toasts).toEqual([{ icon: 'success', content: '取消成功！' }]);
    expect(calls).toEqual(['done']);
  });

  it('refused: no toast of its own; onRefused has the message and status, and is awaited', async () => {
    h.outcome = async () => ({ state: 'refused', item: item({ state: 'conflict', status: 409, error: '该标记已取消' }) });
    let finished = false;
    const { o, calls } = options({
      onRefused: async (r) => {
        await new Promise((r) => setTimeout(r, 20));
        finished = true;
        calls.push(`refused ${r.status} ${r.message}`);
      },
    });
    await sendAction(input, o);
    expect(finished).toBe(true);
    expect(calls).toEqual(['refused 409 该标记已取消']);
    expect(h.toasts).toEqual([]);
  });

  it('left to the outbox: the offline or the slow words, for 3 s, then onQueued', async () => {
    const { o, calls } = options();
    h.outcome = async () => ({ state: 'waiting', offline: true, item: item({}) });
    await sendAction(input, o);
    h.outcome = async () => ({ state: 'waiting', offline: false, item: item({}) });
    await sendAction(input, o);
    expect(h.toasts.map((t) => [t.content, t.duration])).toEqual([
      ['当前无网络，取消已保存，联网后自动发送', 3000],
      ['网络不稳定，取消已保存，将自动重新发送', 3000],
    ]);
    expect(h.toasts.every((t) => typeof t.icon === 'object')).toBe(true);
    expect(calls).toEqual(['queued', 'queued']);
  });

  it('no usable IndexedDB: throws, unless the action may be sent directly', async () => {
    h.outcome = async () => {
      throw new OutboxUnavailableError(new Error('IndexedDB is not available'));
    };
    const { o, calls } = options();
    await expect(sendAction(input, o)).rejects.toBeInstanceOf(OutboxUnavailableError);
    expect(post).not.toHaveBeenCalled();

    vi.mocked(post).mockResolvedValueOnce(null);
    await sendAction(input, { ...o, direct: true });
    expect(post).toHaveBeenCalledWith('/label/vehicle/cancel', input.body);
    expect(h.toasts).toEqual([{ icon: 'success', content: '取消成功！' }]);

    vi.mocked(post).mockRejectedValueOnce(new ApiError('取消理由：请输入取消理由', 40000, 400, [{ field: 'cancel_reason', message: '请输入取消理由' }]));
    await sendAction(input, { ...o, direct: true });
    vi.mocked(post).mockRejectedValueOnce(new Error('boom'));
    await sendAction(input, { ...o, direct: true });
    expect(calls).toEqual(['done', 'refused 400 取消理由：请输入取消理由 cancel_reason', 'refused 0 boom']);
  });
});

describe('outboxPhotos', () => {
  it('waits for a photo being sent, keeps stored names in order and hands photos on the device over as Blobs', async () => {
    const taken = new Blob(['jpeg'], { type: 'image/jpeg' });
    const local = keepLocalPhoto(taken);
    const sending = keepLocalPhoto(new Blob(['sending']));
    trackPhoto(sending, new Promise((r) => setTimeout(() => r({ name: 'b.jpg' }), 20)));
    const out = await outboxPhotos(['a.jpg', sending, local].join(';'));
    expect(out).toEqual({ names: 'a.jpg;b.jpg', blobs: [taken] });
  });

  it('says why a photo cannot go: refused by the server, or gone from the device', async () => {
    const refused = keepLocalPhoto(new Blob(['big']));
    trackPhoto(refused, Promise.resolve({ refused: '文件过大' }));
    expect(await outboxPhotos(`a.jpg;${refused}`)).toEqual({ error: '照片上传失败：文件过大' });
    vi.stubGlobal('fetch', async () => new Response(null, { status: 404 }));
    expect(await outboxPhotos('blob:nodata:gone')).toEqual({ error: '本地照片已失效，请重新选择' });
    vi.unstubAllGlobals();
  });
});
