import multipart from '@fastify/multipart';
import ExcelJS from 'exceljs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import { ErrorCode } from '../../domain/errors';
import { enums, type EnumName } from '../../domain/enums';
import type { DB } from '../db/schema';
import { AppError, fail } from './errors';
import { detectFileType } from './file-type';
import { importGate, readSheetOffThread } from './xlsx-off-thread';
import { dateText, MAX_UNZIPPED_BYTES } from './xlsx-reader';
import type { RouteSchema } from './route-schema';
import { guardSpreadsheetText } from './xlsx-text';

/**
 * The xlsx import of a register: a template to download and an upload read
 * by header, each row converted and checked with the form's own rules, saved
 * all or none. A module declares its columns and its rows' validation; the
 * workbook, the reading and the row-numbered messages are here.
 */

export interface ImportLimits {
  maxBytes: number;
  maxRows: number;
}

/** A live table's rows whose names a cell may hold. */
export type LookupRows = Array<{ id: number; name: string }>;

export interface ImportColumn {
  key: string;
  /** The text of the header cell; an import names a column as the form names the field. */
  header: string;
  required: boolean;
  width: number;
  /** A code table whose labels the cell holds. */
  table?: EnumName;
  /** The name of a lookup (a live table) whose names the cell holds. */
  lookup?: string;
  /** Title of the 说明 column listing the choices (table and lookup columns); defaults to the header. */
  choices?: string;
  /** A date typed with / or . is read as the form's YYYY-MM-DD. */
  date?: boolean;
}

export type ColumnDecl = Omit<ImportColumn, 'header'> & { header?: string };

/** Columns whose header defaults to the field's label in `labels` (the form's label catalogue). */
export function defineColumns(decls: ColumnDecl[], labels: Record<string, string>): ImportColumn[] {
  return decls.map((d) => {
    const header = d.header ?? labels[d.key];
    if (!header) throw new Error(`import column ${d.key} has no label`);
    return { ...d, header };
  });
}

export const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const HELP_SHEET = '说明';

// ---------------------------------------------------------------- template

export interface TemplateSpec {
  sheet: string;
  columns: ImportColumn[];
  lookups: Record<string, LookupRows>;
  /** The example row (second row), by field. */
  example: Record<string, string>;
  /** Lines under '填写说明' in the 说明 sheet. */
  notes: string[];
  maxRows: number;
}

/** The choice lists of the 说明 sheet: code tables in column order, then lookups. */
function choiceLists(spec: TemplateSpec): Array<{ title: string; values: string[] }> {
  const lists: Array<{ title: string; values: string[] }> = [];
  const add = (c: ImportColumn, values: string[]) => {
    const title = c.choices ?? c.header;
    if (!lists.some((l) => l.title === title)) lists.push({ title, values });
  };
  for (const c of spec.columns)
    if (c.table)
      add(
        c,
        enums[c.table].map((o) => o.label),
      );
  for (const c of spec.columns)
    if (c.lookup)
      add(
        c,
        (spec.lookups[c.lookup] ?? []).map((r) => r.name),
      );
  return lists;
}

