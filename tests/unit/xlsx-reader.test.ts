import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/core/errors';
import { ImportGate, readSheetOffThread } from '../../server/core/xlsx-off-thread';
import { MAX_UNZIPPED_BYTES, readSheet, zipDirectory, type ReaderColumn } from '../../server/core/xlsx-reader';
import { bombWorkbook, rowXml, SHEET_HEAD, SHEET_TAIL, sheetWorkbook } from '../../scripts/xlsx-fixtures';

/** The import reader (zip directory, streaming SAX, worker): what exceljs read before, at a bounded cost. */

const columns: ReaderColumn[] = [
  { key: 'plate', header: '车牌号', required: true },
  { key: 'start', header: '开始时间', required: false },
  { key: 'count', header: '数量', required: false },
  { key: 'flag', header: '是否', required: false },
  { key: 'note', header: '备注', required: false },
];
const options = { columns, keep: 10, skipSheet: '说明' };

async function workbook(fill: (ws: ExcelJS.Worksheet) => void, date1904 = false): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  if (date1904) wb.properties.date1904 = true;
  wb.addWorksheet('说明').addRow(['车牌号', '不是数据']);
  const ws = wb.addWorksheet('数据');
  fill(ws);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

describe('xlsx reader', () => {
  it('reads cells as exceljs gave them: shared and rich text, numbers, booleans, dates, formulas, columns by header', async () => {
    const data = await workbook((ws) => {
      // Reordered, starred, one unknown column, one absent optional column.
      ws.addRow(['备注', '*车牌号', '其他', '开始时间', ' 数量']);
      ws.addRow([{ richText: [{ text: ' 富' }, { text: '文本 ' }] }, '粤A00001', 'x', new Date(Date.UTC(2026, 5, 1)), 12.5]);
      ws.addRow(['', '粤A00002', '', new Date(Date.UTC(2026, 5, 1, 8, 30)), { formula: '1+1', result: 2 }]);
      ws.addRow([]);
      ws.addRow(['', '', 'only an unknown column', '', '']);
      ws.addRow([{ formula: '"a"&"b"', result: 'ab' }, '粤A00003', '', '2026/6/1', true]);
      ws.getCell('D6').numFmt = '@';
    });
    const read = await readSheet(data, options);
    expect(read).toEqual({
      ok: true,
      more: false,
      rows: [
        { row: 2, cells: { plate: '粤A00001', start: '2026-06-01', count: '12.5', flag: '', note: '富文本' } },
        { row: 3, cells: { plate: '粤A00002', start: '2026-06-01 08:30:00', count: '2', flag: '', note: '' } },
        { row: 6, cells: { plate: '粤A00003', start: '2026/6/1', count: 'true', flag: '', note: 'ab' } },
      ],
    });
  });

  it('reads dates of a workbook counted from 1904', async () => {
    const data = await workbook((ws) => {
      ws.addRow(['车牌号', '开始时间']);
      ws.addRow(['粤A00001', new Date(Date.UTC(2026, 5, 1))]);
    }, true);
    expect(await readSheet(data, options)).toMatchObject({ ok: true, rows: [{ cells: { start: '2026-06-01' } }] });
  });

  it('names a missing header or required column', async () => {
    const noHeader = await workbook((ws) => ws.addRow(['甲', '乙']));
    expect(await readSheet(noHeader, options)).toEqual({ ok: false, message: '导入文件第1行不是表头：应为列名（如“车牌号”），请下载导入模板填写' });
    const noPlate = await workbook((ws) => ws.addRow(['备注']));
    expect(await readSheet(noPlate, options)).toEqual({ ok: false, message: '导入文件缺少列：车牌号，请下载最新的导入模板' });
  });

  it('stops at the first row past the limit without reading further', async () => {
    const rows = [rowXml(1, ['车牌号'])];
    for (let n = 2; n <= 600; n++) rows.push(rowXml(n, [`粤A${n}`]));
    // Broken XML after row 600: a reader that went on would refuse the file as unreadable.
    const data = sheetWorkbook(SHEET_HEAD + rows.join('') + '<row r="601"><c><<<' + SHEET_TAIL);
    const read = await readSheet(data, { ...options, keep: 501 });
    expect(read).toMatchObject({ ok: true, more: true });
    expect(read.ok && read.rows.length).toBe(501);
    expect(read.ok && read.rows.at(-1)).toEqual({ row: 502, cells: { plate: '粤A502', start: '', count: '', flag: '', note: '' } });
  });

  it('refuses by the directory a workbook too large or too compressed when unzipped, before inflating it', () => {
    expect(() => zipDirectory(bombWorkbook())).toThrow(`导入文件解压后不能超过${MAX_UNZIPPED_BYTES / 1024 / 1024}MB（此文件约1025MB）`);
    expect(() => zipDirectory(bombWorkbook(20 * 1024 * 1024))).toThrow(/导入文件的压缩比异常（xl\/worksheets\/sheet1\.xml 约\d+:1，上限100:1）/);
  });

  it('never inflates past what the directory declared', async () => {
    const lying = sheetWorkbook(SHEET_HEAD + ' '.repeat(5_000_000) + SHEET_TAIL, 2000);
    expect(() => zipDirectory(lying)).not.toThrow();
    expect(await readSheet(lying, options)).toEqual({ ok: false, message: '导入文件已损坏（xl/worksheets/sheet1.xml 解压后的大小与声明不符），请重新保存后上传' });
  });

  it('refuses a corrupt zip as unreadable', async () => {
    const good = await workbook((ws) => ws.addRow(['车牌号']));
    const sheet = zipDirectory(good).find((e) => e.name === 'xl/worksheets/sheet2.xml')!;
    const broken = Buffer.from(good);
    broken.fill(0x55, sheet.localOffset + 60, sheet.localOffset + 60 + 40);
    expect(await readSheet(broken, options)).toMatchObject({ ok: false, message: expect.stringMatching(/^(无法读取导入文件|导入文件已损坏)/) });
    expect(await readSheet(good.subarray(0, good.length - 30), options)).toEqual({ ok: false, message: '无法读取导入文件，请使用导入模板填写后上传' });
  });
  it('answers every odd or broken sheet with rows or a refusal, never an exception', async () => {
    const header = rowXml(1, ['车牌号', '备注']);
    const odd = [
      '<row><c><v><c t="s"><v>1</v></c></v></c></row>',
      '<row><c><v><c>1</c></v></c></row>',
      '<row r="x"><c r="?" t="inlineStr"><is><t>粤A1</t></is></c><c r="A9" t="inlineStr"><is><t>粤A2</t></is></c></row>',
      '<row r="3"><c t="s"><v>99999</v></c><c t="b"><v>1</v></c><c t="e"><v>#N/A</v></c><c t="d"><v>nonsense</v></c></row>',
      '<row r="2"><c r="A2"><is><t>no type</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><r><t>a</t></r><rPh><t>ignored</t></rPh></is></c></row>',
      '<row r="4"><c r="A4" t="inlineStr"><v>',
    ];
    for (const body of odd) {
      const read = await readSheet(sheetWorkbook(SHEET_HEAD + header + body + SHEET_TAIL), options);
      expect(typeof read.ok).toBe('boolean');
      // Row numbers name rows in messages: always a sheet row, whatever the file says.
      if (read.ok) for (const r of read.rows) expect(Number.isInteger(r.row) && r.row > 1, body).toBe(true);
    }
    // Every single-character corruption of a small sheet, at a spread of places.
    const sheet = SHEET_HEAD + header + rowXml(2, ['粤A00001', '备注&<>']) + rowXml(3, ['粤A00002', '']) + SHEET_TAIL;
    for (let i = 0; i < sheet.length; i += 7) {
      for (const ch of ['<', '>', '"', '&', ' ', 'x']) {
        const read = await readSheet(sheetWorkbook(sheet.slice(0, i) + ch + sheet.slice(i + 1)), options);
        expect(typeof read.ok).toBe('boolean');
      }
    }
  });
});

