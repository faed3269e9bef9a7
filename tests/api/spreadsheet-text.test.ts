import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../domain/envelope';
import { applicationCountsReport, vehicleTypeReport } from '../../domain/reports';
import { addDays } from '../../domain/visit-rules';
import { Client, dialects, startServer, type TestServer } from './harness';

/** Issue 23 item 6: user text that looks like a formula is written with the quote prefix, and imported as typed. */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const FORMULA_LIKE = ["=cmd|' /C calc'!A0", '+SUM(1,2)', '@SUM(1)', '=HYPERLINK("x")', '-1+1', '\tX', '\rX'];

/**
 * Every text cell of a sheet with whether its style carries quotePrefix="1".
 * ExcelJS does not read that attribute back, so the workbook's XML is read
 * here; the values are taken from ExcelJS, which also says no cell is a formula.
 */
async function textCells(data: Buffer, sheetName: string): Promise<Array<{ text: string; quoted: boolean }>> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(data as unknown as ArrayBuffer);
  const ws = wb.getWorksheet(sheetName)!;
  const zip = await JSZip.loadAsync(data);
  const styles = await zip.file('xl/styles.xml')!.async('string');
  const xfs = [...styles.match(/<cellXfs[^>]*>([\s\S]*?)<\/cellXfs>/)![1]!.matchAll(/<xf\b[^>]*>/g)].map((m) => /quotePrefix="1"/.test(m[0]));
  const sheetIndex = wb.worksheets.indexOf(ws) + 1;
  const sheetXml = await zip.file(`xl/worksheets/sheet${sheetIndex}.xml`)!.async('string');
  const styleOf = new Map([...sheetXml.matchAll(/<c r="([A-Z]+\d+)"(?: s="(\d+)")?/g)].map((m) => [m[1]!, Number(m[2] ?? 0)]));
  const out: Array<{ text: string; quoted: boolean }> = [];
  ws.eachRow((row) =>
    row.eachCell((cell) => {
      expect(cell.type, cell.address).not.toBe(ExcelJS.ValueType.Formula);
      if (typeof cell.value === 'string') out.push({ text: cell.value, quoted: xfs[styleOf.get(cell.address) ?? 0] ?? false });
    }),
  );
  return out;
}

