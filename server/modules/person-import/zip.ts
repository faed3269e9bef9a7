import { PassThrough, type Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { IMPORT_ZIP_LIMITS, NOT_A_ZIP, PHOTO_EXTENSIONS } from '../../../domain/schemas/person-import';
import { detectFileType } from '../../core/file-type';

/**
 * The uploaded zip of a person batch import, read streaming from its file
 * with yauzl (never whole into memory): the central directory is checked
 * before anything is inflated (entry count, declared sizes, ratios, names),
 * and an entry is inflated only up to what it declared (validateEntrySizes).
 */

export class ZipRefused extends Error {}

const refuse = (message: string): never => {
  throw new ZipRefused(message);
};

const MB = 1024 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const gbk = new TextDecoder('gbk');

/**
 * An entry's name as its maker meant it: UTF-8 when the entry says so (flag
 * bit 11) or carries Info-ZIP's Unicode path field; otherwise the bytes are
 * tried as UTF-8 strictly and read as GBK when they are not (Windows'
 * built-in zip writes Chinese names in the system code page).
 */
export function entryName(e: Entry): string {
  const raw = e.fileNameRaw;
  if (e.generalPurposeBitFlag & 0x800) return raw.toString('utf8');
  // Info-ZIP's Unicode path, valid only while it still matches the name beside it (its CRC).
  const unicode = e.extraFields.find((f) => f.id === 0x7075 && f.data.length > 5 && f.data[0] === 1 && f.data.readUInt32LE(1) === crc32(raw));
  if (unicode) return unicode.data.subarray(5).toString('utf8');
  try {
    return utf8.decode(raw);
  } catch {
    return gbk.decode(raw);
  }
}

/** Absolute paths, drive letters, `..` segments and control characters could climb out of wherever an entry is unpacked. */
export function unsafeName(name: string): boolean {
  const n = name.replace(/\\/g, '/');
  if (n.startsWith('/') || /^[A-Za-z]:/.test(n)) return true;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(n)) return true;
  return n.split('/').some((s) => s === '..');
}

/** Files a zip tool adds on its own (macOS resource forks, Finder and Office lock files): never a person's data. */
const junk = (name: string) => {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return name.startsWith('__MACOSX/') || base.startsWith('._') || base === '.DS_Store' || base === 'Thumbs.db' || base.startsWith('~$');
};

const extOf = (name: string) => {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '' : base.slice(dot + 1).toLowerCase();
};
const baseOf = (name: string) => {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? base : base.slice(0, dot);
};

export interface NamedEntry {
  name: string;
  entry: Entry;
}

export interface ScannedZip {
  zip: ZipFile;
  sheet: NamedEntry;
  /** Face photos by the ID number they are named after, upper-cased as the form stores it. */
  photos: Map<string, NamedEntry>;
}

export function openZip(file: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (err, zip) => {
      // Not a zip at all (no end-of-central-directory record), or a directory that lies about itself.
      if (err || !zip) reject(new ZipRefused(NOT_A_ZIP));
      else resolve(zip);
    });
  });
}

/** Every entry of the central directory, one at a time (lazyEntries), stopping at the first refusal. */
function eachEntry(zip: ZipFile, visit: (e: Entry) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (err: unknown) => {
      zip.removeAllListeners('entry');
      zip.removeAllListeners('end');
      reject(err instanceof ZipRefused ? err : new ZipRefused(`${NOT_A_ZIP}（文件目录已损坏）`));
    };
    zip.on('entry', (e: Entry) => {
      try {
        visit(e);
        zip.readEntry();
      } catch (err) {
        fail(err);
      }
    });
    zip.once('end', () => resolve());
    zip.once('error', fail);
    zip.readEntry();
  });
}

/** An entry's bytes, inflated streaming and refused past `max`. */
export function readEntry(zip: ZipFile, entry: Entry, max: number, what: string): Promise<Buffer> {
  if (entry.uncompressedSize > max) return Promise.reject(new ZipRefused(`${what}不能超过${Math.round(max / MB)}MB`));
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) return reject(new ZipRefused(`${what}无法读取（${err?.message ?? '数据损坏'}）`));
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (c: Buffer) => {
        size += c.length;
        if (size > max) {
          stream.destroy();
          reject(new ZipRefused(`${what}不能超过${Math.round(max / MB)}MB`));
        } else chunks.push(c);
      });
      stream.once('error', (e) => reject(new ZipRefused(`${what}已损坏，无法读取（${e.message}）`)));
      stream.once('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}

/**
 * An entry as a stream, with its first bytes read ahead (what its type is
 * sniffed from) and given again at the stream's start: a photo goes to the
 * file store as it inflates, never whole in memory. Errors of the entry (data past what it declared, a bad CRC) reach the
 * stream's reader as ZipRefused naming `what`.
 */
export function openEntry(zip: ZipFile, entry: Entry, max: number, what: string): Promise<{ head: Buffer; stream: Readable }> {
  if (entry.uncompressedSize > max) return Promise.reject(new ZipRefused(`${what}不能超过${Math.round(max / MB)}MB`));
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, source) => {
      if (err || !source) return reject(new ZipRefused(`${what}无法读取（${err?.message ?? '数据损坏'}）`));
      const out = new PassThrough();
      const head: Buffer[] = [];
      let size = 0;
      let started = false;
      let ended = false;
      const start = () => {
        if (started) return;
        started = true;
        source.off('data', collect);
        for (const c of head) out.write(c);
        // A short entry may have ended while its head was read: piping an ended stream would never end `out`.
        if (ended) out.end();
        else source.pipe(out);
        resolve({ head: Buffer.concat(head), stream: out });
      };
      const collect = (c: Buffer) => {
        head.push(c);
        size += c.length;
        if (size >= SNIFF_BYTES) {
          source.pause();
          start();
        }
      };
      source.on('data', collect);
      source.once('end', () => {
        ended = true;
        start();
      });
      source.once('error', (e) => {
        const refused = new ZipRefused(`${what}已损坏，无法读取（${e.message}）`);
        if (started) out.destroy(refused);
        else reject(refused);
      });
    });
  });
}

