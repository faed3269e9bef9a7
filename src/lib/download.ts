import type { AxiosError } from 'axios';
import { ErrorCode } from '../../domain/errors';
import { http } from './http';
import { session } from './session';
import { showToast } from './feedback';

/** The file name of a Content-Disposition header: RFC 5987 filename* first, then a plain filename. */
export function filenameFromDisposition(header: unknown): string | undefined {
  if (typeof header !== 'string' || !header) return undefined;
  const star = /filename\*\s*=\s*([^;]+)/i.exec(header);
  if (star) {
    const value = star[1]!
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .replace(/^[\w-]+'[^']*'/, '');
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(header);
  const name = plain ? (plain[2] ?? plain[1]!).trim() : '';
  return name || undefined;
}

function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The browser has taken the blob once the click returns; free it a little later for slow devices.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

async function jsonMessage(blob: Blob): Promise<{ msg?: string; code?: number } | null> {
  try {
    const body = JSON.parse(await blob.text()) as { msg?: string; message?: string; code?: number };
    return { msg: body.msg || body.message, code: body.code };
  } catch {
    return null;
  }
}

/**
 * Downloads a file through the shared client (the token travels as the
 * Authorization header) and saves it under the server's name. A JSON answer
 * instead of a file carries a message, shown as a warning; no answer at all
 * reads '下载文件时出错' (spec 000 §8).
 */
export async function downloadFile(opts: {
  method: 'get' | 'post';
  path: string;
  body?: unknown;
  params?: Record<string, string | number>;
  fallbackName: string;
  loadingText?: string;
}): Promise<void> {
  const loading = showToast({ icon: 'loading', content: opts.loadingText ?? '正在下载…', duration: 0 });
  try {
    const config = { responseType: 'blob' as const, timeout: 5 * 60_000 };
    const res = opts.method === 'post' ? await http.post<Blob>(opts.path, opts.body ?? {}, config) : await http.get<Blob>(opts.path, { ...config, params: opts.params });
    loading.close();
    if (String(res.headers['content-type'] ?? '').includes('json')) {
      const j = await jsonMessage(res.data);
      showToast({ content: j?.msg || '下载文件时出错', duration: 3000 });
      return;
    }
    save(res.data, filenameFromDisposition(res.headers['content-disposition']) ?? opts.fallbackName);
  } catch (err) {
    loading.close();
    const data = (err as AxiosError<Blob>).response?.data;
    const j = data instanceof Blob ? await jsonMessage(data) : null;
    if (j?.code === ErrorCode.UNAUTHENTICATED) session.expire();
    showToast({ content: j?.msg || '下载文件时出错', duration: 3000, icon: j ? undefined : 'fail' });
  }
}
