import { describe, expect, it } from 'vitest';
import { isCachedRead, isStorableAnswer, readCacheKey, type ReadRequest } from '../../sw/cache-key';

const origin = 'https://park.example';
const list = (over: Partial<ReadRequest> = {}): ReadRequest => ({
  method: 'POST',
  url: `${origin}/api/carApplications/task/page`,
  body: JSON.stringify({ pn: 1, size: 10, plate: '粤L' }),
  authorization: 'Bearer token-of-reviewer',
  ...over,
});

describe('isCachedRead: only read endpoints are kept for offline use', () => {
  it.each([
    ['POST', '/api/carApplications/task/page'],
    ['POST', '/api/carApplications/shdd_final/taskPage'],
    ['POST', '/api/personApplications/list'],
    ['POST', '/api/personApplications/all/history/list'],
    ['GET', '/api/carApplications/detail'],
    ['GET', '/api/personApplications/task/detail'],
    ['POST', '/api/v2/carApplications/check/process/info'],
    ['GET', '/api/user/info'],
    ['GET', '/api/approval/pending'],
    ['POST', '/api/depart/all'],
    ['POST', '/api/vehicleType/get'],
    ['POST', '/api/label/vehicle/queryRemark'],
    ['GET', '/api/carApplications/pass'],
    ['POST', '/api/notifications/page'],
  ])('%s %s is a read', (method, path) => expect(isCachedRead(method, path)).toBe(true));

  it.each([
    ['POST', '/api/carApplications/task/check'],
    ['POST', '/api/carApplications/shdd_final/taskCheck'],
    ['POST', '/api/personApplications/save'],
    ['POST', '/api/personApplications/push'],
    ['POST', '/api/carApplications/amend'],
    ['POST', '/api/label/vehicle/label'],
    ['POST', '/api/user/logout'],
    ['POST', '/api/user/v2login'],
    ['POST', '/api/file/upload'],
    ['GET', '/api/file/abc.png'],
    ['GET', '/api/common/enum/gender'],
    ['GET', '/api/system/version'],
    ['GET', '/api/notifications/stream'],
    ['POST', '/api/notifications/read'],
    ['POST', '/api/push/subscribe'],
    // A read name with the wrong method (a GET list, a POST detail) is not what the server serves.
    ['POST', '/api/carApplications/detail'],
    ['DELETE', '/api/personApplications/list'],
    ['GET', '/assets/index.js'],
  ])('%s %s is not kept', (method, path) => expect(isCachedRead(method, path)).toBe(false));
});

describe('readCacheKey: a synthetic GET URL per person, endpoint and filter', () => {
  it('is a same-origin URL naming method and path, with neither token nor filter readable in it', async () => {
    const key = (await readCacheKey(list()))!;
    const url = new URL(key);
    expect(url.origin).toBe(origin);
    expect(url.pathname).toBe('/__offline-reads__/POST/api/carApplications/task/page');
    expect(key).not.toContain('token-of-reviewer');
    expect(decodeURIComponent(key)).not.toContain('粤L');
    expect(url.searchParams.get('__a')).toMatch(/^[0-9a-f]{32}$/);
    expect(url.searchParams.get('__b')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('is the same for the same request, whatever the order of the filter keys or the query', async () => {
    const a = await readCacheKey(list({ body: '{"pn":1,"size":10,"plate":"粤L"}' }));
    const b = await readCacheKey(list({ body: '{ "plate": "粤L", "size": 10, "pn": 1 }' }));
    expect(a).toBe(b);
    const d1 = await readCacheKey(list({ method: 'GET', url: `${origin}/api/carApplications/detail?id=7&x=1`, body: '' }));
    const d2 = await readCacheKey(list({ method: 'GET', url: `${origin}/api/carApplications/detail?x=1&id=7`, body: '' }));
    expect(d1).toBe(d2);
  });

  it('differs by person: another Authorization never finds this entry', async () => {
    const mine = await readCacheKey(list());
    const theirs = await readCacheKey(list({ authorization: 'Bearer token-of-squad' }));
    expect(theirs).not.toBe(mine);
  });

  it('differs by filter, page, nested values, endpoint, method and query', async () => {
    const base = await readCacheKey(list());
    const variants = await Promise.all([
      readCacheKey(list({ body: JSON.stringify({ pn: 2, size: 10, plate: '粤L' }) })),
      readCacheKey(list({ body: JSON.stringify({ pn: 1, size: 10, plate: '粤M' }) })),
      readCacheKey(list({ body: JSON.stringify({ pn: 1, size: 10, plate: '粤L', range: ['2026-01-01', '2026-01-02'] }) })),
      readCacheKey(list({ url: `${origin}/api/personApplications/task/page` })),
      readCacheKey(list({ method: 'GET', body: '' })),
      readCacheKey(list({ url: `${origin}/api/carApplications/task/page?q=1` })),
    ]);
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
    const nested = await Promise.all([
      readCacheKey(list({ body: JSON.stringify({ f: { a: 1, b: 2 } }) })),
      readCacheKey(list({ body: JSON.stringify({ f: { b: 2, a: 1 } }) })),
      readCacheKey(list({ body: JSON.stringify({ f: { a: 2, b: 1 } }) })),
    ]);
    expect(nested[0]).toBe(nested[1]);
    expect(nested[2]).not.toBe(nested[0]);
  });

  it('treats an empty body and {} apart only as the server would (empty vs an empty filter)', async () => {
    const empty = await readCacheKey(list({ body: '' }));
    const blank = await readCacheKey(list({ body: '   ' }));
    const obj = await readCacheKey(list({ body: '{}' }));
    expect(empty).toBe(blank);
    expect(obj).not.toBe(empty);
  });

  it('keeps a non-JSON body as it is', async () => {
    expect(await readCacheKey(list({ body: 'a=1' }))).not.toBe(await readCacheKey(list({ body: 'a=2' })));
  });

  it('keys nothing without an Authorization header', async () => {
    expect(await readCacheKey(list({ authorization: null }))).toBeNull();
    expect(await readCacheKey(list({ authorization: '' }))).toBeNull();
  });
});

describe('isStorableAnswer: only whole successful envelopes are kept', () => {
  const ok = JSON.stringify({ success: true, code: 0, msg: 'ok', data: { list: [], total: 0 } });
  it('keeps a 200 JSON success', () => expect(isStorableAnswer(200, 'application/json; charset=utf-8', ok)).toBe(true));
  it('refuses failures, other statuses, other types and broken JSON', () => {
    expect(isStorableAnswer(200, 'application/json', JSON.stringify({ success: false, code: 1003, msg: '无权限' }))).toBe(false);
    expect(isStorableAnswer(401, 'application/json', ok)).toBe(false);
    expect(isStorableAnswer(500, 'application/json', ok)).toBe(false);
    expect(isStorableAnswer(200, 'text/html', ok)).toBe(false);
    expect(isStorableAnswer(200, null, ok)).toBe(false);
    expect(isStorableAnswer(200, 'application/json', '{"success":tr')).toBe(false);
    expect(isStorableAnswer(200, 'application/json', 'null')).toBe(false);
  });
});
