import { z } from 'zod';
import { col, defineCall, pageOf } from '../contract';
import { enums, type EnumName } from '../enums';
import { addMinutes } from '../time';
import { normaliseVisitTime, type FieldError } from '../visit-rules';
import { labelled, optionalFilterInt, optionalFilterText, pageQuery, type FieldLabels } from './common';

/**
 * 登录日志 and 操作日志 (spec 002 §2 Logs, §3, §7 `POST /log/login/page`,
 * `/log/user/page`): read-only lists of what the server records at sign-in
 * (modules/auth.ts) and after every mutating call (core/auth.ts). Each list
 * covers a time window, the last 24 hours unless the query names one, so a
 * page and its count are a range of the (time, id) index however many rows
 * the log holds.
 */

export const loginLogLabels: FieldLabels = {
  id: '日志ID',
  user_name: '用户名',
  user_id: '用户ID',
  account: '账号',
  depart_id: '部门',
  depart_name: '部门',
  ip: 'IP地址',
  result: '登录状态',
  login_time: '登录时间',
  remark: '备注',
  // Filters, by their wire names.
  userName: '用户名',
  start_time: '开始时间',
  end_time: '结束时间',
  size: '每页条数',
  pn: '页码',
};

export const operationLogLabels: FieldLabels = {
  id: '日志ID',
  user_id: '操作人',
  user_name: '操作人',
  account: '账号',
  depart_id: '部门',
  depart_name: '部门',
  // Not 操作: the desktop table's actions column is headed so.
  operation: '操作名称',
  result: '操作结果',
  operate_time: '操作时间',
  api: '接口',
  method: '请求方式',
  params: '请求参数',
  start_time: '开始时间',
  end_time: '结束时间',
  size: '每页条数',
  pn: '页码',
};

/** The window a list covers when the query names no start: the spec's "last 24 hours" / "last 1 day". */
export const DEFAULT_LOG_WINDOW_MINUTES = 24 * 60;
/** The longest window a list covers, unless a whole account narrows it to that account's own index (operation log). */
export const MAX_LOG_DAYS = 31;

/** A code filter: absent, '' and -1 (全部) mean none; anything else must be a value of the code table. */
const resultFilter = (table: EnumName) =>
  optionalFilterInt.refine((v) => v === undefined || enums[table].some((o) => o.value === v), { error: `只能是${enums[table].map((o) => `${o.value}（${o.label}）`).join('、')}` });

/** 'YYYY-MM-DD HH:mm:ss' (a bare date is the start or end of its day); absent or '' is the list's default. */
const timeFilter = (edge: 'begin' | 'end', label: string) =>
  z.preprocess(
    (v) => (v === undefined || v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v),
    z
      .string({ error: `${label}格式应为 YYYY-MM-DD HH:mm:ss` })
      .transform((s, ctx) => {
        const t = normaliseVisitTime(s, edge);
        if (t === null) {
          ctx.addIssue({ code: 'custom', message: `${label}格式应为 YYYY-MM-DD HH:mm:ss` });
          return z.NEVER;
        }
        return t;
      })
      .optional(),
  );

const timeWindow = {
  start_time: timeFilter('begin', '开始时间'),
  end_time: timeFilter('end', '结束时间'),
};
const endNotBeforeStart = (q: { start_time?: string; end_time?: string }) => !q.start_time || !q.end_time || q.start_time <= q.end_time;
const END_BEFORE_START = { error: '结束时间不能早于开始时间', path: ['end_time'] };

/** Login log filters: the person's name or account (contains), login state (the screen starts at 1, 成功), and the window. */
export const loginLogQuery = labelled(
  pageQuery
    .extend({
      userName: optionalFilterText,
      result: resultFilter('loginResult'),
      ...timeWindow,
    })
    .refine(endNotBeforeStart, END_BEFORE_START),
  loginLogLabels,
);

/** Operation log filters (spec: account, result including 全部, time range). */
export const operationLogQuery = labelled(
  pageQuery
    .extend({
      account: optionalFilterText,
      result: resultFilter('operationResult'),
      ...timeWindow,
    })
    .refine(endNotBeforeStart, END_BEFORE_START),
  operationLogLabels,
);

export type LoginLogQuery = z.infer<typeof loginLogQuery>;
export type OperationLogQuery = z.infer<typeof operationLogQuery>;

const minutesOf = (time: string) => Date.parse(`${time.replace(' ', 'T')}Z`) / 60_000;

/**
 * The window a list covers, from the query and the park's `now`: the start
 * defaults to 24 hours before the end, the end to now (or the start, when
 * that lies ahead). `end` is null when the query sets none: nothing is
 * logged after now. Longer than MAX_LOG_DAYS is refused unless `unbounded`
 * (a whole account, whose own index serves any range).
 */
export function logWindow(q: { start_time?: string; end_time?: string }, now: string, unbounded = false): { start: string; end: string | null; errors: FieldError[] } {
  const last = q.end_time ?? (q.start_time && q.start_time > now ? q.start_time : now);
  const start = q.start_time ?? addMinutes(last, -DEFAULT_LOG_WINDOW_MINUTES);
  const errors: FieldError[] = [];
  if (!unbounded && minutesOf(last) - minutesOf(start) > MAX_LOG_DAYS * 24 * 60) {
    errors.push({ field: q.start_time ? 'start_time' : 'end_time', message: `时间范围不能超过${MAX_LOG_DAYS}天（操作日志按完整账号查询时不限）` });
  }
  return { start, end: q.end_time ?? null, errors };
}

/** A sign-in attempt as the list answers it. */
export const loginLogRow = z.object({
  id: col.id,
  user_id: col.id.nullable(),
  user_name: col.text,
  account: col.text,
  depart_id: col.id.nullable(),
  depart_name: col.text.nullable(),
  ip: col.text,
  result: col.int,
  login_time: col.time,
  remark: col.text,
});
export type LoginLogRow = z.infer<typeof loginLogRow>;

/** A recorded call as the list answers it; `params` is the redacted JSON of what was sent. */
export const operationLogRow = z.object({
  id: col.id,
  user_id: col.id.nullable(),
  /** The name when the row was written; null for a call made before sign-in. */
  user_name: col.text.nullable(),
  account: col.text,
  depart_id: col.id.nullable(),
  depart_name: col.text.nullable(),
  operation: col.text,
  result: col.int,
  operate_time: col.time,
  api: col.text,
  method: col.text,
  params: col.text,
});
export type OperationLogRow = z.infer<typeof operationLogRow>;

const windowNote = '列表（按时间，默认最近24小时）';

/** 登录日志 and 操作日志 on the wire (spec 002 §7). */
export const logApi = {
  login: defineCall({ method: 'POST', path: '/log/login/page', permission: 'loginLog:list', summary: `登录日志${windowNote}`, input: loginLogQuery, answer: pageOf(loginLogRow) }),
  operation: defineCall({ method: 'POST', path: '/log/user/page', permission: 'operationLog:list', summary: `操作日志${windowNote}`, input: operationLogQuery, answer: pageOf(operationLogRow) }),
};
