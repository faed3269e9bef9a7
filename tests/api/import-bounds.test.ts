import http from 'node:http';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope } from '../../domain/envelope';
import { addDays, dateOf } from '../../domain/visit-rules';
import { zipDirectory } from '../../server/core/xlsx-reader';
import { bombWorkbook, SHEET_HEAD, SHEET_TAIL, sheetWorkbook } from '../../scripts/xlsx-fixtures';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * Issue 23 item 1: an xlsx import costs the server a bounded amount whoever
 * sends it (DESIGN.md §11): bombs and lying zips refused by their directory or
 * while inflating, sheets left at the first row past the limit, one import at
 * a time per user. On the black-list import and an appointment import, which
 * a contact from outside the park may call.
 */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const ROUTES = { carList: '/carBlackWhiteList/excelImport', proprietor: '/carApplications/import/proprietor' } as const;
const TEMPLATES = { carList: '/carBlackWhiteList/excelTemplate', proprietor: '/carApplications/template/getProprietor' } as const;
type Route = keyof typeof ROUTES;

for (const dialect of await dialects()) {
  describe(`import bounds (${dialect})`, () => {
    let server: TestServer;
    let lead: Client, contact: Client;
    let today = '';
    const callerOf = (route: Route) => (route === 'carList' ? lead : contact);

    beforeAll(async () => {
      server = await startServer(dialect);
      today = dateOf(server.app.ctx.time());
      [lead, contact] = await Promise.all(['lead', 'contact'].map((a) => new Client(server).as(a)));
    });
    afterAll(async () => server?.close());

    const upload = async (route: Route, data: Buffer, c: Client = callerOf(route)) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(data)], { type: XLSX }), 'import.xlsx');
      const res = await fetch(`${server.base}/api${ROUTES[route]}`, { method: 'POST', body: form, headers: { authorization: `Bearer ${c.token}` } });
      return { status: res.status, body: (await res.json()) as Envelope<unknown> };
    };

    /** The route's template with `n` copies of its example row's values below it (the example's marker cleared, so they count). */
    async function rows(route: Route, n: number): Promise<Buffer> {
      const res = await fetch(`${server.base}/api${TEMPLATES[route]}`, { headers: { authorization: `Bearer ${callerOf(route).token}` } });
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load((await res.arrayBuffer()) as ArrayBuffer);
      const ws = wb.worksheets[0]!;
      const example = (ws.getRow(2).values as ExcelJS.CellValue[]).slice(1);
      const headers = (ws.getRow(1).values as unknown[]).slice(1).map(String);
      const marker = headers.findIndex((h) => h === '原因' || h === '*原因' || h === '备注');
      for (let i = 0; i < n; i++) ws.addRow(example.map((v, c) => (c === marker ? `第${i}条` : v)));
      return Buffer.from(await wb.xlsx.writeBuffer());
    }

    const saved = async () => {
      const db = server.app.ctx.db;
      const lists = await db
        .selectFrom('car_black_white_list')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const apps = await db
        .selectFrom('car_application')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(lists.n) + Number(apps.n);
    };

    it('refuses a 1 GiB sheet of spaces zipped to 1 MB by its directory, naming the bound', async () => {
      const bomb = bombWorkbook();
      expect(bomb.length).toBeLessThan(1.1 * 1024 * 1024);
      for (const route of ['carList', 'proprietor'] as const) {
        const r = await upload(route, bomb);
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body).toMatchObject({ success: false, code: 1001, msg: '导入文件解压后不能超过30MB（此文件约1025MB），请使用导入模板填写，分批导入' });
      }
    });

    it('refuses a sheet larger than its directory declares while inflating it, never past the declaration', async () => {
      const lying = sheetWorkbook(SHEET_HEAD + ' '.repeat(20_000_000) + SHEET_TAIL, 4096);
      for (const route of ['carList', 'proprietor'] as const) {
        const r = await upload(route, lying);
        expect(r.status).toBe(400);
        expect(r.body.msg).toBe('导入文件已损坏（xl/worksheets/sheet1.xml 解压后的大小与声明不符），请重新保存后上传');
      }
    });

    it('refuses 5,000 rows at the first row past the limit, saving nothing', async () => {
      const before = await saved();
      for (const route of ['carList', 'proprietor'] as const) {
        const r = await upload(route, await rows(route, 5000));
        expect(r.status).toBe(400);
        // "超过": the reading stopped at row 502 and never counted the rest.
        expect(r.body.msg).toBe('一次最多导入500条，当前超过500条，请分批导入');
      }
      expect(await saved()).toBe(before);
    });

    it('still imports 500 rows below the example and counts 501', async () => {
      const over = await upload('carList', await rows('carList', 501));
      expect(over.body.msg).toBe('一次最多导入500条，当前超过500条，请分批导入');
      const before = await saved();
      const full = await upload('carList', await rows('carList', 500));
      expect(full.body, JSON.stringify(full.body).slice(0, 300)).toMatchObject({ success: true, data: { count: 500 } });
      expect(await saved()).toBe(before + 500);
    });

    it('refuses corrupt zips as unreadable', async () => {
      const good = await rows('proprietor', 1);
      const cut = await upload('proprietor', good.subarray(0, good.length - 40));
      expect(cut.status).toBe(415);
      const sheet = zipDirectory(good).find((e) => e.name === 'xl/worksheets/sheet1.xml')!;
      const garbled = Buffer.from(good);
      garbled.fill(0x55, sheet.localOffset + 80, sheet.localOffset + 120);
      const r = await upload('proprietor', garbled);
      expect(r.status).toBe(400);
      expect(r.body.msg).toMatch(/^(无法读取导入文件，请使用导入模板填写后上传|导入文件已损坏（xl\/worksheets\/sheet1\.xml 校验不符），请重新保存后上传)$/);
    });

    /**
     * An upload by `lead` that is inside its import (body still arriving), and the answer to a second upload meanwhile.
     * Until it is inside, a second upload is refused as a bomb, saving nothing; if a probe was inside when the held
     * upload arrived, the held one got the 429 instead and the attempt is made again.
     */
    async function heldWithSecond() {
      const bomb = bombWorkbook(64 * 1024 * 1024);
      const answered = (held: ReturnType<typeof holdUpload>) =>
        Promise.race([
          held.answer.then(
            () => true,
            () => true,
          ),
          new Promise<boolean>((r) => setTimeout(() => r(false), 0)),
        ]);
      for (let attempt = 0; attempt < 5; attempt++) {
        const held = holdUpload(server, lead.token!, ROUTES.carList);
        await held.started;
        for (let i = 0; i < 40 && !(await answered(held)); i++) {
          await new Promise((r) => setTimeout(r, 50));
          const second = await upload('carList', bomb);
          if (second.status === 429 && !(await answered(held))) return { held, second };
        }
        held.abort();
      }
      throw new Error('no upload was ever refused while another of the same user was inside its import');
    }

    it('lets one user run one import at a time (429), others meanwhile, and frees the slot when the upload ends or breaks', async () => {
      const { held, second } = await heldWithSecond();
      expect(second.body).toMatchObject({ success: false, code: 1012, msg: '上一个导入尚未完成，请稍后再试' });
      const other = await upload('proprietor', await rows('proprietor', 1));
      expect(other.status, JSON.stringify(other.body)).toBe(200);

      const first = await held.finish(await rows('carList', 1));
      expect(first.status, first.text).toBe(200);
      expect((await upload('carList', await rows('carList', 1))).status).toBe(200);

      const { held: broken } = await heldWithSecond();
      broken.abort();
      let status = 429;
      for (let i = 0; i < 50 && status === 429; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await upload('carList', await rows('carList', 1))).status;
      }
      expect(status).toBe(200);
    });
  });
}

/**
 * A multipart upload whose body is sent in two halves: the part's headers
 * now, the file when `finish` is called, so a test can act while the server
 * is inside the import.
 */
function holdUpload(server: TestServer, token: string, route: string) {
  const boundary = '----import-bounds';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="import.xlsx"\r\nContent-Type: ${XLSX}\r\n\r\n`;
  const req = http.request(`${server.base}/api${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
  });
  answer.catch(() => undefined);
  req.flushHeaders();
  const started = new Promise<void>((resolve) => req.write(head, () => resolve()));
  return {
    started,
    answer,
    finish(data: Buffer) {
      req.end(Buffer.concat([data, Buffer.from(`\r\n--${boundary}--\r\n`)]));
      return answer;
    },
    abort: () => req.destroy(),
  };
}
