import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../domain/envelope';
import { addDays } from '../../domain/visit-rules';
import { Client, dialects, startServer, type TestServer } from './harness';

/** Owner and construction vehicle imports: templates, all-or-nothing uploads with row-numbered messages. */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

for (const dialect of await dialects()) {
  describe(`vehicle imports (${dialect})`, () => {
    let server: TestServer;
    let contact: Client;
    let today = '';

    beforeAll(async () => {
      server = await startServer(dialect);
      contact = await new Client(server).as('contact');
      today = server.app.ctx.time().slice(0, 10);
    });
    afterAll(async () => server?.close());

    const download = async (c: Client, which: 'getProprietor' | 'getBuild') => {
      const res = await fetch(`${server.base}/api/carApplications/template/${which}`, { headers: { authorization: `Bearer ${c.token}` } });
      return { res, data: Buffer.from(await res.arrayBuffer()) };
    };

    const upload = async (which: 'proprietor' | 'build', data: Buffer, c: Client = contact, field = 'file') => {
      const form = new FormData();
      form.append(field, new Blob([new Uint8Array(data)], { type: XLSX }), 'import.xlsx');
      const res = await fetch(`${server.base}/api/carApplications/import/${which}`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
      return { status: res.status, body: (await res.json()) as Envelope<{ ids: number[]; count: number; errors: string[] }> };
    };

    /** A filled template: the downloaded workbook with rows appended below its example. */
    async function filled(which: 'getProprietor' | 'getBuild', rows: Array<Record<string, string>>): Promise<Buffer> {
      const { data } = await download(contact, which);
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(data as unknown as ArrayBuffer);
      const ws = wb.worksheets[0]!;
      const headers = (ws.getRow(1).values as unknown[]).map((v) => String(v ?? '').replace(/^\*/, ''));
      for (const r of rows) ws.addRow(headers.map((h) => r[h] ?? ''));
      return Buffer.from(await wb.xlsx.writeBuffer());
    }

    const good = (plate: string, over: Record<string, string> = {}) => ({
      车牌号: plate,
      车牌颜色: '蓝色',
      车型: '小型汽车',
      申请人姓名: '周八',
      证件类型: '第二代居民身份证',
      证件号码: '441302199001011231',
      性别: '男',
      手机号: '13900004444',
      园区: '化工区',
      来访单位: '中海壳牌石油化工有限公司',
      来访事由: '业主车辆通勤',
      来访开始时间: addDays(today, 5),
      来访结束时间: addDays(today, 25),
      被访人姓名: '李强',
      被访人电话: '13800000003',
      被访部门: '中海壳牌石油化工有限公司',
      ...over,
    });

    const count = async () =>
      Number(
        (
          await server.app.ctx.db
            .selectFrom('car_application')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('serves both templates as workbooks with Chinese headers, an example row and a 说明 sheet', async () => {
      for (const [which, name, sheet] of [
        ['getProprietor', '业主车辆导入模板.xlsx', '业主车辆'],
        ['getBuild', '施工车辆导入模板.xlsx', '施工车辆'],
      ] as const) {
        const { res, data } = await download(contact, which);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain(XLSX);
        expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent(name)}`);
        const wb = new ExcelJS.Workbook();
        await wb.xlsx.load(data as unknown as ArrayBuffer);
        expect(wb.worksheets.map((w) => w.name)).toEqual([sheet, '说明']);
        const headers = (wb.worksheets[0]!.getRow(1).values as unknown[]).filter(Boolean);
        expect(headers).toEqual(expect.arrayContaining(['*车牌号', '*车牌颜色', '*车型', '*来访开始时间', '*被访部门', '备注']));
        expect(wb.worksheets[0]!.getRow(2).getCell(1).value).toBe('粤L12345');
        const help = wb.getWorksheet('说明')!;
        const titles = (help.getRow(1).values as unknown[]).filter(Boolean);
        expect(titles).toEqual(expect.arrayContaining(['车牌颜色', '证件类型', '性别', '园区', '车型', '被访部门']));
        const colours = help.getColumn(1).values.filter(Boolean);
        expect(colours).toEqual(['车牌颜色', '黄色', '蓝色', '绿色', '新能源绿色', '新能源黄绿色', '白色', '黑色']);
      }
      const reviewer = await new Client(server).as('reviewer');
      expect((await download(reviewer, 'getBuild')).res.status).toBe(403);
    });

    it('imports two good rows as two drafts of the caller', async () => {
      const before = await count();
      const r = await upload('proprietor', await filled('getProprietor', [good('粤L10001'), good('粤L10002', { 性别: '女', 车牌颜色: '2' })]));
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, msg: '导入成功，共2条' });
      expect(r.body.data.ids).toHaveLength(2);
      expect(await count()).toBe(before + 2);
      const rows = await server.app.ctx.db
        .selectFrom('car_application')
        .select(['license_plate', 'state', 'visitor_type', 'applicant_gender', 'license_plate_color', 'create_user_id', 'visitor_begin_time'])
        .where('car_application_id', 'in', r.body.data.ids)
        .orderBy('car_application_id')
        .execute();
      const contactId = (await server.app.ctx.db.selectFrom('sys_user').select('user_id').where('account', '=', 'contact').executeTakeFirstOrThrow()).user_id;
      expect(rows).toEqual([
        { license_plate: '粤L10001', state: 0, visitor_type: 4, applicant_gender: 0, license_plate_color: 2, create_user_id: contactId, visitor_begin_time: `${addDays(today, 5)} 00:00:00` },
        { license_plate: '粤L10002', state: 0, visitor_type: 4, applicant_gender: 1, license_plate_color: 2, create_user_id: contactId, visitor_begin_time: `${addDays(today, 5)} 00:00:00` },
      ]);
    });

    it('imports construction vehicles with visitor type 1 and their one-month limit', async () => {
      const ok = await upload('build', await filled('getBuild', [good('粤L20001', { 来访事由: '检修施工' })]));
      expect(ok.body).toMatchObject({ success: true, msg: '导入成功，共1条' });
      const row = await server.app.ctx.db.selectFrom('car_application').select('visitor_type').where('car_application_id', '=', ok.body.data.ids[0]!).executeTakeFirstOrThrow();
      expect(row.visitor_type).toBe(1);
      const long = await upload('build', await filled('getBuild', [good('粤L20002', { 来访结束时间: addDays(today, 90) })]));
      expect(long.status).toBe(400);
      expect(long.body.data.errors).toEqual(['第3行 来访结束时间：施工车辆来访时间不能超过1个月']);
    });

    it('imports nothing when a row is wrong, naming every row and field in Chinese', async () => {
      const before = await count();
      const r = await upload('proprietor', await filled('getProprietor', [good('粤L30001'), good('粤L30002', { 手机号: '123' }), good('粤L30003', { 车牌颜色: '紫色' }), good('粤L30004')]));
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(1001);
      expect(r.body.msg).toBe('导入失败，共2处错误');
      expect(r.body.data.errors).toEqual(['第4行 手机号：手机号格式不正确', '第5行 车牌颜色：“紫色”不是可选的值，请按“说明”表填写']);
      expect(await count()).toBe(before);

      const early = await upload('proprietor', await filled('getProprietor', [good('粤L30005', { 来访开始时间: today })]));
      expect(early.body.data.errors).toEqual(['第3行 来访开始时间：来访开始时间须晚于后天']);
      expect(await count()).toBe(before);
    });

    it('refuses what is not a filled template', async () => {
      expect((await upload('proprietor', Buffer.from('plain text'))).status).toBe(415);
      const empty = await upload('proprietor', await filled('getProprietor', []));
      expect(empty.status).toBe(400);
      expect(empty.body.msg).toContain('没有数据');
      const wb = new ExcelJS.Workbook();
      wb.addWorksheet('Sheet1').addRow(['车牌号', '姓名']);
      const wrong = await upload('proprietor', Buffer.from(await wb.xlsx.writeBuffer()));
      expect(wrong.status).toBe(400);
      expect(wrong.body.msg).toContain('导入文件缺少列');
      expect((await upload('proprietor', await filled('getProprietor', [good('粤L40001')]), contact, 'other')).status).toBe(400);
    });
  });
}
