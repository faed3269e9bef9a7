import type { Envelope } from '../../domain/envelope';
import { ErrorCode, errorTable, type ErrorCodeValue } from '../../domain/errors';

/** A failure with a code from the shared table; the error handler turns it into the envelope. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: Exclude<ErrorCodeValue, 1000>,
    message?: string,
    readonly data: unknown = null,
  ) {
    super(message ?? errorTable[code].message);
    this.status = errorTable[code].status;
  }
}

export const fail = (code: Exclude<ErrorCodeValue, 1000>, message?: string, data?: unknown): never => {
  throw new AppError(code, message, data);
};

export const notFound = (what: string): never => fail(ErrorCode.NOT_FOUND, `${what}不存在或已被删除`);

export function ok<T>(data: T, message = '操作成功'): Envelope<T> {
  return { success: true, code: ErrorCode.OK, msg: message, message, data };
}

export function failure(code: ErrorCodeValue, message: string, data: unknown = null): Envelope<unknown> {
  return { success: false, code, msg: message, message, data };
}
