import { crc32, createInflateRaw } from 'node:zlib';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';

/**
 * The rows of an uploaded workbook at a bounded cost (DESIGN.md §11): the zip's
 * central directory is checked before anything is inflated, each entry is
 * inflated streaming and never past what its directory declared, and the
 * sheet is read by SAX and left at the first row past the limit. Pure and
 * without the server's modules, so that it runs in a worker (xlsx-worker.ts).
 */

/** A workbook of the import template at 500 rows unzips to well under 1 MB; 30 MB leaves room for foreign styles and long texts. */
export const MAX_UNZIPPED_BYTES = 30 * 1024 * 1024;
/** Text XML compresses about 5–20:1; beyond 100:1 an entry is padding (a zip bomb), not cells. */
export const MAX_RATIO = 100;
/** Entries smaller than this are not held to the ratio: tiny repetitive parts (styles, empty sheets) compress well. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
const MB = 1024 * 1024;

export interface ReaderColumn {
  key: string;
  header: string;
  required: boolean;
}

export interface ReadRow {
  row: number;
  cells: Record<string, string>;
}

export type SheetRead =
  /** `more`: a non-blank row beyond `keep` exists; reading stopped there. */
  { ok: true; rows: ReadRow[]; more: boolean } | { ok: false; message: string };

/** A refusal of the file, with the message the person reads. */
export class WorkbookRefused extends Error {}

const UNREADABLE = '无法读取导入文件，请使用导入模板填写后上传';
const refuse = (message: string): never => {
  throw new WorkbookRefused(message);
};

// ---------------------------------------------------------------- zip directory

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localOffset: number;
  crc: number;
}

const EOCD_SIG = 0x06054b50;
const CDH_SIG = 0x02014b50;
const LFH_SIG = 0x04034b50;

/**
 * The zip's entries from its central directory, refused when the declared
 * sizes or ratios are out of bounds. Reads only the directory: cheap enough
 * for the event loop, so a bomb is refused before a worker is started.
 */
export function zipDirectory(data: Buffer): ZipEntry[] {
  let eocd = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
    if (data.readUInt32LE(i) === EOCD_SIG) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) refuse(UNREADABLE);
  const count = data.readUInt16LE(eocd + 10);
  let p = data.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  let total = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > data.length || data.readUInt32LE(p) !== CDH_SIG) refuse(UNREADABLE);
    const flags = data.readUInt16LE(p + 8);
    const method = data.readUInt16LE(p + 10);
    const crc = data.readUInt32LE(p + 16);
    const compressedSize = data.readUInt32LE(p + 20);
    const uncompressedSize = data.readUInt32LE(p + 24);
    const nameLen = data.readUInt16LE(p + 28);
    const extraLen = data.readUInt16LE(p + 30);
    const commentLen = data.readUInt16LE(p + 32);
    const localOffset = data.readUInt32LE(p + 42);
    if (p + 46 + nameLen > data.length) refuse(UNREADABLE);
    const name = data.toString('utf8', p + 46, p + 46 + nameLen);
    // Encrypted entries, ZIP64 sizes and methods other than stored/deflate: no template is saved that way.
    if (flags & 1 || (method !== 0 && method !== 8)) refuse(UNREADABLE);
    if (compressedSize === 0xffffffff || uncompressedSize === 0xffffffff || localOffset === 0xffffffff) refuse(tooBig(uncompressedSize));
    total += uncompressedSize;
    if (uncompressedSize > MAX_UNZIPPED_BYTES || total > MAX_UNZIPPED_BYTES) refuse(tooBig(total));
    if (uncompressedSize > RATIO_FLOOR_BYTES && uncompressedSize > MAX_RATIO * Math.max(compressedSize, 1)) {
      refuse(`导入文件的压缩比异常（${name} 约${Math.round(uncompressedSize / Math.max(compressedSize, 1))}:1，上限${MAX_RATIO}:1），请使用导入模板填写后上传`);
    }
    entries.push({ name, method, compressedSize, uncompressedSize, localOffset, crc });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

const damaged = (e: ZipEntry) => `导入文件已损坏（${e.name} 校验不符），请重新保存后上传`;

const tooBig = (bytes: number) => `导入文件解压后不能超过${MAX_UNZIPPED_BYTES / MB}MB（此文件${bytes >= 0xffffffff ? '超过4GB' : `约${Math.ceil(bytes / MB)}MB`}），请使用导入模板填写，分批导入`;

/**
 * Streams one entry's inflated bytes to `sink`, which answers false to stop
 * early. Never trusts the directory: more output than it declared refuses the file.
 */
