import { describe, expect, it } from 'vitest';
import { MAX_LABEL_PHOTOS, imagesField, labelBody } from '../../domain/schemas/car-application';
import { COMPRESS_MAX_SIDE, compressedName, fitWithin, imageSize, isCompressible, smallerOf } from '../../src/lib/compress-core';
import {
  PHOTOS_NOT_UPLOADED,
  admitPhotos,
  forgetLocalPhotos,
  isLocalPhoto,
  isNetworkFailure,
  keepLocalPhoto,
  localPhotoBlob,
  notImageMessage,
  photosBusy,
  settlePhotos,
  trackPhoto,
  type PhotoOutcome,
  partitionPhotos,
  replaceLocalPhoto,
  splitLocalPhotos,
  uploadNameFor,
} from '../../src/lib/files';
import { ApiError } from '../../src/lib/http';

const jpeg = (bytes: number, name = 'IMG_0001.jpg') => new File([new Uint8Array(bytes)], name, { type: 'image/jpeg' });

describe('per-field photo limits', () => {
  it('takes everything that fits', () => {
    expect(admitPhotos(0, 3, 9)).toEqual({ accept: 3 });
    expect(admitPhotos(6, 3, 9)).toEqual({ accept: 3 });
  });

  it('takes the first ones that fit and says how many', () => {
    expect(admitPhotos(7, 3, 9)).toEqual({ accept: 2, message: '最多上传9张图片，已添加前2张' });
    expect(admitPhotos(19, 5, 20)).toEqual({ accept: 1, message: '最多上传20张图片，已添加前1张' });
  });

  it('takes none when the field is full, or over full', () => {
    expect(admitPhotos(9, 1, 9)).toEqual({ accept: 0, message: '最多上传9张图片，已达上限' });
    expect(admitPhotos(12, 2, 9).accept).toBe(0);
  });

  it('the flag schema refuses a tenth photo and any document field a 21st', () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `f${i}.jpg`).join(';');
    const base = { car_application_ids: '1', remark: '违规停放' };
    expect(labelBody.safeParse({ ...base, photo: names(MAX_LABEL_PHOTOS) }).success).toBe(true);
    const ten = labelBody.safeParse({ ...base, photo: names(MAX_LABEL_PHOTOS + 1) });
    expect(ten.success).toBe(false);
    expect(ten.error?.issues[0]?.message).toBe('最多上传9张图片');
    expect(imagesField().safeParse(names(20)).success).toBe(true);
    expect(imagesField().safeParse(names(21)).error?.issues[0]?.message).toBe('最多上传20张图片');
  });
});

