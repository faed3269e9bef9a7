import { PassThrough, type Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { maskPersonal, type PersonalKind } from '../../domain/personal-data';
import { XLSX_MIME } from './xlsx-import';
import { ProcessSlots } from './xlsx-off-thread';
import { guardSpreadsheetText } from './xlsx-text';

/** One column of an export: its header (the spec's words) and how a row fills it. */
export interface ExportSheetColumn<Row> {
  header: string;
  /** The least width in characters; the column grows to its longest header or cell (exportColumnWidth). */
  width?: number;
  cell: (row: Row) => unknown;
  /** Personal data in this column: masked in the file unless the export is in full (core/personal-data.ts). */
  personal?: PersonalKind;
}

/** One worksheet: its name, columns and rows. */
export interface ExportSheet<Row> {
  sheet: string;
  columns: ReadonlyArray<ExportSheetColumn<Row>>;
  /** The rows, a page at a time: each page is its own short query, so nothing is held while the file is written. */
  pages: () => AsyncIterable<Row[]>;
}

export interface ExportFile<Row> extends ExportSheet<Row> {
  /** The file's name as the user sees it ('车辆滞留导出.xlsx'). */
  fileName: string;
  /** An ASCII name for clients that ignore filename*. */
  fallback: string;
  /** Personal columns as stored: an export in full, which its route allows only with pii:view and a logged reason. */
  inFull?: boolean;
  /** Further worksheets after the first, written the same way (a person's data on request: one sheet per kind of record). */
  more?: ReadonlyArray<ExportSheet<any>>;
}

/** RFC 6266 / RFC 5987: an ASCII fallback for old clients and the UTF-8 name in filename*. */
export function contentDisposition(fileName: string, fallback: string): string {
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Exports written at once in one server process (each on the event loop, in slices); with WEB_CONCURRENCY each process has its own. */
export const EXPORTS_PER_PROCESS = 2;
/** The rest wait their turn, this many at most, each this long at most, before a 429. */
export const EXPORT_QUEUE = { maxWaiting: 100, maxWaitMs: 30_000 };
export const exportSlots = new ProcessSlots(EXPORTS_PER_PROCESS, '导出任务繁忙', EXPORT_QUEUE);

/** The longest an export writes before it lets the event loop answer other requests. */
const SLICE_MS = 4;

/** The widest a column grows, in characters: a long remark wraps in the cell rather than widen the sheet past the screen. */
export const MAX_COLUMN_WIDTH = 60;
/** Width when neither the column nor its cells say more. */
const DEFAULT_COLUMN_WIDTH = 8;

/**
 * Width of a value in a spreadsheet's character units (the width of "0"): a
 * CJK or full-width character takes about two. The longest line counts.
 */
export function spreadsheetTextWidth(value: unknown): number {
  if (value === null || value === undefined) return 0;
  const text = value instanceof Date ? value.toISOString().slice(0, 19) : String(value);
  let widest = 0;
  for (const line of text.split(/\r\n|\r|\n/)) {
    let w = 0;
    for (const ch of line) w += WIDE.test(ch) ? 2 : 1;
    widest = Math.max(widest, w);
  }
  return widest;
}
/** East Asian wide and full-width characters (Unicode UAX #11, W and F): Hangul Jamo, CJK, kana, Hangul syllables, compatibility forms, full-width forms and the supplementary ideographs. */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;

/** A column as wide as its header or its widest cell, and two characters of margin, within [the column's own width, MAX_COLUMN_WIDTH]. */
export function exportColumnWidth(header: string, cells: Iterable<unknown>, least = DEFAULT_COLUMN_WIDTH): number {
  let widest = spreadsheetTextWidth(header);
  for (const cell of cells) widest = Math.max(widest, spreadsheetTextWidth(cell));
  return Math.min(MAX_COLUMN_WIDTH, Math.max(least, widest + 2));
}

/**
 * An export's slot (exportSlots), held while it writes: given back while it
 * waits on a slow client or on the zip's last bytes, so that a slow download
 * keeps no other export waiting, and taken again before it writes more.
 */
class ExportSlot {
  constructor(private leave: (() => void) | null) {}
  release() {
    this.leave?.();
    this.leave = null;
  }
  async retake() {
    this.leave ??= await exportSlots.resume();
  }
}

/**
 * Writes every row into the stream, a worksheet at a time, page by page. Waits
 * whenever the client reads slower than the database answers, so memory stays
 * at about one page whatever the number of rows, and lets other requests run
 * every SLICE_MS. Widths are measured on the header and the first page: the
 * sheet's column widths precede its rows in the file, so later pages cannot
 * widen a column (reports have one page).
 */
async function writeWorkbook<Row>(out: PassThrough, sink: Writable, file: ExportFile<Row>, slot: ExportSlot) {
  // Between slices: wait while the client's connection is full, and stop when it went away. The zip
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
  let slice = performance.now();
  const breathe = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    if (sink.writableNeedDrain && !gone()) {
      slot.release();
      while (sink.writableNeedDrain && !gone()) await drained();
      await slot.retake();
    }
    slice = performance.now();
  };

  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  for (const spec of [file as ExportSheet<unknown>, ...(file.more ?? [])]) {
    if (!(await writeSheet(workbook, spec, !!file.inFull))) return;
  }
  // The zip finishes only into a live stream: a client leaving now must not leave this waiting forever.
  const closed = new Promise<void>((resolve) => (out.destroyed ? resolve() : out.once('close', () => resolve())));
  const zipped = workbook.commit();
  slot.release();
  await Promise.race([zipped, closed]);

  /** Writes one worksheet, page by page; false when the client went away. */
  async function writeSheet<R>(book: ExcelJS.stream.xlsx.WorkbookWriter, spec: ExportSheet<R>, inFull: boolean): Promise<boolean> {
    const shown = (c: ExportSheetColumn<R>, row: R) => {
      const v = c.cell(row) ?? '';
      return c.personal && !inFull && typeof v === 'string' ? maskPersonal(c.personal, v) : v;
    };
    const valuesOf = (page: R[]) => page.map((row) => spec.columns.map((c) => shown(c, row)));
    const pages = spec.pages()[Symbol.asyncIterator]();
    try {
      let page = await pages.next();
      if (gone()) return false;
      let values = page.done ? [] : valuesOf(page.value);

      const sheet = book.addWorksheet(spec.sheet, { views: [{ state: 'frozen', ySplit: 1 }] });
      sheet.columns = spec.columns.map((c, i) => ({
        header: c.header,
        key: `c${i}`,
        width: exportColumnWidth(
          c.header,
          values.map((v) => v[i]),
          c.width,
        ),
      }));
      // Headers can hold text from outside (车型进出报表's are the vehicle types gates report): guarded like the data.
      const header = sheet.getRow(1);
      header.font = { bold: true };
      header.eachCell(guardSpreadsheetText);
      header.commit();

      while (!page.done) {
        for (const cells of values) {
          const added = sheet.addRow(cells);
          added.eachCell(guardSpreadsheetText);
          added.commit();
          if (performance.now() - slice >= SLICE_MS) await breathe();
          if (gone()) return false;
        }
        await breathe();
        if (gone()) return false;
        page = await pages.next();
        if (!page.done) values = valuesOf(page.value);
      }
      sheet.commit();
      return true;
    } finally {
      // A client that left stops the reading of further pages.
      await pages.return?.(undefined);
    }
  }
}

/**
 * The streaming .xlsx answer of a plugin's export routes. At most
 * EXPORTS_PER_PROCESS write at once, the rest queue (exportSlots, ExportSlot). Exports
 * still writing when the server stops are cut off and awaited, so the
 * database closes after their last page.
 */
export function xlsxExports(app: FastifyInstance) {
  const running = new Set<{ out: PassThrough; done: Promise<void> }>();
  const waiting = new Set<AbortController>();
  app.addHook('onClose', async () => {
    for (const w of waiting) w.abort();
    for (const r of running) r.out.destroy();
    await Promise.allSettled([...running].map((r) => r.done));
  });
  /** `file` may be a function when its columns need a query (a report's): it runs once the export has its slot. */
  return async function send<Row>(req: FastifyRequest, reply: FastifyReply, file: ExportFile<Row> | (() => Promise<ExportFile<Row>>)) {
    // A client that leaves while its export waits gives up its place in the queue, as does a server stopping.
    const left = new AbortController();
    const quit = () => left.abort();
    reply.raw.once('close', quit);
    waiting.add(left);
    let slot: ExportSlot;
    try {
      slot = new ExportSlot(await exportSlots.enter(left.signal));
    } finally {
      reply.raw.off('close', quit);
      waiting.delete(left);
    }
    let sheet: ExportFile<Row>;
    try {
      sheet = typeof file === 'function' ? await file() : file;
    } catch (err) {
      slot.release();
      throw err;
    }
    const out = new PassThrough();
    const done = writeWorkbook(out, reply.raw, sheet, slot)
      .catch((err) => {
        // Headers are gone by now: cutting the stream is the only way to tell the client the file is incomplete.
        req.log.error({ err }, 'export failed');
        out.destroy(err as Error);
      })
      .finally(() => slot.release());
    const entry = { out, done };
    running.add(entry);
    void done.finally(() => running.delete(entry));
    return reply.header('Content-Type', XLSX_MIME).header('Content-Disposition', contentDisposition(sheet.fileName, sheet.fallback)).header('Cache-Control', 'no-store').send(out);
  };
}
