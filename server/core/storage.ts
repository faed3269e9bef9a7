import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type { Config, FileStoreKind } from '../config';
import type { DB } from '../db/schema';

/**
 * Stored file names: 32 lowercase hex digits (a random UUID without dashes)
 * and a short lowercase extension. Nothing else is ever accepted, so a name
 * can never climb out of the store (no '/', '\\', '..', NUL or drive letters).
 */
export const FILE_NAME_PATTERN = /^[0-9a-f]{32}\.[a-z0-9]{1,5}$/;

export const isFileName = (name: unknown): name is string => typeof name === 'string' && FILE_NAME_PATTERN.test(name);

export interface OpenedFile {
  stream: Readable;
  size: number;
}

/**
 * Where uploaded files live. Callers only ever hold the names it hands out;
 * an S3-compatible store can implement the same four calls later.
 */
export interface FileStore {
  /** Stores the bytes (or what the stream gives) under a new random name with the given extension (without dot); answers the name. */
  put(data: Buffer | Readable, ext: string): Promise<string>;
  /** A stream of the file and its size, or null when the name is invalid or unknown. */
  open(name: string): Promise<OpenedFile | null>;
  exists(name: string): Promise<boolean>;
  /** Deletes the file; a name already gone is no error (two servers' cleanups may both try). */
  remove(name: string): Promise<void>;
}

/** What moving files from one store to another (ops/files-move.ts) needs beyond the four calls. */
export interface MovableFileStore extends FileStore {
  readonly kind: FileStoreKind;
  /** Where it is, for the operator: a folder, or the database's tables. */
  readonly where: string;
  /** Every complete file's name, in name order. */
  names(): AsyncIterable<string>;
  /** A complete file's size in bytes, or null when there is none of that name. */
  size(name: string): Promise<number | null>;
  /** Stores the bytes under `name` itself (a moved file keeps the name records hold), replacing any copy there; answers the bytes written. */
  putAs(name: string, data: Buffer | Readable): Promise<number>;
  /** Removes uploads abandoned half way (their server died) begun before `olderThan` (epoch ms); answers how many. */
  sweep(olderThan: number): Promise<number>;
  /** Writes and removes a probe no stored file can be taken for (the readiness check); throws when the store cannot be written. */
  probe(): Promise<void>;
}

let probeSeq = 0;
/** `.ready-probe-<pid>-<n>`: never a stored name (those start with a hex digit); the sequence keeps concurrent probes apart. */
const probeName = () => `.ready-probe-${process.pid}-${++probeSeq}`;

const checkExt = (ext: string) => {
  if (!/^[a-z0-9]{1,5}$/.test(ext)) throw new Error(`invalid file extension '${ext}'`);
};
const newName = (ext: string) => `${randomUUID().replace(/-/g, '')}.${ext}`;
const checkName = (name: string) => {
  if (!isFileName(name)) throw new Error(`invalid stored file name '${name}'`);
};

/**
 * Files on the local disk under `root`, sharded by the first two characters
 * of the name (`root/ab/ab…png`) so that no directory grows huge; `flat`
 * keeps them in `root` itself (the person imports' zips, DATA_DIR/imports).
 * Writes go to a temporary file first and are renamed into place, so a
 * reader never sees half a file.
 */
