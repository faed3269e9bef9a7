import type { Socket } from 'node:net';
import { ErrorCode, errorTable, type ErrorCodeValue } from '../../domain/errors';
import { failure } from './errors';

type FailureCode = Exclude<ErrorCodeValue, 1000>;

export interface FrameworkFailure {
  status: number;
  code: FailureCode;
  message: string;
}

/**
 * Chinese answers for the errors Fastify, its plugins and Node's HTTP parser
 * raise before a route runs: a person (or a gate vendor) reading the reply
 * must learn what to change, in the product's language and envelope, never a
 * framework's English text.
 */
const byFastifyCode: Record<string, FrameworkFailure> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: ErrorCode.UNSUPPORTED_MEDIA, message: '不支持的内容类型，请以JSON提交' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: ErrorCode.VALIDATION, message: '请求体长度与 Content-Length 不一致' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: ErrorCode.PAYLOAD_TOO_LARGE, message: '提交的内容过大，请压缩后重试' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: ErrorCode.VALIDATION, message: '请求体不能为空' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: ErrorCode.VALIDATION, message: '请求体不是有效的JSON' },
  FST_ERR_BAD_URL: { status: 400, code: ErrorCode.VALIDATION, message: '请求地址不正确' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: ErrorCode.URI_TOO_LONG, message: '请求地址中的参数过长' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { status: 415, code: ErrorCode.UNSUPPORTED_MEDIA, message: '请以 multipart/form-data 上传文件' },
  FST_REQ_FILE_TOO_LARGE: { status: 413, code: ErrorCode.PAYLOAD_TOO_LARGE, message: '上传的文件过大' },
  FST_PARTS_LIMIT: { status: 413, code: ErrorCode.PAYLOAD_TOO_LARGE, message: '上传的内容分段过多' },
  FST_FILES_LIMIT: { status: 413, code: ErrorCode.PAYLOAD_TOO_LARGE, message: '一次只能上传一个文件' },
  FST_FIELDS_LIMIT: { status: 413, code: ErrorCode.PAYLOAD_TOO_LARGE, message: '上传的表单字段过多' },
};

/** Statuses a framework error keeps; any other 4xx reads as a plain 400. */
const keptStatus: Record<number, FailureCode> = {
  404: ErrorCode.NOT_FOUND,
  408: ErrorCode.TIMEOUT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  414: ErrorCode.URI_TOO_LONG,
  415: ErrorCode.UNSUPPORTED_MEDIA,
  431: ErrorCode.HEADERS_TOO_LARGE,
};

/** The answer for a 4xx error that did not come from our own code (no AppError); null for anything else. */
export function frameworkFailure(err: { code?: string; statusCode?: number }): FrameworkFailure | null {
  const known = err.code ? byFastifyCode[err.code] : undefined;
  if (known) return known;
  const status = err.statusCode ?? 500;
  if (status < 400 || status >= 500) return null;
  const code = keptStatus[status];
  if (code) return { status, code, message: errorTable[code].message };
  return { status: 400, code: ErrorCode.VALIDATION, message: '请求格式不正确，请检查后重试' };
}

/**
 * Node rejects some requests before Fastify sees them (a query string or a
 * header over the 16 KB limit is 431, a stalled body 408); Fastify's default
 * handler then writes its own English JSON. This writes the envelope instead.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const answer: FrameworkFailure =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? { status: 431, code: ErrorCode.HEADERS_TOO_LARGE, message: errorTable[ErrorCode.HEADERS_TOO_LARGE].message }
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? { status: 408, code: ErrorCode.TIMEOUT, message: errorTable[ErrorCode.TIMEOUT].message }
        : { status: 400, code: ErrorCode.VALIDATION, message: '请求格式不正确，无法解析' };
  const body = JSON.stringify(failure(answer.code, answer.message));
  if (socket.writable) {
    const reason = answer.status === 431 ? 'Request Header Fields Too Large' : answer.status === 408 ? 'Request Timeout' : 'Bad Request';
    socket.write(`HTTP/1.1 ${answer.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}
