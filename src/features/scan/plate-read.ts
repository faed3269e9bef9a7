import type { PlateReading } from '../../../domain/plate-read';
import type { OcrAnswer, OcrRequest, Rect } from './plate-ocr.worker';

/** One answer of the reader: what it made of the picture, the raw lines it read, and how long it took. */
export interface ReadResult {
  reading: PlateReading | null;
  lines: string[];
  ms: number;
}

export interface PlateReader {
  /** Resolves once the models are loaded (the first open downloads them; later ones come from the service worker's cache). */
  ready: Promise<void>;
  read(image: ImageBitmap, crop?: Rect): Promise<ReadResult>;
  close(): void;
}

/** Starts the reader's worker; the OCR code and models load only here, when the 拍车牌 mode is opened. */
export function createPlateReader(): PlateReader {
  const worker = new Worker(new URL('./plate-ocr.worker.ts', import.meta.url), { type: 'module', name: 'plate-ocr' });
  const waiting = new Map<number, { resolve: (r: ReadResult) => void; reject: (e: Error) => void }>();
  let next = 0;
  let settleReady: { resolve: () => void; reject: (e: Error) => void };
  const ready = new Promise<void>((resolve, reject) => (settleReady = { resolve, reject }));
  worker.onmessage = (e: MessageEvent<OcrAnswer>) => {
    const m = e.data;
    if (m.type === 'ready') settleReady.resolve();
    else if (m.type === 'failed') settleReady.reject(new Error(m.message));
    else if (m.type === 'result') {
      waiting.get(m.id)?.resolve({ reading: m.reading, lines: m.lines, ms: m.ms });
      waiting.delete(m.id);
    } else {
      waiting.get(m.id)?.reject(new Error(m.message));
      waiting.delete(m.id);
    }
  };
  worker.onerror = (e) => {
    const err = new Error(e.message || '识别程序加载失败');
    settleReady.reject(err);
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  const post = (m: OcrRequest, transfer: Transferable[] = []) => worker.postMessage(m, transfer);
  post({ type: 'load' });
  return {
    ready,
    read(image, crop) {
      const id = ++next;
      return new Promise<ReadResult>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        post({ type: 'read', id, image, crop }, [image]);
      });
    },
    close() {
      worker.terminate();
      for (const w of waiting.values()) w.reject(new Error('closed'));
      waiting.clear();
    },
  };
}
