import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/core/errors';
import { exportColumnWidth, MAX_COLUMN_WIDTH, spreadsheetTextWidth } from '../../server/core/xlsx-export';
import { ProcessSlots } from '../../server/core/xlsx-off-thread';

/** The export writer's column widths, and the per-process slots that bound exports (and imports). */

describe('export column widths', () => {
  it('counts a CJK or full-width character as two widths, anything else as one, and the longest line', () => {
    expect(spreadsheetTextWidth('严格车辆备案审核通过')).toBe(20);
    expect(spreadsheetTextWidth('粤L7B359')).toBe(8);
    expect(spreadsheetTextWidth('２０２６（全角）')).toBe(16);
    expect(spreadsheetTextWidth('2026-11-21 08:00:00')).toBe(19);
    expect(spreadsheetTextWidth(12345)).toBe(5);
    expect(spreadsheetTextWidth('第一行\n更长的第二行')).toBe(12);
    expect(spreadsheetTextWidth(null)).toBe(0);
    expect(spreadsheetTextWidth('𠀀')).toBe(2);
  });

  it('fits the header or the widest cell with a margin, never below the column’s own width nor above the cap', () => {
    expect(exportColumnWidth('严格车辆备案审核通过', [0, 12], 12)).toBe(22);
    expect(exportColumnWidth('日期', ['2026-11-21'], 8)).toBe(12);
    expect(exportColumnWidth('行号', [1, 2], 8)).toBe(8);
    expect(exportColumnWidth('原因', ['短'], 60)).toBe(60);
    expect(exportColumnWidth('原因', ['很长的原因'.repeat(40)])).toBe(MAX_COLUMN_WIDTH);
  });
});

describe('process slots', () => {
  const refusal = (p: Promise<unknown>) => p.then(() => null).catch((e: unknown) => e as AppError);

  it('admits `size` at once and hands a freed slot to the first waiter, in order', async () => {
    const slots = new ProcessSlots(2, '导出任务繁忙', { maxWaiting: 10, maxWaitMs: 5000 });
    const a = await slots.enter();
    const b = await slots.enter();
    expect(slots.inUse).toBe(2);
    const order: string[] = [];
    const c = slots.enter().then((leave) => (order.push('c'), leave));
    const d = slots.enter().then((leave) => (order.push('d'), leave));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    // A newcomer may not overtake the queue while the slot passes from hand to hand.
    expect(() => slots.tryEnter()).toThrow('导出任务繁忙，请稍后再试');
    a();
    a();
    (await c)();
    b();
    (await d)();
    expect(order).toEqual(['c', 'd']);
    expect(slots.inUse).toBe(0);
  });

  it('answers 429 naming the reason once the wait is too long or the queue is full, and frees nothing it did not take', async () => {
    const slots = new ProcessSlots(1, '导出任务繁忙', { maxWaiting: 1, maxWaitMs: 50 });
    const held = await slots.enter();
    const late = refusal(slots.enter());
    const full = await refusal(slots.enter());
    expect(full).toBeInstanceOf(AppError);
    expect(full).toMatchObject({ status: 429, message: '导出任务繁忙（同时最多1个，已有1个在排队），请稍后再试' });
    expect(await late).toMatchObject({ status: 429, message: '导出任务繁忙（同时最多1个，排队超过0.05秒），请稍后再试' });
    expect(slots.inUse).toBe(1);
    held();
    expect(slots.inUse).toBe(0);
    const again = await slots.enter();
    expect(slots.inUse).toBe(1);
    again();
  });

  it('gives a slot back to an export resuming after a slow client ahead of the queue, with no deadline', async () => {
    const slots = new ProcessSlots(1, '导出任务繁忙', { maxWaiting: 5, maxWaitMs: 30 });
    const held = await slots.enter();
    const order: string[] = [];
    const newcomer = slots.enter().then(
      (leave) => (order.push('newcomer'), leave),
      (err: AppError) => (order.push(err.message), () => undefined),
    );
    const resumed = slots.resume().then((leave) => (order.push('resumed'), leave));
    await new Promise((r) => setTimeout(r, 60));
    // The newcomer's 30 ms ran out; the resuming export still waits.
    expect(order).toEqual(['导出任务繁忙（同时最多1个，排队超过0.03秒），请稍后再试']);
    held();
    (await resumed)();
    (await newcomer)();
    expect(order.at(-1)).toBe('resumed');
    expect(slots.inUse).toBe(0);

    // Ahead of callers already waiting.
    const queue = new ProcessSlots(1, '导出任务繁忙', { maxWaiting: 5, maxWaitMs: 5000 });
    const first = await queue.enter();
    const admitted: string[] = [];
    const waiting = queue.enter().then((leave) => (admitted.push('waiting'), leave));
    const back = queue.resume().then((leave) => (admitted.push('resumed'), leave));
    first();
    (await back)();
    (await waiting)();
    expect(admitted).toEqual(['resumed', 'waiting']);
  });

  it('lets a waiter whose client left quit the queue, and passes the slot over it', async () => {
    const slots = new ProcessSlots(1, '导出任务繁忙', { maxWaiting: 5, maxWaitMs: 5000 });
    const held = await slots.enter();
    const client = new AbortController();
    const quitter = refusal(slots.enter(client.signal));
    const next = slots.enter();
    expect(slots.queued).toBe(2);
    client.abort();
    expect(await quitter).toMatchObject({ status: 429, message: '导出任务繁忙：请求已取消' });
    expect(slots.queued).toBe(1);
    held();
    (await next)();
    expect(slots.inUse).toBe(0);
    const gone = new AbortController();
    gone.abort();
    const busy = await slots.enter();
    expect(await refusal(slots.enter(gone.signal))).toMatchObject({ status: 429 });
    expect(slots.queued).toBe(0);
    busy();
  });
});
