/// <reference types="vite/client" />
/**
 * Photo compression before upload (DESIGN.md §5): camera photos of 3–10 MB
 * become about 0.5 MB at most 1600 px on the long side, in a Web Worker so the
 * form stays responsive (issue 24 item 2: the library used before took 11 s
 * for one photo on a loaded phone-class CPU, and loaded its code from a CDN
 * unless told otherwise).
 */
import { compressOnSurface, isCompressible, smallerOf, type CompressReply, type PixelSize, type Surface } from './compress-core';

export { COMPRESS_MAX_BYTES, COMPRESS_MAX_SIDE, isCompressible, smallerOf } from './compress-core';

export interface CompressOptions {
  signal?: AbortSignal;
  /** 0–100, as the photo passes each step. */
  onProgress?: (percent: number) => void;
}

type Pending = { resolve: (b: Blob) => void; reject: (e: Error) => void; onProgress?: (p: number) => void };

/** One worker for the page, started on the first photo; null once it proved unusable here. */
let worker: Worker | null | undefined;
let nextId = 1;
const pending = new Map<number, Pending>();

function compressor(): Worker | null {
  if (worker !== undefined) return worker;
  if (typeof Worker === 'undefined' || typeof OffscreenCanvas === 'undefined' || typeof createImageBitmap === 'undefined') return (worker = null);
  try {
    worker = new Worker(new URL('./compress.worker.ts', import.meta.url), { type: 'module' });
  } catch {
    return (worker = null);
  }
  worker.onmessage = (e: MessageEvent<CompressReply>) => {
    const job = pending.get(e.data.id);
    if (!job) return;
    if ('progress' in e.data) return job.onProgress?.(e.data.progress);
    pending.delete(e.data.id);
    if ('blob' in e.data) job.resolve(e.data.blob);
    else job.reject(new Error(e.data.error));
  };
  // The worker script failed to load (or crashed): what it held, and every later photo, go the main-thread way.
  worker.onerror = () => {
    worker?.terminate();
    worker = null;
    const jobs = [...pending.values()];
    pending.clear();
    for (const job of jobs) job.reject(new Error('worker'));
  };
  return worker;
}

function inWorker(w: Worker, file: Blob, onProgress?: (p: number) => void): Promise<Blob> {
  const id = nextId++;
  return new Promise<Blob>((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    w.postMessage({ id, file });
  });
}

/** The same steps on the main thread, for browsers without OffscreenCanvas (Safari before 16.4). */
export function compressOnMainThread(file: Blob, onProgress?: (p: number) => void): Promise<Blob> {
  if (typeof createImageBitmap === 'undefined') return Promise.resolve(file);
  const surface = ({ width, height }: PixelSize): Surface => {
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    return {
      context: canvas.getContext('2d')!,
      encode: (type, quality) => new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('encode'))), type, quality)),
    };
  };
  return compressOnSurface(file, surface, onProgress ?? (() => {}));
}

/**
 * Compresses one photo; answers the original when it cannot (an unknown type,
 * a decode error) or when the result would not be smaller. Never throws,
 * except an abort.
 */
export async function compressImage(file: Blob, { signal, onProgress }: CompressOptions = {}): Promise<Blob> {
  if (!isCompressible(file)) return file;
  try {
    const w = compressor();
    let out: Blob;
    try {
      out = w ? await inWorker(w, file, onProgress) : await compressOnMainThread(file, onProgress);
    } catch (err) {
      if (!w || (err as Error).message !== 'worker') throw err;
      out = await compressOnMainThread(file, onProgress);
    }
    signal?.throwIfAborted();
    onProgress?.(100);
    return smallerOf(file, out);
  } catch (err) {
    if (signal?.aborted) throw err;
    onProgress?.(100);
    return file;
  }
}
