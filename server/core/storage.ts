import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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

/**
 * Files on the local disk under `root`, sharded by the first two characters
 * of the name (`root/ab/ab…png`) so that no directory grows huge. Writes go to
 * a temporary file first and are renamed into place, so a reader never sees
 * half a file.
 */
export function localFileStore(root: string): FileStore {
  const pathOf = (name: string) => path.join(root, name.slice(0, 2), name);

  return {
    async put(data, ext) {
      if (!/^[a-z0-9]{1,5}$/.test(ext)) throw new Error(`invalid file extension '${ext}'`);
      const name = `${randomUUID().replace(/-/g, '')}.${ext}`;
      const file = pathOf(name);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        if (Buffer.isBuffer(data)) await fs.promises.writeFile(tmp, data, { flag: 'wx' });
        else await pipeline(data, fs.createWriteStream(tmp, { flags: 'wx' }));
        await fs.promises.rename(tmp, file);
      } catch (err) {
        await fs.promises.rm(tmp, { force: true });
        throw err;
      }
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

    async exists(name) {
      if (!isFileName(name)) return false;
      try {
        return (await fs.promises.stat(pathOf(name))).isFile();
      } catch {
        return false;
      }
    },
  };
}

/** The store of a server: `DATA_DIR/files`. */
export const fileStoreOf = (dataDir: string): FileStore => localFileStore(path.join(dataDir, 'files'));