for (const dialect of await dialects()) {
  describe(`formula-like text in spreadsheets (${dialect})`, () => {
    let server: TestServer;
    let squad: Client;
    let admin: Client;
    let contact: Client;
    let today = '';

    beforeAll(async () => {
      server = await startServer(dialect);
      [squad, admin, contact] = await Promise.all(['squad', 'admin', 'contact'].map((a) => new Client(server).as(a)));
      today = server.app.ctx.time().slice(0, 10);
    });
    afterAll(async () => server?.close());

    it('exports the all-history visitors with every formula-like text quoted and shown as typed', async () => {
      const { db } = server.app.ctx;
      const template = await db.selectFrom('person_application').selectAll().orderBy('person_application_id').executeTakeFirstOrThrow();
      const { person_application_id: _, ...base } = template;
      await db
        .insertInto('person_application')
        .values(FORMULA_LIKE.map((text, i) => ({ ...base, application_number: `PAQ${i}`, visitor_name: `注入${i}`, visit_content: text, visitor_company: text })))
        .execute();
      const res = await fetch(`${server.base}/api/personApplications/all/history/export`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${squad.token}` },
        body: JSON.stringify({ visitor_name: '注入' }),
      });
      expect(res.status).toBe(200);
      const cells = await textCells(Buffer.from(await res.arrayBuffer()), '人员预约总记录');
      for (const text of FORMULA_LIKE) {
        // XML reads a raw carriage return as a line feed (ExcelJS writes it raw, as Excel reads it too).
        const hits = cells.filter((c) => c.text === text.replace(/\r/g, '\n'));
        expect(hits, JSON.stringify(text)).toHaveLength(2);
        expect(
          hits.every((c) => c.quoted),
          JSON.stringify(text),
        ).toBe(true);
      }
      // Ordinary text and the server's own dates are left as they are.
      expect(cells.find((c) => c.text === '注入0')?.quoted).toBe(false);
      expect(cells.filter((c) => /^\d{4}-\d\d-\d\d/.test(c.text)).every((c) => !c.quoted)).toBe(true);
    });

    it('quotes a formula-like vehicle type that a gate reported where it heads a column of 车型进出报表', async () => {
      const vehicleType = "=cmd|' /C calc'!A0";
      const { id } = await server.app.ctx.db.selectFrom('equipment').select('id').where('number', '=', 'GATE-W-01').executeTakeFirstOrThrow();
      const issued = await admin.post<{ key: string }>('/equipment/gate/issueKey', { id });
      expect(issued.body, JSON.stringify(issued.body)).toMatchObject({ success: true });
      const day = addDays(today, -2);
      const event = {
        event_id: `formula-type-${dialect}`,
        type: 'vehicle',
        capture_time: `${day} 10:00:00`,
        license_plate: '粤L9F001',
        license_plate_color: 2,
        direction: 1,
        open_result: 1,
        vehicle_type: vehicleType,
      };
      const sent = await fetch(`${server.base}/api/device/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Device GATE-W-01:${issued.body.data.key}` },
        body: JSON.stringify({ events: [event] }),
      });
      expect(sent.status, await sent.clone().text()).toBe(200);

      const res = await fetch(`${server.base}/api${vehicleTypeReport.variants!.calls.in!.export.path}?start_time=${day}&end_time=${day}&type=3`, {
        headers: { authorization: `Bearer ${squad.token}` },
      });
      expect(res.status).toBe(200);
      const data = Buffer.from(await res.arrayBuffer());
      const cells = await textCells(data, vehicleTypeReport.title);
      // The header row holds the type as text, marked so that editing the cell never runs it; the other headers are plain.
      expect(cells.filter((c) => c.text === vehicleType)).toEqual([{ text: vehicleType, quoted: true }]);
      expect(cells.find((c) => c.text === '日期')?.quoted).toBe(false);
      const sheetXml = await (await JSZip.loadAsync(data)).file('xl/worksheets/sheet1.xml')!.async('string');
      expect(sheetXml).not.toMatch(/<f>/);
    });

    it('makes each exported column as wide as its header or its widest cell, CJK counted double', async () => {
      const res = await fetch(`${server.base}/api${applicationCountsReport.calls.export.path}?date=${today}&type=3`, { headers: { authorization: `Bearer ${squad.token}` } });
      expect(res.status).toBe(200);
      const data = Buffer.from(await res.arrayBuffer());
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(data as unknown as ArrayBuffer);
      const ws = wb.worksheets[0]!;
      const headers = (ws.getRow(1).values as unknown[]).slice(1).map(String);
      const at = headers.indexOf('严格车辆备案审核通过');
      expect(at, headers.join(',')).toBeGreaterThanOrEqual(0);
      // Ten CJK characters are twenty character widths; the column holds them with a margin.
      expect(ws.getColumn(at + 1).width).toBeGreaterThanOrEqual(20);
      // 日期 (two CJK characters) over yyyy-mm-dd cells: the cells decide.
      expect(ws.getColumn(headers.indexOf('日期') + 1).width).toBeGreaterThanOrEqual(10);
      expect(ws.getColumn(headers.indexOf('日期') + 1).width).toBeLessThan(20);
    });

    it('quotes a formula-like department name in the template, and imports formula-like text as typed', async () => {
      const name = '=HYPERLINK("x")部门';
      const saved = await admin.post<{ depart_id: number }>('/depart/save', { name, code: 'FORMULA_DEPT', visit_area: 1 });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const download = await fetch(`${server.base}/api/carApplications/template/getProprietor`, { headers: { authorization: `Bearer ${contact.token}` } });
      const data = Buffer.from(await download.arrayBuffer());
      const help = await textCells(data, '说明');
      expect(help.filter((c) => c.text === name)).toEqual([{ text: name, quoted: true }]);
      expect(help.find((c) => c.text === '被访部门')?.quoted).toBe(false);

      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(data as unknown as ArrayBuffer);
      const ws = wb.worksheets[0]!;
      const headers = (ws.getRow(1).values as unknown[]).map((v) => String(v ?? '').replace(/^\*/, ''));
      const row: Record<string, string> = {
        车牌号: '粤L40001',
        车牌颜色: '蓝色',
        车型: '小型汽车',
        申请人姓名: '周八',
        证件类型: '第二代居民身份证',
        证件号码: '441302199001011231',
        性别: '男',
        手机号: '13900004444',
        园区: '化工区',
        来访单位: '+SUM(1,2)',
        来访事由: '=x',
        来访开始时间: addDays(today, 5),
        来访结束时间: addDays(today, 25),
        被访人姓名: '李强',
        被访人电话: '13800000003',
        被访部门: name,
      };
      ws.addRow(headers.map((h) => row[h] ?? ''));
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await wb.xlsx.writeBuffer())], { type: XLSX }), 'import.xlsx');
      const up = await fetch(`${server.base}/api/carApplications/import/proprietor`, { method: 'POST', body: form, headers: { authorization: `Bearer ${contact.token}` } });
      const body = (await up.json()) as Envelope<{ ids: number[] }>;
      expect(body, JSON.stringify(body)).toMatchObject({ success: true });
      const stored = await server.app.ctx.db
        .selectFrom('car_application')
        .select(['visitor_content', 'visitor_company', 'interviewee_depart_id'])
        .where('car_application_id', '=', body.data.ids[0]!)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual({ visitor_content: '=x', visitor_company: '+SUM(1,2)', interviewee_depart_id: saved.body.data.depart_id });
    });
  });
}
