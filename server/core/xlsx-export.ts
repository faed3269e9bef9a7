import { PassThrough, type Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { XLSX_MIME } from './xlsx-import';
import { guardSpreadsheetText } from './xlsx-text';

/** One column of an export: its header (the spec's words) and how a row fills it. */
export interface ExportSheetColumn<Row> {
  header: string;
  width?: number;
  cell: (row: Row) => unknown;
}

export interface ExportFile<Row> {
  /** The file's name as the user sees it ('车辆滞留导出.xlsx'). */
  fileName: string;
  /** An ASCII name for clients that ignore filename*. */
  fallback: string;
  sheet: string;
  columns: ReadonlyArray<ExportSheetColumn<Row>>;
  /** The rows, a page at a time: each page is its own short query, so nothing is held while the file is written. */
  pages: () => AsyncIterable<Row[]>;
}

/** RFC 6266 / RFC 5987: an ASCII fallback for old clients and the UTF-8 name in filename*. */
export function contentDisposition(fileName: string, fallback: string): string {
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * Writes every row into the stream as one worksheet, page by page. Waits
 * whenever the client reads slower than the database answers, so memory stays
 * at about one page whatever the number of rows.
 */
async function writeWorkbook<Row>(out: PassThrough, sink: Writable, file: ExportFile<Row>) {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(file.sheet, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = file.columns.map((c, i) => ({ header: c.header, key: `c${i}`, width: c.width ?? 14 }));
  sheet.getRow(1).font = { bold: true };
  sheet.getRow(1).commit();
  // Between pages: wait while the client's connection is full, and stop when it went away. The zip
  // compresses asynchronously, so the connection (not the stream fed to it) tells how far the client is.
  const gone = () => out.destroyed || sink.destroyed;
  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        sink.off('drain', done);
        sink.off('close', done);
        resolve();
      };
      sink.on('drain', done);
      sink.on('close', done);
    });
  for await (const page of file.pages()) {
    if (gone()) return;
    for (const row of page) {
      const added = sheet.addRow(file.columns.map((c) => c.cell(row) ?? ''));
      added.eachCell(guardSpreadsheetText);
      added.commit();
    }
    await new Promise((resolve) => setImmediate(resolve));
    while (sink.writableNeedDrain && !gone()) await drained();
  }
  if (gone()) return;
  sheet.commit();
  // The zip finishes only into a live stream: a client leaving now must not leave this waiting forever.
  const closed = new Promise<void>((resolve) => (out.destroyed ? resolve() : out.once('close', () => resolve())));
  await Promise.race([workbook.commit(), closed]);
}

/**
 * The streaming .xlsx answer of a plugin's export routes. Exports still
 * writing when the server stops are cut off and awaited, so the database
 * closes after their last page.
 */
export function xlsxExports(app: FastifyInstance) {
  const running = new Set<{ out: PassThrough; done: Promise<void> }>();
  app.addHook('onClose', async () => {
    for (const r of running) r.out.destroy();
    await Promise.allSettled([...running].map((r) => r.done));
  });
  return function send<Row>(req: FastifyRequest, reply: FastifyReply, file: ExportFile<Row>) {
    const out = new PassThrough();
    const done = writeWorkbook(out, reply.raw, file).catch((err) => {
      // Headers are gone by now: cutting the stream is the only way to tell the client the file is incomplete.
      req.log.error({ err }, 'export failed');
      out.destroy(err as Error);
    });
    const entry = { out, done };
    running.add(entry);
    void done.finally(() => running.delete(entry));
    return reply.header('Content-Type', XLSX_MIME).header('Content-Disposition', contentDisposition(file.fileName, file.fallback)).header('Cache-Control', 'no-store').send(out);
  };
}