/** The template: header row (`*` on required columns), an example row, text cells, and a 说明 sheet with the choices as drop-down sources. */
export async function buildTemplate(spec: TemplateSpec): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.creator = '园区出入管理系统';
  const ws = wb.addWorksheet(spec.sheet, { views: [{ state: 'frozen', ySplit: 1 }] });
  // Text format, so plates, id numbers and dates stay as typed.
  ws.columns = spec.columns.map((c) => ({ header: c.required ? `*${c.header}` : c.header, key: c.key, width: c.width, style: { numFmt: '@' } }));
  const head = ws.getRow(1);
  head.font = { bold: true };
  head.alignment = { vertical: 'middle', horizontal: 'center' };
  head.eachCell((cell) => {
    cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE6F0FF' } };
  });
  const ex = ws.addRow(spec.columns.map((c) => spec.example[c.key] ?? ''));
  ex.font = { italic: true, color: { argb: 'FF888888' } };

  // 说明: one column per choice list, then the notes.
  const help = wb.addWorksheet(HELP_SHEET);
  const lists = choiceLists(spec);
  lists.forEach((l, i) => {
    const col = help.getColumn(i + 1);
    col.width = Math.max(12, ...l.values.map((v) => v.length * 2 + 2));
    help.getCell(1, i + 1).value = l.title;
    help.getCell(1, i + 1).font = { bold: true };
    l.values.forEach((v, j) => (help.getCell(j + 2, i + 1).value = v));
  });
  const notesCol = lists.length + 2;
  help.getColumn(notesCol).width = 70;
  ['填写说明', ...spec.notes].forEach((n, j) => {
    help.getCell(j + 1, notesCol).value = n;
    if (j === 0) help.getCell(j + 1, notesCol).font = { bold: true };
  });

  // Drop-down choices in the data sheet, read from 说明.
  spec.columns.forEach((c, i) => {
    const li = lists.findIndex((l) => l.title === (c.choices ?? c.header));
    if (!(c.table || c.lookup) || li < 0) return;
    const letter = String.fromCharCode(65 + li);
    const last = lists[li]!.values.length + 1;
    const target = ws.getColumn(i + 1).letter;
    (ws as unknown as { dataValidations: { add(range: string, v: ExcelJS.DataValidation): void } }).dataValidations.add(`${target}2:${target}${spec.maxRows + 2}`, {
      type: 'list',
      allowBlank: !c.required,
      formulae: [`'${HELP_SHEET}'!$${letter}$2:$${letter}$${Math.max(2, last)}`],
      showErrorMessage: true,
      errorTitle: c.header,
      error: `请从列表中选择${c.header}`,
    });
  });

  for (const sheet of [ws, help]) sheet.eachRow((row) => row.eachCell(guardSpreadsheetText));
  return Buffer.from(await wb.xlsx.writeBuffer());
}

export const sendXlsx = (reply: FastifyReply, file: string, data: Buffer) =>
  reply
    .type(XLSX_MIME)
    .header('Content-Disposition', `attachment; filename="template.xlsx"; filename*=UTF-8''${encodeURIComponent(file)}`)
    .header('Cache-Control', 'no-store')
    .send(data);

// ---------------------------------------------------------------- upload

/** Multipart parsing for the calling plugin only (Fastify scopes it), one file up to maxBytes. */
export async function acceptXlsxUploads(app: FastifyInstance, limits: ImportLimits): Promise<void> {
  if (!app.hasContentTypeParser('multipart/form-data')) {
    await app.register(multipart, { limits: { fileSize: limits.maxBytes, files: 1, fields: 5, parts: 10 } });
  }
}

/** The route schema of an import upload: its summary and the multipart part it reads, for the API description. */
export const importSchema = (summary: string, limits: ImportLimits): RouteSchema => ({
  summary,
  multipart: { file: `按导入模板填写的 .xlsx 文件（≤${limits.maxBytes / 1024 / 1024}MB，解压后≤${MAX_UNZIPPED_BYTES / 1024 / 1024}MB，≤${limits.maxRows}行；每人同时一个导入）` },
});

