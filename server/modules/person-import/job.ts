import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import type { Kysely, Updateable } from 'kysely';
import { ErrorCode } from '../../../domain/errors';
import { personApplicationLabels } from '../../../domain/schemas/person-application';
import { IMPORT_ZIP_LIMITS, ImportStatus, NOT_A_ZIP, type ImportProgressEvent } from '../../../domain/schemas/person-import';
import type { AppContext, AuthContext } from '../../core/context';
import { AppError } from '../../core/errors';
import { recordFileObject } from '../../core/file-refs';
import { detectFileType } from '../../core/file-type';
import { tableChanged } from '../../core/paging';
import { fileStoreOf } from '../../core/storage';
import { convertRow, LookupIndex, RowErrors, rowErrorText } from '../../core/xlsx-import';
import { ImportGate, readSheetOffThread } from '../../core/xlsx-off-thread';
import type { DB, PersonImportTaskTable } from '../../db/schema';
import { saveApplication, submitApplication } from '../appointments/service';
import { EXAMPLE_CONTENT, personColumns } from './columns';
import { openEntry, readEntry, scanZip, ZipRefused } from './zip';

/**
 * The background run of a person batch import (spec 001 §2: start import).
 * The server whose conditional UPDATE moved the task to 1 runs it after
 * answering, beating heartbeat_at; each person is saved and submitted in a
 * transaction of its own with its photo stored first, so a row is imported
 * whole or not at all, and a run that stops half way leaves whole rows. A
 * restart skips the ID numbers the task already imported.
 */

export const TASK_TABLE = 'person_import_task';
/** How often a running import says it is alive. */
export const HEARTBEAT_MS = 5_000;
/** A running task whose heartbeat is older than this lost its server: the periodic check releases it. */
export const STALE_MS = 60_000;
export const INTERRUPTED = '导入中断，请重新开始';
/** Progress is written at most this often (and at the end): the list and the live stream read it. */
const PROGRESS_MS = 300;

/** Where the uploaded zips live on disk: beside the database, outside the served file store. */
export const importDir = (ctx: AppContext) => path.join(ctx.config.dataDir, 'imports');
export const zipPathOf = (ctx: AppContext, filePath: string) => path.join(importDir(ctx), path.basename(filePath));
/** Temporary zips of this server: uploads being received, and copies of stored zips being imported. */
export const importTmpDir = (ctx: AppContext) => path.join(importDir(ctx), 'tmp');

/**
 * Keeps a checked upload (a temporary file of this server) where the server that runs the import finds it, and
 * answers the task's file_path. With FILE_STORE=disk that is DATA_DIR/imports, as always; with FILE_STORE=postgres
 * it is the shared store, since the start may reach another machine. No file row names it, so it is never served.
 */
export async function keepZip(ctx: AppContext, tmpFile: string): Promise<string> {
  if (ctx.config.fileStore === 'postgres') return fileStoreOf(ctx).put(fs.createReadStream(tmpFile), 'zip');
  const stored = `${randomUUID().replace(/-/g, '')}.zip`;
  await fs.promises.rename(tmpFile, zipPathOf(ctx, stored));
  return stored;
}

/** Removes a task's zip wherever it is kept; one already gone, or a failure, leaves only an unnamed file behind. */
export async function dropZip(ctx: AppContext, filePath: string): Promise<void> {
  const gone = ctx.config.fileStore === 'postgres' ? fileStoreOf(ctx).remove(filePath) : fs.promises.rm(zipPathOf(ctx, filePath), { force: true });
  await gone.catch(() => undefined);
}

/**
 * A task's zip as a file on this machine for the run, which reads it at random places (yauzl): on disk the kept file
 * itself; from the shared store a temporary copy, streamed down and removed when the run ends.
 */
async function zipForRun(ctx: AppContext, filePath: string): Promise<{ file: string; release(): Promise<void> }> {
  if (ctx.config.fileStore !== 'postgres') return { file: zipPathOf(ctx, filePath), release: async () => undefined };
  const opened = await fileStoreOf(ctx).open(filePath);
  // As a zip missing from DATA_DIR/imports reads: not a zip the run can use.
  if (!opened) throw new ZipRefused(NOT_A_ZIP);
  await fs.promises.mkdir(importTmpDir(ctx), { recursive: true });
  const file = path.join(importTmpDir(ctx), `${randomUUID()}.zip.run`);
  const release = () => fs.promises.rm(file, { force: true });
  try {
    await pipeline(opened.stream, fs.createWriteStream(file, { flags: 'wx' }));
  } catch (err) {
    await release();
    throw err;
  }
  return { file, release };
}

