/**
 * The photo compressor's thread (issue 24 item 2): decoding and encoding a
 * camera photo takes seconds on a phone, and on the main thread the form froze
 * for all of them. Built by Vite into a chunk of its own, precached by the
 * service worker with every other script, so it works offline.
 */
import { compressOnSurface, type CompressReply, type CompressRequest } from './compress-core';

// The app's tsconfig has the DOM lib, not the worker one: only what is used here.
const scope = self as unknown as { onmessage: ((e: MessageEvent<CompressRequest>) => void) | null; postMessage(m: CompressReply): void };

scope.onmessage = (e) => {
  const { id, file } = e.data;
  compressOnSurface(
    file,
    ({ width, height }) => {
      const canvas = new OffscreenCanvas(width, height);
      return {
        context: canvas.getContext('2d')!,
        encode: (type, quality) => canvas.convertToBlob({ type, quality }),
      };
    },
    (progress) => scope.postMessage({ id, progress }),
  ).then(
    (blob) => scope.postMessage({ id, blob }),
    (err: unknown) => scope.postMessage({ id, error: err instanceof Error ? err.message : String(err) }),
  );
};
