import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Header, Parser, type ReadEntry } from 'tar';
import type { FileStoreKind } from '../config';
import { FILE_NAME_PATTERN } from '../core/storage';

/**
 * The backup archive (server/ops/backup.ts writes it, restore.ts reads it): a
 * plain POSIX tar, so an operator can open it with `tar` alone. Its entries,
 * in this order:
 *
 *   db/park.db           SQLite: the online backup of park.db
 *   db/park.dump         PostgreSQL: pg_dump --format=custom
 *   files/ab/ab….png     every stored file, under the file store's own path
 *                        (none with FILE_STORE=postgres: the files are rows
 *                        of the database part, manifest.fileStore says so)
 *   files.sha256         one line per stored file, `sha256sum` format: its
 *                        SHA-256, two spaces, its path in the archive
 *   manifest.json        BackupManifest: versions, migration level, dialect,
 *                        rows per table, the database part's SHA-256 and size,
 *                        and the SHA-256 of files.sha256
 *
 * The manifest comes last because it holds the digests of everything before
 * it, computed while those parts were written: every byte is read once. So
 * each stored file has its own SHA-256 (in files.sha256, which the manifest
 * seals with its digest), and after extraction `sha256sum -c files.sha256`
 * checks them without this program.
 */

export const ARCHIVE_FORMAT = 'park-backup/1';
export const MANIFEST_PATH = 'manifest.json';
export const FILE_LIST_PATH = 'files.sha256';
export const DB_PATHS = { sqlite: 'db/park.db', postgres: 'db/park.dump' } as const;

export interface BackupManifest {
  format: typeof ARCHIVE_FORMAT;
  app: string;
  /** package.json's version of the build that took it. */
  version: string;
  /** The last migration applied to the database copied (server/db/migrate.ts), null for an empty one. */
  migrationLevel: string | null;
  dialect: 'sqlite' | 'postgres';
  /** Park time 'YYYY-MM-DD HH:mm:ss' when the backup began, its epoch ms, and the park's zone. */
  createdAt: string;
  createdAtMs: number;
  tz: string;
  reason: string;
  host: string;
  pid: number;
  database: { path: string; format: 'sqlite' | 'pg_dump-custom'; size: number; sha256: string };
  /** Rows per table, counted in the copy the archive holds (PostgreSQL: in pg_dump's own snapshot). */
  tables: Record<string, number>;
  /**
   * Where the server kept uploads (FILE_STORE): 'disk', the files part below; 'postgres', inside the database part,
   * with no files of their own in the archive. Archives made before the choice existed have no field: 'disk'.
   */
  fileStore?: FileStoreKind;
  /**
   * The stored files: how many and their bytes, the list of their digests and its own SHA-256, and how many
   * vanished between being listed and being read (removed meanwhile by the housekeeping).
   */
  files: { count: number; bytes: number; list: typeof FILE_LIST_PATH; sha256: string; vanished: number };
}

/** A stored file's path in the archive: files/<first two characters>/<name>, as in the store. */
export const isStoredFilePath = (p: string): boolean => {
  const m = /^files\/([0-9a-f]{2})\/([^/]+)$/.exec(p);
  return !!m && FILE_NAME_PATTERN.test(m[2]!) && m[2]!.startsWith(m[1]!);
};

/**
 * Paces a stream to `bytesPerSecond` (null: no pace): called after each chunk, it waits until the bytes so far are
 * due. A backup that hashes every byte on a server's event loop takes its time rather than the calls' CPU.
 */
export function pacer(bytesPerSecond: number | null | undefined): (bytes: number) => Promise<void> {
  const start = performance.now();
  let total = 0;
  return async (bytes) => {
    if (!bytesPerSecond) return;
    total += bytes;
    const ahead = (total / bytesPerSecond) * 1000 - (performance.now() - start);
    if (ahead > 2) await new Promise((r) => setTimeout(r, ahead));
  };
}

/** Chunks read and hashed at a time: small enough that one never holds the event loop for long. */
const CHUNK = 256 * 1024;

const BLOCK = 512;
const ZEROS = Buffer.alloc(BLOCK * 2);

/**
 * Writes a tar entry by entry, each streamed from its source and hashed on the
 * way through, through a write stream that is waited on when full: nothing is
 * held in memory but the chunk in flight.
 */
