import { z } from 'zod';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../envelope';

/**
 * Field helpers whose messages follow the spec's wording. A missing value and
 * an empty string both read as "required"; `label` names the field in server
 * replies so a message always says which field broke which rule.
 */
export const TEXT_TYPE_MSG = '必须是文本';

/**
 * A text field's type rule. Missing (absent or null) reads as `required`;
 * anything else that is not a string, a number included, is "必须是文本"
 * (prefixed with the field's label), never the missing message: the sender
 * did send a value, only of the wrong type. Numbers are refused rather than
 * converted: a long digit string sent as a JSON number (an id card, a phone)
 * may already have lost digits or leading zeros, and storing that silently
 * would be worse than asking for text.
 */
export const text = (required = TEXT_TYPE_MSG) => z.string({ error: (issue) => (issue.input === undefined || issue.input === null ? required : TEXT_TYPE_MSG) });

export const requiredText = (required: string, max: number, maxMsg: string) => text(required).trim().min(1, { error: required }).max(max, { error: maxMsg });

export const optionalText = (max: number, maxMsg: string) =>
  text()
    .trim()
    .max(max, { error: maxMsg })
    .optional()
    .nullable()
    .transform((v) => v ?? '');

/**
 * The integer range both databases store (PostgreSQL `integer`). A value
 * outside it would reach the database and fail there, so every integer the
 * API takes is checked against it first.
 */
export const INT_MIN = -2147483648;
export const INT_MAX = 2147483647;
export const OUT_OF_RANGE_MSG = `超出允许的范围（${INT_MIN}至${INT_MAX}）`;

/** An integer column's value: `message` for anything that is not a whole number, the range rule for one too large to store. */
const storedInt = (message: string) => z.number({ error: message }).int({ error: message }).min(INT_MIN, { error: OUT_OF_RANGE_MSG }).max(INT_MAX, { error: OUT_OF_RANGE_MSG });

/** Numbers arrive from forms as numbers or digit strings. */
export const intField = (required: string) => z.preprocess((v) => (v === '' || v === null ? undefined : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), storedInt(required));

/** A row id inside a list or array: a whole number from 1 to INT_MAX, `message` otherwise. */
export const idNumber = (message: string) => z.number({ error: message }).int({ error: message }).min(1, { error: message }).max(INT_MAX, { error: message });

export const choice01 = (required: string) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : typeof v === 'string' ? Number(v) : v), z.union([z.literal(0), z.literal(1)], { error: required }));

export const CODE_PATTERN = /^[0-9A-Za-z:_]+$/;
export const CODE_PATTERN_MSG = '仅限阿拉伯数字、英文字母';

/** Numbers and digit strings become numbers; anything else is left for the schema to refuse (Number() of an object can throw). */
const numeric = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? Number(v) : v);

/** size and pn of every list call; size is capped so a preload cannot ask for the whole table at once. */
export const pageQuery = z.object({
  size: z
    .preprocess(
      (v) => (v === undefined || v === null || v === '' ? DEFAULT_PAGE_SIZE : numeric(v)),
      z.number({ error: '每页条数必须是数字' }).int({ error: '每页条数必须是整数' }).min(1, { error: '每页条数至少为1' }),
    )
    .transform((n) => Math.min(n, MAX_PAGE_SIZE)),
  pn: z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? 1 : numeric(v)),
    z.number({ error: '页码必须是数字' }).int({ error: '页码必须是整数' }).min(1, { error: '页码从1开始' }).max(INT_MAX, { error: OUT_OF_RANGE_MSG }),
  ),
});

/** Optional filter: absent, '' and -1 ("all") mean no filter. */
export const optionalFilterInt = z.preprocess((v) => (v === undefined || v === null || v === '' || numeric(v) === -1 ? undefined : numeric(v)), storedInt('筛选条件必须是整数').optional());
export const optionalFilterText = z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : (v ?? undefined)), z.string().max(100, { error: '筛选条件不能超过100个字符' }).optional());

/** Comma-joined ids, one number, or an array → number[] (absent: empty); a bad part fails the whole list. */
export const idList = (bad: string) =>
  z.preprocess(
    (v) => {
      if (v === undefined || v === null || v === '') return [];
      if (typeof v === 'number') return [v];
      if (typeof v !== 'string') return v;
      const parts = v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : null;
    },
    z.array(idNumber(bad), { error: bad }),
  );

/** A row id: ids of either database are 1..INT_MAX, so anything else is "not a valid id" (400), never a query. */
export const idField = (label: string) => intField(`请提供${label}`).pipe(idNumber(`${label}不正确`));

/** Human labels of wire fields, used to prefix server messages with the field they concern. */
export type FieldLabels = Record<string, string>;

/**
 * The labels a schema's fields are known by. One labels object per entity
 * (e.g. vehicleTypeLabels) is attached to its schemas here, so the server's
 * messages, the API description and the screens name a field the same way.
 */
export const fieldLabels = z.registry<{ labels: FieldLabels }>();

/** Every table's time stamps. */
export const stampLabels: FieldLabels = { create_time: '创建时间', update_time: '更新时间' };

/** Columns every appointment and register row answers with (lists, details, exports). */
export const recordLabels: FieldLabels = {
  ...stampLabels,
  state: '审核状态',
  is_delayed: '是否延期',
  interviewee_depart_name: '被访部门',
  revoke_reason: '撤销理由',
  in_black_list: '是否在黑名单',
};

export function labelled<T extends z.ZodType>(schema: T, labels: FieldLabels): T {
  fieldLabels.add(schema, { labels });
  return schema;
}
