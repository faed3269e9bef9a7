import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../domain/errors';
import { OutboxDb } from '../../src/lib/outbox/db';
import { createOutboxEngine } from '../../src/lib/outbox/engine';
import { OutboxUnavailableError, sendOrQueueWith } from '../../src/lib/outbox/send';
import type { EnqueueInput } from '../../src/lib/outbox/types';

/**
 * sendOrQueue (src/lib/outbox/send.ts): the one "send now, or leave it to the
 * outbox" path of the action modals (review, flag, mark cancel, alarm handling),
 * over the real engine on fake-indexeddb and a fake server.
 */

const envelope = (status: number, code: number, msg: string) => new Response(JSON.stringify({ success: status < 300, code, msg, message: msg, data: null }), { status });

let seq = 0;
const opened: OutboxDb[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function setup(answer: () => Response | Promise<Response> | 'network', opts: { online?: boolean; userId?: number | null } = {}) {
  const db = new OutboxDb(`send-or-queue-${++seq}`);
  opened.push(db);
  const env = { online: opts.online ?? true, calls: 0 };
  const engine = createOutboxEngine({
    db,
    fetch: (async () => {
      env.calls += 1;
      const a = await answer();
      if (a === 'network') throw new TypeError('Failed to fetch');
      return a;
    }) as typeof fetch,
    token: () => 'token',
    userId: () => (opts.userId === undefined ? 7 : opts.userId),
    isOnline: () => env.online,
    onUnauthorized: () => undefined,
  });
  const sendOrQueue = sendOrQueueWith({ enqueue: engine.enqueue, drain: engine.drain, get: engine.get, discard: engine.discard, isOnline: () => env.online });
  return { engine, env, sendOrQueue };
}

const deal: EnqueueInput = { kind: 'alarmDeal', url: '/car/stranded/alarmDeal', body: { id: 1, false_alarm: 0, handled_remark: '判断准确！' }, title: '处理告警 粤L12345' };

describe('sendOrQueue', () => {
  it('answers done when the server accepts the action while the person waits', async () => {
    const { sendOrQueue, engine } = setup(() => envelope(200, ErrorCode.OK, '处理告警成功！'));
    const sent = await sendOrQueue(deal, 5_000);
    expect(sent.state).toBe('done');
    expect((await engine.get(sent.item.id))?.state).toBe('done');
  });

  it('offline: keeps the action pending and tries nothing', async () => {
    const { sendOrQueue, engine, env } = setup(() => envelope(200, ErrorCode.OK, 'ok'), { online: false });
    const sent = await sendOrQueue(deal, 5_000);
    expect(sent).toMatchObject({ state: 'waiting', offline: true });
    expect(env.calls).toBe(0);
    expect((await engine.get(sent.item.id))?.state).toBe('pending');
  });

  it('a refusal (409 or another 4xx) is answered with its message and the item is discarded', async () => {
    const { sendOrQueue, engine } = setup(() => envelope(409, ErrorCode.STATE_CONFLICT, '处理告警错误：该告警已被处理'));
    const sent = await sendOrQueue(deal, 5_000);
    expect(sent.state).toBe('refused');
    expect(sent.item).toMatchObject({ state: 'conflict', status: 409, error: '处理告警错误：该告警已被处理' });
    expect(await engine.get(sent.item.id)).toBeUndefined();

    const bad = setup(() => envelope(400, ErrorCode.VALIDATION, '处理说明：请输入处理说明'));
    const refused = await bad.sendOrQueue(deal, 5_000);
    expect(refused).toMatchObject({ state: 'refused', item: { state: 'failed', status: 400, error: '处理说明：请输入处理说明' } });
    expect(await bad.engine.get(refused.item.id)).toBeUndefined();
  });

  it('network trouble or a slow answer leaves the action to the outbox', async () => {
    const { sendOrQueue, engine } = setup(() => 'network');
    const sent = await sendOrQueue(deal, 5_000);
    expect(sent).toMatchObject({ state: 'waiting', offline: false });
    expect((await engine.get(sent.item.id))?.state).toBe('pending');

    const slow = setup(() => new Promise<Response>(() => undefined));
    const late = await slow.sendOrQueue(deal, 50);
    expect(late).toMatchObject({ state: 'waiting', offline: false });
  });

  it('says plainly when the action could not be stored at all', async () => {
    const { sendOrQueue } = setup(() => envelope(200, ErrorCode.OK, 'ok'), { userId: null });
    await expect(sendOrQueue(deal, 5_000)).rejects.toBeInstanceOf(OutboxUnavailableError);
    await expect(sendOrQueue(deal, 5_000)).rejects.toThrow('请先登录');
  });
});
