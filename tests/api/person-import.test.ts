import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportStatus, type ImportTaskRow } from '../../domain/schemas/person-import';
import { addDays, dateOf } from '../../domain/visit-rules';
import { importRunnerOf, releaseStaleImports, STALE_MS } from '../../server/modules/person-import/job';
import { EventStream } from './event-stream';
import { idNumber } from './fixtures';
import { Client, dialects, startSecondServer, startServer, type TestServer } from './harness';
import { maskIdNumber } from '../../domain/personal-data';

/**
 * Person batch import (spec 001 §2, §4, §7; issue 27 part 3): template,
 * upload with every hostile zip refused and nothing saved, background start
 * with a cross-process claim, per-row all or nothing, restart of the failed
 * rows only, results file, live progress, own rows only.
 */

// ---------------------------------------------------------------- zips made by hand

interface ZipItem {
  /** The name's bytes as stored: a string is UTF-8 (and flagged so unless `utf8Flag` is false). */
  name: string | Buffer;
  data: Buffer;
  deflate?: boolean;
  utf8Flag?: boolean;
  /** Declared sizes in the directory, when they should lie. */
  declaredSize?: number;
}

/** A zip written byte by byte: names yazl would refuse (`../x`, absolute), GBK names, lying sizes. */
function makeZip(items: ZipItem[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const it of items) {
    const name = typeof it.name === 'string' ? Buffer.from(it.name, 'utf8') : it.name;
    const flag = typeof it.name === 'string' && it.utf8Flag !== false ? 0x800 : 0;
    const body = it.deflate ? zlib.deflateRawSync(it.data) : it.data;
    const crc = zlib.crc32(it.data);
    const size = it.declaredSize ?? it.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flag, 6);
    local.writeUInt16LE(it.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flag, 8);
    central.writeUInt16LE(it.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(items.length, 8);
  end.writeUInt16LE(items.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** The smallest JPEG header a sniff knows, with some body. */
const jpeg = (seed = 0) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]), Buffer.alloc(600, seed), Buffer.from([0xff, 0xd9])]);

const XLSX_HEADERS = [
  '访客姓名',
  '性别',
  '民族',
  '手机号',
  '来访单位',
  '地址',
  '申请类型',
  '证件类型',
  '证件号码',
  '来访事由',
  '来访开始时间',
  '来访结束时间',
  '园区',
  '被访人姓名',
  '被访人电话',
  '被访部门',
];

