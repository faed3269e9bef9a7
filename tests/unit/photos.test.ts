import { describe, expect, it } from 'vitest';
import { MAX_LABEL_PHOTOS, imagesField, labelBody } from '../../domain/schemas/car-application';
import { isCompressible, smallerOf } from '../../src/lib/compress-image';
import {
  PHOTOS_NOT_UPLOADED,
  admitPhotos,
  forgetLocalPhotos,
  isLocalPhoto,
  isNetworkFailure,
  keepLocalPhoto,
  localPhotoBlob,
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
