/**
 * What an upload is, from its bytes alone: a pure sniff shared by the upload
 * route (modules/files) and the spreadsheet import (core/xlsx-import).
 */

export interface FileType {
  ext: 'jpg' | 'png' | 'webp' | 'gif' | 'pdf' | 'xlsx';
  mime: string;
  image: boolean;
}

export const FILE_TYPES: Record<FileType['ext'], FileType> = {
  jpg: { ext: 'jpg', mime: 'image/jpeg', image: true },
  png: { ext: 'png', mime: 'image/png', image: true },
  webp: { ext: 'webp', mime: 'image/webp', image: true },
  gif: { ext: 'gif', mime: 'image/gif', image: true },
  pdf: { ext: 'pdf', mime: 'application/pdf', image: false },
  xlsx: { ext: 'xlsx', mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', image: false },
};

const startsWith = (data: Buffer, bytes: number[] | string, at = 0) => {
  const b = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes);
  return data.length >= at + b.length && data.subarray(at, at + b.length).equals(b);
};

/** True when the zip's central directory lists an entry under `xl/` (an Office Open XML workbook). */
function zipHasWorkbook(data: Buffer): boolean {
  const EOCD = 0x06054b50;
  const CDH = 0x02014b50;
  let eocd = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
    if (data.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return false;
  const count = data.readUInt16LE(eocd + 10);
  let p = data.readUInt32LE(eocd + 16);
  for (let n = 0; n < count; n++) {
    if (p + 46 > data.length || data.readUInt32LE(p) !== CDH) return false;
    const nameLen = data.readUInt16LE(p + 28);
    const extraLen = data.readUInt16LE(p + 30);
    const commentLen = data.readUInt16LE(p + 32);
    if (p + 46 + nameLen > data.length) return false;
    if (data.toString('utf8', p + 46, p + 46 + nameLen).startsWith('xl/')) return true;
    p += 46 + nameLen + extraLen + commentLen;
  }
  return false;
}

/**
 * The type of an upload, from its content alone (never the name or the
 * client's mime). `complete` is false when the upload was cut at the size
 * limit: the family (image or document) is still known from the first
 * bytes, so the right size message can be given.
 */
export function detectFileType(data: Buffer, complete = true): FileType | null {
  if (startsWith(data, [0xff, 0xd8, 0xff])) return FILE_TYPES.jpg;
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return FILE_TYPES.png;
  if (startsWith(data, 'GIF87a') || startsWith(data, 'GIF89a')) return FILE_TYPES.gif;
  if (startsWith(data, 'RIFF') && startsWith(data, 'WEBP', 8)) return FILE_TYPES.webp;
  if (startsWith(data, '%PDF-')) return FILE_TYPES.pdf;
  if (startsWith(data, 'PK\x03\x04') && (!complete || zipHasWorkbook(data))) return FILE_TYPES.xlsx;
  return null;
}
