import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../domain/envelope';
import type { CarListRow } from '../../domain/schemas/black-white-list';
import { addDays, dateOf } from '../../domain/visit-rules';
import { Client, dialects, startServer, type TestServer } from './harness';

/** Vehicle black/white list import (spec 001 §7): template, all-or-nothing upload of drafts with row-numbered messages. */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
type Result = Envelope<{ count: number; errors: string[]; details: Array<{ row: number; field: string; label: string; message: string }> }>;

for (const dialect of await dialects()) {
  describe(`vehicle black/white list import (${dialect})`, () => {
    let server: TestServer;
    let lead: Client, contact: Client;
    let today = '';
    let leadId = 0;

    beforeAll(async () => {
      server = await startServer(dialect);
      today = dateOf(server.app.ctx.time());
      [lead, contact] = await Promise.all(['lead', 'contact'].map((a) => new Client(server).as(a)));
      leadId = (await server.app.ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'lead').executeTakeFirstOrThrow()).user_id;
    });
    afterAll(async () => server?.close());

    const download = async (c: Client) => {
      const res = await fetch(`${server.base}/api/carBlackWhiteList/excelTemplate`, { headers: { authorization: `Bearer ${c.token}` } });
      return { res, data: Buffer.from(await res.arrayBuffer()) };
    };

    const upload = async (data: Buffer, c: Client = lead) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(data)], { type: XLSX }), 'import.xlsx');
      const res = await fetch(`${server.base}/api/carBlackWhiteList/excelImport`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
      return { status: res.status, body: (await res.json()) as Result };
    };

    /** The downloaded template with rows appended below its example, by header. */
    async function filled(rows: Array<Record<string, ExcelJS.CellValue>>): Promise<Buffer> {
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load((await download(lead)).data as unknown as ArrayBuffer);
      const ws = wb.worksheets[0]!;
      const headers = (ws.getRow(1).values as unknown[]).slice(1).map((v) => String(v ?? '').replace(/^\*/, ''));
      for (const r of rows) ws.addRow(headers.map((h) => r[h] ?? ''));
      return Buffer.from(await wb.xlsx.writeBuffer());
    }

    /** A workbook of our own: these headers in this order, then the rows. */
    async function sheet(headers: string[], rows: ExcelJS.CellValue[][]): Promise<Buffer> {
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('Sheet1');
      ws.addRow(headers);
      for (const r of rows) ws.addRow(r);
      return Buffer.from(await wb.xlsx.writeBuffer());
    }

    const good = (plate: string, over: Record<string, ExcelJS.CellValue> = {}) => ({
      车牌号: plate,
      车型: '小型汽车',
      名单类型: '黑名单',
      开始时间: today,
      结束时间: addDays(today, 30),
      原因: '多次违规进入',
      ...over,
    });

    const count = async () =>
      Number(
        (
          await server.app.ctx.db
            .selectFrom('car_black_white_list')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const list = async (plate: string) => (await lead.post<{ list: CarListRow[]; total: number }>('/carBlackWhiteList/list', { size: 100, pn: 1, license_plate: plate })).body.data;

    it('serves the template with the form’s headers, an example row and the choices in 说明', async () => {
      const { res, data } = await download(lead);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain(XLSX);
      expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('车辆黑白名单导入模板.xlsx')}`);
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(data as unknown as ArrayBuffer);
      expect(wb.worksheets.map((w) => w.name)).toEqual(['车辆黑白名单', '说明']);
      expect((wb.worksheets[0]!.getRow(1).values as unknown[]).slice(1)).toEqual(['*车牌号', '车型', '*名单类型', '*开始时间', '*结束时间', '*原因']);
      expect(wb.worksheets[0]!.getRow(2).getCell(1).value).toBe('粤L12345');
      const help = wb.getWorksheet('说明')!;
      expect(help.getColumn(1).values.filter(Boolean)).toEqual(['名单类型', '黑名单', '白名单']);
      expect(help.getColumn(2).values.filter(Boolean)).toEqual(expect.arrayContaining(['车型', '小型汽车']));

      expect((await download(contact)).res.status).toBe(403);
    });

    it('imports every row as a draft of the caller, listed afterwards', async () => {
      const before = await count();
      const start = addDays(today, 3);
      const [y, m, d] = start.split('-').map(Number) as [number, number, number];
      const r = await upload(
        await filled([
          good('粤B80001'),
          good('粤B80002', { 车型: '', 名单类型: '白名单', 开始时间: start.replace(/-/g, '/') }),
          // A date typed into a date-formatted cell arrives as a date.
          good('粤b80003', { 开始时间: new Date(Date.UTC(y, m - 1, d)), 名单类型: '2' }),
        ]),
      );
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, code: 1000, msg: '导入成功！', data: { count: 3 } });
      expect(await count()).toBe(before + 3);

      const rows = await server.app.ctx.db
        .selectFrom('car_black_white_list')
        .select(['license_plate', 'vehicle_type_id', 'type', 'start_time', 'end_time', 'in_reason', 'status', 'create_user_id', 'update_user_id', 'create_time', 'update_time'])
        .where('license_plate', 'like', '粤B8000%')
        .orderBy('license_plate')
        .execute();
      const small = (await server.app.ctx.db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
      expect(rows.map(({ create_time: _c, update_time: _u, ...x }) => x)).toEqual([
        {
          license_plate: '粤B80001',
          vehicle_type_id: small,
          type: 1,
          start_time: `${today} 00:00:00`,
          end_time: `${addDays(today, 30)} 23:59:59`,
          in_reason: '多次违规进入',
          status: 0,
          create_user_id: leadId,
          update_user_id: leadId,
        },
        {
          license_plate: '粤B80002',
          vehicle_type_id: null,
          type: 2,
          start_time: `${start} 00:00:00`,
          end_time: `${addDays(today, 30)} 23:59:59`,
          in_reason: '多次违规进入',
          status: 0,
          create_user_id: leadId,
          update_user_id: leadId,
        },
        {
          license_plate: '粤B80003',
          vehicle_type_id: small,
          type: 2,
          start_time: `${start} 00:00:00`,
          end_time: `${addDays(today, 30)} 23:59:59`,
          in_reason: '多次违规进入',
          status: 0,
          create_user_id: leadId,
          update_user_id: leadId,
        },
      ]);
      for (const row of rows) expect(row.create_time.slice(0, 10)).toBe(today);

      const listed = await list('B8000');
      expect(listed.total).toBe(3);
      expect(listed.list.map((x) => [x.license_plate, x.status, x.create_user_name]).sort()).toEqual([
        ['粤B80001', 0, '赵敏'],
        ['粤B80002', 0, '赵敏'],
        ['粤B80003', 0, '赵敏'],
      ]);
    });

    it('finds columns by header: reordered, unstarred, optional ones absent', async () => {
      const r = await upload(
        await sheet(
          ['原因', '结束时间', '车牌号', '名单类型', '开始时间'],
          [['冒用通行证', addDays(today, 10), '粤B81001', '白名单', today], [], ['长期合作车辆', addDays(today, 20), '粤B81002', '黑名单', addDays(today, 1)]],
        ),
      );
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, data: { count: 2 } });
      const listed = await list('B8100');
      expect(listed.list.map((x) => [x.license_plate, x.type, x.vehicle_type_id, x.in_reason]).sort()).toEqual([
        ['粤B81001', 2, null, '冒用通行证'],
        ['粤B81002', 1, null, '长期合作车辆'],
      ]);
    });

    it('imports nothing when a row is wrong, naming each row and column', async () => {
      const before = await count();
      const r = await upload(
        await filled([
          good('粤B82001'),
          good('ABC'),
          good('粤B82003', { 名单类型: '灰名单' }),
          good('粤B82004', { 开始时间: addDays(today, -1) }),
          good('粤B82005', { 车型: '飞机' }),
          good('粤B82006', { 开始时间: addDays(today, 9), 结束时间: addDays(today, 2) }),
          good('粤B82007', { 原因: '' }),
        ]),
      );
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(1001);
      expect(r.body.msg).toBe('导入失败，共6处错误');
      expect(r.body.data.errors).toEqual([
        '第4行 车牌号：车牌号格式不正确',
        '第5行 名单类型：“灰名单”不是可选的值，请按“说明”表填写',
        '第6行 开始时间：开始时间不能早于今天',
        '第7行 车型：“飞机”不存在，请按“说明”表填写',
        '第8行 结束时间：结束时间不能早于开始时间',
        '第9行 原因：请输入原因',
      ]);
      expect(r.body.data.details.find((e) => e.row === 5)).toMatchObject({ field: 'type', label: '名单类型' });
      expect(await count()).toBe(before);
      expect((await list('B820')).total).toBe(0);
    });

    it('reports every error of a row at once: cells, past and reversed dates together (issue 24)', async () => {
      const r = await upload(
        await filled([
          good('ABC', { 车型: '飞机', 名单类型: '灰名单', 原因: '', 开始时间: addDays(today, -1), 结束时间: addDays(today, -3) }),
          good('粤B83002', { 开始时间: addDays(today, -2), 结束时间: addDays(today, -5) }),
        ]),
      );
      expect(r.status).toBe(400);
      expect(r.body.data.errors).toEqual([
        '第3行 车型：“飞机”不存在，请按“说明”表填写',
        '第3行 名单类型：“灰名单”不是可选的值，请按“说明”表填写',
        '第3行 车牌号：车牌号格式不正确',
        '第3行 原因：请输入原因',
        '第3行 开始时间：开始时间不能早于今天',
        '第3行 结束时间：结束时间不能早于今天',
        '第3行 结束时间：结束时间不能早于开始时间',
        '第4行 开始时间：开始时间不能早于今天',
        '第4行 结束时间：结束时间不能早于今天',
        '第4行 结束时间：结束时间不能早于开始时间',
      ]);
    });

    it('answers the ids of the drafts it imported, so they can be submitted together', async () => {
      const r = await upload(await filled([good('粤B84001'), good('粤B84002')]));
      const body = r.body as unknown as Envelope<{ count: number; ids: number[] }>;
      expect(body.data.count).toBe(2);
      const listed = await list('B8400');
      expect([...body.data.ids].sort((a, b) => a - b)).toEqual(listed.list.map((x) => x.id).sort((a, b) => a - b));
    });

    it('refuses what is not a filled template, and callers without carList:add', async () => {
      const text = await upload(Buffer.from('license_plate,type\n粤B83001,1\n'));
      expect(text.status).toBe(415);
      expect(text.body).toMatchObject({ success: false, code: 1011, msg: '请上传由导入模板填写的 .xlsx 文件' });

      const missing = await upload(await sheet(['车牌号', '名单类型', '开始时间'], [['粤B83002', '黑名单', today]]));
      expect(missing.status).toBe(400);
      expect(missing.body.msg).toBe('导入文件缺少列：结束时间、原因，请下载最新的导入模板');

      const headless = await upload(await sheet(['粤B83003', '黑名单', today, addDays(today, 3), '违规'], []));
      expect(headless.status).toBe(400);
      expect(headless.body.msg).toContain('导入文件第1行不是表头');

      const empty = await upload(await filled([]));
      expect(empty.status).toBe(400);
      expect(empty.body.msg).toBe('导入文件中没有数据，请从第2行开始填写');

      const forbidden = await upload(await filled([good('粤B83004')]), contact);
      expect(forbidden.status).toBe(403);
      expect((await list('B830')).total).toBe(0);
    });
  });
}