for (const dialect of await dialects()) {
  describe(`person batch import (${dialect})`, () => {
    let server: TestServer;
    let contact: Client, port: Client, patrol: Client;
    let today = '';
    let dept = '';

    beforeAll(async () => {
      server = await startServer(dialect);
      today = dateOf(server.app.ctx.time());
      [contact, port, patrol] = await Promise.all(['contact', 'portcontact', 'patrol'].map((a) => new Client(server).as(a)));
      dept = (await server.app.ctx.db.selectFrom('sys_department').select('name').where('name', 'like', '%有限公司%').where('deleted', '=', 0).orderBy('depart_id').executeTakeFirstOrThrow()).name;
    });
    afterAll(async () => server?.close());

    const person = (seq: number, over: Record<string, string> = {}) => ({
      访客姓名: `访客${seq}`,
      性别: '女',
      民族: '汉族',
      手机号: '13900001111',
      来访单位: '广州测试检测有限公司',
      地址: '',
      申请类型: '临时访客',
      证件类型: '第二代居民身份证',
      证件号码: idNumber(seq, '07'),
      来访事由: '设备验收',
      来访开始时间: addDays(today, 1),
      来访结束时间: addDays(today, 2),
      园区: '化工区',
      被访人姓名: '李强',
      被访人电话: '13800000003',
      被访部门: dept,
      ...over,
    });

    async function sheet(rows: Array<Record<string, string>>): Promise<Buffer> {
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('人员信息');
      ws.addRow(XLSX_HEADERS);
      for (const r of rows) ws.addRow(XLSX_HEADERS.map((h) => r[h] ?? ''));
      return Buffer.from(await wb.xlsx.writeBuffer());
    }

    /** A zip of the persons' sheet and a photo per ID number (minus `withoutPhoto`). */
    async function personsZip(rows: Array<Record<string, string>>, o: { withoutPhoto?: string[]; folder?: string } = {}): Promise<Buffer> {
      const folder = o.folder ?? '照片/';
      const photos = rows.filter((r) => !o.withoutPhoto?.includes(r['证件号码']!)).map((r, i) => ({ name: `${folder}${r['证件号码']}.jpg`, data: jpeg(i), deflate: true }));
      return makeZip([{ name: '人员信息.xlsx', data: await sheet(rows) }, ...photos, { name: '说明.txt', data: Buffer.from('说明', 'utf8'), deflate: true }]);
    }

    const upload = async (c: Client, data: Buffer | null, fields: Record<string, string> = { name: '批量导入' }, fileName = 'persons.zip') => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      if (data) form.append('zipFile', new Blob([new Uint8Array(data)], { type: 'application/zip' }), fileName);
      const res = await fetch(`${server.base}/api/personApplications/import/save`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
      return { status: res.status, body: (await res.json()) as { success: boolean; code: number; msg: string; data: { id: number } } };
    };

    const tasks = async () =>
      Number(
        (
          await server.app.ctx.db
            .selectFrom('person_import_task')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const leftovers = () => {
      const dir = path.join(server.dataDir, 'imports', 'tmp');
      return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    };
    const task = async (id: number) => server.app.ctx.db.selectFrom('person_import_task').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const idle = () => importRunnerOf(server.app.ctx)!.idle();
    const start = (c: Client, id: number) => c.post('/personApplications/import/submit', { id });
    const applications = async (idcard: string) =>
      server.app.ctx.db
        .selectFrom('person_application')
        .select(['person_application_id', 'state', 'visitor_face_photo', 'application_number'])
        .where('visitor_idcard', '=', idcard)
        .where('is_deleted', '=', 0)
        .execute();

    async function resultRows(c: Client, id: number) {
      const res = await fetch(`${server.base}/api/personApplications/import/result?id=${id}`, { headers: { authorization: `Bearer ${c.token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toContain(encodeURIComponent('导入结果'));
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load((await res.arrayBuffer()) as ArrayBuffer);
      const ws = wb.worksheets[0]!;
      const out: string[][] = [];
      ws.eachRow((row) => out.push((row.values as unknown[]).slice(1).map((v) => String(v ?? ''))));
      return out;
    }

    it('serves the template: a zip with the persons’ sheet under the form’s labels, an example row and 说明.txt', async () => {
      const res = await fetch(`${server.base}/api/personApplications/import/template`, { headers: { authorization: `Bearer ${contact.token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/zip');
      expect(res.headers.get('content-disposition')).toContain(encodeURIComponent('人员批量导入模板.zip'));
      const zip = Buffer.from(await res.arrayBuffer());
      const text = zip.toString('latin1');
      expect(text).toContain(Buffer.from('人员信息.xlsx').toString('latin1'));
      expect(text).toContain(Buffer.from('说明.txt').toString('latin1'));
      // The workbook is the first entry (stored or deflated by yazl): read it back through our own reader's path.
      const form = new FormData();
      form.append('name', '模板原样上传');
      form.append('zipFile', new Blob([new Uint8Array(zip)]), '人员批量导入模板.zip');
      const up = await fetch(`${server.base}/api/personApplications/import/save`, { method: 'POST', body: form, headers: { authorization: `Bearer ${contact.token}` } });
      const body = (await up.json()) as { data: { id: number } };
      expect(up.status).toBe(200);
      // Only the example row: nothing to import.
      expect((await start(contact, body.data.id)).status).toBe(200);
      await idle();
      const t = await task(body.data.id);
      expect(t.status).toBe(ImportStatus.FAILED);
      expect(t.reason).toBe('人员表中没有数据，请从第2行开始填写');
      expect((await patrol.get('/personApplications/import/template')).status).toBe(403);
    });

    it('imports each row whole: created and submitted with its photo, or a reason; the results download; a restart imports only the failed rows', async () => {
      const rows = [person(1), person(2), person(3), person(4, { 手机号: '12345' })];
      const missing = rows[2]!['证件号码']!;
      const up = await upload(contact, await personsZip(rows, { withoutPhoto: [missing] }), { name: '四人导入' });
      expect(up.status).toBe(200);
      expect(up.body.msg).toBe('创建成功！');
      const id = up.body.data.id;
      const listed = await contact.post<{ list: ImportTaskRow[]; total: number }>('/personApplications/import/page', { size: 10, pn: 1 });
      const row = listed.body.data.list.find((r) => r.id === id)!;
      expect(row).toMatchObject({ name: '四人导入', file_name: 'persons.zip', status: ImportStatus.WAITING, create_user_name: '王芳', has_rows: 0 });
      expect(row.file_size).toBeGreaterThan(1000);

      expect((await start(contact, id)).body.msg).toBe('提交成功！');
      await idle();
      let t = await task(id);
      expect(t).toMatchObject({ status: ImportStatus.FAILED, total: 4, done_count: 2, failed_count: 2, claimed_by: null });
      expect(t.reason).toContain('2人未导入');

      // Imported rows are submitted applications (state 1) holding their photo; failed ones left nothing.
      for (const r of rows.slice(0, 2)) {
        const apps = await applications(r['证件号码']!);
        expect(apps).toHaveLength(1);
        expect(apps[0]!.state).toBe(1);
        expect(apps[0]!.visitor_face_photo).toMatch(/^[0-9a-f]{32}\.jpg$/);
        const ref = await server.app.ctx.db.selectFrom('file_ref').select('record_id').where('file_name', '=', apps[0]!.visitor_face_photo).executeTakeFirst();
        expect(ref?.record_id).toBe(apps[0]!.person_application_id);
      }
      expect(await applications(missing)).toHaveLength(0);
      expect(await applications(rows[3]!['证件号码']!)).toHaveLength(0);

      const results = await resultRows(contact, id);
      expect(results[0]).toEqual(['行号', '访客姓名', '证件号码', '结果', '申请单号', '原因']);
      expect(results.slice(1).map((r) => [r[0], r[3]])).toEqual([
        ['2', '成功'],
        ['3', '成功'],
        ['4', '失败'],
        ['5', '失败'],
      ]);
      expect(results[1]![4]).toBe((await applications(rows[0]!['证件号码']!))[0]!.application_number);
      expect(results[3]![5]).toContain(`缺少人脸照片`);
      expect(results[3]![5]).toContain(missing);
      expect(results[4]![5]).toBe('手机号：手机号格式不正确');

      // The corrected zip replaces the old one; the restart imports the two that failed, not the two already imported.
      const fixed = [person(1), person(2), person(3), person(4)];
      const again = await upload(contact, await personsZip(fixed), { name: '四人导入（修正）', id: String(id) });
      expect(again.status).toBe(200);
      expect(again.body.msg).toBe('编辑成功！');
      expect((await start(contact, id)).status).toBe(200);
      await idle();
      t = await task(id);
      expect(t).toMatchObject({ status: ImportStatus.DONE, reason: '', total: 4, done_count: 4, failed_count: 0, name: '四人导入（修正）' });
      for (const r of fixed) expect(await applications(r['证件号码']!)).toHaveLength(1);
      const after = await resultRows(contact, id);
      expect(after.slice(1).every((r) => r[3] === '成功')).toBe(true);
      expect(after).toHaveLength(5);
      // Only the current zip is kept.
      expect(fs.readdirSync(path.join(server.dataDir, 'imports')).filter((f) => f.endsWith('.zip'))).toHaveLength(2);
    });

    it('a black-listed visitor’s row leaves nothing behind: no draft, no stored photo', async () => {
      const listed = person(20);
      await server.app.ctx.db
        .insertInto('person_black_white_list')
        .values({
          name: '黑名单人员',
          gender: 0,
          idcard_type: 1,
          idcard: listed['证件号码']!,
          type: 1,
          start_time: null,
          end_time: null,
          status: 2,
          in_reason: '测试',
          create_time: `${today} 00:00:00`,
          update_time: `${today} 00:00:00`,
        })
        .execute();
      const files = async () =>
        Number(
          (
            await server.app.ctx.db
              .selectFrom('file_object')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await files();
      const up = await upload(contact, await personsZip([listed, person(21)]));
      await start(contact, up.body.data.id);
      await idle();
      expect(await task(up.body.data.id)).toMatchObject({ status: ImportStatus.FAILED, done_count: 1, failed_count: 1 });
      expect(await applications(listed['证件号码']!)).toHaveLength(0);
      expect(await files()).toBe(before + 1);
      const results = await resultRows(contact, up.body.data.id);
      expect(results[1]![5]).toContain('黑名单');
    });

    it('names the check character when that is what is wrong with an ID number, and the shape or birth date otherwise', async () => {
      const good = idNumber(40, '07');
      const mistyped = good.slice(0, 17) + (good[17] === '0' ? '1' : '0');
      const noDate = `${good.slice(0, 10)}1399${good.slice(14)}`;
      const up = await upload(contact, await personsZip([person(40, { 证件号码: mistyped }), person(41, { 证件号码: noDate })]), { name: '校验码' });
      await start(contact, up.body.data.id);
      await idle();
      const results = await resultRows(contact, up.body.data.id);
      expect(results.slice(1).map((r) => [r[2], r[3], r[5]])).toEqual([
        // The results file masks the numbers like every export (docs/personal-data.md); the row number and name tell them apart.
        [maskIdNumber(mistyped), '失败', '证件号码：身份证号校验码不正确（第18位与前17位不符），请核对号码'],
        [maskIdNumber(noDate), '失败', '证件号码：身份证号格式不正确'],
      ]);
    });

    it('reads GBK entry names (Windows’ zip) as well as UTF-8 ones', async () => {
      const rows = [person(30), person(31)];
      const zip = makeZip([
        { name: encodeGbk('人员名单.xlsx'), data: await sheet(rows) },
        ...rows.map((r) => ({ name: encodeGbk(`身份证照片/${r['证件号码']}.jpg`), data: jpeg(3), deflate: true })),
        { name: encodeGbk('说明.txt'), data: Buffer.from('x') },
      ]);
      const up = await upload(contact, zip, { name: 'GBK' });
      expect(up.status).toBe(200);
      await start(contact, up.body.data.id);
      await idle();
      expect(await task(up.body.data.id)).toMatchObject({ status: ImportStatus.DONE, done_count: 2 });
    });

    describe('hostile zips are refused with a clear message, and nothing is saved', () => {
      const refused = async (data: Buffer, message: string | RegExp, status = 400) => {
        const before = await tasks();
        const r = await upload(contact, data);
        expect(r.status).toBe(status);
        if (typeof message === 'string') expect(r.body.msg).toBe(message);
        else expect(r.body.msg).toMatch(message);
        expect(await tasks()).toBe(before);
        expect(leftovers()).toEqual([]);
      };

      it('not a zip', async () => {
        await refused(Buffer.from('这不是压缩包'), '请上传zip文件');
        const r = await upload(contact, null);
        expect(r.status).toBe(400);
        expect(r.body.msg).toBe('请上传zip文件');
      });

      it('over 200 MB, cut off while streaming', async () => {
        const before = await tasks();
        const chunk = new Uint8Array(1024 * 1024);
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent >= 201) return controller.close();
            sent++;
            controller.enqueue(chunk);
          },
        });
        const boundary = 'xxBOUNDARYxx';
        const head = new TextEncoder().encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n大文件\r\n--${boundary}\r\nContent-Disposition: form-data; name="zipFile"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\n`,
        );
        const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
        const stream = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(head);
            const reader = body.getReader();
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              controller.enqueue(value);
            }
            controller.enqueue(tail);
            controller.close();
          },
        });
        const res = await fetch(`${server.base}/api/personApplications/import/save`, {
          method: 'POST',
          body: stream,
          headers: { authorization: `Bearer ${contact.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
          duplex: 'half',
        } as RequestInit);
        expect(res.status).toBe(413);
        expect(((await res.json()) as { msg: string }).msg).toBe('zip文件不能超过200MB');
        expect(await tasks()).toBe(before);
        expect(leftovers()).toEqual([]);
      }, 60_000);

      it('more than 5,000 entries', async () => {
        const items = Array.from({ length: 5001 }, (_, i) => ({ name: `x/${i}.txt`, data: Buffer.from('a') }));
        await refused(makeZip(items), '压缩包内文件过多：5001个，最多5000个');
      });

      it('more than 1 GB once unzipped (declared), refused before anything is inflated', async () => {
        // Four deflated entries declaring 300 MB each, at a ratio under 100 (random bytes do not shrink), so that only the total is at fault.
        const items = Array.from({ length: 4 }, (_, i) => ({ name: `big${i}.bin`, data: randomBytes(3_200_000), deflate: true, declaredSize: 300 * 1024 * 1024 }));
        await refused(makeZip(items), '压缩包解压后超过1GB，已拒绝');
      });

      it('a compression ratio over 100 (zip bomb)', async () => {
        await refused(
          makeZip([
            { name: '人员信息.xlsx', data: await sheet([person(40)]) },
            { name: 'pad.txt', data: Buffer.alloc(2_000_000, 0x41), deflate: true },
          ]),
          /“pad\.txt”压缩比超过100:1，疑似压缩炸弹/,
        );
      });

      it('an entry whose real size passes what it declared is not trusted', async () => {
        // Declares 10 bytes, inflates to 50 000: the upload's sniff stops at the declaration (yauzl's validateEntrySizes).
        const photo = `${idNumber(41, '07')}.jpg`;
        const zip = makeZip([
          { name: '人员信息.xlsx', data: await sheet([person(41)]) },
          { name: photo, data: Buffer.concat([jpeg(1), Buffer.alloc(50_000, 1)]), deflate: true, declaredSize: 10 },
        ]);
        await refused(zip, `压缩包中的照片“${photo}”已损坏，无法读取`);
        expect(await applications(idNumber(41, '07'))).toEqual([]);
      });

      it('entries with .. or an absolute path', async () => {
        const sheetData = await sheet([person(42)]);
        await refused(
          makeZip([
            { name: '人员信息.xlsx', data: sheetData },
            { name: '../x.jpg', data: jpeg() },
          ]),
          '压缩包中的“../x.jpg”含绝对路径或“..”，不安全，已拒绝',
        );
        await refused(
          makeZip([
            { name: '人员信息.xlsx', data: sheetData },
            { name: '/etc/x.jpg', data: jpeg() },
          ]),
          /“\/etc\/x\.jpg”含绝对路径/,
        );
        await refused(
          makeZip([
            { name: '人员信息.xlsx', data: sheetData },
            { name: 'C:\\temp\\x.jpg', data: jpeg() },
          ]),
          /含绝对路径/,
        );
        await refused(
          makeZip([
            { name: '人员信息.xlsx', data: sheetData },
            { name: 'a\\..\\..\\x.jpg', data: jpeg() },
          ]),
          /含绝对路径/,
        );
      });

      it('a photo whose bytes are not an image', async () => {
        const fake = `${idNumber(43, '07')}.jpg`;
        await refused(
          makeZip([
            { name: '人员信息.xlsx', data: await sheet([person(43)]) },
            { name: fake, data: Buffer.from('MZ\x90\x00 not a picture at all', 'latin1') },
          ]),
          `压缩包中的“${fake}”不是图片文件（仅支持 JPG、PNG）`,
        );
      });

      it('no sheet, or two', async () => {
        await refused(makeZip([{ name: 'a.jpg', data: jpeg() }]), '压缩包中没有人员表（.xlsx 文件），请按模板放入一个人员表');
        const s = await sheet([person(44)]);
        await refused(
          makeZip([
            { name: 'a.xlsx', data: s },
            { name: 'b.xlsx', data: s },
          ]),
          '压缩包中只能有一个人员表（.xlsx），现有2个：a.xlsx、b.xlsx',
        );
      });

      it('a task name is required', async () => {
        const before = await tasks();
        const r = await upload(contact, await personsZip([person(45)]), {});
        expect(r.status).toBe(400);
        expect(r.body.msg).toContain('请输入任务名称');
        expect(await tasks()).toBe(before);
        expect(leftovers()).toEqual([]);
      });
    });

    it('a second start gets 409, from this server or at the same moment; running and finished tasks cannot be edited or deleted', async () => {
      const rows = Array.from({ length: 30 }, (_, i) => person(100 + i));
      const up = await upload(contact, await personsZip(rows));
      const id = up.body.data.id;
      const both = await Promise.all([start(contact, id), start(contact, id)]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(both.find((r) => r.status === 409)!.body.code).toBe(1006);
      // While it runs (or once done), the task is not editable.
      const upd = await contact.post('/personApplications/import/update', { id, name: '改名' });
      expect(upd.status).toBe(409);
      await idle();
      expect((await task(id)).status).toBe(ImportStatus.DONE);
      expect((await start(contact, id)).status).toBe(409);
      expect((await contact.post('/personApplications/import/update', { id, name: '改名' })).body.msg).toBe('只有待导入或失败的任务可以编辑、开始导入或删除');
      expect((await contact.post('/personApplications/import/delete', { id })).status).toBe(409);
      expect((await upload(contact, await personsZip([person(140)]), { name: 'x', id: String(id) })).status).toBe(409);
    });

    it('edits the name and deletes waiting or failed tasks with their zip', async () => {
      const up = await upload(contact, await personsZip([person(150)]), { name: '待删除' });
      const id = up.body.data.id;
      expect((await contact.post('/personApplications/import/update', { id, name: '' })).status).toBe(400);
      expect((await contact.post('/personApplications/import/update', { id, name: '新名字' })).body.msg).toBe('编辑成功！');
      expect((await task(id)).name).toBe('新名字');
      const zip = path.join(server.dataDir, 'imports', (await task(id)).file_path);
      expect(fs.existsSync(zip)).toBe(true);
      expect((await contact.post('/personApplications/import/delete', { id })).body.msg).toBe('删除成功！');
      expect(await server.app.ctx.db.selectFrom('person_import_task').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
      await new Promise((r) => setTimeout(r, 50));
      expect(fs.existsSync(zip)).toBe(false);
    });

    it('a user sees and touches only their own tasks; without the codes, 403', async () => {
      const up = await upload(contact, await personsZip([person(160)]), { name: '王芳的任务' });
      const id = up.body.data.id;
      const theirs = await port.post<{ list: ImportTaskRow[]; total: number }>('/personApplications/import/page', { size: 50, pn: 1 });
      expect(theirs.body.data.list.some((r) => r.id === id)).toBe(false);
      const mine = await contact.get<{ list: ImportTaskRow[]; total: number }>('/personApplications/import/page?size=50&pn=1&name=' + encodeURIComponent('王芳的'));
      expect(mine.body.data.list.map((r) => r.id)).toEqual([id]);
      for (const [url, body] of [
        ['/personApplications/import/update', { id, name: 'x' }],
        ['/personApplications/import/delete', { id }],
        ['/personApplications/import/submit', { id }],
      ] as const) {
        expect((await port.post(url, body)).status).toBe(404);
      }
      expect((await port.get(`/personApplications/import/result?id=${id}`)).status).toBe(404);
      expect((await upload(port, await personsZip([person(161)]), { name: 'x', id: String(id) })).status).toBe(404);
      expect((await patrol.post('/personApplications/import/page', { size: 10, pn: 1 })).status).toBe(403);
      expect((await upload(patrol, await personsZip([person(162)]))).status).toBe(403);
      expect((await patrol.post('/personApplications/import/submit', { id })).status).toBe(403);
    });

    it('a task left running by a server that stopped beating is released as 失败 with 导入中断，请重新开始', async () => {
      const up = await upload(contact, await personsZip([person(170)]));
      const id = up.body.data.id;
      const now = Date.now();
      await server.app.ctx.db
        .updateTable('person_import_task')
        .set({ status: ImportStatus.RUNNING, claimed_by: 'gone:1:x', heartbeat_at: now - STALE_MS - 1000 })
        .where('id', '=', id)
        .execute();
      expect(await releaseStaleImports(server.app.ctx, now)).toBe(1);
      expect(await task(id)).toMatchObject({ status: ImportStatus.FAILED, reason: '导入中断，请重新开始', claimed_by: null });
      expect((await start(contact, id)).status).toBe(200);
      await idle();
      expect((await task(id)).status).toBe(ImportStatus.DONE);
    });

    it('two servers on one database: one start wins, and the run on one reaches a stream held by the other', async () => {
      const second = await startSecondServer(server);
      try {
        const other = new Client(second);
        other.token = contact.token;
        const up = await upload(contact, await personsZip(Array.from({ length: 10 }, (_, i) => person(200 + i))));
        const id = up.body.data.id;
        const stream = await new EventStream().open(second.base, contact.token);
        try {
          const both = await Promise.all([start(contact, id), other.post('/personApplications/import/submit', { id })]);
          expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
          await Promise.all([idle(), importRunnerOf(second.app.ctx)!.idle()]);
          expect(await task(id)).toMatchObject({ status: ImportStatus.DONE, done_count: 10 });
          const ended = await stream.next<{ id: number; status: number }>(
            (e) => e.event === 'import' && (e.data as { id: number }).id === id && (e.data as { status: number }).status === ImportStatus.DONE,
            10_000,
          );
          expect(ended.data).toMatchObject({ done: 10, total: 10, failed: 0 });
        } finally {
          await stream.close();
        }
      } finally {
        await second.close();
      }
    });

    it('streams the progress live (已导入 n / N) to the owner’s notification stream', async () => {
      const stream = await new EventStream().open(server.base, contact.token);
      try {
        const rows = Array.from({ length: 5 }, (_, i) => person(180 + i));
        const up = await upload(contact, await personsZip(rows));
        await start(contact, up.body.data.id);
        await idle();
        const ended = await stream.next<{ id: number; status: number; done: number; total: number }>(
          (e) => e.event === 'import' && (e.data as { id: number; status: number }).id === up.body.data.id && (e.data as { status: number }).status === ImportStatus.DONE,
          10_000,
        );
        expect(ended.data).toMatchObject({ done: 5, total: 5, failed: 0 });
      } finally {
        await stream.close();
      }
    });
  });
}

/** GBK bytes of a string, as a Chinese Windows writes zip names: TextDecoder's GBK table, inverted once. */
let gbkTable: Map<string, number[]> | null = null;
function encodeGbk(s: string): Buffer {
  if (!gbkTable) {
    gbkTable = new Map();
    const decoder = new TextDecoder('gbk');
    for (let hi = 0x81; hi <= 0xfe; hi++)
      for (let lo = 0x40; lo <= 0xfe; lo++) {
        if (lo === 0x7f) continue;
        const ch = decoder.decode(new Uint8Array([hi, lo]));
        if (!gbkTable.has(ch)) gbkTable.set(ch, [hi, lo]);
      }
  }
  const out: number[] = [];
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code < 0x80) out.push(code);
    else out.push(...(gbkTable.get(ch) ?? []));
  }
  return Buffer.from(out);
}
