import { useEffect, useState } from 'react';
import { api, post } from './http';
import { session } from './session';

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
  inflight ??= post<{ access: string; expiresAt: number; expiresIn?: number }>('/file/accessToken')
    .then((r) => {
      // expiresIn is relative, so a phone whose clock is off still refreshes in time.
      const ttl = r.expiresIn !== undefined ? r.expiresIn * 1000 : r.expiresAt - Date.now();
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

export interface UploadedFile {
  name: string;
  url: string;
  size: number;
  type: string;
}

/**
 * Uploads one file (multipart field `file`) and answers its stored name.
 * `onProgress` gets 0–100. The server decides the type from the content.
 */
export async function uploadFile(file: Blob, onProgress?: (percent: number) => void, signal?: AbortSignal): Promise<string> {
  const form = new FormData();
  form.append('file', file, (file as File).name || 'upload');
  const r = await api<UploadedFile>({
    method: 'POST',
    url: '/file/upload',
    data: form,
    signal,
    // A 10 MB photo over a weak mobile link takes far longer than the default 15 s.
    timeout: 5 * 60_000,
    onUploadProgress: onProgress ? (e) => onProgress(e.total ? Math.min(99, Math.round((e.loaded / e.total) * 100)) : 0) : undefined,
  });
  onProgress?.(100);
  return r.name;
}