export class TarWriter {
  #bytes = 0;
  #failed: Error | null = null;
  private constructor(
    private readonly out: fs.WriteStream,
    private readonly pace: (bytes: number) => Promise<void>,
  ) {
    // A write error with no listener would end the process; it is thrown at the next write instead.
    out.on('error', (err) => (this.#failed = err));
  }

  /** Creates the file; it must not exist. */
  static async create(file: string, bytesPerSecond?: number | null): Promise<TarWriter> {
    const out = fs.createWriteStream(file, { flags: 'wx', highWaterMark: 1 << 20 });
    await once(out, 'open');
    return new TarWriter(out, pacer(bytesPerSecond));
  }

  get bytes(): number {
    return this.#bytes;
  }

  async #put(buf: Buffer): Promise<void> {
    if (this.#failed) throw this.#failed;
    this.#bytes += buf.length;
    if (!this.out.write(buf)) await once(this.out, 'drain');
  }

  /** Adds a file of `size` bytes from `source`; answers its SHA-256. A source that gives more or fewer bytes is an error. */
  async add(entryPath: string, size: number, mtime: Date, source: Readable | Buffer): Promise<string> {
    const header = new Header({ path: entryPath, mode: 0o644, uid: 0, gid: 0, size, mtime, type: 'File' });
    header.encode();
    if (header.needPax) throw new Error(`tar entry name too long: ${entryPath}`);
    await this.#put(header.block!);
    const hash = createHash('sha256');
    let n = 0;
    const chunks: AsyncIterable<Buffer> | Iterable<Buffer> = Buffer.isBuffer(source) ? [source] : source;
    for await (const chunk of chunks) {
      n += chunk.length;
      if (n > size) throw new Error(`${entryPath} grew while it was being archived`);
      hash.update(chunk);
      await this.#put(chunk);
      await this.pace(chunk.length);
    }
    if (n !== size) throw new Error(`${entryPath} shrank while it was being archived (${n} of ${size} bytes)`);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) await this.#put(ZEROS.subarray(0, pad));
    return hash.digest('hex');
  }

  /** The two zero blocks that end a tar, then the file closed. */
  async end(): Promise<void> {
    await this.#put(ZEROS);
    this.out.end();
    await finished(this.out);
    if (this.#failed) throw this.#failed;
  }

  /** Closes the file without finishing it (the caller removes it). */
  destroy(): void {
    this.out.destroy();
  }
}

export interface ArchiveCheck {
  ok: boolean;
  /** The manifest, when the archive has a readable one. */
  manifest: BackupManifest | null;
  /** What does not match, in Chinese, one line each. */
  problems: string[];
  /** Bytes of the archive read. */
  size: number;
}

/** The most lines of problems told: a tampered archive is refused on the first, the rest are for the operator. */
const MAX_PROBLEMS = 20;
/** Manifests are a few kB; files.sha256 about 100 bytes per stored file. */
const MAX_MANIFEST_BYTES = 16 << 20;
const MAX_LIST_BYTES = 512 << 20;

/**
 * Reads the whole archive once and checks every part against the manifest:
 * the database part's SHA-256 and size, each stored file's SHA-256 against
 * files.sha256, and that list's own SHA-256; no entry may be anything but
 * these (no links, no other paths).
 */
export async function checkArchive(file: string, opts: { bytesPerSecond?: number | null } = {}): Promise<ArchiveCheck> {
  const problems: string[] = [];
  const problem = (p: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(p);
  };
  const size = (await fs.promises.stat(file)).size;
  const computed = new Map<string, { sha256: string; size: number }>();
  const small = new Map<string, Buffer>();
  const pending: Array<Promise<void>> = [];

  const onEntry = (entry: ReadEntry) => {
    const p = entry.path;
    if (entry.type === 'Directory' && /^(db|files|files\/[0-9a-f]{2})\/?$/.test(p)) return;
    if (entry.type !== 'File' && entry.type !== 'OldFile') {
      problem(`备份包含不应有的条目：${p}（${entry.type}）`);
      return;
    }
    const keep = p === MANIFEST_PATH || p === FILE_LIST_PATH;
    const known = keep || p === DB_PATHS.sqlite || p === DB_PATHS.postgres || isStoredFilePath(p);
    if (!known) {
      problem(`备份包含不应有的条目：${p}`);
      return;
    }
    if (computed.has(p)) problem(`备份中的条目重复：${p}`);
    const limit = p === MANIFEST_PATH ? MAX_MANIFEST_BYTES : MAX_LIST_BYTES;
    if (keep && (entry.size ?? 0) > limit) {
      problem(`备份中的 ${p} 过大（${entry.size} 字节）`);
      return;
    }
    const hash = createHash('sha256');
    const parts: Buffer[] = [];
    let n = 0;
    entry.on('data', (c: Buffer) => {
      hash.update(c);
      n += c.length;
      if (keep) parts.push(c);
    });
    pending.push(
      new Promise<void>((resolve) =>
        entry.on('end', () => {
          computed.set(p, { sha256: hash.digest('hex'), size: n });
          if (keep) small.set(p, Buffer.concat(parts));
          resolve();
        }),
      ),
    );
  };

  try {
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry) => {
        onEntry(entry);
        // An entry nobody reads is skipped.
        entry.resume();
      },
    });
    const parsed = new Promise<void>((resolve, reject) => {
      parser.on('error', reject);
      parser.on('end', resolve);
    });
    parsed.catch(() => undefined);
    const pace = pacer(opts.bytesPerSecond);
    for await (const chunk of fs.createReadStream(file, { highWaterMark: CHUNK }) as AsyncIterable<Buffer>) {
      if (!parser.write(chunk)) await Promise.race([once(parser, 'drain'), parsed]);
      await pace(chunk.length);
    }
    parser.end();
    await parsed;
    await Promise.all(pending);
  } catch (err) {
    return { ok: false, manifest: null, problems: [`备份文件已损坏或不是备份归档：${(err as Error).message}`], size };
  }

  let manifest: BackupManifest | null = null;
  const manifestText = small.get(MANIFEST_PATH);
  if (!manifestText) problem('备份中缺少 manifest.json');
  else {
    try {
      manifest = JSON.parse(manifestText.toString('utf8')) as BackupManifest;
    } catch {
      problem('备份的 manifest.json 不是有效的 JSON');
    }
    if (manifest && manifest.format !== ARCHIVE_FORMAT) {
      problem(`备份格式 ${String(manifest.format)} 不是本程序认识的 ${ARCHIVE_FORMAT}`);
      manifest = null;
    }
  }
  if (!manifest) return { ok: false, manifest, problems, size };

  const db = computed.get(manifest.database.path);
  if (manifest.database.path !== DB_PATHS[manifest.dialect]) problem(`清单中的数据库部分 ${manifest.database.path} 与数据库类型 ${manifest.dialect} 不符`);
  else if (!db) problem(`备份中缺少数据库部分 ${manifest.database.path}`);
  else if (db.sha256 !== manifest.database.sha256 || db.size !== manifest.database.size) problem(`数据库部分 ${manifest.database.path} 的 SHA-256 与清单不符：备份已被改动或损坏`);
  for (const other of Object.values(DB_PATHS)) if (other !== manifest.database.path && computed.has(other)) problem(`备份中多出数据库部分 ${other}`);

  const list = small.get(FILE_LIST_PATH);
  const listDigest = computed.get(FILE_LIST_PATH)?.sha256;
  if (!list) problem('备份中缺少文件清单 files.sha256');
  else if (listDigest !== manifest.files.sha256) problem('文件清单 files.sha256 的 SHA-256 与 manifest.json 不符：备份已被改动或损坏');
  else {
    const listed = new Set<string>();
    for (const line of list.toString('utf8').split('\n')) {
      if (!line) continue;
      const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
      if (!m || !isStoredFilePath(m[2]!)) {
        problem(`文件清单中有无法识别的行：${line.slice(0, 120)}`);
        continue;
      }
      listed.add(m[2]!);
      const got = computed.get(m[2]!);
      if (!got) problem(`备份中缺少文件 ${m[2]}`);
      else if (got.sha256 !== m[1]) problem(`文件 ${m[2]} 的 SHA-256 与清单不符：备份已被改动或损坏`);
    }
    for (const p of computed.keys()) if (isStoredFilePath(p) && !listed.has(p)) problem(`备份中的文件 ${p} 不在文件清单中`);
    if (listed.size !== manifest.files.count) problem(`文件清单列出 ${listed.size} 个文件，manifest.json 记录为 ${manifest.files.count} 个`);
  }
  return { ok: problems.length === 0, manifest, problems, size };
}

