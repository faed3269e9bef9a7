import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryType } from '../../domain/contract';
import { isMainlandIdNumber, MOBILE_PATTERN } from '../../domain/identity';
import { EXAMPLE_ID_NUMBER, EXAMPLE_MOBILE, HIDDEN_PHOTO, maskIdNumber, maskPhone } from '../../domain/personal-data';
import { dateOf } from '../../domain/visit-rules';
import type { RouteInfo } from '../../server/core/context';
import { idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * Personal data masked by default (docs/personal-data.md): every declared
 * list, detail and export a demo role may call, called as that role over the
 * seeded demo park, must carry no whole resident ID number (17 digits and a
 * valid check character) and no whole mobile number, wherever in the answer.
 */

const ACCOUNTS = ['admin', 'contact', 'portcontact', 'reviewer', 'squad', 'hazard', 'patrol', 'lead', 'auditor'];
/** Reads that end the session or start work: never walked. */
const NOT_READS = new Set(['/api/user/logout']);

const ID_IN_TEXT = /(?<![0-9A-Za-z])\d{17}[\dXx](?![0-9A-Za-z])/g;
const MOBILE_IN_TEXT = /(?<![0-9A-Za-z])1[3-9]\d{9}(?![0-9A-Za-z])/g;

/**
 * The answers a route deliberately gives as stored (marked by the
 * x-personal-data header): a filer's own draft, and a contact's own approved
 * waybills offered to a new appointment. Any other answer marked so is a leak.
 */
const IN_CLEAR_ROUTE = /\/(get|detail)$|^\/transportList\/approvedOptions$/;

/** The import templates' example row: made-up numbers, no person's. */
const EXAMPLES = new Set([EXAMPLE_ID_NUMBER, EXAMPLE_MOBILE]);

/** Each whole ID or mobile number in a text. */
export function clearNumbersIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(ID_IN_TEXT)) if (isMainlandIdNumber(m[0]) && !EXAMPLES.has(m[0])) found.push(m[0]);
  for (const m of text.matchAll(MOBILE_IN_TEXT)) if (MOBILE_PATTERN.test(m[0]) && !EXAMPLES.has(m[0])) found.push(m[0]);
  return found;
}

/** Every object in a JSON answer, at any depth: the rows a detail's id is taken from. */
function rowsIn(value: unknown, out: Array<Record<string, unknown>> = [], depth = 0): Array<Record<string, unknown>> {
  if (depth > 6 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) for (const v of value) rowsIn(v, out, depth + 1);
  else {
    out.push(value as Record<string, unknown>);
    for (const v of Object.values(value)) rowsIn(v, out, depth + 1);
  }
  return out;
}
const areaOf = (path: string) => path.split('/').filter(Boolean)[0]!.replace(/^v2$/, '');

/** The walkable reads: a user's call, no operation (mutations declare one), no path parameter, JSON or an xlsx. */
export function walkableReads(routes: RouteInfo[]): RouteInfo[] {
  return routes.filter((r) => {
    if (r.permission === 'public' || r.permission === 'device' || r.operation || r.url.includes(':') || NOT_READS.has(r.url)) return false;
    const binary = r.schema?.answer ? binaryType(r.schema.answer) : undefined;
    return binary === undefined || binary.includes('spreadsheetml');
  });
}

async function cellsOf(buffer: ArrayBuffer): Promise<string> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(buffer);
  const out: string[] = [];
  book.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((cell) => out.push(String(cell.text ?? '')))));
  return out.join('\n');
}