function inflateEntry(data: Buffer, e: ZipEntry, sink: (chunk: Buffer) => boolean): Promise<void> {
  const lfh = e.localOffset;
  if (lfh + 30 > data.length || data.readUInt32LE(lfh) !== LFH_SIG) refuse(UNREADABLE);
  const start = lfh + 30 + data.readUInt16LE(lfh + 26) + data.readUInt16LE(lfh + 28);
  if (start + e.compressedSize > data.length) refuse(UNREADABLE);
  const body = data.subarray(start, start + e.compressedSize);
  if (e.method === 0) {
    if (e.compressedSize !== e.uncompressedSize || crc32(body) !== e.crc) refuse(damaged(e));
    sink(body);
    return Promise.resolve();
  }
  return new Promise<void>((resolve, reject) => {
    const inflate = createInflateRaw();
    let out = 0;
    let crc = 0;
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      inflate.destroy();
      if (err) reject(err);
      else resolve();
    };
    inflate.on('data', (chunk: Buffer) => {
      if (settled) return;
      out += chunk.length;
      if (out > e.uncompressedSize) return finish(new WorkbookRefused(`导入文件已损坏（${e.name} 解压后的大小与声明不符），请重新保存后上传`));
      crc = crc32(chunk, crc);
      try {
        if (!sink(chunk)) finish();
      } catch (err) {
        finish(err);
      }
    });
    // Checked only when read to the end: an entry left at the row limit was not read whole.
    inflate.on('end', () => finish(out !== e.uncompressedSize || crc !== e.crc ? new WorkbookRefused(damaged(e)) : undefined));
    inflate.on('error', () => finish(new WorkbookRefused(UNREADABLE)));
    inflate.end(body);
  });
}

/** Feeds an entry's XML to a SAX handler until it says stop; malformed XML refuses the file. */
async function readXml(data: Buffer, entries: Map<string, ZipEntry>, name: string, on: (p: SaxesParser) => { stopped: () => boolean }): Promise<boolean> {
  const e = entries.get(name);
  if (!e) return false;
  const parser = new SaxesParser();
  const { stopped } = on(parser);
  // What follows the row that stopped the reading, in the same chunk, is never looked at, broken or not.
  parser.on('error', () => {
    if (!stopped()) refuse(UNREADABLE);
  });
  const decoder = new StringDecoder('utf8');
  try {
    await inflateEntry(data, e, (chunk) => {
      parser.write(decoder.write(chunk));
      return !stopped();
    });
    if (!stopped()) parser.write(decoder.end()).close();
  } catch (err) {
    if (err instanceof WorkbookRefused) throw err;
    refuse(UNREADABLE);
  }
  return true;
}

const local = (name: string) => name.slice(name.indexOf(':') + 1);

// ---------------------------------------------------------------- cells

const pad = (n: number) => String(n).padStart(2, '0');

/** A date as the sheet's wall-clock text: 'YYYY-MM-DD', with the time when it is not midnight (the sheet's time is carried as UTC). */
export function dateText(value: Date): string {
  const d = `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}`;
  const h = value.getUTCHours(),
    m = value.getUTCMinutes(),
    s = value.getUTCSeconds();
  return h || m || s ? `${d} ${pad(h)}:${pad(m)}:${pad(s)}` : d;
}

/** A day serial as the date it stands for (exceljs's conversion, so imports read as they did). */
const serialDate = (v: number, date1904: boolean) => new Date(Math.round((v - 25569 + (date1904 ? 1462 : 0)) * 86400 * 1000));

/** Built-in number formats that are dates or times (the ones exceljs knows). */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** A custom number format is a date when, outside quotes and brackets, it has a date or time letter (exceljs's rule). */
const isDateFormat = (code: string) => /[ymdhMsb]+/.test(code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));

const columnNumber = (ref: string) => {
  let n = 0;
  for (const ch of ref) {
    const c = ch.charCodeAt(0);
    if (c < 65 || c > 90) break;
    n = n * 26 + (c - 64);
  }
  return n;
};

// ---------------------------------------------------------------- workbook

interface WorkbookInfo {
  sheetPath: string;
  date1904: boolean;
}

