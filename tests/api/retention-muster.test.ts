import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskIdNumber } from '../../domain/personal-data';
import { retentionCutoff } from '../../domain/retention';
import type { MusterCurrentAnswer, MusterMarkAnswer, MusterReportAnswer } from '../../domain/schemas/muster';
import type { RetentionPreviewAnswer } from '../../domain/schemas/retention';
import { formatInZone } from '../../domain/time';
import { addDays, dateOf } from '../../domain/visit-rules';
import type { AppContext } from '../../server/core/context';
import { retentionSources } from '../../server/modules/retention/classes';
import { runRetention } from '../../server/modules/retention/run';
import { carApplicationBody, idNumber, personApplicationBody } from './fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

type Row = Record<string, any>;

/**
 * 应急清点名单 under 访客个人信息 (docs/retention.md, docs/muster.md) on each database: a run anonymises the lists
 * of musters that ended a period ago (names to the surname, phones and ID numbers masked, plates kept, the marks'
 * texts rewritten) and leaves a recent one and a running one whole; the report still answers with its counts; two
 * ID numbers that mask alike stay on one muster; a later muster marks the same person; a person's own request
 * anonymises their ended musters' rows and keeps a running one's.
 */
for (const dialect of await dialects()) {
  describe(`muster retention on ${dialect}`, () => {
    let server: TestServer;
    let ctx: AppContext;
    let admin: Client, contact: Client, lead: Client, patrol: Client;
    let today = '';
    let key = '';
    const gateNumber = 'GATE-W-01';
    const visitor = { idcard: idNumber(8100 + (dialect === 'sqlite' ? 1 : 2)), name: '欧阳明远', phone: '13900001111' };
    const driver = { name: '李建国', phone: '13900002222' };
    const plate = `粤L${dialect === 'sqlite' ? 'R' : 'S'}8802`;
    const stray = idNumber(8300 + (dialect === 'sqlite' ? 1 : 2));
    /** Two ID numbers that differ but mask alike (the same first and last four characters). */
    const twins: string[] = [];
    const source = retentionSources.visitor_fields.find((s) => s.table === 'muster_subject')!;

    const at = (minutesFromNow: number) => formatInZone(ctx.now() + minutesFromNow * 60_000, ctx.config.tz);
    /** Noon of the park day `n` days ago. */
    const daysAgo = (n: number) => `${addDays(today, -n)} 12:00:00`;
    const cutoff = () => retentionCutoff(ctx.time(), 180);

    async function send(events: Row[]) {
      const r = await fetch(`${server.base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device ${gateNumber}:${key}` },
        body: JSON.stringify({ events }),
      });
      const body = (await r.json()) as Row;
      expect(body.data, JSON.stringify(body)).toMatchObject({ accepted: events.length });
    }
    const start = async () => {
      const r = await lead.post<MusterCurrentAnswer>('/muster/start', { visit_area: 1, drill: 1, message: '保留期限测试' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data.muster!.id;
    };
    const mark = async (body: Row) => {
      const r = await patrol.post<MusterMarkAnswer>('/muster/mark', { place: '2号集合点', ...body });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    const end = async (id: number) => expect((await lead.post('/muster/end', { muster_id: id })).status).toBe(200);
    const subjects = (id: number) => ctx.db.selectFrom('muster_subject').selectAll().where('muster_id', '=', id).orderBy('id').execute();
    const markTexts = async (id: number) => (await ctx.db.selectFrom('muster_event').select('text').where('muster_id', '=', id).where('type', '=', 'mark').orderBy('id').execute()).map((e) => e.text);
    const report = async (id: number) => {
      const r = await lead.get<MusterReportAnswer>(`/muster/report?id=${id}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data;
    };
    /** Moves a muster into the past: it started an hour before it ended, `ended` days ago. */
    const endedDaysAgo = (id: number, ended: number) =>
      ctx.db
        .updateTable('muster')
        .set({ started_at: `${addDays(today, -ended)} 11:00:00`, ended_at: daysAgo(ended) })
        .where('id', '=', id)
        .execute();

    beforeAll(async () => {
      server = await startServer(dialect);
      ctx = server.app.ctx;
      today = dateOf(ctx.time());
      [admin, contact, lead, patrol] = await Promise.all(['admin', 'contact', 'lead', 'patrol'].map((a) => new Client(server).as(a)));
      const gate = await ctx.db.selectFrom('equipment').select('id').where('number', '=', gateNumber).executeTakeFirstOrThrow();
      key = (await admin.post<{ key: string }>('/equipment/gate/issueKey', { id: gate.id })).body.data.key;
      // Nothing of the demo is inside: this suite's crossings are the whole list.
      await ctx.db
        .updateTable('presence')
        .set({ exit_time: at(-120) })
        .where('exit_time', 'is', null)
        .execute();
      const depart = (await ctx.db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
      const model = (await ctx.db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;

      // An approved person visit and an approved vehicle visit, both under way.
      const p = await contact.post<{ id: number }>('/v2/personApplications/save', personApplicationBody({ today, visitor_idcard: visitor.idcard, interviewee_depart_id: depart }));
      expect(p.body, JSON.stringify(p.body)).toMatchObject({ success: true });
      await ctx.db
        .updateTable('person_application')
        .set({ state: 2, visitor_name: visitor.name, visitor_phone: visitor.phone, visit_begin_time: `${addDays(today, -1)} 00:00:00`, visit_end_time: `${addDays(today, 1)} 23:59:59`, visit_area: 1 })
        .where('person_application_id', '=', p.body.data.id)
        .execute();
      const c = await contact.post<{ id: number }>(
        '/v2/carApplications/save',
        carApplicationBody({ today, license_plate: plate, applicant_idcard: idNumber(8200 + (dialect === 'sqlite' ? 1 : 2)), vehicle_type_id: model, interviewee_depart_id: depart }),
      );
      expect(c.body, JSON.stringify(c.body)).toMatchObject({ success: true });
      await ctx.db
        .updateTable('car_application')
        .set({
          state: 2,
          applicant_name: driver.name,
          applicant_phone: driver.phone,
          visitor_begin_time: `${addDays(today, -1)} 00:00:00`,
          visitor_end_time: `${addDays(today, 1)} 23:59:59`,
          visit_area: 1,
        })
        .where('car_application_id', '=', c.body.data.id)
        .execute();

      // Twelve birth months give two numbers of one check character: they differ in the middle only.
      const seq = 8400 + (dialect === 'sqlite' ? 1 : 2);
      const byCheck = new Map<string, string>();
      for (let m = 1; m <= 12 && twins.length === 0; m++) {
        const id = idNumber(seq, String(m).padStart(2, '0'));
        const other = byCheck.get(id.slice(-1));
        if (other) twins.push(other, id);
        byCheck.set(id.slice(-1), id);
      }
      expect(twins[0]).not.toBe(twins[1]);
      expect(maskIdNumber(twins[0]!)).toBe(maskIdNumber(twins[1]!));

      await send([
        { event_id: `${dialect}-r-1`, type: 'person', capture_time: at(-30), idcard: visitor.idcard, direction: 1, open_result: 1 },
        { event_id: `${dialect}-r-2`, type: 'vehicle', capture_time: at(-29), license_plate: plate, direction: 1, open_result: 1 },
        { event_id: `${dialect}-r-3`, type: 'person', capture_time: at(-28), idcard: stray, direction: 1, open_result: 1 },
        { event_id: `${dialect}-r-4`, type: 'person', capture_time: at(-27), idcard: twins[0], direction: 1, open_result: 1 },
        { event_id: `${dialect}-r-5`, type: 'person', capture_time: at(-26), idcard: twins[1], direction: 1, open_result: 1 },
      ]);
    });
    afterAll(async () => server?.close());

    it('anonymises the lists of musters ended a period ago, keeps a recent and a running one whole, and the reports still answer', { timeout: 120_000 }, async () => {
      // Two musters that ended 200 and 190 days ago, one that ended 10 days ago, and one still running.
      const old = await start();
      await mark({ muster_id: old, method: 'idcard', idcard: visitor.idcard });
      await mark({ muster_id: old, method: 'plate', license_plate: plate });
      const twin = (await subjects(old)).find((s) => s.subject === twins[0])!;
      await mark({ muster_id: old, method: 'list', subject_id: twin.id });
      await end(old);
      const older = await start();
      await mark({ muster_id: older, method: 'idcard', idcard: visitor.idcard });
      await end(older);
      const recent = await start();
      await mark({ muster_id: recent, method: 'idcard', idcard: visitor.idcard });
      await end(recent);
      await endedDaysAgo(old, 200);
      await endedDaysAgo(older, 190);
      await endedDaysAgo(recent, 10);
      const running = await start();
      await mark({ muster_id: running, method: 'idcard', idcard: visitor.idcard });
      // However long ago it started, a running muster is not due: its period has not begun.
      await ctx.db
        .updateTable('muster')
        .set({ started_at: daysAgo(300) })
        .where('id', '=', running)
        .execute();

      expect(await markTexts(old)).toContainEqual(expect.stringContaining(`${visitor.name}（${maskIdNumber(visitor.idcard)}）`));
      const reportBefore = { old: await report(old), older: await report(older) };
      expect(reportBefore.old.muster).toMatchObject({ total: 5, accounted: 3 });

      // The preview counts the two old lists' rows, and the oldest kept is the recent muster's end.
      const recentEnd = daysAgo(10);
      expect(await source.count(ctx.db, cutoff())).toBe(10);
      expect(await source.oldest(ctx.db, cutoff())).toBe(recentEnd);
      expect(await source.oldest(ctx.db, null)).toBe(daysAgo(200));
      const preview = (await admin.post<RetentionPreviewAnswer>('/retention/preview', {})).body.data.classes.find((c) => c.key === 'visitor_fields')!;
      expect(preview.rows).toBeGreaterThanOrEqual(10);

      // Batches of 3 over two lists of 5: the second batch takes from both, and the run goes on to the end.
      const proof = await runRetention(ctx, { kind: 'manual', batchSize: 3, pauseMs: 0 });
      expect(proof.error).toBeNull();
      expect(proof.classes.find((c) => c.key === 'visitor_fields')!.rows).toBe(preview.rows);
      expect(await source.count(ctx.db, cutoff())).toBe(0);
      expect((await admin.post<RetentionPreviewAnswer>('/retention/preview', {})).body.data.classes.find((c) => c.key === 'visitor_fields')!.rows).toBe(0);
      expect(await source.oldest(ctx.db, null)).toBe(recentEnd);

      for (const id of [old, older]) {
        const rows = await subjects(id);
        expect(rows).toHaveLength(5);
        for (const r of rows) expect(r.anonymised_at, `${id} ${r.subject}`).toBe(proof.started_at);
        const person = rows.find((r) => r.source === 'visit' && r.kind === 'person')!;
        expect(person).toMatchObject({ name: '欧*', phone: '139****1111', subject: maskIdNumber(visitor.idcard) });
        expect(rows.find((r) => r.kind === 'car')).toMatchObject({ name: '李*', phone: '139****2222', subject: plate });
        expect(rows.find((r) => r.source === 'none' && r.subject === maskIdNumber(stray))).toBeDefined();
        // The twins mask alike and both stay on the list: the unique index holds rows not yet anonymised only.
        expect(rows.filter((r) => r.subject === maskIdNumber(twins[0]!))).toHaveLength(2);
        const texts = (await markTexts(id)).join('\n');
        expect(texts).toContain(`欧*（${maskIdNumber(visitor.idcard)}）`);
        expect(texts).not.toContain(visitor.name);

        // The report and its xlsx still answer, with the same counts and timeline, and nothing whole.
        const after = await report(id);
        const before = reportBefore[id === old ? 'old' : 'older'];
        expect(after.muster).toEqual(before.muster);
        expect(after.groups).toEqual(before.groups);
        expect(after.events.map((e) => [e.type, e.at, e.place])).toEqual(before.events.map((e) => [e.type, e.at, e.place]));
        expect(after.unaccounted.map((s) => s.id)).toEqual(before.unaccounted.map((s) => s.id));
        const text = JSON.stringify(after);
        for (const whole of [visitor.name, visitor.idcard, visitor.phone, driver.name, stray, ...twins]) expect(text).not.toContain(whole);
        const res = await fetch(`${server.base}/api/muster/reportExport?id=${id}`, { headers: { authorization: `Bearer ${lead.token}` } });
        expect(res.status).toBe(200);
        const book = new ExcelJS.Workbook();
        await book.xlsx.load(Buffer.from(await res.arrayBuffer()) as never);
        expect(book.getWorksheet('未清点人员')!.rowCount).toBe(1 + before.unaccounted.length);
      }

      // The recent and the running lists are whole.
      for (const id of [recent, running]) {
        const rows = await subjects(id);
        for (const r of rows) expect(r.anonymised_at).toBeNull();
        expect(rows.find((r) => r.source === 'visit' && r.kind === 'person')).toMatchObject({ name: visitor.name, phone: visitor.phone, subject: visitor.idcard });
        expect(rows.find((r) => r.kind === 'car')).toMatchObject({ name: driver.name, phone: driver.phone });
        expect((await markTexts(id)).join('\n')).toContain(`${visitor.name}（`);
      }

      // A muster started after the run marks the same person by the same ID number, and finds them on its list.
      await end(running);
      const next = await start();
      const again = await mark({ muster_id: next, method: 'idcard', idcard: visitor.idcard });
      expect(again).toMatchObject({ already: false, subject: { source: 'visit', name: visitor.name } });
      expect((await mark({ muster_id: next, method: 'idcard', idcard: visitor.idcard })).already).toBe(true);

      // The person's own request anonymises the ended musters' rows now and keeps the running one's, saying why.
      const gone = await admin.post<{ counts: Array<{ record: string; rows: number }>; kept: Array<{ record: string; rows: number; rule: string }> }>('/pii/subject/anonymise', {
        idcard: visitor.idcard,
        reason: '本人申请删除',
      });
      expect(gone.status, JSON.stringify(gone.body)).toBe(200);
      expect(gone.body.data.counts).toContainEqual({ record: '应急清点名单', rows: 2 });
      expect(gone.body.data.kept).toContainEqual(expect.objectContaining({ record: '应急清点名单', rows: 1 }));
      for (const id of [recent, running]) {
        const row = (await subjects(id)).find((r) => r.source === 'visit' && r.kind === 'person')!;
        expect(row).toMatchObject({ name: '欧*', subject: maskIdNumber(visitor.idcard) });
        expect(row.anonymised_at).not.toBeNull();
        expect((await markTexts(id)).join('\n')).not.toContain(visitor.name);
      }
      expect((await subjects(next)).find((r) => r.source === 'visit' && r.kind === 'person')).toMatchObject({ name: visitor.name, subject: visitor.idcard, anonymised_at: null });
      await end(next);
    });
  });
}