for (const dialect of await dialects()) {
  describe(`personal data masked on every read (${dialect})`, () => {
    let server: TestServer;
    const as: Record<string, Client> = {};

    beforeAll(async () => {
      server = await startServer(dialect);
      const clients = await Promise.all(ACCOUNTS.map((a) => new Client(server).as(a)));
      ACCOUNTS.forEach((a, i) => (as[a] = clients[i]!));
    }, 120_000);
    afterAll(async () => server?.close());

    it('answers no whole ID or mobile number on any list or export, to any demo role', { timeout: 300_000 }, async () => {
      const reads = walkableReads(server.app.ctx.routes);
      expect(reads.length).toBeGreaterThan(40);
      const leaks: string[] = [];
      const refused: string[] = [];
      const notWalked: string[] = [];
      const pendingDetails: Array<{ account: string; route: RouteInfo; path: string; field: string }> = [];
      const rowsByArea = new Map<string, Array<Record<string, unknown>>>();
      let walked = 0;
      let walkedDetails = 0;
      /** Whether an answer is one given as stored on purpose; one marked so by any other route is a leak of its own. */
      const asStored = (res: Response, path: string): boolean => {
        if (res.headers.get('x-personal-data') !== 'as-stored') return false;
        if (!IN_CLEAR_ROUTE.test(path.split('?')[0]!)) leaks.push(`${path}: answered as stored`);
        return true;
      };
      /** The answer's text (an xlsx's cells) and, for JSON, its rows; null when it is not a 200. */
      const read = async (res: Response): Promise<{ text: string; rows?: Array<Record<string, unknown>> } | null> => {
        if (res.status !== 200) {
          await res.arrayBuffer();
          return null;
        }
        if ((res.headers.get('content-type') ?? '').includes('spreadsheetml')) return { text: await cellsOf(await res.arrayBuffer()) };
        const text = await res.text();
        return { text, rows: rowsIn(JSON.parse(text)) };
      };
      for (const account of ACCOUNTS) {
        const client = as[account]!;
        const info = await client.get<{ permissions: string[] }>('/user/info');
        const held = new Set(info.body.data.permissions);
        for (const r of reads) {
          if (r.permission !== 'role' && r.permission !== 'signed-in' && !held.has(r.permission)) continue;
          const path = r.url.slice('/api'.length);
          const send = (body: Record<string, unknown>) =>
            fetch(`${server.base}${r.url}${r.method === 'GET' ? `?${new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)]))}` : ''}`, {
              method: r.method,
              headers: { authorization: `Bearer ${client.token}`, ...(r.method === 'POST' ? { 'content-type': 'application/json' } : {}) },
              ...(r.method === 'POST' ? { body: JSON.stringify(body) } : {}),
            });
          let res = await send({ pn: 1, size: 100 });
          if (res.status === 400) {
            await res.arrayBuffer();
            res = await send({});
          }
          // A detail names the id it needs: it is walked with ids from the rows its area's lists answered.
          if (res.status === 400) {
            const missing = ((await res.json()) as { data?: { errors?: Array<{ field: string }> } }).data?.errors?.[0]?.field;
            pendingDetails.push({ account, route: r, path, field: missing ?? '' });
            continue;
          }
          const outcome = await read(res);
          if (outcome === null) {
            refused.push(`${account} ${r.method} ${path}: ${res.status}`);
            continue;
          }
          walked++;
          if (outcome.rows) for (const row of outcome.rows) (rowsByArea.get(areaOf(path)) ?? rowsByArea.set(areaOf(path), []).get(areaOf(path))!).push(row);
          const clear = asStored(res, path) ? [] : clearNumbersIn(outcome.text);
          if (clear.length) leaks.push(`${account} ${r.method} ${path}: ${[...new Set(clear)].slice(0, 3).join(', ')}`);
        }
      }
      for (const { account, route: r, path, field } of pendingDetails) {
        const client = as[account]!;
        const snake = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
        const firstIdKey = (row: Record<string, unknown>) => Object.keys(row).find((k) => k === 'id' || k.endsWith('_id'));
        const candidates = (rowsByArea.get(areaOf(path)) ?? [])
          .map((row) => row[field] ?? row[snake] ?? (/(^i|I)d$/.test(field) ? row[firstIdKey(row) ?? ''] : undefined))
          .filter((v) => typeof v === 'number' || (typeof v === 'string' && v !== ''));
        const ids = [...new Set(candidates)].slice(0, 3);
        if (ids.length === 0) {
          notWalked.push(`${account} ${r.method} ${path} (${field})`);
          continue;
        }
        for (const id of ids) {
          const body = { [field]: id };
          const res = await fetch(`${server.base}${r.url}${r.method === 'GET' ? `?${new URLSearchParams({ [field]: String(id) })}` : ''}`, {
            method: r.method,
            headers: { authorization: `Bearer ${client.token}`, ...(r.method === 'POST' ? { 'content-type': 'application/json' } : {}) },
            ...(r.method === 'POST' ? { body: JSON.stringify(body) } : {}),
          });
          const outcome = await read(res);
          if (outcome === null) continue;
          walkedDetails++;
          const clear = asStored(res, path) ? [] : clearNumbersIn(outcome.text);
          if (clear.length) leaks.push(`${account} ${r.method} ${path}?${field}=${id}: ${[...new Set(clear)].slice(0, 3).join(', ')}`);
        }
      }
      console.log(`walked ${walked} lists and ${walkedDetails} details; refused: ${refused.length}, details without an id at hand: ${notWalked.length}\n${[...refused, ...notWalked].join('\n')}`);
      expect(walked).toBeGreaterThan(100);
      expect(walkedDetails).toBeGreaterThan(50);
      expect(leaks).toEqual([]);
    });
  });
}

