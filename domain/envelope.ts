import type { ErrorCodeValue } from './errors';

/** Shape of every JSON reply (DESIGN.md §3). `msg` and `message` always carry the same text. */
export interface Envelope<T = unknown> {
  success: boolean;
  code: ErrorCodeValue;
  msg: string;
  message: string;
  data: T;
}

export interface Page<T> {
  list: T[];
  total: number;
}

export interface PageQuery {
  size: number;
  pn: number;
}

export const DEFAULT_PAGE_SIZE = 10;
export const PAGE_SIZE_OPTIONS = [10, 20, 50, 100] as const;
/** Large preloads (users 999999, vehicle models MAX_SAFE_INTEGER) are capped here on the server. */
export const MAX_PAGE_SIZE = 1_000_000;
