import { useEffect, useState } from 'react';
import { isLocalPhoto } from '../../domain/schemas/car-application';
import type { AnswerOf } from '../../domain/contract';
import { fileApi } from '../../domain/schemas/files';
import { ApiError, api, call } from './http';
import { session } from './session';

export { isLocalPhoto, PHOTOS_NOT_UPLOADED } from '../../domain/schemas/car-application';

/** Application fields hold stored file names joined by ';' (spec 000: up to 20 images per field). */
export const FILE_SEPARATOR = ';';
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_IMAGES = 20;

export const splitFileNames = (value: unknown): string[] =>
  typeof value === 'string'
    ? value
        .split(FILE_SEPARATOR)
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
export const joinFileNames = (names: string[]): string => names.join(FILE_SEPARATOR);

export const photoLimitMessage = (max: number) => `最多上传${max}张图片`;

/**
 * How many of `picked` photos a field with `taken` of `max` still takes, and
 * what to tell the person when some are left out.
 */
export function admitPhotos(taken: number, picked: number, max: number): { accept: number; message?: string } {
  const room = Math.max(max - taken, 0);
  if (picked <= room) return { accept: picked };
  if (room === 0) return { accept: 0, message: `${photoLimitMessage(max)}，已达上限` };
  return { accept: room, message: `${photoLimitMessage(max)}，已添加前${room}张` };
}

// ---------- photos kept on the device ----------
//
// A photo that could not be uploaded yet (offline, or still uploading) sits in
// the field's value as a blob: object URL in its place among the stored names,
// so the value keeps its order and its count. The flag form hands those Blobs
// to the outbox; every other form refuses to save them (PHOTOS_NOT_UPLOADED).

/** The blob to upload for each local photo: the compressed one once compression has finished. */
const localPhotos = new Map<string, Promise<Blob>>();

/** Keeps `preview` (the photo as taken) for the field; `upload` is what to send, when it is ready. */
export function keepLocalPhoto(preview: Blob, upload?: Promise<Blob>): string {
  const url = URL.createObjectURL(preview);
  // A failed compression still sends the photo as taken.
  localPhotos.set(url, upload ? upload.catch(() => preview) : Promise.resolve(preview));
  return url;
}

/** Points a local photo at the blob to send (compression done). */
export function replaceLocalPhoto(url: string, upload: Blob): void {
  if (localPhotos.has(url)) localPhotos.set(url, Promise.resolve(upload));
}

/** The blob a local photo stands for: from this page's registry, else read back through its URL. */
export async function localPhotoBlob(url: string): Promise<Blob> {
  const known = localPhotos.get(url);
  if (known) return known;
  const res = await fetch(url);
  if (!res.ok) throw new Error('本地照片已失效，请重新选择');
  return res.blob();
}

/** The photo is stored now: forget its blob, but keep the URL alive as a preview (its field revokes it). */
export function settleLocalPhoto(url: string): void {
  localPhotos.delete(url);
}

/** Frees local photos that are no longer needed (uploaded, removed, or handed to the outbox). */
export function forgetLocalPhotos(urls: Iterable<string>): void {
  for (const url of urls) {
    if (!isLocalPhoto(url)) continue;
    localPhotos.delete(url);
    URL.revokeObjectURL(url);
  }
}

/** Stored names and local photos of a field value, each in order. */
export function partitionPhotos(value: unknown): { names: string[]; local: string[] } {
  const names: string[] = [];
  const local: string[] = [];
  for (const part of splitFileNames(value)) (isLocalPhoto(part) ? local : names).push(part);
  return { names, local };
}

/**
 * A field value as the outbox needs it: the stored names (';'-joined, what the
 * server may receive) and the Blobs of the photos still on this device.
 */
export async function splitLocalPhotos(value: unknown): Promise<{ names: string; blobs: Blob[] }> {
  const { names, local } = partitionPhotos(value);
  return { names: joinFileNames(names), blobs: await Promise.all(local.map(localPhotoBlob)) };
}

/**
 * What became of a local photo its field was compressing or sending: its
 * stored name, the server's reason for refusing it, or kept on the device
 * (no network) for the outbox or for later.
 */
export type PhotoOutcome = { name: string } | { refused: string } | { waiting: true };

/** Photos a field is working on; a form's 确定 waits for them instead of refusing (issue 24 item 2). */
const inFlight = new Map<string, Promise<PhotoOutcome>>();

/** The field is compressing or sending `url`; `done` says what came of it. */
export function trackPhoto(url: string, done: Promise<PhotoOutcome>): void {
  const tracked = done.finally(() => {
    if (inFlight.get(url) === tracked) inFlight.delete(url);
  });
  inFlight.set(url, tracked);
}

/** Whether any photo of a field value is still being compressed or sent. */
export const photosBusy = (value: unknown): boolean => splitFileNames(value).some((p) => inFlight.has(p));

/** The busy 确定 while a form waits for its photos to be compressed and sent. */
export const PHOTOS_PROCESSING = '照片处理中';

export const photoRefusedMessage = (reason: string) => `照片上传失败：${reason}`;

/**
 * A field value once the photos its field was working on have finished: each
 * uploaded one replaced by its stored name. Photos kept on the device stay as
 * they are (the outbox takes them, other forms say why they cannot). `error`
 * says why a photo was refused by the server; it has left the value.
 */
export async function settlePhotos(value: unknown): Promise<{ value: string; error?: string }> {
  const parts = splitFileNames(value);
  const outcomes = await Promise.all(parts.map((p) => inFlight.get(p) ?? null));
  let error: string | undefined;
  const out: string[] = [];
  parts.forEach((part, i) => {
    const o = outcomes[i];
    if (!o || 'waiting' in o) out.push(part);
    else if ('name' in o) out.push(o.name);
    else error ??= photoRefusedMessage(o.refused);
  });
  return { value: joinFileNames(out), ...(error ? { error } : {}) };
}