export function localFileStore(root: string, opts: { flat?: boolean } = {}): MovableFileStore {
  const pathOf = (name: string) => (opts.flat ? path.join(root, name) : path.join(root, name.slice(0, 2), name));

  async function write(name: string, data: Buffer | Readable): Promise<number> {
    const file = pathOf(name);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      let size: number;
      if (Buffer.isBuffer(data)) {
        await fs.promises.writeFile(tmp, data, { flag: 'wx' });
        size = data.length;
      } else {
        await pipeline(data, fs.createWriteStream(tmp, { flags: 'wx' }));
        size = (await fs.promises.stat(tmp)).size;
      }
      await fs.promises.rename(tmp, file);
      return size;
    } catch (err) {
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
  }

  async function sizeOf(name: string): Promise<number | null> {
    if (!isFileName(name)) return null;
    try {
      const st = await fs.promises.stat(pathOf(name));
      return st.isFile() ? st.size : null;
    } catch {
      return null;
    }
  }

  async function* namesIn(dir: string): AsyncGenerator<string> {
    let entries: string[];
    try {
      entries = await fs.promises.readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw err;
    }
    // Only finished files: one being written is a `.tmp` beside its final name.
    for (const name of entries.sort()) if (isFileName(name)) yield name;
  }

  return {
    kind: 'disk',
    where: root,

    async put(data, ext) {
      checkExt(ext);
      const name = newName(ext);
      await write(name, data);
      return name;
    },

    async open(name) {
      if (!isFileName(name)) return null;
      let handle: fs.promises.FileHandle;
      try {
        handle = await fs.promises.open(pathOf(name), 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
      try {
        const stat = await handle.stat();
        if (!stat.isFile()) {
          await handle.close();
          return null;
        }
        return { stream: handle.createReadStream(), size: stat.size };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async remove(name) {
      if (!isFileName(name)) return;
      await fs.promises.rm(pathOf(name), { force: true });
    },

    exists: async (name) => (await sizeOf(name)) !== null,

    size: sizeOf,

    async *names() {
      if (opts.flat) {
        yield* namesIn(root);
        return;
      }
      let shards: string[];
      try {
        shards = (await fs.promises.readdir(root)).filter((d) => /^[0-9a-f]{2}$/.test(d)).sort();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      for (const shard of shards) for await (const name of namesIn(path.join(root, shard))) if (name.startsWith(shard)) yield name;
    },

    async putAs(name, data) {
      checkName(name);
      return write(name, data);
    },

    // A server that dies mid-write leaves a `.tmp` that no reader sees; the disk store has always left those be.
    sweep: async () => 0,

    async probe() {
      // Stored names are 32 hex digits in two-character folders: a dot name at the root is never one.
      const file = path.join(root, probeName());
      // The store makes its folders on first upload; a fresh install without any is still writable.
      await fs.promises.mkdir(root, { recursive: true });
      try {
        await fs.promises.writeFile(file, 'ready', { flag: 'wx' });
      } finally {
        await fs.promises.rm(file, { force: true });
      }
    },
  };
}

/** The pieces a file is kept in by the database store: small enough to hold one at a time, big enough that a 20 MB file is 80 statements. */
export const FILE_CHUNK_BYTES = 256 * 1024;

/** An incomplete file begun longer ago than this was abandoned (its server died mid-upload) and may be swept. */
export const ABANDONED_UPLOAD_MS = 24 * 3600_000;

/** The stream's bytes again, in pieces of exactly `size` bytes (the last one shorter): at most one piece is held. */
export async function* rechunk(source: Buffer | AsyncIterable<Buffer | string>, size = FILE_CHUNK_BYTES): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  const pieces: AsyncIterable<Buffer | string> | Iterable<Buffer> = Buffer.isBuffer(source) ? [source] : source;
  for await (const piece of pieces) {
    let rest = typeof piece === 'string' ? Buffer.from(piece) : piece;
    while (rest.length > 0) {
      const take = Math.min(size - held, rest.length);
      parts.push(rest.subarray(0, take));
      held += take;
      rest = rest.subarray(take);
      if (held === size) {
        yield Buffer.concat(parts, held);
        parts = [];
        held = 0;
      }
    }
  }
  if (held > 0) yield Buffer.concat(parts, held);
}

/**
 * Files in the database (FILE_STORE=postgres; tables of migration 033): a
 * header row in stored_file and the bytes in stored_file_chunk, FILE_CHUNK_BYTES
 * a row. An upload inserts its header (complete 0) and then each piece as the
 * stream gives it, and marks the header complete in its last statement; a
 * failed one deletes what it wrote. Readers see only complete files, so half
 * a file is never served, and a read fetches one piece per statement, only
 * when the reader has taken the last one. Nothing holds more than a piece or
 * two of a file in memory, and every server on the database sees every file.
 */
export function databaseFileStore(db: Kysely<DB>): MovableFileStore {
  /** Deletes a file's pieces and header in one transaction (a reader sees it whole or not at all); answers whether it had a header. */
  const discard = (name: string, onlyIncomplete = false) =>
    db.transaction().execute(async (trx) => {
      let header = trx.deleteFrom('stored_file').where('name', '=', name);
      if (onlyIncomplete) header = header.where('complete', '=', 0);
      const had = Number((await header.executeTakeFirst()).numDeletedRows) > 0;
      // A sweep that lost its race to another server's takes nothing: the file may be complete by now.
      if (had || !onlyIncomplete) await trx.deleteFrom('stored_file_chunk').where('name', '=', name).execute();
      return had;
    });

  async function write(name: string, data: Buffer | Readable): Promise<number> {
    let begun = false;
    let seq = 0;
    let size = 0;
    try {
      // The header first, incomplete: nothing reads it until the last statement marks it complete.
      await db.insertInto('stored_file').values({ name, size: 0, created_at: Date.now(), complete: 0 }).execute();
      begun = true;
      // Each piece is written before the next is read from the stream: the upload waits for the database, not the memory.
      for await (const bytes of rechunk(data as Buffer | AsyncIterable<Buffer>)) {
        await db.insertInto('stored_file_chunk').values({ name, seq, bytes }).execute();
        seq++;
        size += bytes.length;
      }
      const done = await db.updateTable('stored_file').set({ size, complete: 1 }).where('name', '=', name).where('complete', '=', 0).executeTakeFirst();
      if (Number(done.numUpdatedRows) !== 1) throw new Error(`stored file ${name} was removed while it was being written`);
      return size;
    } catch (err) {
      if (!Buffer.isBuffer(data)) data.destroy();
      // What this upload wrote goes; if the database is gone too, the sweep takes the incomplete rows later.
      if (begun) await discard(name).catch(() => undefined);
      throw err;
    }
  }

  const sizeOf = async (name: string): Promise<number | null> => {
    if (!isFileName(name)) return null;
    const row = await db.selectFrom('stored_file').select('size').where('name', '=', name).where('complete', '=', 1).executeTakeFirst();
    return row ? Number(row.size) : null;
  };

  /** The pieces of a complete file, one statement each, asked for only when the reader wants more. */
  function piecesOf(name: string, size: number): Readable {
    let seq = 0;
    let sent = 0;
    return new Readable({
      highWaterMark: FILE_CHUNK_BYTES,
      read() {
        if (sent >= size) {
          this.push(null);
          return;
        }
        db.selectFrom('stored_file_chunk')
          .select('bytes')
          .where('name', '=', name)
          .where('seq', '=', seq)
          .executeTakeFirst()
          .then(
            (row) => {
              if (this.destroyed) return;
              // Removed while it was read (a cleanup, a move): the reader learns the file is cut short, never gets other bytes.
              if (!row) return void this.destroy(new Error(`stored file ${name} lost its piece ${seq} while it was read`));
              const bytes = Buffer.isBuffer(row.bytes) ? row.bytes : Buffer.from(row.bytes);
              seq++;
              sent += bytes.length;
              if (sent > size) return void this.destroy(new Error(`stored file ${name} holds more than its ${size} bytes`));
              this.push(bytes);
              if (sent === size) this.push(null);
            },
            (err: Error) => this.destroy(err),
          );
      },
    });
  }

  return {
    kind: 'postgres',
    where: 'PostgreSQL（stored_file、stored_file_chunk 表）',

    async put(data, ext) {
      checkExt(ext);
      const name = newName(ext);
      await write(name, data);
      return name;
    },

    async open(name) {
      const size = await sizeOf(name);
      return size === null ? null : { stream: piecesOf(name, size), size };
    },

    async exists(name) {
      return (await sizeOf(name)) !== null;
    },

    async remove(name) {
      if (!isFileName(name)) return;
      await discard(name);
    },

    size: sizeOf,

    async *names() {
      let after = '';
      for (;;) {
        const rows = await db.selectFrom('stored_file').select('name').where('complete', '=', 1).where('name', '>', after).orderBy('name').limit(500).execute();
        for (const r of rows) yield r.name;
        if (rows.length < 500) return;
        after = rows[rows.length - 1]!.name;
      }
    },

    async putAs(name, data) {
      checkName(name);
      // A copy there already (complete, or left half way by an interrupted move) is replaced.
      await discard(name);
      return write(name, data);
    },

    async probe() {
      const name = probeName();
      await db.insertInto('stored_file').values({ name, size: 0, created_at: Date.now(), complete: 0 }).execute();
      // A probe row whose delete fails is an incomplete file like any other: never read, and swept.
      await db.deleteFrom('stored_file').where('name', '=', name).execute();
    },

    async sweep(olderThan) {
      const stale = await db.selectFrom('stored_file').select('name').where('complete', '=', 0).where('created_at', '<', olderThan).limit(1000).execute();
      let removed = 0;
      for (const { name } of stale) if (await discard(name, true)) removed++;
      return removed;
    },
  };
}

/** The store FILE_STORE names: DATA_DIR/files on this machine, or the database every server shares. */
export function fileStoreFor(config: Pick<Config, 'fileStore' | 'dataDir'>, db: Kysely<DB>): MovableFileStore {
  return config.fileStore === 'postgres' ? databaseFileStore(db) : localFileStore(path.join(config.dataDir, 'files'));
}

/** The file store of a server (or a script holding the same config and database). */
export const fileStoreOf = (ctx: { config: Pick<Config, 'fileStore' | 'dataDir'>; db: Kysely<DB> }): MovableFileStore => fileStoreFor(ctx.config, ctx.db);