/** The uploaded file of the `file` part, refused unless it is one xlsx workbook within the size limit. */
export async function readUpload(req: FastifyRequest, limits: ImportLimits): Promise<Buffer> {
  if (!req.isMultipart()) fail(ErrorCode.VALIDATION, '请选择要导入的文件');
  let data: Buffer;
  let truncated = false;
  try {
    const part = await req.file({ throwFileSizeLimit: false });
    if (!part) fail(ErrorCode.VALIDATION, '请选择要导入的文件');
    if (part!.fieldname !== 'file') {
      part!.file.resume();
      fail(ErrorCode.VALIDATION, '请以 file 字段上传导入文件');
    }
    req.auditParams = { file: part!.filename };
    const chunks: Buffer[] = [];
    for await (const chunk of part!.file) chunks.push(chunk as Buffer);
    data = Buffer.concat(chunks);
    truncated = part!.file.truncated;
  } catch (err) {
    if (err instanceof AppError) throw err;
    if ((err as { statusCode?: number }).statusCode === 413) fail(ErrorCode.PAYLOAD_TOO_LARGE, '一次只能导入一个文件');
    throw new AppError(ErrorCode.VALIDATION, '上传的内容不完整，请重试');
  }
  if (truncated || data!.length > limits.maxBytes) fail(ErrorCode.PAYLOAD_TOO_LARGE, `导入文件不能超过${limits.maxBytes / 1024 / 1024}MB`);
  if (data!.length === 0) fail(ErrorCode.VALIDATION, '请选择要导入的文件');
  if (detectFileType(data!)?.ext !== 'xlsx') fail(ErrorCode.UNSUPPORTED_MEDIA, '请上传由导入模板填写的 .xlsx 文件');
  return data!;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Excel's day serials up to 9999-12-31, counted from 1899-12-30 (exact from 1900-03-01 on). */
const EXCEL_SERIAL = /^\d{1,7}(\.\d+)?$/;
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/**
 * A date cell as the form's YYYY-MM-DD: dates typed with / or . read like
 * dashes, and a date pasted into the template's text cells (which the sheet
 * keeps as its day serial) reads as that date.
 */
export function normaliseDate(s: string): string {
  if (EXCEL_SERIAL.test(s) && +s >= 1 && +s < 2958466) return dateText(new Date(EXCEL_EPOCH_MS + Math.round(+s * 86400) * 1000));
  return s.replace(/^(\d{4})[/.](\d{1,2})[/.](\d{1,2})/, (_m, y, mo, d) => `${y}-${pad(+mo)}-${pad(+d)}`);
}

export interface SheetRow {
  /** The sheet's row number, as the person sees it. */
  row: number;
  /** Each column's text by field; '' for a blank cell or an absent optional column. */
  cells: Record<string, string>;
}

/**
 * The data rows of the first sheet that is not 说明, columns found by header
 * (a person may reorder them or drop optional ones). Blank rows and rows
 * `skip` names (the example) are left out. Read off the event loop
 * (xlsx-off-thread.ts), and only up to the first row past the limit.
 */
export async function readRows(data: Buffer, columns: ImportColumn[], limits: ImportLimits, skip?: (cells: Record<string, string>) => boolean): Promise<SheetRow[]> {
  // One row beyond the limit is read for the example row, which `skip` (a function, which cannot cross into the worker) leaves out here.
  const read = await readSheetOffThread(data, {
    columns: columns.map((c) => ({ key: c.key, header: c.header, required: c.required })),
    keep: limits.maxRows + 1,
    skipSheet: HELP_SHEET,
  });
  const rows = read.rows.filter((r) => !skip?.(r.cells));
  if (read.more) fail(ErrorCode.VALIDATION, `一次最多导入${limits.maxRows}条，当前超过${limits.maxRows}条，请分批导入`);
  if (rows.length === 0) fail(ErrorCode.VALIDATION, '导入文件中没有数据，请从第2行开始填写');
  if (rows.length > limits.maxRows) fail(ErrorCode.VALIDATION, `一次最多导入${limits.maxRows}条，当前${rows.length}条，请分批导入`);
  return rows;
}

/** readUpload then readRows: the rows of the uploaded workbook, one import at a time per user. */
export async function readImport(req: FastifyRequest, columns: ImportColumn[], limits: ImportLimits, skip?: (cells: Record<string, string>) => boolean): Promise<SheetRow[]> {
  const release = importGate.enterUser(req.auth!.userId);
  try {
    return await readRows(await readUpload(req, limits), columns, limits, skip);
  } finally {
    release();
  }
}

// ---------------------------------------------------------------- rows

export interface RowError {
  row: number;
  field: string;
  /** The column header ('' for an error of the whole row). */
  label: string;
  message: string;
}

export const rowErrorText = (e: RowError) => (e.label ? `第${e.row}行 ${e.label}：${e.message}` : `第${e.row}行 ${e.message}`);

/** Lookup names → ids; a name held by two live rows is ambiguous, not a guess. */
export class LookupIndex {
  private readonly byName = new Map<string, Map<string, number[]>>();
  constructor(lookups: Record<string, LookupRows>) {
    for (const [name, list] of Object.entries(lookups)) {
      const m = new Map<string, number[]>();
      for (const x of list) m.set(x.name.trim(), [...(m.get(x.name.trim()) ?? []), x.id]);
      this.byName.set(name, m);
    }
  }
  ids(lookup: string, name: string): number[] {
    return this.byName.get(lookup)?.get(name) ?? [];
  }
}

/**
 * A row's cells as the form's values: code-table labels (or their values) to
 * codes, lookup names to ids, dates to YYYY-MM-DD, text as typed. A blank cell
 * is left out, for the schema to call required or not. A cell that cannot be
 * converted is an error and is left out too.
 */
export function convertRow(r: SheetRow, columns: ImportColumn[], lookups: LookupIndex): { values: Record<string, unknown>; errors: RowError[] } {
  const values: Record<string, unknown> = {};
  const errors: RowError[] = [];
  const err = (c: ImportColumn, message: string) => errors.push({ row: r.row, field: c.key, label: c.header, message });
  for (const c of columns) {
    const text = r.cells[c.key] ?? '';
    if (text === '') continue;
    if (c.table) {
      const hit = enums[c.table].find((o) => o.label === text || String(o.value) === text);
      if (hit) values[c.key] = hit.value;
      else err(c, `“${text}”不是可选的值，请按“${HELP_SHEET}”表填写`);
    } else if (c.lookup) {
      const hit = lookups.ids(c.lookup, text);
      if (hit.length === 1) values[c.key] = hit[0];
      else if (hit.length === 0) err(c, `“${text}”不存在，请按“${HELP_SHEET}”表填写`);
      else err(c, `“${text}”有重名，请联系管理员`);
    } else {
      values[c.key] = c.date ? normaliseDate(text) : text;
    }
  }
  return { values, errors };
}

type FieldMessage = { field?: string; label?: string; message: string };

/** The row errors of one import, named by row and column header. */
export class RowErrors {
  readonly list: RowError[] = [];
  private readonly headerOf: Map<string, string>;
  /** `labels`: the form's labels, for a field the sheet has no column for. */
  constructor(
    columns: ImportColumn[],
    private readonly labels: Record<string, string> = {},
  ) {
    this.headerOf = new Map(columns.map((c) => [c.key, c.header]));
  }
  get count(): number {
    return this.list.length;
  }
  add(...errors: RowError[]): void {
    this.list.push(...errors);
  }
  /**
   * The form's field errors on one row. A cell already reported on this row
   * (a code the sheet could not map) is reported once, not again as "required".
   */
  addFields(row: number, errors: FieldMessage[]): void {
    const reported = new Set(this.list.filter((x) => x.row === row).map((x) => x.field));
    for (const e of errors) {
      const field = e.field ?? '';
      if (reported.has(field)) continue;
      this.list.push({ row, field, label: this.headerOf.get(field) ?? this.labels[field] ?? e.label ?? field, message: e.message });
    }
  }
  /** A validation failure thrown by the form's parse or save, as this row's errors; anything else is not the row's fault and is rethrown. */
  addFailure(row: number, err: unknown): void {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    const list = (err.data as { errors?: FieldMessage[] } | null)?.errors;
    if (list?.length) this.addFields(row, list);
    else this.list.push({ row, field: '', label: '', message: err.message });
  }
  /** The envelope error naming every broken row and column. */
  failure(): AppError {
    const sorted = [...this.list].sort((a, b) => a.row - b.row);
    return new AppError(ErrorCode.VALIDATION, `导入失败，共${sorted.length}处错误`, { errors: sorted.map(rowErrorText), details: sorted });
  }
}

/**
 * Runs `work` in one transaction and commits only when no row error was
 * collected: any broken row rolls back every saved one, and the answer names
 * them all.
 */
export async function saveAllOrNothing<T>(db: Kysely<DB>, errors: RowErrors, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  try {
    return await db.transaction().execute(async (trx) => {
      const result = await work(trx);
      if (errors.count) throw errors.failure();
      return result;
    });
  } catch (err) {
    if (err instanceof AppError && errors.count) throw errors.failure();
    throw err;
  }
}