/** A failure that says nothing about the photo: no network (or it dropped), so try again later. */
export const isNetworkFailure = (err: unknown): boolean => err instanceof ApiError && err.status === 0;

// ---------- access token for <img> ----------

interface Access {
  access: string;
  /** Local clock, ms: when to stop using it (a margin before the server's expiry). */
  useUntil: number;
  /** Which session it belongs to (the access token's session id, compared on reload). */
  owner: string;
}

const STORE_KEY = 'park.fileAccess';
/** Fetch a new token this long before the old one expires, so an <img> never gets an expired one. */
const REFRESH_MARGIN_MS = 30 * 60_000;

let current: Access | null = null;
let inflight: Promise<Access> | null = null;
const listeners = new Set<() => void>();

/** A non-secret tag of the signed-in session, so a token left in sessionStorage by another sign-in is not reused. */
const ownerTag = (): string => {
  const t = session.token() ?? '';
  let h = 0;
  for (let i = 0; i < t.length; i++) h = (Math.imul(h, 31) + t.charCodeAt(i)) | 0;
  return `${t.length}:${h >>> 0}`;
};

function readStored(): Access | null {
  try {
    const a = JSON.parse(sessionStorage.getItem(STORE_KEY) ?? 'null') as Access | null;
    return a && typeof a.access === 'string' && typeof a.useUntil === 'number' ? a : null;
  } catch {
    return null;
  }
}

const fresh = (a: Access | null): a is Access => !!a && a.owner === ownerTag() && a.useUntil > Date.now();

function forget() {
  current = null;
  inflight = null;
  try {
    sessionStorage.removeItem(STORE_KEY);
  } catch {
    /* private mode */
  }
  listeners.forEach((l) => l());
}
session.subscribe(forget);

/** The cached access token if it is still good, without fetching. */
export function cachedFileAccess(): string | null {
  if (!fresh(current)) current = readStored();
  return fresh(current) ? current.access : null;
}

/** The signed `access` token that lets an <img> read files; fetched once and reused until shortly before it expires. */
export async function getFileAccess(): Promise<string> {
  const cached = cachedFileAccess();
  if (cached) return cached;
  inflight ??= call(fileApi.accessToken)
    .then((r) => {
      // expiresIn is relative, so a phone whose clock is off still refreshes in time.
      const ttl = r.expiresIn * 1000;
      const a: Access = { access: r.access, useUntil: Date.now() + Math.max(ttl - REFRESH_MARGIN_MS, 60_000), owner: ownerTag() };
      current = a;
      try {
        sessionStorage.setItem(STORE_KEY, JSON.stringify(a));
      } catch {
        /* private mode: memory only */
      }
      listeners.forEach((l) => l());
      return a;
    })
    .finally(() => {
      inflight = null;
    });
  return (await inflight).access;
}

/** The address of a stored file for a known access token (sync, for render). */
export const fileSrc = (name: string, access: string) => `/api/file/${encodeURIComponent(name)}?access=${encodeURIComponent(access)}`;

/** The address of a stored file, usable in <img src>, <a href> and window.open. */
export async function fileUrl(name: string): Promise<string> {
  return fileSrc(name, await getFileAccess());
}

/**
 * The access token for rendering, or undefined while it is being fetched;
 * re-renders when a fresh one replaces it (the hook schedules that refresh).
 */
export function useFileAccess(): string | undefined {
  const [access, setAccess] = useState<string | undefined>(() => cachedFileAccess() ?? undefined);
  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const sync = () => {
      if (!alive) return;
      const a = cachedFileAccess();
      if (a) {
        setAccess(a);
        clearTimeout(timer);
        timer = setTimeout(sync, Math.min(Math.max(current!.useUntil - Date.now(), 1000), 2 ** 31 - 1));
      } else if (session.token()) {
        void getFileAccess().catch(() => undefined);
      }
    };
    listeners.add(sync);
    sync();
    return () => {
      alive = false;
      clearTimeout(timer);
      listeners.delete(sync);
    };
  }, []);
  return access;
}

// ---------- upload ----------

/** A name for a Blob without one (a photo kept offline), with the extension of its type. */
export const uploadNameFor = (type: string): string => `photo.${({ 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif' } as Record<string, string>)[type] ?? 'bin'}`;

export type { UploadedFile } from '../../domain/schemas/files';

/**
 * Uploads one file (multipart field `file`) and answers its stored name.
 * `onProgress` gets 0–100. The server decides the type from the content.
 * An `idempotencyKey` makes a resend (the outbox's) answer the first stored name.
 */
export async function uploadFile(file: Blob, onProgress?: (percent: number) => void, signal?: AbortSignal, idempotencyKey?: string): Promise<string> {
  const form = new FormData();
  form.append('file', file, (file as File).name || uploadNameFor(file.type));
  const r = await api<AnswerOf<typeof fileApi.upload>>({
    method: fileApi.upload.method,
    url: fileApi.upload.path,
    data: form,
    signal,
    headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : undefined,
    // A 10 MB photo over a weak mobile link takes far longer than the default 15 s.
    timeout: 5 * 60_000,
    onUploadProgress: onProgress ? (e) => onProgress(e.total ? Math.min(99, Math.round((e.loaded / e.total) * 100)) : 0) : undefined,
  });
  onProgress?.(100);
  return r.name;
}

/** Said when the chooser handed over files that are not images (a gallery may offer PDFs or videos). */
export const notImageMessage = (names: string[]) => `${names.map((n) => `「${n}」`).join('、')}不是图片，请选择图片文件`;
