import { Worker } from 'node:worker_threads';
import { ErrorCode } from '../../domain/errors';
import { AppError } from './errors';
import { zipDirectory, WorkbookRefused, type ReadOptions, type SheetRead } from './xlsx-reader';

/**
 * Where an upload's workbook is read: in a worker thread with its own small
 * heap and a deadline, so that no workbook stalls the event loop or grows the
 * server's memory, and only a few at a time (DESIGN.md §11).
 */

/** Imports read at once in one server process; each worker may take about WORKER_HEAP_MB more. */
export const IMPORTS_PER_PROCESS = 2;
/** Old-generation heap of a reading worker: the template's 500 rows need a few MB. */
const WORKER_HEAP_MB = 64;
/** A workbook within the bounds reads in well under a second; past this the worker is stopped. */
export const READ_TIMEOUT_MS = 10_000;

/** One import at a time per user, and `perProcess` reads at once in this process; the rest answer 429 at once rather than queue. */
export class ImportGate {
  private readonly users = new Set<number>();
  private reading = 0;
  constructor(private readonly perProcess: number) {}

  /** The user's one import slot, held until the returned function runs. */
  enterUser(userId: number): () => void {
    if (this.users.has(userId)) throw new AppError(ErrorCode.RATE_LIMITED, '上一个导入尚未完成，请稍后再试');
    this.users.add(userId);
    return once(() => this.users.delete(userId));
  }

  /** One of the process's reading slots, held until the returned function runs. */
  enterReading(): () => void {
    if (this.reading >= this.perProcess) throw new AppError(ErrorCode.RATE_LIMITED, '导入任务繁忙，请稍后再试');
    this.reading++;
    return once(() => this.reading--);
  }
}

const once = (f: () => unknown) => {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      f();
    }
  };
};

/** Per process: with WEB_CONCURRENCY each process has its own (docs/decisions.md). */
export const importGate = new ImportGate(IMPORTS_PER_PROCESS);

const BOOT = new URL('./xlsx-worker-boot.mjs', import.meta.url);
const ENTRY = new URL('./xlsx-worker.ts', import.meta.url).href;

/**
 * The workbook's rows read in a worker. The zip's directory is checked here
 * first (no inflating), so a bomb costs no thread; a refusal of the file is
 * a 400 naming the rule.
 */
export async function readSheetOffThread(data: Buffer, options: ReadOptions, gate = importGate, timeoutMs = READ_TIMEOUT_MS): Promise<Extract<SheetRead, { ok: true }>> {
  try {
    zipDirectory(data);
  } catch (err) {
    if (err instanceof WorkbookRefused) throw new AppError(ErrorCode.VALIDATION, err.message);
    throw err;
  }
  const release = gate.enterReading();
  try {
    const read = await inWorker(data, options, timeoutMs);
    if (!read.ok) throw new AppError(ErrorCode.VALIDATION, read.message);
    return read;
  } finally {
    release();
  }
}

function inWorker(data: Buffer, options: ReadOptions, timeoutMs: number): Promise<SheetRead> {
  return new Promise<SheetRead>((resolve, reject) => {
    const worker = new Worker(BOOT, {
      workerData: { entry: ENTRY, data, options },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 16 },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      f();
    };
    const timer = setTimeout(() => settle(() => reject(new AppError(ErrorCode.VALIDATION, `导入文件读取超时（超过${timeoutMs / 1000}秒），请使用导入模板填写，分批导入`))), timeoutMs);
    worker.once('message', (read: SheetRead) => settle(() => resolve(read)));
    worker.once('error', (err: Error & { code?: string }) =>
      settle(() => reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new AppError(ErrorCode.VALIDATION, `导入文件内容过多，读取时超出${WORKER_HEAP_MB}MB内存上限，请使用导入模板填写，分批导入`) : err)),
    );
    worker.once('exit', (code) => settle(() => reject(new Error(`xlsx worker exited with ${code} before answering`))));
  });
}