for (const dialect of await dialects()) {
  describe(`personal data: drafts, edits, photos, reveal and exports (${dialect})`, () => {
    let server: TestServer;
    let admin: Client, contact: Client, lead: Client, patrol: Client, reviewer: Client, squad: Client;
    let today = '';
    let depart = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      [admin, contact, lead, patrol, reviewer, squad] = await Promise.all(['admin', 'contact', 'lead', 'patrol', 'reviewer', 'squad'].map((a) => new Client(server).as(a)));
      today = dateOf(server.app.ctx.time());
      depart = (await server.app.ctx.db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
    }, 120_000);
    afterAll(async () => server?.close());

    const draft = async (seq: number) => {
      const body = personApplicationBody({ today, visitor_idcard: idNumber(seq), interviewee_depart_id: depart });
      const r = await contact.post<{ id: number }>('/v2/personApplications/save', body);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return { id: r.body.data.id, body };
    };
    const stored = (id: number) =>
      server.app.ctx.db.selectFrom('person_application').select(['visitor_idcard', 'visitor_phone', 'state']).where('person_application_id', '=', id).executeTakeFirstOrThrow();

    it('shows the filer a draft as typed, and masks it once submitted', async () => {
      const { id, body } = await draft(9101);
      const asDraft = await contact.post<Record<string, unknown>>('/personApplications/get', { id });
      expect(asDraft.status, JSON.stringify(asDraft.body)).toBe(200);
      expect(asDraft.body.data).toMatchObject({ visitor_idcard: body.visitor_idcard, visitor_phone: body.visitor_phone });
      expect((await contact.post('/personApplications/push', { id })).status).toBe(200);
      const detail = await contact.get<Record<string, unknown>>(`/personApplications/detail?id=${id}`);
      expect(detail.body.data).toMatchObject({ visitor_idcard: maskIdNumber(body.visitor_idcard), visitor_phone: maskPhone(body.visitor_phone) });
      expect(JSON.stringify(detail.body)).not.toContain(body.visitor_idcard);
    });

    it('keeps the stored value for a masked value sent back unchanged, and refuses any other masked value naming the field', async () => {
      const { id, body } = await draft(9102);
      const masked = { ...body, person_application_id: id, visitor_idcard: maskIdNumber(body.visitor_idcard), visitor_phone: maskPhone(body.visitor_phone), visit_content: '改过的来访事由' };
      const r = await contact.post('/v2/personApplications/edit', masked);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(await stored(id)).toMatchObject({ visitor_idcard: body.visitor_idcard, visitor_phone: body.visitor_phone });
      const wrong = await contact.post('/v2/personApplications/edit', { ...masked, visitor_phone: '139****0000' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.msg).toContain('脱敏');
      expect(wrong.body.msg).toContain('手机号');
      expect(await stored(id)).toMatchObject({ visitor_phone: body.visitor_phone });

      // The profile: one's own phone shows masked too, and saving the profile unchanged keeps it.
      const self = await contact.post<{ phone: string; userName: string; gender: number }>('/user/self', {});
      expect(self.body.data.phone).toMatch(/^\d{3}\*{4}\d{4}$/);
      const before = await server.app.ctx.db.selectFrom('sys_user').select('phone').where('account', '=', 'contact').executeTakeFirstOrThrow();
      const saved = await contact.post('/user/updateSelf', {
        content: await contact.encrypt({ userName: self.body.data.userName, gender: self.body.data.gender, phone: self.body.data.phone, password: '' }),
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      expect(await server.app.ctx.db.selectFrom('sys_user').select('phone').where('account', '=', 'contact').executeTakeFirstOrThrow()).toEqual(before);
    });

    it('shows face and ID photos, and serves their files, only to pii:view', async () => {
      const row = await server.app.ctx.db
        .selectFrom('person_black_white_list')
        .select(['id', 'face_photo'])
        .where('face_photo', '!=', '')
        .where('deleted', '=', 0)
        .where('status', '!=', 0)
        .executeTakeFirstOrThrow();
      const face = row.face_photo!.split(';')[0]!;
      const fileStatus = async (who: Client) => (await fetch(`${server.base}/api/file/${face}`, { headers: { authorization: `Bearer ${who.token}` } })).status;
      const shown = async (who: Client) => (await who.get<Record<string, unknown>>(`/personBlackWhiteList/detail?id=${row.id}`)).body.data?.face_photo;
      expect(await shown(squad)).toBe(row.face_photo);
      expect(await fileStatus(squad)).toBe(200);
      expect(await shown(admin)).toBe(row.face_photo);
      // The lead keeps the lists but holds no pii:view.
      expect(await shown(lead)).toBe(HIDDEN_PHOTO);
      expect(await fileStatus(lead)).not.toBe(200);
    });

    it('reveals one field of one record with a reason, logged; refuses without the code, a reason or a readable record', async () => {
      const { id, body } = await draft(9103);
      expect((await contact.post('/personApplications/push', { id })).status).toBe(200);
      const ask = (who: Client, extra: Record<string, unknown> = {}) =>
        who.post<{ value: string }>('/pii/reveal', { record: 'person_application', id, field: 'visitor_idcard', reason: '核对访客身份', ...extra });
      const r = await ask(reviewer);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.value).toBe(body.visitor_idcard);
      const log = await server.app.ctx.db
        .selectFrom('sys_operation_log')
        .select(['account', 'operation', 'params', 'result'])
        .where('operation', '=', '查看个人信息')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(log).toMatchObject({ account: 'reviewer', result: 1 });
      expect(JSON.parse(log.params)).toMatchObject({ record: 'person_application', id, field: 'visitor_idcard', reason: '核对访客身份' });
      expect(log.params).not.toContain(body.visitor_idcard);

      const noReason = await ask(reviewer, { reason: '' });
      expect([noReason.status, noReason.body.msg]).toEqual([400, '请填写查看原因']);
      const notPersonal = await ask(reviewer, { field: 'visit_content' });
      expect([notPersonal.status, notPersonal.body.msg]).toEqual([400, '该字段不是可查看的个人信息']);
      const noCode = await ask(patrol);
      expect(noCode.status).toBe(403);
      expect(noCode.body.msg).toContain('pii:view');
      const absent = await ask(reviewer, { id: 2_147_483_000 });
      expect([absent.status, absent.body.msg]).toEqual([404, '记录不存在或无权查看']);
    });

    it('exports masked by default, and in full only with pii:view and a reason, logged', async () => {
      const { id, body } = await draft(9104);
      expect((await contact.post('/personApplications/push', { id })).status).toBe(200);
      const exportAs = async (who: Client, extra: Record<string, unknown> = {}) => {
        const res = await fetch(`${server.base}/api/personApplications/all/history/export`, {
          method: 'POST',
          headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ visitor_idcard: body.visitor_idcard, ...extra }),
        });
        return { status: res.status, text: res.headers.get('content-type')?.includes('spreadsheetml') ? await cellsOf(await res.arrayBuffer()) : await res.text() };
      };
      const masked = await exportAs(squad);
      expect(masked.status).toBe(200);
      expect(masked.text).toContain(maskIdNumber(body.visitor_idcard));
      expect(masked.text).not.toContain(body.visitor_idcard);
      const full = await exportAs(squad, { full_reason: '配合公安核查' });
      expect(full.status).toBe(200);
      expect(full.text).toContain(body.visitor_idcard);
      const log = await server.app.ctx.db.selectFrom('sys_operation_log').select(['account', 'params']).where('operation', '=', '导出人员预约总记录').orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(log.account).toBe('squad');
      expect(JSON.parse(log.params)).toMatchObject({ full_reason: '配合公安核查' });
      // The all-history export without pii:view: masked only.
      await server.app.ctx.db
        .deleteFrom('sys_role_permission')
        .where('role_id', '=', (await server.app.ctx.db.selectFrom('sys_role').select('role_id').where('code', '=', 'squad_reviewer').executeTakeFirstOrThrow()).role_id)
        .where('permission_id', '=', (await server.app.ctx.db.selectFrom('sys_permission').select('permission_id').where('code', '=', 'pii:view').executeTakeFirstOrThrow()).permission_id)
        .execute();
      const squadAgain = await new Client(server).as('squad');
      const refused = await exportAs(squadAgain, { full_reason: '配合公安核查' });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('pii:view');
    });

    it('exports what the park holds about one person whole, then anonymises it but what a legal minimum keeps, logged masked', async () => {
      const { id, body } = await draft(9105);
      expect((await contact.post('/personApplications/push', { id })).status).toBe(200);
      const idcard = body.visitor_idcard;
      const db = server.app.ctx.db;
      const device = (await db.selectFrom('equipment').select('id').orderBy('id').executeTakeFirstOrThrow()).id;
      const now = server.app.ctx.time();
      const crossing = (event: string, at: string) =>
        db
          .insertInto('gate_record_person')
          .values({
            device_id: device,
            event_id: event,
            idcard,
            person_name: body.visitor_name,
            card_number: '',
            card_status: null,
            image_type: null,
            direction: 1,
            open_result: 1,
            snapshot: '',
            capture_time: at,
            create_time: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
      const old = await crossing(`pii-old-${id}`, '2020-01-02 08:00:00');
      const recent = await crossing(`pii-new-${id}`, now);

      const exportAs = (who: Client, extra: Record<string, unknown> = {}) =>
        fetch(`${server.base}/api/pii/subject/export`, {
          method: 'POST',
          headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ idcard, reason: '本人申请查阅', ...extra }),
        });
      const res = await exportAs(admin);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toContain(encodeURIComponent(`个人信息_尾号${idcard.slice(-4)}_`));
      const cells = await cellsOf(await res.arrayBuffer());
      expect(cells).toContain(idcard);
      expect(cells).toContain(body.visitor_phone);
      expect(cells).toContain('2020-01-02 08:00:00');
      expect((await exportAs(reviewer)).status).toBe(403);
      const bad = await exportAs(admin, { idcard: '12' });
      expect(bad.status).toBe(400);
      expect(await bad.text()).toContain('证件号码格式不正确');

      const gone = await admin.post<{ idcard_masked: string; counts: Array<{ record: string; rows: number }>; kept: Array<{ record: string; rows: number }> }>('/pii/subject/anonymise', {
        idcard,
        reason: '本人申请删除',
      });
      expect(gone.status, JSON.stringify(gone.body)).toBe(200);
      expect(gone.body.data.idcard_masked).toBe(maskIdNumber(idcard));
      expect(gone.body.data.counts).toContainEqual({ record: '人员预约', rows: 1 });
      expect(gone.body.data.counts).toContainEqual({ record: '人员过闸记录', rows: 1 });
      expect(gone.body.data.kept).toContainEqual(expect.objectContaining({ record: '人员过闸记录', rows: 1 }));
      expect((await stored(id)).visitor_idcard).toBe(maskIdNumber(idcard));
      const gate = await db.selectFrom('gate_record_person').select(['id', 'idcard']).where('id', 'in', [old.id, recent.id]).orderBy('id').execute();
      expect(gate.map((g) => g.idcard)).toEqual([maskIdNumber(idcard), idcard]);

      const logs = await db.selectFrom('sys_operation_log').select(['operation', 'params']).where('operation', 'in', ['导出个人信息', '删除个人信息']).execute();
      expect(logs.map((l) => l.operation)).toEqual(expect.arrayContaining(['导出个人信息', '删除个人信息']));
      for (const l of logs) expect(l.params).not.toContain(idcard);
      expect(logs.some((l) => l.params.includes(maskIdNumber(idcard)))).toBe(true);
    });
  });
}
