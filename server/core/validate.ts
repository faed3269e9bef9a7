import { z } from 'zod';
import { ErrorCode } from '../../domain/errors';
import { fieldLabels, type FieldLabels } from '../../domain/schemas/common';
import { AppError } from './errors';

// zod's own messages (for rules a schema gives no message of its own) in Chinese, like every other answer.
// Only here: the PWA bundle does not need the locale, its forms carry the spec's messages.
z.config(z.locales.zhCN());

/**
 * Parses a body with the schema shared with the UI. The reply names the first
 * broken field and its rule in `msg`, and lists every field in data.errors,
 * so a form can put each message under its input.
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown, labels: FieldLabels = labelsOf(schema)): z.infer<S> {
  const res = schema.safeParse(input ?? {});
  if (res.success) return res.data;
  throw failureOf(issueErrors(res.error, labels));
}

function issueErrors(error: z.ZodError, labels: FieldLabels): Array<{ field: string; label: string; message: string }> {
  return error.issues.map((i) => {
    const field = String(i.path[0] ?? '');
    // A body that is not an object at all (a number, an array) has no field to name.
    if (i.path.length === 0) return i.code === 'invalid_type' ? { field: '', label: '请求体', message: '请求体必须是JSON对象' } : { field: '', label: '', message: i.message };
    const label = labels[field] ?? field;
    return { field, label, message: i.message };
  });
}

/**
 * Parses like `parse`, then checks the rules beyond the schema (`rules`: dates
 * against today, rows in the database) in the same pass: when some fields
 * break the schema, the rules still run on the fields that passed, so one
 * answer names every error of the input rather than one round at a time
 * (issue 24: an import row's past and reversed dates went unreported while
 * other cells were wrong). A field the schema already rejected is not
 * reported again by a rule.
 */
export async function parseWithRules<S extends z.ZodType>(
  schema: S,
  input: unknown,
  labels: FieldLabels,
  rules: (values: Record<string, unknown>) => Promise<ReadonlyArray<{ field: string; message: string }>> | ReadonlyArray<{ field: string; message: string }>,
): Promise<z.infer<S>> {
  const res = schema.safeParse(input ?? {});
  if (res.success) {
    const errors = await rules(res.data as Record<string, unknown>);
    if (errors.length) throw ruleFailure(errors, labels);
    return res.data;
  }
  const schemaErrors = issueErrors(res.error, labels);
  const shape = objectShape(schema);
  if (!shape || typeof input !== 'object' || input === null) throw failureOf(schemaErrors);
  const broken = new Set(schemaErrors.map((e) => e.field));
  // Only the fields that pass their own schema reach the rules, in their parsed form.
  const passed: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) {
    if (broken.has(key)) continue;
    const one = field.safeParse((input as Record<string, unknown>)[key]);
    if (one.success && one.data !== undefined) passed[key] = one.data;
  }
  const more = (await rules(passed)).filter((e) => !broken.has(e.field.split('.')[0]!));
  throw failureOf([...schemaErrors, ...more.map((e) => ({ field: e.field, label: labels[e.field] ?? labels[e.field.split('.')[0]!] ?? e.field, message: e.message }))]);
}

/** The field schemas of an object schema, looking through wrappers (z.preprocess, .transform, .superRefine). */
function objectShape(schema: z.ZodType, depth = 0): Record<string, z.ZodType> | null {
  if (depth > 5) return null;
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  const def = (schema as { def?: { in?: z.ZodType; out?: z.ZodType; innerType?: z.ZodType } }).def;
  for (const inner of [def?.in, def?.out, def?.innerType]) {
    const found = inner ? objectShape(inner, depth + 1) : null;
    if (found) return found;
  }
  return null;
}

/** 400 listing every broken field in data.errors, the first in `msg` with its field's name unless the message names it already. */
function failureOf(errors: Array<{ field: string; label: string; message: string }>): AppError {
  const first = errors[0];
  const msg = first ? (first.label && !first.message.includes(first.label) ? `${first.label}：${first.message}` : first.message) : '请求参数不正确';
  return new AppError(ErrorCode.VALIDATION, msg, { errors });
}

/**
 * The same 400 for rules beyond a schema (dates against today, rows in the
 * database): each error names its field, labelled from the entity's labels
 * (a nested field such as carPersonList.0.id_card by its list's label).
 */
export const ruleFailure = (errors: ReadonlyArray<{ field: string; message: string }>, labels: FieldLabels): AppError =>
  failureOf(errors.map((e) => ({ field: e.field, label: labels[e.field] ?? labels[e.field.split('.')[0]!] ?? e.field, message: e.message })));

/** The labels attached to a schema with `labelled` (domain/schemas/common.ts), looking through wrappers (z.preprocess, .transform, .optional). */
export function labelsOf(schema: z.ZodType | undefined, depth = 0): FieldLabels {
  if (!schema || depth > 5) return {};
  const found = fieldLabels.get(schema)?.labels;
  if (found) return found;
  const def = (schema as { def?: { in?: z.ZodType; out?: z.ZodType; innerType?: z.ZodType } }).def;
  for (const inner of [def?.out, def?.in, def?.innerType]) {
    const labels = labelsOf(inner, depth + 1);
    if (Object.keys(labels).length) return labels;
  }
  return {};
}