describe('photos kept on the device', () => {
  it('tells local photos from stored names, keeping each in order', () => {
    expect(isLocalPhoto('blob:http://127.0.0.1/0b1c')).toBe(true);
    expect(isLocalPhoto('20260101-ab12.jpg')).toBe(false);
    expect(partitionPhotos('a.jpg;blob:http://x/1; b.png ;blob:http://x/2;;')).toEqual({ names: ['a.jpg', 'b.png'], local: ['blob:http://x/1', 'blob:http://x/2'] });
    expect(partitionPhotos(undefined)).toEqual({ names: [], local: [] });
    expect(partitionPhotos('')).toEqual({ names: [], local: [] });
  });

  it('a form other than the flag refuses to save a photo that is not uploaded, with the message to act on', () => {
    const r = imagesField().safeParse('a.jpg;blob:http://127.0.0.1:8080/5f7e');
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toContain(PHOTOS_NOT_UPLOADED);
    expect(PHOTOS_NOT_UPLOADED).toBe('有照片尚未上传，请联网后重试');
    expect(imagesField().safeParse('a.jpg;b.jpg').success).toBe(true);
  });

  it('splits a value into the names the server may see and the Blobs for the outbox', async () => {
    const first = jpeg(300, 'one.jpg');
    const second = jpeg(500, 'two.jpg');
    const u1 = keepLocalPhoto(first);
    const u2 = keepLocalPhoto(second);
    try {
      const out = await splitLocalPhotos(`stored-1.jpg;${u1};stored-2.png;${u2}`);
      expect(out.names).toBe('stored-1.jpg;stored-2.png');
      expect(out.blobs).toHaveLength(2);
      expect(out.blobs[0]).toBe(first);
      expect(out.blobs[1]).toBe(second);
      expect(await splitLocalPhotos('only.jpg')).toEqual({ names: 'only.jpg', blobs: [] });
    } finally {
      forgetLocalPhotos([u1, u2]);
    }
  });

  it('hands over the compressed photo once compression is done, the original when it failed', async () => {
    const taken = jpeg(4000);
    const small = jpeg(900);
    const compressing = keepLocalPhoto(taken, Promise.resolve(small));
    const broken = keepLocalPhoto(taken, Promise.reject(new Error('decode failed')));
    const swapped = keepLocalPhoto(taken);
    replaceLocalPhoto(swapped, small);
    try {
      expect(await localPhotoBlob(compressing)).toBe(small);
      expect(await localPhotoBlob(broken)).toBe(taken);
      expect(await localPhotoBlob(swapped)).toBe(small);
    } finally {
      forgetLocalPhotos([compressing, broken, swapped]);
    }
  });

  it('a forgotten photo is no longer handed out', async () => {
    const url = keepLocalPhoto(jpeg(10));
    forgetLocalPhotos([url, 'stored.jpg']);
    await expect(localPhotoBlob(url)).rejects.toThrow();
  });

  it('only a call that never got an answer counts as offline', () => {
    expect(isNetworkFailure(new ApiError('网络连接失败，请检查网络后重试', 1500, 0))).toBe(true);
    expect(isNetworkFailure(new ApiError('文件类型不支持', 1415, 415))).toBe(false);
    expect(isNetworkFailure(new Error('x'))).toBe(false);
  });

  it('names a Blob without a name after its type', () => {
    expect(uploadNameFor('image/jpeg')).toBe('photo.jpg');
    expect(uploadNameFor('image/png')).toBe('photo.png');
    expect(uploadNameFor('')).toBe('photo.bin');
  });
});

describe('compression keeps the smaller photo', () => {
  it('uses the compressed one only when it is smaller, under the original name', () => {
    const original = jpeg(5000, 'IMG_2041.jpg');
    const compressed = new Blob([new Uint8Array(1200)], { type: 'image/jpeg' });
    const picked = smallerOf(original, compressed);
    expect(picked.size).toBe(1200);
    expect((picked as File).name).toBe('IMG_2041.jpg');
    expect(picked.type).toBe('image/jpeg');
  });

  it('keeps the original when compression made it bigger, empty, or failed', () => {
    const original = jpeg(1000);
    expect(smallerOf(original, new Blob([new Uint8Array(1500)], { type: 'image/jpeg' }))).toBe(original);
    expect(smallerOf(original, new Blob([new Uint8Array(1000)], { type: 'image/jpeg' }))).toBe(original);
    expect(smallerOf(original, new Blob([], { type: 'image/jpeg' }))).toBe(original);
    expect(smallerOf(original, null)).toBe(original);
  });

  it('leaves types the canvas would spoil alone', () => {
    expect(isCompressible(jpeg(1))).toBe(true);
    expect(isCompressible(new Blob([], { type: 'image/png' }))).toBe(true);
    expect(isCompressible(new Blob([], { type: 'image/gif' }))).toBe(false);
    expect(isCompressible(new Blob([], { type: 'image/heic' }))).toBe(false);
  });
});

/** A JPEG's first bytes: SOI, an optional EXIF APP1 with an orientation, a frame header of `w`×`h`. */
function jpegHeader(w: number, h: number, orientation?: number, little = false): Uint8Array {
  const b: number[] = [0xff, 0xd8];
  if (orientation) {
    const u16 = (v: number) => (little ? [v & 0xff, v >> 8] : [v >> 8, v & 0xff]);
    const u32 = (v: number) => (little ? [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24] : [v >>> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff]);
    const tiff = [
      ...(little ? [0x49, 0x49] : [0x4d, 0x4d]),
      ...u16(42),
      ...u32(8),
      ...u16(2),
      ...u16(0x010f),
      ...u16(2),
      ...u32(4),
      ...u32(0),
      ...u16(0x0112),
      ...u16(3),
      ...u32(1),
      ...u16(orientation),
      0,
      0,
      ...u32(0),
    ];
    const body = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
    b.push(0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body);
  }
  // A DHT segment first: C4 sits in the SOF range and must not be read as a frame.
  b.push(0xff, 0xc4, 0, 4, 0, 0);
  b.push(0xff, 0xc2, 0, 11, 8, h >> 8, h & 0xff, w >> 8, w & 0xff, 1, 1, 0x11, 0);
  return new Uint8Array(b);
}

