import { Worker } from 'node:worker_threads';
import { ErrorCode } from '../../domain/errors';
import { AppError } from './errors';
import { zipDirectory, WorkbookRefused, type ReadOptions, type SheetRead } from './xlsx-reader';

/**
 * Where an upload's workbook is read: in a worker thread with its own small
 * heap and a deadline, so that no workbook stalls the event loop or grows the
 * server's memory, and only a few at a time (DESIGN.md §11). The same
 * per-process slots (ProcessSlots) bound the exports' writing (xlsx-export.ts).
 */

/** Imports read at once in one server process; each worker may take about WORKER_HEAP_MB more. */
export const IMPORTS_PER_PROCESS = 2;
/** Old-generation heap of a reading worker: the template's 500 rows need a few MB. */
const WORKER_HEAP_MB = 64;
/** A workbook within the bounds reads in well under a second; past this the worker is stopped. */
export const READ_TIMEOUT_MS = 10_000;

/**
 * At most `size` pieces of heavy spreadsheet work at once in this process
 * (reading an upload, writing an export). A caller that finds them all taken
 * waits its turn, first come first served, up to `maxWaitMs`, and at most
 * `maxWaiting` callers wait; past either it answers 429 naming the bound
 * ('导出任务繁忙（同时最多2个，排队超过30秒），请稍后再试').
 * With no waiting allowed (the imports) the refusal is immediate.
 */
export class ProcessSlots {
  private taken = 0;
  private readonly waiting: Array<{ admit: () => void }> = [];
  constructor(
    readonly size: number,
    private readonly busy: string,
    private readonly queue: { maxWaiting: number; maxWaitMs: number } = { maxWaiting: 0, maxWaitMs: 0 },
  ) {}

  /** Slots in use now, and callers waiting for one (the tests read them to see the bound hold). */
  get inUse(): number {
    return this.taken;
  }
  get queued(): number {
    return this.waiting.length;
  }

  /** A slot now, held until the returned function runs, or 429 at once. */
  tryEnter(): () => void {
    if (this.taken >= this.size) throw new AppError(ErrorCode.RATE_LIMITED, `${this.busy}，请稍后再试`);
    this.taken++;
    return this.leaver();
  }

  /**
   * A slot once one is free, held until the returned function runs; 429 when
   * the queue is full or the wait too long. A caller whose `gone` signal fires
   * while waiting (its client left) leaves the queue.
   */
  enter(gone?: AbortSignal): Promise<() => void> {
    if (this.taken < this.size) return Promise.resolve(this.tryEnter());
    if (this.waiting.length >= this.queue.maxWaiting)
      return Promise.reject(new AppError(ErrorCode.RATE_LIMITED, `${this.busy}（同时最多${this.size}个，已有${this.waiting.length}个在排队），请稍后再试`));
    return new Promise((resolve, reject) => {
      const quit = (message: string) => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        clearTimeout(timer);
        gone?.removeEventListener('abort', left);
        reject(new AppError(ErrorCode.RATE_LIMITED, message));
      };
      const waiter = {
        admit: () => {
          clearTimeout(timer);
          gone?.removeEventListener('abort', left);
          resolve(this.leaver());
        },
      };
      const timer = setTimeout(() => quit(`${this.busy}（同时最多${this.size}个，排队超过${this.queue.maxWaitMs / 1000}秒），请稍后再试`), this.queue.maxWaitMs);
      const left = () => quit(`${this.busy}：请求已取消`);
      this.waiting.push(waiter);
      if (gone?.aborted) left();
      else gone?.addEventListener('abort', left, { once: true });
    });
  }

  /**
   * A slot again for a caller that gave its own back while it waited on
   * something else (a slow client): ahead of the queue and with no deadline,
   * since its answer has begun.
   */
  resume(): Promise<() => void> {
    if (this.taken < this.size) return Promise.resolve(this.tryEnter());
    return new Promise((resolve) => this.waiting.unshift({ admit: () => resolve(this.leaver()) }));
  }

  /** Leaving hands the slot straight to the first waiter, so a newcomer cannot overtake the queue. */
  private leaver(): () => void {
    return once(() => {
      const next = this.waiting.shift();
      if (next) next.admit();
      else this.taken--;
    });
  }
}

/** One import at a time per user, and `perProcess` reads at once in this process; the rest answer 429 at once rather than queue. */
export class ImportGate {
  private readonly users = new Set<number>();
  private readonly reading: ProcessSlots;
  constructor(perProcess: number) {
    this.reading = new ProcessSlots(perProcess, '导入任务繁忙');
  }

  /** The user's one import slot, held until the returned function runs. */
  enterUser(userId: number): () => void {
    if (this.users.has(userId)) throw new AppError(ErrorCode.RATE_LIMITED, '上一个导入尚未完成，请稍后再试');
    this.users.add(userId);
    return once(() => this.users.delete(userId));
  }

  /** One of the process's reading slots, held until the returned function runs. */
  enterReading(): () => void {
    return this.reading.tryEnter();
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