// ---------------------------------------------------------------- writing

/** The stored files' paths in the archive, in order, read from the store's shard directories. */
async function storedFiles(root: string): Promise<string[]> {
  let shards: string[];
  try {
    shards = (await fs.promises.readdir(root)).filter((d) => /^[0-9a-f]{2}$/.test(d)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: string[] = [];
  for (const shard of shards) {
    let names: string[];
    try {
      names = await fs.promises.readdir(path.join(root, shard));
    } catch {
      continue;
    }
    // Only finished files: a file being stored is a `.tmp` beside its final name until it is renamed into place.
    for (const name of names.sort()) if (isStoredFilePath(`files/${shard}/${name}`)) out.push(`files/${shard}/${name}`);
  }
  return out;
}

export interface ArchiveJob {
  /** The archive to create (it must not exist). */
  file: string;
  /** A directory of the backup's own, for the list of the files' digests. */
  staging: string;
  /** The database part: the copy to put in, and its dialect. The copy is removed once it is in. */
  dbCopy: string;
  dialect: BackupManifest['dialect'];
  /** DATA_DIR/files; null when the files are in the database (FILE_STORE=postgres) and so already in its part. */
  filesRoot: string | null;
  /** The manifest's fields that describe the backup rather than its parts. */
  about: Omit<BackupManifest, 'format' | 'database' | 'files'>;
  /** The pace of the writing (pacer); null: as fast as the disk goes. */
  bytesPerSecond?: number | null;
}

/**
 * Writes the archive: the database copy, then every stored file (read after
 * the database was copied, so every file a copied row names is there: a file
 * is stored before the row that names it), their list, and the manifest; then
 * syncs it to disk. Answers the manifest.
 */
export async function writeArchive(job: ArchiveJob): Promise<BackupManifest> {
  const writer = await TarWriter.create(job.file, job.bytesPerSecond);
  try {
    const dbPath = DB_PATHS[job.dialect];
    const dbStat = await fs.promises.stat(job.dbCopy);
    const dbSha = await writer.add(dbPath, dbStat.size, dbStat.mtime, fs.createReadStream(job.dbCopy, { highWaterMark: CHUNK }));
    // The copy is in the archive now: its room on disk is given back before the files are read.
    await fs.promises.rm(job.dbCopy, { force: true });

    const listFile = path.join(job.staging, FILE_LIST_PATH);
    const list = fs.createWriteStream(listFile, { flags: 'wx' });
    const listClosed = new Promise<void>((resolve, reject) => {
      list.once('close', resolve);
      list.once('error', reject);
    });
    let count = 0;
    let bytes = 0;
    let vanished = 0;
    try {
      const root = job.filesRoot;
      for (const entry of root === null ? [] : await storedFiles(root)) {
        let fh: fs.promises.FileHandle;
        try {
          fh = await fs.promises.open(path.join(root!, entry.slice('files/'.length)), 'r');
        } catch (err) {
          // Removed since it was listed (the housekeeping's unreferenced device images): nothing to keep.
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
            vanished++;
            continue;
          }
          throw err;
        }
        try {
          const st = await fh.stat();
          const sha = await writer.add(entry, st.size, st.mtime, fh.createReadStream({ highWaterMark: CHUNK, autoClose: false }));
          if (!list.write(`${sha}  ${entry}\n`)) await new Promise<void>((r) => list.once('drain', () => r()));
          count++;
          bytes += st.size;
        } finally {
          await fh.close();
        }
      }
    } finally {
      list.end();
      await listClosed;
    }
    const listStat = await fs.promises.stat(listFile);
    const listSha = await writer.add(FILE_LIST_PATH, listStat.size, listStat.mtime, fs.createReadStream(listFile));

    const manifest: BackupManifest = {
      format: ARCHIVE_FORMAT,
      ...job.about,
      fileStore: job.filesRoot === null ? 'postgres' : 'disk',
      database: { path: dbPath, format: job.dialect === 'sqlite' ? 'sqlite' : 'pg_dump-custom', size: dbStat.size, sha256: dbSha },
      files: { count, bytes, list: FILE_LIST_PATH, sha256: listSha, vanished },
    };
    const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 2) + '\n', 'utf8');
    await writer.add(MANIFEST_PATH, manifestBytes.length, new Date(job.about.createdAtMs), manifestBytes);
    await writer.end();
    const fh = await fs.promises.open(job.file, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    return manifest;
  } catch (err) {
    writer.destroy();
    throw err;
  }
}
