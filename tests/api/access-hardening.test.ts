import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { rgbPng } from '../../server/seed/seed-appointments';
import { idNumber, registrationBody, waybillBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/** Issue 23, items 7, 9, 10c, 10d: who reads what, and logs that tell the truth, on both databases. */

type Row = Record<string, unknown>;

/** A request line sent as written: fetch would resolve `..`, `\\` and `%61` before the server saw them. */
function rawRequest(base: string, method: string, target: string, token?: string | null): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      const body = method === 'POST' ? '{}' : '';
      const headers = [
        `${method} ${target} HTTP/1.1`,
        'Host: park.local',
        'Connection: close',
        ...(token ? [`Authorization: Bearer ${token}`] : []),
        ...(body ? ['Content-Type: application/json', `Content-Length: ${body.length}`] : []),
      ];
      socket.write(`${headers.join('\r\n')}\r\n\r\n${body}`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), type: /content-type: ([^\r\n;]*)/i.exec(head)?.[1] ?? '', body: rest.join('\r\n\r\n') });
    });
  });
}

for (const dialect of await dialects()) {
  describe(`access hardening on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let contact: Client, hazard: Client, squad: Client, lead: Client;
    let today = '';
    let seq = 0;

    let ui = '';

    beforeAll(async () => {
      // A built app to fall back to, as `npm start` serves: the API's 404s must not become its page.
      ui = fs.mkdtempSync(path.join(os.tmpdir(), 'park-ui-'));
      fs.writeFileSync(path.join(ui, 'index.html'), '<!doctype html><title>园区</title>');
      fs.writeFileSync(path.join(ui, 'manifest.webmanifest'), '{}');
      server = await startServer(dialect, { staticDir: ui });
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [contact, hazard, squad, lead] = await Promise.all(['contact', 'hazard', 'squad', 'lead'].map((a) => new Client(server).as(a)));
    });
    afterAll(async () => {
      await server?.close();
      fs.rmSync(ui, { recursive: true, force: true });
    });

    /** A fresh upload each time: a photo shared with a submitted row would be readable through that row. */
    const upload = async (c: Client) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(rgbPng(2, 2, () => [120, 130, 140 + (++seq % 100)]))], { type: 'image/png' }), 'doc.png');
      const r = await fetch(`${server.base}/api/file/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
      return ((await r.json()) as { data: { name: string } }).data.name;
    };
    const readFile = (c: Client, name: string) => fetch(`${server.base}/api/file/${name}`, { headers: { authorization: `Bearer ${c.token}` } }).then((r) => r.status);
    const saved = async (c: Client, url: string, body: Row) => {
      const r = await c.post<{ id: number }>(url, body);
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '创建成功！' });
      return r.body.data.id;
    };
    const plate = (letter: string) => `粤${letter}${String(++seq).padStart(4, '0')}${dialect === 'sqlite' ? 'S' : 'P'}`;

    const registration = (photo: string): Row => registrationBody({ today, license_plate: plate('L'), photo });
    const waybill = (annex: string): Row => waybillBody({ today, list_number: `44130020260009${String(++seq).padStart(4, '0')}`, license_plate: plate('K'), annex });

    it("answers 404 to approvers on a contact's draft registration and waybill, their photos and process, and reads them once submitted", async () => {
      const cases = [
        { base: '/vehicleRegistration', detail: '/vehicleRegistration/detail', history: '/vehicleRegistration/history/list', revoke: '/vehicleRegistration/history/revoke', body: registration },
        { base: '/transportList', detail: '/transportList/detail', history: '/transportList/list', revoke: '/transportList/revokeForHis', body: waybill },
      ];
      for (const c of cases) {
        const photo = await upload(contact);
        const id = await saved(contact, `${c.base}/save`, c.body(photo));
        expect((await contact.get(`${c.detail}?id=${id}`)).status).toBe(200);
        expect(await readFile(contact, photo)).toBe(200);
        for (const approver of [hazard, squad]) {
          const detail = await approver.get(`${c.detail}?id=${id}`);
          expect(detail.status, `${c.detail} ${JSON.stringify(detail.body)}`).toBe(404);
          expect(detail.body.code).toBe(1005);
          expect((await approver.post(`${c.base}/checkProcessInfo`, { id })).status).toBe(404);
          expect(await readFile(approver, photo), c.base).toBe(404);
        }
        // Nor does a history revoke tell it apart from a row that does not exist.
        const revoke = await squad.post(c.revoke, { id, reason: '测试撤销' });
        expect(revoke.status, `${c.revoke} ${JSON.stringify(revoke.body)}`).toBe(404);
        const history = await squad.post<{ list: Array<{ id: number }> }>(c.history, { size: 100, pn: 1 });
        expect(history.status, c.history).toBe(200);
        expect(history.body.data.list.map((r) => r.id)).not.toContain(id);

        expect((await contact.post(`${c.base}/push`, { id })).body.msg).toBe('提交成功！');
        for (const approver of [hazard, squad]) {
          expect((await approver.get(`${c.detail}?id=${id}`)).status, c.detail).toBe(200);
          expect(await readFile(approver, photo)).toBe(200);
        }
        expect((await squad.post<{ list: Array<{ id: number }> }>(c.history, { size: 100, pn: 1 })).body.data.list.map((r) => r.id)).toContain(id);
      }
    });

    it("answers 404 to the squad on the lead's draft list entries and their face photo, and reads them once submitted", async () => {
      const model = (await ctx.db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
      const face = await upload(lead);
      const entries = [
        { base: '/carBlackWhiteList', body: { license_plate: plate('L'), vehicle_type_id: model, type: 1, start_time: today, end_time: addDays(today, 30), in_reason: '多次违规进入' }, photo: null },
        {
          base: '/personBlackWhiteList',
          body: { name: '张三', gender: 0, idcard_type: 1, idcard: idNumber(9000 + ++seq, '03'), type: 1, start_time: today, end_time: addDays(today, 30), in_reason: '冒用证件', face_photo: face },
          photo: face,
        },
      ];
      for (const e of entries) {
        const id = await saved(lead, `${e.base}/save`, e.body);
        expect((await lead.get(`${e.base}/detail?id=${id}`)).status).toBe(200);
        const draft = await squad.get(`${e.base}/detail?id=${id}`);
        expect(draft.status, `${e.base} ${JSON.stringify(draft.body)}`).toBe(404);
        expect(draft.body.msg).toContain('不存在');
        if (e.photo) expect(await readFile(squad, e.photo)).toBe(404);
        expect((await lead.post(`${e.base}/push`, { id })).body.msg).toBe('提交成功！');
        expect((await squad.get(`${e.base}/detail?id=${id}`)).status, e.base).toBe(200);
        if (e.photo) expect(await readFile(squad, e.photo)).toBe(200);
      }
    });

    it('keeps the name an operation log row was written with after the user renames themselves', async () => {
      const auditor = await new Client(server).as('auditor');
      const self = (await auditor.post<{ userName: string; gender: number; phone: string }>('/user/self')).body.data;
      const rename = async (userName: string) => {
        const r = await auditor.post('/user/updateSelf', { content: await auditor.encrypt({ userName, gender: self.gender, phone: self.phone, password: '' }) });
        expect(r.body.msg, JSON.stringify(r.body)).toBe('编辑成功！');
      };
      const rows = async () =>
        (await auditor.post<{ list: Array<{ user_name: string | null; operation: string }> }>('/log/user/page', { size: 100, pn: 1, account: 'auditor' })).body.data.list.filter(
          (r) => r.operation === '修改个人信息',
        );
      try {
        // Each rename is written under the name the caller had when making it.
        await rename('孙丽甲');
        await rename('孙丽乙');
        await rename('孙丽丙');
        expect((await rows()).map((r) => r.user_name)).toEqual(['孙丽乙', '孙丽甲', self.userName]);
      } finally {
        await rename(self.userName);
      }
      expect((await rows()).map((r) => r.user_name)).toEqual(['孙丽丙', '孙丽乙', '孙丽甲', self.userName]);
    });

    it('keeps no typed account that names nobody: a password typed into the account field stays out of the login log and the captcha tables', async () => {
      const typed = `Pw${dialect}#Secret2026`;
      const stranger = new Client(server);
      expect((await stranger.requestCaptcha(typed)).status).toBe(200);
      const attempt = await stranger.post('/user/v2login', { content: await stranger.encrypt({ account: typed, password: 'Whatever1', captcha: '123456' }) });
      expect(attempt.body.success).toBe(false);
      // A known account typed with a wrong code is still logged under its account.
      const known = new Client(server);
      await known.requestCaptcha('patrol');
      await known.post('/user/v2login', { content: await known.encrypt({ account: 'patrol', password: 'Whatever1', captcha: '000000' }) });

      const { db } = ctx;
      const dump = JSON.stringify([
        await db.selectFrom('sys_login_log').selectAll().execute(),
        await db.selectFrom('sys_captcha').selectAll().execute(),
        await db.selectFrom('rate_counter').selectAll().execute(),
      ]);
      expect(dump).not.toContain(typed);
      const auditor = await new Client(server).as('auditor');
      const logged = (await auditor.post<{ list: Array<{ account: string; user_name: string; remark: string }> }>('/log/login/page', { size: 100, pn: 1, result: 0 })).body.data.list;
      expect(logged.find((r) => r.account === '' && r.remark === '验证码已过期或未获取（账号不存在）')).toBeTruthy();
      expect(logged.find((r) => r.account === 'patrol' && r.user_name === '张伟')).toBeTruthy();
    });

    it('answers every /api path that names no route with the 404 envelope, traversals included, and keeps the app page for its screens', async () => {
      const apiPaths = [
        '/api/nothing/here',
        '/api',
        '/api/file/..\\..\\park.db',
        '/api/file/..%5C..%5Cpark.db',
        '/api/file/..%2F..%2Fpark.db',
        '/api/file/../../park.db',
        '/api/%E0%A4%A',
        // Paths a browser or proxy resolves to an API path before asking.
        '/x/../api/nothing',
        '/./api/nothing',
        '//api/nothing',
        '/%61pi/nothing',
        '/api%2Fnothing',
      ];
      for (const method of ['GET', 'POST']) {
        for (const target of apiPaths) {
          for (const token of [contact.token, null]) {
            const r = await rawRequest(server.base, method, target, token);
            const what = `${method} ${target} ${token ? 'signed in' : 'signed out'}: ${r.status} ${r.body.slice(0, 80)}`;
            expect(r.type, what).toBe('application/json');
            const body = JSON.parse(r.body);
            expect(body.success, what).toBe(false);
            // The file route asks for a sign-in first and a malformed escape is a bad request; otherwise the 404 of a missing route or file.
            expect({ [400]: 1001, [401]: 1002, [404]: 1005 }[r.status], what).toBe(body.code);
            if (!target.startsWith('/api/file/') && !target.includes('%E0')) expect(r.status, what).toBe(404);
            expect(body.msg, what).toMatch(/[\u4e00-\u9fff]/);
          }
        }
      }
      expect((await rawRequest(server.base, 'GET', '/api/no/route', contact.token)).body).toContain('接口不存在：GET /api/no/route');
      // The app's screens, its files, and a missing file that is no screen.
      for (const screen of ['/', '/login', '/vehicles/transport-history?open=3', '/apix']) {
        const r = await rawRequest(server.base, 'GET', screen);
        expect(r.status, screen).toBe(200);
        expect(r.type, screen).toBe('text/html');
      }
      expect((await rawRequest(server.base, 'GET', '/manifest.webmanifest')).status).toBe(200);
      // Nothing outside the app's directory is sent: a path out of it is a screen name at most.
      expect((await rawRequest(server.base, 'GET', '/..%2F..%2F..%2Fetc%2Fhostname')).body).toContain('<title>园区</title>');
      for (const file of ['/park.db', '/assets/index-0000.js', '/..%2F..%2Fpark.db', '/x/..%5C..%5Cpark.db']) {
        const r = await rawRequest(server.base, 'GET', file);
        expect(r.status, file).toBe(404);
        expect(JSON.parse(r.body)).toMatchObject({ success: false, code: 1005, msg: '页面不存在' });
      }
    });
  });
}