describe('compression reads the size from the header, to decode downscaled', () => {
  it('reads a JPEG frame header, past a DHT segment', () => {
    expect(imageSize(jpegHeader(4000, 3000))).toEqual({ width: 4000, height: 3000 });
  });

  it('swaps width and height for EXIF orientations 5–8 (a portrait photo stored on its side), either byte order', () => {
    expect(imageSize(jpegHeader(4000, 3000, 6))).toEqual({ width: 3000, height: 4000 });
    expect(imageSize(jpegHeader(4000, 3000, 8, true))).toEqual({ width: 3000, height: 4000 });
    expect(imageSize(jpegHeader(4000, 3000, 3))).toEqual({ width: 4000, height: 3000 });
    expect(imageSize(jpegHeader(4000, 3000, 1, true))).toEqual({ width: 4000, height: 3000 });
  });

  it('reads a PNG header', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0x0f, 0xa0, 0, 0, 0x0b, 0xb8]);
    expect(imageSize(png)).toEqual({ width: 4000, height: 3000 });
  });

  it('answers null for what it cannot read (the photo is then decoded at full size)', () => {
    expect(imageSize(new Uint8Array([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0]))).toBeNull();
    expect(imageSize(jpegHeader(4000, 3000).subarray(0, 8))).toBeNull();
    expect(imageSize(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2]))).toBeNull();
  });

  it('fits the long side in 1600 px, never enlarging', () => {
    expect(fitWithin({ width: 4000, height: 3000 }, COMPRESS_MAX_SIDE)).toEqual({ width: 1600, height: 1200 });
    expect(fitWithin({ width: 3000, height: 4000 }, COMPRESS_MAX_SIDE)).toEqual({ width: 1200, height: 1600 });
    expect(fitWithin({ width: 1200, height: 900 }, COMPRESS_MAX_SIDE)).toEqual({ width: 1200, height: 900 });
    expect(fitWithin({ width: 16000, height: 2 }, COMPRESS_MAX_SIDE)).toEqual({ width: 1600, height: 1 });
  });

  it('names a PNG drawn as a JPEG .jpg, keeps a JPEG name', () => {
    expect(compressedName('IMG_1.JPEG')).toBe('IMG_1.JPEG');
    expect(compressedName('screen.png')).toBe('screen.jpg');
    expect(smallerOf(new File([new Uint8Array(5000)], 'screen.png', { type: 'image/png' }), new Blob([new Uint8Array(10)], { type: 'image/jpeg' }))).toMatchObject({
      name: 'screen.jpg',
      type: 'image/jpeg',
    });
  });
});

describe('a form waits for photos being compressed or sent (issue 24 item 2)', () => {
  const deferred = () => {
    let resolve!: (o: PhotoOutcome) => void;
    return { promise: new Promise<PhotoOutcome>((r) => (resolve = r)), resolve };
  };

  it('waits for each photo in flight, then has its stored name in its place', async () => {
    const a = deferred();
    trackPhoto('blob:x/a', a.promise);
    const value = 'stored1.jpg;blob:x/a;blob:x/offline';
    expect(photosBusy(value)).toBe(true);
    let done = false;
    const settled = settlePhotos(value).then((r) => ((done = true), r));
    await Promise.resolve();
    expect(done).toBe(false);
    a.resolve({ name: 'stored2.jpg' });
    // A photo kept on the device (never tracked) stays for the outbox, in its place.
    expect(await settled).toEqual({ value: 'stored1.jpg;stored2.jpg;blob:x/offline' });
    expect(photosBusy(value)).toBe(false);
  });

  it('says why the server refused a photo, and leaves it out', async () => {
    trackPhoto('blob:x/b', Promise.resolve({ refused: '文件类型不支持' }));
    trackPhoto('blob:x/c', Promise.resolve({ waiting: true }));
    expect(await settlePhotos('blob:x/b;blob:x/c')).toEqual({ value: 'blob:x/c', error: '照片上传失败：文件类型不支持' });
  });

  it('names the files that are not images', () => {
    expect(notImageMessage(['a.pdf', 'b.mp4'])).toBe('「a.pdf」、「b.mp4」不是图片，请选择图片文件');
  });
});
