import { PassThrough, type Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { FastifyInstance } from 'fastify';
import type { AppointmentKind } from '../../../domain/appointments';
import { enumLabel } from '../../../domain/enums';
import type { ZodTypeProvider } from '../../core/route-schema';
import { kindList, kinds, type ExportColumn, type KindDef } from './kinds';
import { applicationPages, type Db } from './service';

const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** '车辆预约总记录_化工区_20261121.xlsx': the park is the visit_area filter, or 全部园区. */
export function exportFileName(kind: AppointmentKind, visitArea: number | undefined, time: string): string {
  const park = visitArea === undefined ? '全部园区' : enumLabel('visitArea', visitArea);
  return `${kinds[kind].exportTitle}_${park}_${time.slice(0, 10).replace(/-/g, '')}.xlsx`;
}

/** RFC 6266 / RFC 5987: an ASCII fallback for old clients and the UTF-8 name in filename*. */
export function contentDisposition(fileName: string, fallback: string): string {
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

const cellOf = (col: ExportColumn, row: Record<string, any>) => {
  const raw = typeof col.value === 'function' ? col.value(row) : row[col.value];
  if (col.table) return raw === null || raw === undefined ? '' : enumLabel(col.table, raw as number);
  return raw ?? '';
};

/** The column's own header, else its field's label in the kind's catalogue (the same words as the form and its messages). */
export function exportHeader(k: KindDef, c: ExportColumn): string {
  const header = c.header ?? (typeof c.value === 'string' ? k.labels[c.value] : undefined);
  if (!header) throw new Error(`${k.kind} export: column ${String(c.value)} has no header and no label`);
  return header;
}

/**
 * Writes every matching row into the stream as one worksheet, page by page.
 * Waits whenever the client reads slower than the database answers, so memory
 * stays at about one page whatever the number of rows.
 */
async function writeWorkbook(out: PassThrough, sink: Writable, db: Db, kind: AppointmentKind, filters: Record<string, unknown>) {
  const k = kinds[kind];
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(k.exportTitle, { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = k.exportColumns.map((c, i) => ({ header: exportHeader(k, c), key: `c${i}`, width: c.width ?? 14 }));
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
  for await (const page of applicationPages(db, null, kind, 'all', filters)) {
    if (gone()) return;
    for (const row of page) sheet.addRow(k.exportColumns.map((c) => cellOf(c, row))).commit();
    await new Promise((resolve) => setImmediate(resolve));
    while (sink.writableNeedDrain && !gone()) await drained();
  }
  if (gone()) return;
  sheet.commit();
  // The zip finishes only into a live stream: a client leaving now must not leave this waiting forever.
  const closed = new Promise<void>((resolve) => (out.destroyed ? resolve() : out.once('close', () => resolve())));
  await Promise.race([workbook.commit(), closed]);
}

/** POST {p}/all/history/export: the all-history list's filters in, an .xlsx streamed out. */
export async function exportRoutes(appInstance: FastifyInstance) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx;
  // Exports still writing when the server stops are cut off and awaited, so the database closes after their last page.
  const running = new Set<{ out: PassThrough; done: Promise<void> }>();
  app.addHook('onClose', async () => {
    for (const r of running) r.out.destroy();
    await Promise.allSettled([...running].map((r) => r.done));
  });
  for (const k of kindList) {
    app.post(`${k.path}/all/history/export`, { config: { permission: k.codes.allExport, operation: `导出${k.exportTitle}` }, schema: { summary: `导出${k.exportTitle}（.xlsx，筛选同总记录列表）`, body: k.listQuery } }, async (req, reply) => {
      const filters = req.body as Record<string, unknown>;
      const time = app.ctx.time();
      const name = exportFileName(k.kind, filters.visit_area as number | undefined, time);
      const out = new PassThrough();
      const done = writeWorkbook(out, reply.raw, db, k.kind, filters).catch((err) => {
        // Headers are gone by now: cutting the stream is the only way to tell the client the file is incomplete.
        req.log.error({ err }, 'export failed');
        out.destroy(err as Error);
      });
      const entry = { out, done };
      running.add(entry);
      void done.finally(() => running.delete(entry));
      return reply
        .header('Content-Type', XLSX_MIME)
        .header('Content-Disposition', contentDisposition(name, `${k.kind}-applications_${time.slice(0, 10).replace(/-/g, '')}.xlsx`))
        .header('Cache-Control', 'no-store')
        .send(out);
    });
  }
}