/** Two sheets read at once per process across all runs; a third run waits for a slot instead of failing. */
const sheetGate = new ImportGate(2);

async function readSheetWhenFree(data: Buffer) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await readSheetOffThread(
        data,
        { columns: personColumns.map((c) => ({ key: c.key, header: c.header, required: c.required })), keep: IMPORT_ZIP_LIMITS.maxEntries, skipSheet: '说明' },
        sheetGate,
        60_000,
      );
    } catch (err) {
      if (!(err instanceof AppError && err.code === ErrorCode.RATE_LIMITED) || attempt > 600) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

class Interrupted extends Error {}

interface Run {
  stop: boolean;
  done: Promise<void>;
}

const text = (v: unknown) => (v == null ? '' : String(v).trim());

export interface ImportRunner {
  /** This server's name on the tasks it claims. */
  owner: string;
  /** Runs a task this server has just claimed (status 1, claimed_by = owner). */
  start(taskId: number, auth: AuthContext): void;
  /** Resolves when this server's runs have ended (the tests and the bench wait for them). */
  idle(): Promise<void>;
}
const runners = new WeakMap<AppContext, ImportRunner>();
/** The runner of a server (the tests and the bench wait for its runs). */
export const importRunnerOf = (ctx: AppContext): ImportRunner | undefined => runners.get(ctx);

/** The runs of one server: started after a claim commits, stopped (and their tasks released) when the server closes. */
export function importRunner(app: FastifyInstance): ImportRunner {
  const ctx = app.ctx;
  const db = ctx.db;
  /** This server's name on the tasks it claims: two servers (or two apps of one test process) never share one. */
  const owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const runs = new Map<number, Run>();
  const store = fileStoreOf(ctx);

  /** Sets a claimed task's columns, only while this server still holds it; false once it does not (released as stale, or deleted). */
  const ours = async (taskId: number, set: Updateable<PersonImportTaskTable>) => {
    const r = await db
      .updateTable(TASK_TABLE)
      .set({ ...set, heartbeat_at: ctx.now(), update_time: ctx.time() })
      .where('id', '=', taskId)
      .where('claimed_by', '=', owner)
      .where('status', '=', ImportStatus.RUNNING)
      .executeTakeFirst();
    tableChanged(TASK_TABLE);
    return Number(r.numUpdatedRows) > 0;
  };

  async function importRows(taskId: number, auth: AuthContext, run: Run) {
    const task = await db.selectFrom(TASK_TABLE).select(['file_path']).where('id', '=', taskId).executeTakeFirstOrThrow();
    const local = await zipForRun(ctx, task.file_path);
    let scanned: Awaited<ReturnType<typeof scanZip>>;
    try {
      scanned = await scanZip(local.file, false);
    } catch (err) {
      await local.release();
      throw err;
    }
    try {
      const sheet = await readEntry(scanned.zip, scanned.sheet.entry, IMPORT_ZIP_LIMITS.maxSheetBytes, '人员表');
      const read = await readSheetWhenFree(sheet);
      if (read.more) throw new ZipRefused(`人员表最多${IMPORT_ZIP_LIMITS.maxEntries}行，请分批导入`);
      const rows = read.rows.filter((r) => r.cells.visit_content !== EXAMPLE_CONTENT);
      if (rows.length === 0) throw new ZipRefused('人员表中没有数据，请从第2行开始填写');
      const departments = await db.selectFrom('sys_department').select(['depart_id as id', 'name']).where('deleted', '=', 0).execute();
      const lookups = new LookupIndex({ department: departments });

      // A restart imports only what is not imported yet: the last run's failures are tried again.
      await db.deleteFrom('person_import_row').where('task_id', '=', taskId).where('status', '=', 2).execute();
      const imported = new Set((await db.selectFrom('person_import_row').select('idcard').where('task_id', '=', taskId).where('status', '=', 1).execute()).map((r) => r.idcard));
      const idOf = (cells: Record<string, string>) => text(cells.visitor_idcard).toUpperCase();
      let done = rows.filter((r) => imported.has(idOf(r.cells))).length;
      let failed = 0;
      let lastWrite = 0;
      const progress = async (force = false) => {
        if (!force && Date.now() - lastWrite < PROGRESS_MS) return;
        lastWrite = Date.now();
        if (!(await ours(taskId, { total: rows.length, done_count: done, failed_count: failed }))) throw new Interrupted();
      };
      await progress(true);

      /** Row number of each ID number seen in this sheet: a person twice in one sheet is one application. */
      const seen = new Map<string, number>();
      for (const r of rows) {
        if (run.stop) throw new Interrupted();
        const idcard = idOf(r.cells);
        if (idcard && imported.has(idcard)) continue;
        const outcome = await importRow(r, idcard, seen, lookups, auth, taskId);
        if (outcome.ok) done++;
        else failed++;
        await progress();
      }
      await progress(true);
      return { total: rows.length, done, failed };
    } finally {
      scanned.zip.close();
      await local.release();
    }

    async function importRow(r: { row: number; cells: Record<string, string> }, idcard: string, seen: Map<string, number>, lookups: LookupIndex, auth: AuthContext, taskId: number) {
      const errors = new RowErrors(personColumns, personApplicationLabels);
      const { values, errors: cellErrors } = convertRow(r, personColumns, lookups);
      errors.add(...cellErrors);
      const name = text(r.cells.visitor_name).slice(0, 50);
      const twin = idcard ? seen.get(idcard) : undefined;
      if (idcard && twin === undefined) seen.set(idcard, r.row);
      const photo = idcard ? scanned.photos.get(idcard) : undefined;
      let stored: string | null = null;
      try {
        if (twin !== undefined) throw new AppError(ErrorCode.VALIDATION, `证件号码与第${twin}行重复`);
        if (idcard && !photo) throw new AppError(ErrorCode.VALIDATION, `缺少人脸照片：压缩包中没有“${idcard}.jpg”（或 .jpeg、.png）`);
        if (photo) {
          // A bad entry is the row's error, named as the person reads it.
          const asRowError = (err: unknown) => (err instanceof ZipRefused ? new AppError(ErrorCode.VALIDATION, err.message) : err);
          const { head, stream } = await openEntry(scanned.zip, photo.entry, IMPORT_ZIP_LIMITS.maxPhotoBytes, `人脸照片“${photo.name}”`).catch((err: unknown) => {
            throw asRowError(err);
          });
          const type = detectFileType(head);
          if (!type || (type.ext !== 'jpg' && type.ext !== 'png')) {
            stream.destroy();
            throw new AppError(ErrorCode.VALIDATION, `人脸照片“${photo.name}”不是 JPG 或 PNG 图片`);
          }
          // Stored before the row's transaction (the store is not transactional); removed again if the row does not commit.
          stored = await store.put(stream, type.ext).catch((err: unknown) => {
            throw asRowError(err);
          });
        }
        const photoName = stored;
        const number = await db.transaction().execute(async (trx) => {
          if (photoName) await recordFileObject(trx, photoName, auth.userId, ctx.now());
          const appId = await saveApplication(trx, ctx, auth, 'person', { ...values, visitor_face_photo: photoName ?? '' });
          const submitted = await submitApplication(trx, ctx, auth, 'person', appId);
          // A black-listed visitor is refused like a single submit, and the row leaves nothing behind.
          if ('blackListed' in submitted) throw new AppError(ErrorCode.STATE_CONFLICT, submitted.blackListed);
          const row = await trx.selectFrom('person_application').select('application_number').where('person_application_id', '=', appId).executeTakeFirstOrThrow();
          await trx
            .insertInto('person_import_row')
            .values({ task_id: taskId, row_no: r.row, idcard, name, status: 1, person_application_id: appId, application_number: row.application_number, error: '', create_time: ctx.time() })
            .execute();
          return row.application_number;
        });
        return { ok: true as const, number };
      } catch (err) {
        if (stored) await store.remove(stored).catch(() => undefined);
        if (err instanceof AppError && err.status < 500) errors.addFailure(r.row, err);
        else {
          app.log.error({ err, taskId, row: r.row }, 'person import row failed');
          errors.add({ row: r.row, field: '', label: '', message: '服务器内部错误，请稍后重新开始导入' });
        }
        const message = errors.list
          .map(rowErrorText)
          .map((t) => t.replace(/^第\d+行 /, ''))
          .join('；')
          .slice(0, 1000);
        await db
          .insertInto('person_import_row')
          .values({ task_id: taskId, row_no: r.row, idcard: idcard.slice(0, 30), name, status: 2, error: message, create_time: ctx.time() })
          .execute();
        return { ok: false as const };
      }
    }
  }

  async function execute(taskId: number, auth: AuthContext, run: Run) {
    const beat = setInterval(() => void ours(taskId, {}).catch(() => undefined), HEARTBEAT_MS);
    beat.unref();
    let status: number = ImportStatus.FAILED;
    let reason = '';
    try {
      const r = await importRows(taskId, auth, run);
      if (r.failed === 0) status = ImportStatus.DONE;
      else reason = `${r.failed}人未导入，请下载结果查看原因；修改后可重新开始导入，已导入的人员不会重复导入`;
    } catch (err) {
      if (err instanceof Interrupted) reason = INTERRUPTED;
      else if (err instanceof ZipRefused || (err instanceof AppError && err.status < 500)) reason = err.message.slice(0, 500);
      else {
        app.log.error({ err, taskId }, 'person import failed');
        reason = '导入失败：服务器内部错误，请重新开始导入';
      }
    } finally {
      clearInterval(beat);
    }
    await db
      .updateTable(TASK_TABLE)
      .set({ status, reason, claimed_by: null, heartbeat_at: ctx.now(), update_time: ctx.time() })
      .where('id', '=', taskId)
      .where('claimed_by', '=', owner)
      .execute()
      .catch((err) => app.log.error({ err, taskId }, 'person import could not record its end'));
    tableChanged(TASK_TABLE);
  }

  app.addHook('onClose', async () => {
    for (const run of runs.values()) run.stop = true;
    await Promise.allSettled([...runs.values()].map((r) => r.done));
  });

  const runner: ImportRunner = {
    owner,
    start(taskId: number, auth: AuthContext) {
      const run: Run = { stop: false, done: Promise.resolve() };
      run.done = execute(taskId, auth, run).finally(() => runs.delete(taskId));
      runs.set(taskId, run);
    },
    async idle() {
      await Promise.allSettled([...runs.values()].map((r) => r.done));
    },
  };
  runners.set(ctx, runner);
  return runner;
}

/**
 * Releases tasks left in 1 by a server that stopped beating (killed, or cut
 * from the database): 3 with the reason '导入中断，请重新开始', so that their
 * owner can start them again. One conditional UPDATE, safe from any number of servers.
 */
export async function releaseStaleImports(ctx: AppContext, now = ctx.now()): Promise<number> {
  const r = await ctx.db
    .updateTable(TASK_TABLE)
    .set({ status: ImportStatus.FAILED, reason: INTERRUPTED, claimed_by: null, heartbeat_at: now, update_time: ctx.time() })
    .where('status', '=', ImportStatus.RUNNING)
    .where('heartbeat_at', '<', now - STALE_MS)
    .executeTakeFirst();
  const n = Number(r.numUpdatedRows);
  if (n > 0) tableChanged(TASK_TABLE);
  return n;
}

/** The counters of the users' tasks touched since `since` (epoch ms): what the live stream tells their pages. */
export async function importProgressOf(db: Kysely<DB>, userIds: number[], since: number): Promise<Array<ImportProgressEvent & { userId: number }>> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom(TASK_TABLE)
    .select(['id', 'create_user_id', 'status', 'total', 'done_count', 'failed_count', 'reason'])
    .where('create_user_id', 'in', userIds)
    .where('heartbeat_at', '>', since)
    .execute();
  return rows.map((r) => ({ userId: r.create_user_id, id: r.id, status: r.status, total: r.total, done: r.done_count, failed: r.failed_count, reason: r.reason }));
}
