// The SQLite copy of a backup (started by backup.ts copySqlite): SQLite's online backup of the live file into `dest`
// through a read connection of its own, then the copy's tables counted and its migration level read. In a thread, so
// that the copy, which runs as one step, never holds the server's event loop; plain JavaScript, so that the thread
// starts without a TypeScript loader (one compiled in each thread cost a small backup most of its time).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

// All pages in one step: SQLite restarts a backup whenever another connection writes between two steps, so with
// writes arriving all the time a step-by-step copy might never finish. One step holds a read snapshot for its
// duration, which in WAL mode blocks no writer.
const ALL_PAGES = 0x7fffffff;

/** @param {{ source: string, dest: string }} request */
async function copy({ source, dest }) {
  const live = new Database(source, { readonly: true, fileMustExist: true });
  try {
    live.pragma('busy_timeout = 5000');
    await live.backup(dest, { progress: () => ALL_PAGES });
  } finally {
    live.close();
  }
  const copied = new Database(dest, { fileMustExist: true });
  try {
    const names = copied.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all();
    /** @type {Record<string, number>} */
    const tables = {};
    for (const { name } of names) tables[name] = Number(copied.prepare(`select count(*) as n from "${String(name).replace(/"/g, '""')}"`).get().n);
    const level = 'kysely_migration' in tables ? (copied.prepare('select max(name) as name from kysely_migration').get()?.name ?? null) : null;
    // The copy keeps the live file's WAL mode; closing its only connection folds its WAL back into the one file.
    return { ok: true, tables, level };
  } finally {
    copied.close();
  }
}

try {
  parentPort.postMessage(await copy(workerData));
} catch (err) {
  parentPort.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err), code: err?.code });
}
