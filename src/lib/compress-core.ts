/**
 * Photo compression that runs the same in the worker and, where a browser has
 * no OffscreenCanvas, on the main thread (issue 24 item 2). The win over a
 * general library is decoding the photo already downscaled: a 12-megapixel
 * JPEG never exists in memory at full size, and the decoder skips most of its
 * work. No DOM at module load: the worker and the unit tests import it.
 */

export const COMPRESS_MAX_SIDE = 1600;
export const COMPRESS_MAX_BYTES = 512 * 1024;
/** Lower qualities tried in turn while the result is over COMPRESS_MAX_BYTES; the last one is kept whatever its size. */
const QUALITIES = [0.82, 0.7, 0.55];
/** Room for the EXIF and ICC segments that come before a JPEG's frame header. */
export const HEADER_BYTES = 512 * 1024;

/** Types the canvas can redraw without losing what the person took; GIFs would lose their animation. */
const COMPRESSIBLE = /^image\/(jpeg|png|webp)$/;
export const isCompressible = (file: Blob): boolean => COMPRESSIBLE.test(file.type);

export interface PixelSize {
  width: number;
  height: number;
}

/** Progress the tile shows, in percent, at each step a photo passes. */
export const PROGRESS = { read: 5, decoded: 60, encoded: 95 } as const;

const be16 = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!;
const be32 = (b: Uint8Array, i: number) => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;

/** EXIF orientation (1–8) of an APP1 segment starting at `at` (its 0xFF), or 1. */
function exifOrientation(b: Uint8Array, at: number, end: number): number {
  const tiff = at + 10;
  if (tiff + 8 > end || String.fromCharCode(...b.subarray(at + 4, at + 8)) !== 'Exif') return 1;
  const little = b[tiff] === 0x49;
  const u16 = (i: number) => (little ? b[i]! | (b[i + 1]! << 8) : be16(b, i));
  const u32 = (i: number) => (little ? (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16)) + b[i + 3]! * 0x1000000 : be32(b, i));
  const ifd = tiff + u32(tiff + 4);
  if (ifd + 2 > end) return 1;
  const entries = u16(ifd);
  for (let k = 0; k < entries; k++) {
    const e = ifd + 2 + k * 12;
    if (e + 12 > end) break;
    if (u16(e) === 0x0112) {
      const o = u16(e + 8);
      return o >= 1 && o <= 8 ? o : 1;
    }
  }
  return 1;
}

/**
 * Width and height of a JPEG or PNG as it is shown (EXIF orientation 5–8
 * swaps them), read from its first bytes; null for anything else, which is
 * then decoded at full size.
 */
export function imageSize(b: Uint8Array): PixelSize | null {
  if (b.length >= 24 && be32(b, 0) === 0x89504e47 && String.fromCharCode(...b.subarray(12, 16)) === 'IHDR') {
    return { width: be32(b, 16), height: be32(b, 20) };
  }
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let orientation = 1;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image or scan data before any frame header
    const len = be16(b, i + 2);
    // SOF0–SOF15, less DHT (C4), JPG (C8) and DAC (CC), which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = be16(b, i + 5);
      const width = be16(b, i + 7);
      if (!width || !height) return null;
      return orientation >= 5 ? { width: height, height: width } : { width, height };
    }
    if (marker === 0xe1) orientation = exifOrientation(b, i, Math.min(b.length, i + 2 + len));
    i += 2 + len;
  }
  return null;
}

/** The size to draw at: at most `maxSide` on the long side, never enlarged, never below 1 px. */
export function fitWithin(size: PixelSize, maxSide: number): PixelSize {
  const scale = Math.min(1, maxSide / Math.max(size.width, size.height));
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) };
}

/** The output's name: the original's, with .jpg when the type changed (a PNG drawn as a JPEG). */
export function compressedName(name: string): string {
  return /\.jpe?g$/i.test(name) ? name : `${name.replace(/\.[^./]*$/, '')}.jpg`;
}

/**
 * The blob to upload: the compressed one only when it really is smaller,
 * named as the original so the server's log and the stored name stay readable.
 */
export function smallerOf(original: Blob, compressed: Blob | null | undefined): Blob {
  if (!compressed || compressed.size === 0 || compressed.size >= original.size) return original;
  const name = (original as File).name;
  const type = compressed.type || original.type;
  return name ? new File([compressed], type === original.type ? name : compressedName(name), { type, lastModified: Date.now() }) : compressed;
}

/** A 2D surface to draw on: an OffscreenCanvas in the worker, a <canvas> on the main thread. */
export interface Surface {
  context: { fillStyle: unknown; fillRect(x: number, y: number, w: number, h: number): void; drawImage(image: ImageBitmap, x: number, y: number, w: number, h: number): void };
  encode(type: string, quality: number): Promise<Blob>;
}

/** Decodes at `target` when the browser can, checking it did not resize before orienting (older engines). */
async function decode(file: Blob, target: PixelSize | null): Promise<ImageBitmap> {
  if (!target) return createImageBitmap(file);
  const bitmap = await createImageBitmap(file, { resizeWidth: target.width, resizeHeight: target.height, resizeQuality: 'high' });
  if (bitmap.width === target.width && bitmap.height === target.height) return bitmap;
  bitmap.close();
  return createImageBitmap(file, { resizeWidth: target.height, resizeHeight: target.width, resizeQuality: 'high' });
}

/**
 * Compresses one photo to a JPEG of at most COMPRESS_MAX_SIDE px and, when it
 * can, COMPRESS_MAX_BYTES. Throws when the photo cannot be decoded; the
 * caller then sends the original.
 */
export async function compressOnSurface(file: Blob, makeSurface: (size: PixelSize) => Surface, onProgress: (percent: number) => void): Promise<Blob> {
  const known = imageSize(new Uint8Array(await file.slice(0, HEADER_BYTES).arrayBuffer()));
  onProgress(PROGRESS.read);
  const target = known ? fitWithin(known, COMPRESS_MAX_SIDE) : null;
  const bitmap = await decode(file, target && (target.width !== known!.width || target.height !== known!.height) ? target : null);
  onProgress(PROGRESS.decoded);
  const size = fitWithin({ width: bitmap.width, height: bitmap.height }, COMPRESS_MAX_SIDE);
  const surface = makeSurface(size);
  // A transparent PNG would turn black as a JPEG.
  surface.context.fillStyle = '#fff';
  surface.context.fillRect(0, 0, size.width, size.height);
  surface.context.drawImage(bitmap, 0, 0, size.width, size.height);
  bitmap.close();
  let out: Blob | undefined;
  for (const quality of QUALITIES) {
    out = await surface.encode('image/jpeg', quality);
    if (out.size <= COMPRESS_MAX_BYTES) break;
  }
  onProgress(PROGRESS.encoded);
  return out!;
}

/** Messages between the page and the worker. */
export type CompressRequest = { id: number; file: Blob };
export type CompressReply = { id: number; progress: number } | { id: number; blob: Blob } | { id: number; error: string };
