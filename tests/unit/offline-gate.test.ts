import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LIST_EXPIRED, applyDelta, decideOffline, importSubjectKey, indexAllowlist, normaliseSubject, subjectHash, type AllowEntry, type Allowlist } from '../../domain/offline-gate';

const NOW = '2026-03-10 10:00:00';
const list = (entries: AllowEntry[], o: Partial<Allowlist> = {}): Allowlist => ({
  v: 5,
  full: true,
  device: 3,
  iat: '2026-03-10 09:00:00',
  exp: '2026-03-13 09:00:00',
  routes: { '7': [1, 2] },
  entries,
  ...o,
});
const decide = (entries: AllowEntry[], direction = 1, now = NOW, device_id = 3) =>
  decideOffline(indexAllowlist(list(entries)), { hash: 'H', kind: 'car', direction, device_id, label: '粤A12345' }, now);

/** domain/offline-gate.ts: the offline decision over a list, in domain/gate.ts gateDecision's order and words. */
describe('decideOffline', () => {
  it('lets every exit out, also past exp, and refuses every entry past exp (fail closed)', () => {
    expect(decide([], 2)).toEqual({ allow: true, reason: '出场放行' });
    expect(decide([{ h: 'H', w: [[null, null]] }], 1, '2026-03-13 09:00:01')).toEqual({ allow: false, reason: LIST_EXPIRED });
    expect(decide([{ h: 'H', b: [[null, null, 'x']] }], 2, '2026-03-20 09:00:00')).toMatchObject({ allow: true });
  });

  it('black beats a mark, a mark beats white, white beats a visit; entries count by day', () => {
    const visit: AllowEntry['a'] = [['CA1', '2026-03-10 08:00:00', '2026-03-10 18:00:00']];
    expect(decide([{ h: 'H', b: [[null, null, '违规']], m: '倾倒', w: [[null, null]], a: visit }])).toEqual({ allow: false, reason: '黑名单车辆：违规', list_type: 1 });
    expect(decide([{ h: 'H', m: '倾倒', w: [[null, null]], a: visit }])).toEqual({ allow: false, reason: '车辆已被标记为禁止入园：倾倒' });
    expect(decide([{ h: 'H', w: [['2026-03-10 23:00:00', '2026-03-12 00:00:00']] }])).toEqual({ allow: true, reason: '白名单车辆，放行', list_type: 2, valid_until: '2026-03-12 00:00:00' });
    // A black entry ending earlier today still holds today, as the access lookup reads it.
    expect(decide([{ h: 'H', b: [[null, '2026-03-10 00:00:01', '违规']], a: visit }])).toMatchObject({ allow: false, list_type: 1 });
    expect(decide([{ h: 'H', b: [[null, '2026-03-09 23:59:59', '违规']], a: visit }])).toMatchObject({ allow: true, application_number: 'CA1' });
  });

  it('takes the newest visit valid now, else the next to begin, else the newest', () => {
    expect(decide([])).toEqual({ allow: false, reason: '无车辆预约记录，不能放行' });
    expect(
      decide([
        {
          h: 'H',
          a: [
            ['CA2', '2026-03-11 08:00:00', '2026-03-11 18:00:00'],
            ['CA1', '2026-03-10 08:00:00', '2026-03-10 18:00:00', { x: 1 }],
          ],
        },
      ]),
    ).toEqual({
      allow: false,
      reason: '车辆（粤A12345）未备案或备案不在来访日期内，不能放行',
      application_number: 'CA1',
    });
    expect(decide([{ h: 'H', a: [['CA2', '2026-03-11 08:00:00', '2026-03-11 18:00:00']] }])).toMatchObject({ allow: false, reason: '未到预约来访时间（2026-03-11 08:00:00 起），不能放行' });
    expect(decide([{ h: 'H', a: [['CA2', '2026-03-09 08:00:00', '2026-03-09 18:00:00']] }])).toMatchObject({ allow: false, reason: '预约已过期（2026-03-09 18:00:00 止），不能放行' });
  });

  it('lets a hazardous vehicle in only on a day a waybill covers and never into a capped park; notes a gate off the route', () => {
    const a = (extra: object): AllowEntry[] => [{ h: 'H', a: [['CA1', '2026-03-09 08:00:00', '2026-03-12 18:00:00', extra]] }];
    expect(decide(a({ d: ['2026-03-09'] }))).toMatchObject({ allow: false, reason: '危化品车辆（粤A12345）无有效运单，不能放行' });
    expect(decide(a({ d: ['2026-03-10'] }))).toMatchObject({ allow: true });
    expect(decide(a({ d: ['2026-03-10'], c: 1 }))).toMatchObject({ allow: false });
    expect(decide(a({ r: 7 }), 1, NOW, 2)).not.toHaveProperty('off_route');
    expect(decide(a({ r: 7 }), 1, NOW, 9)).toMatchObject({ allow: true, off_route: true });
  });
});

describe('subjectHash and deltas', () => {
  it('is HMAC-SHA-256 of kind:SUBJECT under the gate key, its first 96 bits in base64url', async () => {
    const raw = randomBytes(32);
    const key = await importSubjectKey(raw.toString('base64url'));
    expect(normaliseSubject('car', ' 粤a 12345 ')).toBe('car:粤A12345');
    const expected = createHmac('sha256', raw).update('car:粤A12345').digest().subarray(0, 12).toString('base64url');
    expect(await subjectHash(key, 'car', '粤a12345')).toBe(expected);
    expect(await subjectHash(key, 'person', '粤a12345')).not.toBe(expected);
    await expect(importSubjectKey('short')).rejects.toThrow('名单密钥');
  });

  it('applies a delta only onto the version it was made for', () => {
    const held = indexAllowlist(
      list([
        { h: 'A', w: [[null, null]] },
        { h: 'B', w: [[null, null]] },
      ]),
    );
    const delta = list([{ h: 'C', w: [[null, null]] }], { full: false, since: 5, v: 9, removed: ['A'] });
    const next = applyDelta(held, delta)!;
    expect([...next.byHash.keys()].sort()).toEqual(['B', 'C']);
    expect(next.v).toBe(9);
    expect(applyDelta(next, delta)).toBeNull();
    expect(() => indexAllowlist(delta)).toThrow('增量名单');
  });
});