/** How many bytes a file's type is told from (core/file-type.ts reads at most the first 12). */
const SNIFF_BYTES = 16;

/** The first bytes of an entry (what its type is sniffed from), without inflating the rest. */
function headOf(zip: ZipFile, entry: Entry, bytes = 16): Promise<Buffer> {
  // A stored entry (as photos mostly are: a JPEG does not deflate) is read for just those bytes; an upload's 2,000 photos
  // were otherwise read a whole first chunk each, 80 MB of buffers for 32 KB of signatures.
  const stored = entry.compressionMethod === 0 && !entry.isEncrypted();
  const range = stored ? { decodeFileData: false, start: 0, end: Math.min(bytes, entry.compressedSize) } : {};
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, range, (err, stream) => {
      if (err || !stream) return reject(err ?? new Error('no stream'));
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        resolve(Buffer.concat(chunks).subarray(0, bytes));
      };
      stream.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (size >= bytes) {
          done();
          stream.destroy();
        }
      });
      stream.once('end', done);
      stream.once('error', (e) => {
        if (!settled) {
          settled = true;
          reject(e);
        }
      });
    });
  });
}

/**
 * Opens and checks an uploaded zip; answers it open with its sheet and
 * photos, or throws ZipRefused with the message the person reads (and
 * closes it). `sniff`: read each photo's first bytes too (the upload; the
 * import itself checks each photo whole).
 */
export async function scanZip(file: string, sniff: boolean): Promise<ScannedZip> {
  const zip = await openZip(file);
  try {
    const L = IMPORT_ZIP_LIMITS;
    if (zip.entryCount > L.maxEntries) refuse(`压缩包内文件过多：${zip.entryCount}个，最多${L.maxEntries}个`);
    let unzipped = 0;
    const sheets: NamedEntry[] = [];
    const photos = new Map<string, NamedEntry>();
    await eachEntry(zip, (e) => {
      const name = entryName(e);
      if (unsafeName(name)) refuse(`压缩包中的“${name}”含绝对路径或“..”，不安全，已拒绝`);
      if (e.isEncrypted()) refuse(`压缩包中的“${name}”已加密，请上传未加密的zip文件`);
      if (e.compressionMethod !== 0 && e.compressionMethod !== 8) refuse(`压缩包中的“${name}”使用了不支持的压缩方式，请用常见的zip工具重新压缩`);
      unzipped += e.uncompressedSize;
      if (unzipped > L.maxUnzippedBytes) refuse(`压缩包解压后超过${L.maxUnzippedBytes / MB / 1024}GB，已拒绝`);
      // A ratio past 100:1 is padding, not photos or a sheet: the shape of a zip bomb.
      if (e.uncompressedSize > 0 && (e.compressedSize === 0 || e.uncompressedSize / e.compressedSize > L.maxRatio)) {
        refuse(`压缩包中的“${name}”压缩比超过${L.maxRatio}:1，疑似压缩炸弹，已拒绝`);
      }
      if (name.endsWith('/') || name.endsWith('\\') || junk(name)) return;
      const ext = extOf(name);
      if (ext === 'xlsx') sheets.push({ name, entry: e });
      else if ((PHOTO_EXTENSIONS as readonly string[]).includes(ext)) {
        const id = baseOf(name).trim().toUpperCase();
        const twin = photos.get(id);
        if (twin) refuse(`压缩包中证件号码“${id}”有两张照片：“${twin.name}”和“${name}”，请只保留一张`);
        photos.set(id, { name, entry: e });
      }
    });
    if (sheets.length === 0) refuse('压缩包中没有人员表（.xlsx 文件），请按模板放入一个人员表');
    if (sheets.length > 1) refuse(`压缩包中只能有一个人员表（.xlsx），现有${sheets.length}个：${sheets.map((s) => s.name).join('、')}`);
    if (sniff) {
      for (const { name, entry } of photos.values()) {
        let head: Buffer;
        try {
          head = await headOf(zip, entry);
        } catch {
          refuse(`压缩包中的照片“${name}”已损坏，无法读取`);
        }
        if (!detectFileType(head!)?.image || !['jpg', 'png'].includes(detectFileType(head!)!.ext)) refuse(`压缩包中的“${name}”不是图片文件（仅支持 JPG、PNG）`);
      }
    }
    return { zip, sheet: sheets[0]!, photos };
  } catch (err) {
    zip.close();
    throw err;
  }
}
