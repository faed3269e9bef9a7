import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * Hostile workbooks for the import tests and scripts/import-stress.ts, written
 * byte by byte because no zip library writes a lying directory or a bomb
 * without first holding its gigabyte.
 */

export interface ZipPart {
  name: string;
  /** Raw deflate stream of the entry. */
  deflated: Buffer;
  /** Its real inflated size and CRC. */
  size: number;
  crc: number;
  /** What the local header and central directory claim instead of `size`. */
  declaredSize?: number;
}

export const part = (name: string, text: string | Buffer): ZipPart => {
  const data = Buffer.from(text);
  return { name, deflated: deflateRawSync(data), size: data.length, crc: crc32(data) };
};

/** A zip of deflated entries, with a central directory that says what each part declares. */
export function zip(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name);
    const size = p.declaredSize ?? p.size;
    const lfh = Buffer.alloc(30);
    lfh.writeUInt32LE(0x04034b50, 0);
    lfh.writeUInt16LE(20, 4);
    lfh.writeUInt16LE(0x0800, 6); // UTF-8 names
    lfh.writeUInt16LE(8, 8);
    lfh.writeUInt32LE(p.crc >>> 0, 14);
    lfh.writeUInt32LE(p.deflated.length, 18);
    lfh.writeUInt32LE(size, 22);
    lfh.writeUInt16LE(name.length, 26);
    const cdh = Buffer.alloc(46);
    cdh.writeUInt32LE(0x02014b50, 0);
    cdh.writeUInt16LE(20, 4);
    cdh.writeUInt16LE(20, 6);
    cdh.writeUInt16LE(0x0800, 8);
    cdh.writeUInt16LE(8, 10);
    cdh.writeUInt32LE(p.crc >>> 0, 16);
    cdh.writeUInt32LE(p.deflated.length, 20);
    cdh.writeUInt32LE(size, 24);
    cdh.writeUInt16LE(name.length, 28);
    cdh.writeUInt32LE(offset, 42);
    locals.push(lfh, name, p.deflated);
    central.push(cdh, name);
    offset += 30 + name.length + p.deflated.length;
  }
  const cd = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(parts.length, 8);
  eocd.writeUInt16LE(parts.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const RNS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
export const SHEET_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet ${NS}><sheetData>`;
export const SHEET_TAIL = '</sheetData></worksheet>';

/** The parts around one sheet that make a workbook Excel and exceljs open. */
export function workbookParts(): ZipPart[] {
  return [
    part(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    ),
    part(
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    ),
    part('xl/workbook.xml', `<?xml version="1.0" encoding="UTF-8"?><workbook ${NS} ${RNS}><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    part(
      'xl/_rels/workbook.xml.rels',
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    ),
  ];
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One sheet row of inline strings. */
export const rowXml = (n: number, values: string[]) =>
  `<row r="${n}">${values.map((v, i) => `<c r="${String.fromCharCode(65 + i)}${n}" t="inlineStr"><is><t>${escape(v)}</t></is></c>`).join('')}</row>`;

/** A workbook whose one sheet is `sheet` (the whole XML); `declaredSize` makes its directory lie. */
export const sheetWorkbook = (sheet: string, declaredSize?: number): Buffer => zip([...workbookParts(), { ...part('xl/worksheets/sheet1.xml', sheet), declaredSize }]);

/**
 * A workbook whose sheet is `bytes` of spaces between its tags (the issue's
 * "1 GiB sheet of spaces zipped to 1 MB"), deflated as one 1 MiB block
 * repeated, so writing it holds 1 MiB, not the gigabyte.
 */
export function bombWorkbook(bytes = 1024 ** 3): Buffer {
  const block = Buffer.alloc(1024 * 1024, 0x20);
  const repeats = Math.floor(bytes / block.length);
  // A block flushed to a byte boundary from a fresh compressor refers to nothing before it, so copies of it chain.
  const flushed = deflateRawSync(block, { finishFlush: constants.Z_SYNC_FLUSH });
  const head = Buffer.from(SHEET_HEAD);
  const tail = Buffer.from(SHEET_TAIL);
  let crc = crc32(head);
  for (let i = 0; i < repeats; i++) crc = crc32(block, crc);
  crc = crc32(tail, crc);
  const deflated = Buffer.concat([deflateRawSync(head, { finishFlush: constants.Z_SYNC_FLUSH }), ...Array<Buffer>(repeats).fill(flushed), deflateRawSync(tail)]);
  return zip([...workbookParts(), { name: 'xl/worksheets/sheet1.xml', deflated, size: head.length + repeats * block.length + tail.length, crc }]);
}
