import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INT_MAX } from '../../domain/schemas/common';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * Hostile and unlucky input from outside (issue 9): what the server answers
 * must be the envelope, in Chinese, with the status of its class, on both
 * databases, and never a 500.
 */

const isEnvelope = (body: unknown) => !!body && typeof body === 'object' && ['success', 'code', 'msg', 'message', 'data'].every((k) => k in (body as object));
const hasChinese = (s: unknown) => typeof s === 'string' && /[\u4e00-\u9fff]/.test(s);

async function raw(server: TestServer, method: string, url: string, init: { body?: string; headers?: Record<string, string>; token?: string | null } = {}) {
  const res = await fetch(server.base + url, {
    method,
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...init.headers },
    body: init.body,
  });
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

for (const dialect of await dialects()) {
  describe(`hostile requests on ${dialect}`, () => {
    let server: TestServer;
    let admin: Client;
    let contact: Client;
    beforeAll(async () => {
      server = await startServer(dialect);
      admin = await new Client(server).as('admin');
      contact = await new Client(server).as('contact');
    });
    afterAll(async () => server?.close());

    it('refuses deeply nested bodies with 400 before anything walks them, with or without an Idempotency-Key', async () => {
      const bodies = ['{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), '['.repeat(100_000) + ']'.repeat(100_000)];
      for (const body of bodies) {
        for (const headers of [{}, { 'idempotency-key': `deep-${Math.random()}` }] as Array<Record<string, string>>) {
          for (const url of ['/api/carApplications/save', '/api/user/page', '/api/carApplications/task/check']) {
            const r = await raw(server, 'POST', url, { body, headers, token: admin.token });
            expect(r.status, `${url} ${JSON.stringify(headers)}`).toBe(400);
            expect(isEnvelope(r.body)).toBe(true);
            expect(r.body.msg).toBe('请求体嵌套层数过深：最多32层');
          }
        }
      }
    });

    it('answers what the framework refuses as the envelope in Chinese', async () => {
      const longQuery = await raw(server, 'GET', `/api/carApplications/detail?id=1&pad=${'x'.repeat(60_000)}`, { token: contact.token });
      expect(longQuery.status).toBe(431);
      expect(isEnvelope(longQuery.body) && hasChinese(longQuery.body.msg)).toBe(true);

      const longParam = await raw(server, 'GET', `/api/common/enum/${'x'.repeat(500)}`, { token: contact.token });
      expect(longParam.status).toBe(414);
      expect(longParam.body).toMatchObject({ success: false, code: 1018, msg: '请求地址中的参数过长' });

      const media = await raw(server, 'POST', '/api/user/page', { body: '<a/>', headers: { 'content-type': 'application/xml' }, token: admin.token });
      expect(media.status).toBe(415);
      expect(isEnvelope(media.body) && hasChinese(media.body.msg)).toBe(true);

      const malformed = await raw(server, 'POST', '/api/user/page', { body: '{"size":', token: admin.token });
      expect(malformed).toMatchObject({ status: 400, body: { code: 1001, msg: '请求体不是有效的JSON' } });

      const badLength = await raw(server, 'POST', '/api/user/page', { body: '{}', headers: { 'content-length': '50' }, token: admin.token }).catch(() => null);
      // A lying Content-Length either gets the envelope or the connection is cut; never a 500 or English text.
      if (badLength) expect(badLength.status).toBeLessThan(500);
    });

    it('answers ids the databases cannot store with 400, never a database error', async () => {
      const tooBig = [String(INT_MAX + 1), '1000000000000000', '1e15', '-1', '99999999999999999999'];
      for (const id of tooBig) {
        for (const url of ['/carApplications/detail', '/carApplications/history/detail', '/personApplications/all/history/detail', '/carApplications/task/detail', '/carApplications/pass']) {
          const r = await contact.get(`${url}?id=${id}`);
          expect(r.status, `${url}?id=${id}`).toBeLessThan(500);
          expect([400, 403, 404]).toContain(r.status);
          expect(isEnvelope(r.body)).toBe(true);
        }
      }
      const big = INT_MAX + 1;
      const bodies: Array<[string, unknown]> = [
        ['/carApplications/save', { interviewee_depart_id: big }],
        ['/personApplications/save', { interviewee_depart_id: big }],
        ['/carApplications/return', { carApplicationId: big, remark: 'x' }],
        ['/carApplications/task/check', { taskIds: `1,${big}`, result: 1 }],
        ['/label/vehicle/label', { car_application_ids: String(big), color_id: 2, label_type_id: 1, alarm_id: 3, remark: 'x' }],
        ['/carApplications/list', { vehicle_type_id: big, visit_area: big }],
        // An edit looks its row up for masked fields before its schema runs: that lookup must not reach the database.
        ['/depart/update', { depart_id: big, depart_name: 'x' }],
        ['/equipment/gate/edit', { id: big }],
        ['/vehicleType/update', { id: big }],
      ];
      for (const [url, body] of bodies) {
        const r = await admin.post(url, body);
        expect(r.status, `${url} ${JSON.stringify(body)}`).toBeLessThan(500);
        expect(isEnvelope(r.body)).toBe(true);
      }
      const saved = await admin.post<unknown>('/carApplications/save', { interviewee_depart_id: big });
      expect(saved.status).toBe(400);
      expect(JSON.stringify(saved.body.data)).toContain('超出允许的范围');
    });

    it('serves at most 100 rows a page whatever size is asked for', async () => {
      for (const size of [1e9, 1_000_000, 101]) {
        const r = await admin.post<{ list: unknown[]; total: number }>('/user/page', { size, pn: 1 });
        expect(r.status).toBe(200);
        expect(r.body.data.list.length).toBeLessThanOrEqual(100);
      }
      // Enough rows that an uncapped page would show it: 105 users, written straight to the table (hashing 105 passwords is not the point).
      await server.app.ctx.db
        .insertInto('sys_user')
        .values(
          Array.from({ length: 105 }, (_, i) => ({
            user_name: `分页${i}`,
            account: `page_cap_${i}`,
            password_hash: '-',
            gender: 0,
            phone: `139${String(10_000_000 + i)}`,
            depart_id: 1,
            status: 1,
            uuid: `page-cap-${i}`,
            create_user_id: null,
            create_time: '2026-11-24 08:00:00',
            update_time: '2026-11-24 08:00:00',
          })),
        )
        .execute();
      const big = await admin.post<{ list: unknown[]; total: number }>('/user/page', { size: 1e9, pn: 1, account: 'page_cap_' });
      expect(big.body.data.total).toBe(105);
      expect(big.body.data.list).toHaveLength(100);
      const second = await admin.post<{ list: unknown[] }>('/user/page', { size: 1e9, pn: 2, account: 'page_cap_' });
      expect(second.body.data.list).toHaveLength(5);
      const models = await admin.post<unknown[]>('/vehicleType/options', {});
      expect(models.status).toBe(200);
      expect(Array.isArray(models.body.data) && models.body.data.length).toBeGreaterThan(0);
    });

    it('finds _ and % literally in "contains" searches, ignoring ASCII case, the same on both databases', async () => {
      for (const [account, phone] of [
        ['accept_norole', '13977770001'],
        ['acceptxnorole', '13977770002'],
      ]) {
        const r = await admin.post('/user/save', { content: await admin.encrypt({ userName: `搜索${account}`, account, password: 'Secret9Word', gender: 0, phone, departId: 1 }) });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
      }
      const accounts = async (account: string) => (await admin.post<{ list: Array<{ account: string }> }>('/user/page', { size: 100, pn: 1, account })).body.data.list.map((u) => u.account).sort();
      expect(await accounts('accept_norole')).toEqual(['accept_norole']);
      expect(await accounts('t_n')).toEqual(['accept_norole']);
      expect(await accounts('ACCEPT_NOROLE')).toEqual(['accept_norole']);
      // Unescaped, % would match every account.
      expect(await accounts('%')).toEqual([]);
      expect(await accounts('acceptxno')).toEqual(['acceptxnorole']);
    });
  });
}
