import fs from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { MusterCurrentAnswer, MusterMarkAnswer, MusterReportAnswer, MusterSubjectsAnswer } from '../../domain/schemas/muster';
import type { AppContext } from '../../server/core/context';
import { deliverMusterSms } from '../../server/modules/muster/service';
import { carApplicationBody, idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, any>;

/** 应急清点 (docs/muster.md) on each dialect: who is inside comes only from gate crossings sent through the device API. */
for (const dialect of await dialects()) {
  describe(`muster on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, contact: Client, lead: Client, patrol: Client, auditor: Client;
    let today = '';
    let key = '';
    let seq = 0;
    const gateNumber = 'GATE-W-01';
    const model: Record<string, number> = {};
    const depart: Record<string, number> = {};
    const visitor = { idcard: '', phone: '13900001111', number: '' };
    const plate = `粤L${dialect === 'sqlite' ? 'M' : 'N'}8801`;

    const at = (minutesFromNow: number) => formatInZone(ctx.now() + minutesFromNow * 60_000, ctx.config.tz);
    async function send(events: Row[]) {
      const r = await fetch(`${server.base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gateNumber}:${key}` },
        body: JSON.stringify({ events }),
      });
      const body = (await r.json()) as Row;
      expect(body.data, JSON.stringify(body)).toMatchObject({ accepted: events.length });
    }
    const smsLines = () => {
      const file = path.join(server.dataDir, 'sms-outbox.jsonl');
      return fs.existsSync(file)
        ? fs
            .readFileSync(file, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Row)
        : [];
    };

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [admin, contact, lead, patrol, auditor] = await Promise.all(['admin', 'contact', 'lead', 'patrol', 'auditor'].map((a) => new Client(server).as(a)));
      for (const m of await ctx.db.selectFrom('vehicle_type').select(['id', 'name']).execute()) model[m.name] = m.id;
      for (const d of await ctx.db.selectFrom('sys_department').select(['depart_id', 'code']).execute()) depart[d.code] = d.depart_id;
      const gate = await ctx.db.selectFrom('equipment').select('id').where('number', '=', gateNumber).executeTakeFirstOrThrow();
      key = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: gate.id })).body.data.key;
      // Nothing of the demo is inside: this suite's crossings are the whole list.
      await ctx.db
        .updateTable('presence')
        .set({ exit_time: at(-120) })
        .where('exit_time', 'is', null)
        .execute();

      // An approved person visit to a chemical-park enterprise, and an approved vehicle visit.
      visitor.idcard = idNumber(7100 + (dialect === 'sqlite' ? 1 : 2));
      const p = await contact.post<{ id: number }>('/v2/personApplications/save', {
        ...personApplicationBody({ today, visitor_idcard: visitor.idcard, interviewee_depart_id: depart.CNOOC_SHELL! }),
        visitor_phone: visitor.phone,
      });
      expect(p.body, JSON.stringify(p.body)).toMatchObject({ success: true });
      await ctx.db
        .updateTable('person_application')
        .set({ state: 2, visit_begin_time: `${addDays(today, -1)} 00:00:00`, visit_end_time: `${addDays(today, 1)} 23:59:59`, visit_area: 1 })
        .where('person_application_id', '=', p.body.data.id)
        .execute();
      visitor.number = (await ctx.db.selectFrom('person_application').select('application_number').where('person_application_id', '=', p.body.data.id).executeTakeFirstOrThrow()).application_number;
      const c = await contact.post<{ id: number }>(
        '/v2/carApplications/save',
        carApplicationBody({ today, license_plate: plate, applicant_idcard: idNumber(7200 + seq++), vehicle_type_id: model['小型汽车']!, interviewee_depart_id: depart.CNOOC_SHELL! }),
      );
      expect(c.body, JSON.stringify(c.body)).toMatchObject({ success: true });
      await ctx.db
        .updateTable('car_application')
        .set({ state: 2, visitor_begin_time: `${addDays(today, -1)} 00:00:00`, visitor_end_time: `${addDays(today, 1)} 23:59:59`, visit_area: 1, applicant_phone: '13900002222' })
        .where('car_application_id', '=', c.body.data.id)
        .execute();
      // Both come in; a third person came in and left again; a fourth, without a visit, is inside.
      const gone = idNumber(7300 + (dialect === 'sqlite' ? 1 : 2));
      const stray = idNumber(7400 + (dialect === 'sqlite' ? 1 : 2));
      await send([
        { event_id: `${dialect}-m-1`, type: 'person', capture_time: at(-30), idcard: visitor.idcard, direction: 1, open_result: 1 },
        { event_id: `${dialect}-m-2`, type: 'vehicle', capture_time: at(-29), license_plate: plate, direction: 1, open_result: 1 },
        { event_id: `${dialect}-m-3`, type: 'person', capture_time: at(-28), idcard: gone, direction: 1, open_result: 1 },
        { event_id: `${dialect}-m-4`, type: 'person', capture_time: at(-20), idcard: gone, direction: 2, open_result: 1 },
        { event_id: `${dialect}-m-5`, type: 'person', capture_time: at(-10), idcard: stray, direction: 1, open_result: 1 },
      ]);
    });
    afterAll(async () => server?.close());

    let musterId = 0;

    it('refuses a start without its code, and names each bad field in Chinese', async () => {
      const denied = await patrol.post('/muster/start', { visit_area: 3, message: '演练' });
      expect(denied.status).toBe(403);
      const bad = await lead.post('/muster/start', { visit_area: 9, drill: 2, message: '' });
      expect(bad.status).toBe(400);
      const text = JSON.stringify(bad.body);
      expect(text).toContain('清点范围');
      expect(text).toContain('通知内容');
      expect(text).toContain('是否演练');
      expect((await lead.post('/muster/start', { visit_area: 1, message: 'x'.repeat(201) })).status).toBe(400);
      expect((await lead.get<MusterCurrentAnswer>('/muster/current')).body.data.muster).toBeNull();
    });

    it('lists everyone inside by enterprise and gate, texts those with a mobile, and lets only one run at a time', async () => {
      const started = await lead.post<MusterCurrentAnswer>('/muster/start', { visit_area: 1, drill: 1, message: '东区泄漏，请立即前往2号集合点' });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      const board = started.body.data;
      musterId = board.muster!.id;
      expect(board.muster).toMatchObject({ visit_area: 1, drill: 1, total: 3, accounted: 0 });
      const names = board.groups.map((g) => g.enterprise);
      expect(names).toContain('未关联预约');
      const visited = board.groups.find((g) => g.enterprise !== '未关联预约')!;
      expect(visited).toMatchObject({ persons: 1, vehicles: 1, persons_accounted: 0 });
      expect(board.gates[0]).toMatchObject({ persons: 2, vehicles: 1, unaccounted: 3 });
      expect(board.sms_count).toBe(2);

      // A second start, here or from another lead at the same time, is refused while one runs.
      const again = await Promise.all([lead.post('/muster/start', { visit_area: 2, message: '再次发起' }), admin.post('/muster/start', { visit_area: 3, message: '再次发起' })]);
      for (const r of again) {
        expect(r.status).toBe(409);
        expect(r.body.message).toContain('已有应急清点正在进行');
      }

      // The SMS went out after commit, once: a second pass finds nothing to send.
      await expect.poll(() => smsLines().filter((m) => String(m.text).includes('东区泄漏')).length).toBe(2);
      expect(await deliverMusterSms(ctx, musterId)).toBe(0);
      expect(smsLines().find((m) => m.phone === visitor.phone)?.text).toBe('【园区应急演练】化工区：东区泄漏，请立即前往2号集合点');
      // Every enabled user is told in the app.
      const note = await ctx.db.selectFrom('notification').select(['title', 'url']).where('kind', '=', 'muster').where('tag', '=', `muster-${musterId}`).execute();
      expect(note.length).toBeGreaterThan(5);
      expect(note[0]).toMatchObject({ title: '应急演练：化工区', url: '/security/muster' });
    });

    it('gives marshals the list with phones to call and ID numbers masked; the current board to any holder of the menu', async () => {
      const list = await patrol.get<MusterSubjectsAnswer>(`/muster/subjects?muster_id=${musterId}`);
      expect(list.status).toBe(200);
      expect(list.body.data.running).toBe(true);
      const person = list.body.data.subjects.find((s) => s.kind === 'person' && s.source === 'visit')!;
      expect(person.phone).toBe(visitor.phone);
      expect(person.subject).not.toBe(visitor.idcard);
      expect(person.subject).toContain('*');
      expect(JSON.stringify(list.body)).not.toContain(visitor.idcard);
      expect((await patrol.get<MusterCurrentAnswer>('/muster/current')).body.data.muster?.id).toBe(musterId);
      expect((await auditor.get('/muster/current')).status).toBe(403);
      expect((await patrol.get('/muster/subjects?muster_id=99999999999')).status).toBe(400);
    });

    it('marks by pass, by ID number, from the list and by plate; a second mark keeps the first', async () => {
      const list = (await patrol.get<MusterSubjectsAnswer>(`/muster/subjects?muster_id=${musterId}`)).body.data.subjects;
      const stray = list.find((s) => s.source === 'none')!;

      // The visitor's pass, as the visitor shows it on their phone.
      const pass = await ctx.db.selectFrom('person_application').select('person_application_id').where('application_number', '=', visitor.number).executeTakeFirstOrThrow();
      const issued = await contact.get<{ pass: string }>(`/personApplications/pass?id=${pass.person_application_id}`);
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      const byPass = await patrol.post<MusterMarkAnswer>('/muster/mark', { muster_id: musterId, method: 'pass', pass: issued.body.data.pass, place: '2号集合点' });
      expect(byPass.status, JSON.stringify(byPass.body)).toBe(200);
      expect(byPass.body.data).toMatchObject({ already: false, subject: { kind: 'person', source: 'visit', mark_place: '2号集合点', mark_method: 'pass', marked_by_name: expect.any(String) } });

      // The same person typed by a second marshal: the first mark stands.
      const twice = await lead.post<MusterMarkAnswer>('/muster/mark', { muster_id: musterId, method: 'idcard', idcard: visitor.idcard, place: '1号集合点' });
      expect(twice.body.data).toMatchObject({ already: true, subject: { mark_place: '2号集合点', mark_method: 'pass' } });

      const byList = await patrol.post<MusterMarkAnswer>('/muster/mark', { muster_id: musterId, method: 'list', subject_id: stray.id, place: '2号集合点' });
      expect(byList.body.data).toMatchObject({ already: false, subject: { id: stray.id } });

      // A mark made offline keeps its time (here: the very second the muster started).
      const offlineAt = (await lead.get<MusterCurrentAnswer>('/muster/current')).body.data.muster!.started_at;
      const byPlate = await patrol.post<MusterMarkAnswer>('/muster/mark', { muster_id: musterId, method: 'plate', license_plate: plate.toLowerCase(), place: '停车场A', marked_at: offlineAt });
      expect(byPlate.body.data.subject).toMatchObject({ kind: 'car', subject: plate, marked_at: offlineAt });

      // Someone found at the assembly point who was not on the list is added as such.
      const found = idNumber(7500 + (dialect === 'sqlite' ? 1 : 2));
      const extra = await patrol.post<MusterMarkAnswer>('/muster/mark', { muster_id: musterId, method: 'idcard', idcard: found, place: '2号集合点' });
      expect(extra.body.data.subject).toMatchObject({ source: 'extra', enterprise: '名单外到场' });

      const board = (await lead.get<MusterCurrentAnswer>('/muster/current')).body.data;
      expect(board.muster).toMatchObject({ total: 4, accounted: 4 });
    });

    it('refuses bad marks with the field named, and marks from those without the code', async () => {
      const cases: Array<[Row, string]> = [
        [{ muster_id: musterId, method: 'idcard', place: '2号集合点' }, '请输入证件号码'],
        [{ muster_id: musterId, method: 'idcard', idcard: 'AB', place: '2号集合点' }, '证件号码'],
        [{ muster_id: musterId, method: 'plate', license_plate: 'ABC', place: '2号集合点' }, '车牌号'],
        [{ muster_id: musterId, method: 'list', subject_id: 2147483647, place: '2号集合点' }, '不在本次清点名单中'],
        [{ muster_id: musterId, method: 'pass', pass: 'not-a-pass', place: '2号集合点' }, '通行码'],
        [{ muster_id: musterId, method: 'fly', place: '2号集合点' }, '标记方式'],
        [{ muster_id: musterId, method: 'list', subject_id: 1 }, '集合点'],
        [{ muster_id: musterId, method: 'plate', license_plate: plate, place: 'A', marked_at: '2001-01-01 00:00:00' }, '标记时间'],
        [{ muster_id: musterId, method: 'plate', license_plate: plate, place: 'A', marked_at: 'yesterday' }, '标记时间'],
      ];
      for (const [body, words] of cases) {
        const r = await patrol.post('/muster/mark', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(JSON.stringify(r.body)).toContain(words);
      }
      expect((await contact.post('/muster/mark', { muster_id: musterId, method: 'list', subject_id: 1, place: 'A' })).status).toBe(403);
      expect((await patrol.post('/muster/mark', { muster_id: 2147483646, method: 'list', subject_id: 1, place: 'A' })).status).toBe(404);
    });

    it('an offline mark sent twice with one Idempotency-Key is stored once', async () => {
      const later = idNumber(7600 + (dialect === 'sqlite' ? 1 : 2));
      const body = { muster_id: musterId, method: 'idcard', idcard: later, place: '3号集合点' };
      const headers = { 'Idempotency-Key': `muster-${dialect}-${Date.now()}` };
      const [a, b] = await Promise.all([patrol.call('POST', '/muster/mark', body, headers), patrol.call('POST', '/muster/mark', body, headers)]);
      expect([a.status, b.status].sort()).toEqual([200, 200].sort());
      const events = await ctx.db.selectFrom('muster_event').select('text').where('muster_id', '=', musterId).where('type', '=', 'mark').where('place', '=', '3号集合点').execute();
      expect(events).toHaveLength(1);
    });

    it('ends once, with a report of the timeline and the unaccounted, as a page and as an xlsx', async () => {
      expect((await patrol.post('/muster/end', { muster_id: musterId })).status).toBe(403);
      // Put one person back on the unaccounted list by removing their mark, to see them in the report.
      await ctx.db
        .updateTable('muster_subject')
        .set({ marked_at: null, marked_by: null, marked_by_name: null, mark_place: null, mark_method: null })
        .where('muster_id', '=', musterId)
        .where('source', '=', 'none')
        .execute();
      const ended = await lead.post<MusterReportAnswer>('/muster/end', { muster_id: musterId });
      expect(ended.status, JSON.stringify(ended.body)).toBe(200);
      const report = ended.body.data;
      expect(report.muster.ended_at).not.toBeNull();
      expect(report.events.map((e) => e.type)).toEqual(['start', 'mark', 'mark', 'mark', 'mark', 'mark', 'end']);
      expect(report.events.filter((e) => e.place === '停车场A')).toHaveLength(1);
      expect(report.events.filter((e) => e.place === '2号集合点')).toHaveLength(3);
      expect(report.unaccounted).toHaveLength(1);
      expect(report.unaccounted[0]!.source).toBe('none');
      expect((await lead.post('/muster/end', { muster_id: musterId })).status).toBe(409);
      expect((await lead.get<MusterCurrentAnswer>('/muster/current')).body.data.muster).toBeNull();

      // After the end the list is a record: phones masked.
      const after = await patrol.get<MusterSubjectsAnswer>(`/muster/subjects?muster_id=${musterId}`);
      expect(after.body.data.running).toBe(false);
      expect(JSON.stringify(after.body)).not.toContain(visitor.phone);

      // A mark made after the end is refused; one made before it (synced late) is still taken.
      const late = await patrol.post('/muster/mark', { muster_id: musterId, method: 'list', subject_id: report.unaccounted[0]!.id, place: '2号集合点' });
      expect(late.status).toBe(409);
      const synced = await patrol.post<MusterMarkAnswer>('/muster/mark', {
        muster_id: musterId,
        method: 'list',
        subject_id: report.unaccounted[0]!.id,
        place: '2号集合点',
        marked_at: report.muster.started_at,
      });
      expect(synced.status, JSON.stringify(synced.body)).toBe(200);
      expect(synced.body.data.subject.marked_at).toBe(report.muster.started_at);

      const res = await fetch(`${server.base}/api/muster/reportExport?id=${musterId}`, { headers: { authorization: `Bearer ${lead.token}` } });
      expect(res.status).toBe(200);
      expect(decodeURIComponent(res.headers.get('content-disposition') ?? '')).toContain('应急演练报告');
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(Buffer.from(await res.arrayBuffer()) as never);
      expect(book.worksheets.map((w) => w.name)).toEqual(['时间线', '未清点人员']);
      // The late mark above accounted for the last one: the sheet has its header only.
      expect(book.getWorksheet('未清点人员')!.rowCount).toBe(1);
      expect(String(book.getWorksheet('时间线')!.getRow(2).getCell(5).value)).toContain('化工区');

      const page = await lead.post<{ list: Row[]; total: number }>('/muster/page', { pn: 1, size: 10, drill: 1 });
      expect(page.body.data.list[0]).toMatchObject({ id: musterId, drill: 1, total: 5 });
    });

    it('a new muster can start once the last has ended', async () => {
      const r = await lead.post<MusterCurrentAnswer>('/muster/start', { visit_area: 2, message: '港区演练' });
      expect(r.status).toBe(200);
      expect(r.body.data.muster).toMatchObject({ visit_area: 2, drill: 0 });
      expect((await lead.post('/muster/end', { muster_id: r.body.data.muster!.id })).status).toBe(200);
    });
  });
}