const resolveTarget = (target: string) => (target.startsWith('/') ? target.slice(1) : `xl/${target}`).replace(/\/\.\//g, '/');

/** The first sheet not named `skipSheet` (else the first), in the workbook's order. */
async function workbookInfo(data: Buffer, entries: Map<string, ZipEntry>, skipSheet: string): Promise<WorkbookInfo> {
  const sheets: Array<{ name: string; rid: string }> = [];
  let date1904 = false;
  const found = await readXml(data, entries, 'xl/workbook.xml', (p) => {
    p.on('opentag', (t: SaxesTagPlain) => {
      const n = local(t.name);
      if (n === 'sheet') {
        const rid = Object.entries(t.attributes).find(([k]) => local(k) === 'id' && k !== 'sheetId')?.[1] ?? '';
        sheets.push({ name: t.attributes.name ?? '', rid });
      } else if (n === 'workbookPr') {
        date1904 = ['1', 'true'].includes(t.attributes.date1904 ?? '');
      }
    });
    return { stopped: () => false };
  });
  if (!found) refuse(UNREADABLE);
  const targets = new Map<string, string>();
  await readXml(data, entries, 'xl/_rels/workbook.xml.rels', (p) => {
    p.on('opentag', (t: SaxesTagPlain) => {
      if (local(t.name) === 'Relationship' && t.attributes.Id && t.attributes.Target) targets.set(t.attributes.Id, resolveTarget(t.attributes.Target));
    });
    return { stopped: () => false };
  });
  const sheet = sheets.find((s) => s.name !== skipSheet) ?? sheets[0];
  const sheetPath = sheet && targets.get(sheet.rid);
  if (!sheetPath || !entries.has(sheetPath)) refuse('导入文件中没有数据');
  return { sheetPath: sheetPath!, date1904 };
}

/** The style indexes (cellXfs order) whose number format is a date. */
async function dateStyles(data: Buffer, entries: Map<string, ZipEntry>): Promise<Set<number>> {
  const custom = new Map<number, string>();
  const xfs: number[] = [];
  let depth = 0;
  await readXml(data, entries, 'xl/styles.xml', (p) => {
    p.on('opentag', (t: SaxesTagPlain) => {
      const n = local(t.name);
      if (n === 'numFmt') custom.set(Number(t.attributes.numFmtId), t.attributes.formatCode ?? '');
      else if (n === 'cellXfs') depth = 1;
      else if (n === 'xf' && depth === 1) xfs.push(Number(t.attributes.numFmtId ?? 0));
    });
    p.on('closetag', (t: SaxesTagPlain) => {
      if (local(t.name) === 'cellXfs') depth = 0;
    });
    return { stopped: () => false };
  });
  const dates = new Set<number>();
  xfs.forEach((id, i) => {
    const code = custom.get(id);
    if (code !== undefined ? isDateFormat(code) : BUILTIN_DATE_FORMATS.has(id)) dates.add(i);
  });
  return dates;
}

/** The shared strings, each as its text runs joined (phonetic runs left out). */
async function sharedStrings(data: Buffer, entries: Map<string, ZipEntry>): Promise<string[]> {
  const list: string[] = [];
  let text: string[] | null = null;
  let inT = false;
  let phonetic = 0;
  await readXml(data, entries, 'xl/sharedStrings.xml', (p) => {
    p.on('opentag', (t: SaxesTagPlain) => {
      const n = local(t.name);
      if (n === 'si') text = [];
      else if (n === 'rPh') phonetic++;
      else if (n === 't' && !phonetic) inT = true;
    });
    p.on('text', (s) => {
      if (inT) text?.push(s);
    });
    p.on('cdata', (s) => {
      if (inT) text?.push(s);
    });
    p.on('closetag', (t: SaxesTagPlain) => {
      const n = local(t.name);
      if (n === 't') inT = false;
      else if (n === 'rPh') phonetic--;
      else if (n === 'si' && text) {
        list.push(text.join(''));
        text = null;
      }
    });
    return { stopped: () => false };
  });
  return list;
}

// ---------------------------------------------------------------- sheet

export interface ReadOptions {
  columns: ReaderColumn[];
  /** Non-blank data rows to return; one more stops the reading with `more`. */
  keep: number;
  /** The sheet of choices and notes, not the data. */
  skipSheet: string;
}

/**
 * The data rows of the workbook's first sheet that is not `skipSheet`,
 * columns found by the header in row 1 (a leading * or space ignored), each
 * cell as the text a person typed: strings and numbers as typed, booleans as
 * true/false, date-formatted numbers as dates, formulas as their result.
 * Rows whose found columns are all blank are left out.
 */
export async function readSheet(data: Buffer, o: ReadOptions): Promise<SheetRead> {
  try {
    const entries = new Map(zipDirectory(data).map((e) => [e.name, e]));
    const wb = await workbookInfo(data, entries, o.skipSheet);
    const strings = await sharedStrings(data, entries);
    const dates = await dateStyles(data, entries);
    return await sheetRows(data, entries, wb, strings, dates, o);
  } catch (err) {
    if (err instanceof WorkbookRefused) return { ok: false, message: err.message };
    throw err;
  }
}

async function sheetRows(data: Buffer, entries: Map<string, ZipEntry>, wb: WorkbookInfo, strings: string[], dates: Set<number>, o: ReadOptions): Promise<SheetRead> {
  const rows: ReadRow[] = [];
  let more = false;
  let stop = false;
  /** Column number → field key, from the header. */
  let at: Map<number, string> | null = null;
  const header = new Map<number, string>();

  let rowNo = 0;
  let colNo = 0;
  let rowCells: Map<number, string> | null = null;
  let cell: { col: number; type: string; style: number; value: string[] | null; inline: string[] | null } | null = null;
  let inV = false;
  let inT = false;
  let phonetic = 0;

  const cellValue = (c: NonNullable<typeof cell>): string => {
    const v = c.value ? c.value.join('') : null;
    switch (c.type) {
      case 's': {
        const s = v === null ? undefined : strings[Number(v)];
        return (s ?? '').trim();
      }
      case 'inlineStr':
        return (c.inline ?? []).join('').trim();
      case 'str':
        return (v ?? '').trim();
      case 'b':
        return v === null ? '' : String(v === '1');
      case 'e':
        return '';
      case 'd': {
        const d = v === null ? null : new Date(v);
        return d && !Number.isNaN(d.getTime()) ? dateText(d) : '';
      }
      default: {
        if (v === null || v.trim() === '') return '';
        const n = parseFloat(v);
        if (Number.isNaN(n)) return v.trim();
        return dates.has(c.style) ? dateText(serialDate(n, wb.date1904)) : String(n);
      }
    }
  };

  const headerDone = () => {
    at = new Map();
    const taken = new Set<string>();
    for (const [col, text] of [...header].sort((a, b) => a[0] - b[0])) {
      const h = text.replace(/^[*＊\s]+/, '').trim();
      const c = o.columns.find((x) => x.header === h);
      if (c && !taken.has(c.key)) {
        taken.add(c.key);
        at.set(col, c.key);
      }
    }
    if (at.size === 0) refuse(`导入文件第1行不是表头：应为列名（如“${o.columns[0]?.header ?? ''}”），请下载导入模板填写`);
    const absent = o.columns.filter((c) => c.required && !taken.has(c.key)).map((c) => c.header);
    if (absent.length) refuse(`导入文件缺少列：${absent.join('、')}，请下载最新的导入模板`);
  };

  const rowDone = () => {
    if (rowNo === 1) return headerDone();
    if (!at) headerDone();
    const cells: Record<string, string> = {};
    for (const c of o.columns) cells[c.key] = '';
    let blank = true;
    for (const [col, key] of at!) {
      const text = rowCells?.get(col) ?? '';
      if (text !== '' && cells[key] === '') {
        cells[key] = text;
        blank = false;
      }
    }
    if (blank) return;
    if (rows.length >= o.keep) {
      more = true;
      stop = true;
      return;
    }
    rows.push({ row: rowNo, cells });
  };

  await readXml(data, entries, wb.sheetPath, (p) => {
    p.on('opentag', (t: SaxesTagPlain) => {
      if (stop) return;
      const n = local(t.name);
      if (n === 'row') {
        const r = Number(t.attributes.r);
        rowNo = Number.isInteger(r) && r > rowNo ? r : rowNo + 1;
        // The header is row 1: a sheet whose first row is later has none.
        if (rowNo > 1 && !at) headerDone();
        colNo = 0;
        rowCells = new Map();
      } else if (n === 'c' && rowCells) {
        colNo = t.attributes.r ? columnNumber(t.attributes.r) : colNo + 1;
        cell = { col: colNo, type: t.attributes.t ?? 'n', style: Number(t.attributes.s ?? 0), value: null, inline: null };
        inV = inT = false;
        phonetic = 0;
      } else if (cell) {
        if (n === 'v') {
          inV = true;
          cell.value = [];
        } else if (n === 'rPh') phonetic++;
        else if (n === 't' && !phonetic) {
          inT = true;
          cell.inline ??= [];
        }
      }
    });
    const onText = (s: string) => {
      if (stop || !cell) return;
      if (inV) cell.value?.push(s);
      else if (inT) cell.inline?.push(s);
    };
    p.on('text', onText);
    p.on('cdata', onText);
    p.on('closetag', (t: SaxesTagPlain) => {
      if (stop) return;
      const n = local(t.name);
      if (n === 'v') inV = false;
      else if (n === 't') inT = false;
      else if (n === 'rPh') phonetic--;
      else if (n === 'c' && cell) {
        // Only cells of row 1 and of the header's columns are kept: a row of 16,384 cells costs nothing.
        if (rowNo === 1) {
          const text = cellValue(cell);
          if (text !== '') header.set(cell.col, text);
        } else if (at?.has(cell.col) ?? true) {
          rowCells!.set(cell.col, cellValue(cell));
        }
        cell = null;
      } else if (n === 'row') {
        rowDone();
        rowCells = null;
      }
    });
    return { stopped: () => stop };
  });
  if (!at) headerDone();
  return { ok: true, rows, more };
}
