import axios, { AxiosError, type AxiosRequestConfig } from 'axios';
import type { AnswerOf, Call, InputOf } from '../../domain/contract';
import type { Envelope } from '../../domain/envelope';
import { ErrorCode } from '../../domain/errors';
import { OFFLINE_FROM_HEADER } from '../../sw/cache-key';
import { stampOfflineAnswer } from './offline-reads';
import { session } from './session';

/** A failed call: the server's code and Chinese message, plus field errors when it was a validation failure. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly status: number,
    readonly fieldErrors: Array<{ field: string; message: string }> = [],
    /** The reply's data, e.g. the seconds left of a captcha cooldown on 429. */
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

export const http = axios.create({ baseURL: '/api', timeout: 15_000 });

http.interceptors.request.use((config) => {
  const token = session.token();
  if (token) config.headers.set('Authorization', `Bearer ${token}`);
  return config;
});

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const ax = err as AxiosError<Envelope<unknown>>;
  const body = ax.response?.data;
  if (body && typeof body === 'object' && 'code' in body) {
    const data = body.data as { errors?: Array<{ field: string; message: string }> } | null;
    return new ApiError(body.msg || body.message, body.code, ax.response!.status, data?.errors ?? [], body.data);
  }
  if (ax.code === 'ECONNABORTED') return new ApiError('请求超时，请检查网络后重试', ErrorCode.INTERNAL, 0);
  if (!ax.response) return new ApiError('网络连接失败，请检查网络后重试', ErrorCode.INTERNAL, 0);
  return new ApiError(`服务器错误（${ax.response.status}）`, ErrorCode.INTERNAL, ax.response.status);
}

/** Calls the API and unwraps the envelope; throws ApiError on any failure. A 401 ends the local session. */
export async function api<T>(config: AxiosRequestConfig): Promise<T> {
  try {
    const res = await http.request<Envelope<T>>(config);
    if (!res.data.success) throw new ApiError(res.data.msg, res.data.code, res.status);
    // An answer from the service worker's offline copy says so; the screen then shows from when.
    return stampOfflineAnswer(res.data.data, res.headers[OFFLINE_FROM_HEADER.toLowerCase()] as string | undefined);
  } catch (err) {
    const e = toApiError(err);
    if (e.code === ErrorCode.UNAUTHENTICATED) session.expire();
    throw e;
  }
}

export const post = <T>(url: string, data?: unknown) => api<T>({ method: 'POST', url, data: data ?? {} });
export const get = <T>(url: string, params?: Record<string, unknown>) => api<T>({ method: 'GET', url, params });

/**
 * Calls what domain/ declares (domain/contract.ts): the method and path come
 * from the declaration, the body or query is typed by its input and the
 * answer by its answer, so no screen writes a path or an answer type itself.
 * `params` fills the path's `:name` parts.
 */
export function call<C extends Pick<Call, 'method' | 'path' | 'input' | 'answer'>>(
  c: C,
  input?: InputOf<C>,
  opts: Omit<AxiosRequestConfig, 'url' | 'method' | 'data' | 'params'> & { params?: Record<string, string | number> } = {},
) {
  const { params, ...config } = opts;
  const url = params ? c.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name]))) : c.path;
  return api<AnswerOf<C>>({ ...config, method: c.method, url, ...(c.method === 'GET' ? { params: input } : { data: input ?? {} }) });
}
