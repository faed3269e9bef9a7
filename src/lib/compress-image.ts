/// <reference types="vite/client" />
/**
 * Photo compression before upload (DESIGN.md §5): camera photos of 3–10 MB
 * become about 0.5 MB at most 1600 px on the long side, in a Web Worker so the
 * form stays responsive. browser-image-compression is loaded on the first
 * photo, never with a screen.
 */
// Only a URL string: the library's UMD build, emitted as an asset of its own (and precached
// by the service worker), for the worker to importScripts. Left to itself the library loads
// it from a public CDN, which the CSP refuses and a phone offline cannot reach.
import workerLibUrl from 'browser-image-compression/dist/browser-image-compression.js?url';

export const COMPRESS_MAX_SIDE = 1600;
export const COMPRESS_MAX_MB = 0.5;

/** Types the canvas can redraw without losing what the person took; GIFs would lose their animation. */
const COMPRESSIBLE = /^image\/(jpeg|png|webp)$/;

export const isCompressible = (file: Blob): boolean => COMPRESSIBLE.test(file.type);

/**
 * The blob to upload: the compressed one only when it really is smaller,
 * named as the original so the server's log and the stored name stay readable.
 */
export function smallerOf(original: Blob, compressed: Blob | null | undefined): Blob {
  if (!compressed || compressed.size === 0 || compressed.size >= original.size) return original;
  const name = (original as File).name;
  return name ? new File([compressed], name, { type: compressed.type || original.type, lastModified: Date.now() }) : compressed;
}

/**
 * Compresses one photo; answers the original when it cannot (an unknown type,
 * a decode error, the library failing to load offline) or when the result would
 * not be smaller. Never throws, except an abort.
 */
export async function compressImage(file: Blob, signal?: AbortSignal): Promise<Blob> {
  if (!isCompressible(file)) return file;
  try {
    const { default: imageCompression } = await import('browser-image-compression');
    const out = await imageCompression(file as File, {
      maxSizeMB: COMPRESS_MAX_MB,
      maxWidthOrHeight: COMPRESS_MAX_SIDE,
      useWebWorker: true,
      // importScripts in a blob: worker needs an absolute address.
      libURL: new URL(workerLibUrl, window.location.href).href,
      signal,
    });
    return smallerOf(file, out);
  } catch (err) {
    if (signal?.aborted) throw err;
    return file;
  }
}
