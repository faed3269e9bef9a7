import fs from 'node:fs';

/**
 * Group commit for the embedded database (issue 14 item 4).
 *
 * With synchronous=FULL every COMMIT fsyncs the WAL on the event loop's
 * thread (better-sqlite3 is synchronous), so a decision paid one blocked fsync
 * for itself and one for each piece of bookkeeping around it (the idempotency
 * claim and answer, the operation log, the push dispatcher's updates): six in
 * all, and nothing else could run meanwhile.
 *
 * Instead the connection runs at synchronous=NORMAL, where a COMMIT writes its
 * WAL frames to the file without syncing it, and the server syncs the WAL
 * itself before anything is told that a change happened: a transaction's
 * promise resolves, and a mutating call is answered, only after an fdatasync
 * of the WAL that began after its writes. The fdatasync runs on libuv's thread
 * pool, and every commit made while one is under way shares the next, so N
 * concurrent decisions cost one or two syncs, not 6N, and none blocks the
 * event loop. The guarantee is FULL's: an acknowledged write survives a power
 * loss. Frames that a checkpoint has already copied into the database file were
 * synced by the checkpoint itself (SQLite syncs the WAL and then the database
 * before it lets the WAL restart), and the WAL keeps its inode while this
 * connection is open (SQLite deletes it only when the last connection closes).
 */
export interface GroupSync {
  /** Resolves once everything written before the call is on disk. */
  durable(): Promise<void>;
  close(): void;
}

/**
 * Coalesces callers onto flushes: a caller waits for a flush that starts after
 * it called (one already running may have missed its writes), and all callers
 * that arrive while a flush runs share the next one.
 *
 * Given `commits` (how many commits the connection has made so far), a caller
 * with nothing new to sync does not wait at all: every commit up to the count
 * is in the WAL file when it is read, so a flush that started at that count
 * covers them, and one that succeeded needs no successor. A call that wrote
 * nothing (a list read by POST) was otherwise answered only after an
 * fdatasync of its own.
 */
export function coalesce(flush: () => Promise<void>, commits?: () => number): () => Promise<void> {
  let running: Promise<void> | null = null;
  let runningFrom = -1;
  let queued: Promise<void> | null = null;
  /** The commit count at the start of the latest flush that succeeded. */
  let synced = -1;

  const start = (): Promise<void> => {
    const from = commits ? commits() : -1;
    const run = flush()
      .then(() => {
        if (from > synced) synced = from;
      })
      .finally(() => {
        if (running === run) running = null;
      });
    running = run;
    runningFrom = from;
    return run;
  };

  return () => {
    if (commits) {
      const now = commits();
      if (now <= synced) return Promise.resolve();
      if (running && now <= runningFrom) return running;
    }
    if (!running) return start();
    if (!queued) {
      queued = running.then(
        () => {
          queued = null;
          return start();
        },
        () => {
          queued = null;
          return start();
        },
      );
    }
    return queued;
  };
}

/** The WAL file of an SQLite database at dbPath, synced by fdatasync on demand; `commits` as coalesce takes it. */
export function walGroupSync(dbPath: string, commits?: () => number): GroupSync {
  const walPath = `${dbPath}-wal`;
  let fd: number | null = null;
  let closed = false;

  const flush = async () => {
    if (closed) return;
    if (fd === null) {
      try {
        fd = fs.openSync(walPath, 'r');
      } catch (err) {
        // No WAL yet: nothing was ever committed through it, so nothing waits to be synced.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
    }
    const handle = fd;
    await new Promise<void>((resolve, reject) => fs.fdatasync(handle, (err) => (err && !closed ? reject(err) : resolve())));
  };

  return {
    durable: coalesce(flush, commits),
    close() {
      closed = true;
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
}