describe('reading off the event loop', () => {
  it('reads in a worker thread that loads the TypeScript reader', async () => {
    const data = await workbook((ws) => {
      ws.addRow(['车牌号']);
      ws.addRow(['粤A00001']);
    });
    expect(await readSheetOffThread(data, options, new ImportGate(1))).toMatchObject({ ok: true, rows: [{ row: 2, cells: { plate: '粤A00001' } }] });
  });

  it('stops the worker at the deadline and refuses the file, freeing its slot', async () => {
    const gate = new ImportGate(1);
    const data = await workbook((ws) => ws.addRow(['车牌号']));
    await expect(readSheetOffThread(data, options, gate, 1)).rejects.toThrow('导入文件读取超时');
    expect(() => gate.enterReading()).not.toThrow();
  });

  it('refuses a bomb with 400 before starting a worker', async () => {
    const gate = new ImportGate(0);
    // A gate with no slot: reaching the worker would answer 429, not the directory's 400.
    const err = await readSheetOffThread(bombWorkbook(), options, gate).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
  });

  it('lets one import per user and a set number of reads per process, each refused with 429 and freed once', () => {
    const gate = new ImportGate(2);
    const leave = gate.enterUser(7);
    const busy = (() => {
      try {
        gate.enterUser(7);
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(busy).toMatchObject({ status: 429, message: '上一个导入尚未完成，请稍后再试' });
    expect(() => gate.enterUser(8)).not.toThrow();
    leave();
    leave();
    expect(() => gate.enterUser(7)).not.toThrow();

    const a = gate.enterReading();
    gate.enterReading();
    expect(() => gate.enterReading()).toThrow('导入任务繁忙，请稍后再试');
    a();
    a();
    expect(() => gate.enterReading()).not.toThrow();
    expect(() => gate.enterReading()).toThrow('导入任务繁忙，请稍后再试');
  });
});
