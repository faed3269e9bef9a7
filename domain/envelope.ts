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
/**
 * The largest page any list answers: the largest the UI offers. A larger
 * `size` (the spec's preloads ask for 999999) is served as this; preloads
 * and exports have routes of their own.
 */
export const MAX_PAGE_SIZE = PAGE_SIZE_OPTIONS[PAGE_SIZE_OPTIONS.length - 1];
