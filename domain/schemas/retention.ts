import { z } from 'zod';
import { col, defineCall } from '../contract';
import { MAX_RETENTION_DAYS, maximumMessage, minimumDays, minimumMessage, RETENTION_CLASSES, RETENTION_TRIGGERS, retentionClasses, wholeDaysMessage, type RetentionClassDef } from '../retention';
import { labelled, type FieldLabels } from './common';

/**
 * 数据保留 (系统设置 > 数据保留): how many days each class of personal data
 * is kept (domain/retention.ts), what a run would take now, 立即清理, and the
 * proof of the last run. How a run works: server/modules/retention/.
 */

export const retentionLabels: FieldLabels = {
  ...Object.fromEntries(RETENTION_CLASSES.map((k) => [k, retentionClasses[k].fieldLabel])),
};

/** A days field: a whole number (a digit string from a form too) from the class's minimum to 10 years, each refusal naming the field and its rule. */
const daysField = (c: RetentionClassDef) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v === '' || v === null ? undefined : v),
    z
      .number({ error: (issue) => (issue.input === undefined ? `请填写${c.fieldLabel}` : wholeDaysMessage(c)) })
      .int({ error: wholeDaysMessage(c) })
      .min(minimumDays(c), { error: minimumMessage(c) })
      .max(MAX_RETENTION_DAYS, { error: maximumMessage(c) }),
  );

const daysShape = Object.fromEntries(RETENTION_CLASSES.map((k) => [k, daysField(retentionClasses[k]).optional()])) as {
  [K in (typeof RETENTION_CLASSES)[number]]: z.ZodOptional<ReturnType<typeof daysField>>;
};

/** Days per class, each optional: a class left out keeps its days. */
export const retentionDays = z.object(daysShape);
export type RetentionDaysInput = z.input<typeof retentionDays>;

/** 保存: at least one class; every value is checked before any is saved. */
export const retentionPolicyInput = labelled(
  retentionDays.refine((v) => Object.values(v).some((d) => d !== undefined), { error: '请至少填写一类数据的保留期限' }),
  retentionLabels,
);

/** 预览: the saved days, or the days being edited (not saved) for the classes sent. */
export const retentionPreviewInput = labelled(retentionDays, retentionLabels);

const classKey = z.enum(RETENTION_CLASSES);

/** One class as the policy answers it. */
export const retentionPolicyClass = z.object({
  key: classKey,
  label: col.text,
  field_label: col.text,
  scope: col.text,
  clock: col.text,
  action: col.text,
  days: col.int,
  default_days: col.int,
  min_days: col.int,
  /** The law that sets min_days; null where none does (min_days is then 1). */
  rule: col.text.nullable(),
  updated_by: col.text.nullable(),
  updated_at: col.time.nullable(),
});
export type RetentionPolicyClass = z.infer<typeof retentionPolicyClass>;

/** What a run did to one class, or what it would do (the preview). */
export const retentionClassProof = z.object({
  key: classKey,
  label: col.text,
  days: col.int,
  /** Rows whose time is before this (park time) were past their period. */
  cutoff: col.time,
  /** Rows removed, anonymised or cleared (the preview: that a run would). */
  rows: col.int,
  /** Files removed from the store (the preview: 0, files are counted when removed). */
  files: col.int,
  /** The time of the oldest row of the class that is kept (stays), null when none is. */
  oldest_kept: col.time.nullable(),
});
export type RetentionClassProof = z.infer<typeof retentionClassProof>;

/** A run's proof: when, how it was started and by whom, and each class. finished_at is null for a run still going or cut short. */
export const retentionRunProof = z.object({
  id: col.id,
  trigger: z.enum(RETENTION_TRIGGERS),
  started_at: col.time,
  finished_at: col.time.nullable(),
  user_name: col.text.nullable(),
  host: col.text,
  error: col.text.nullable(),
  classes: z.array(retentionClassProof),
});
export type RetentionRunProof = z.infer<typeof retentionRunProof>;

export const retentionPolicyAnswer = z.object({ classes: z.array(retentionPolicyClass), last_run: retentionRunProof.nullable() });
export type RetentionPolicyAnswer = z.infer<typeof retentionPolicyAnswer>;

export const retentionPreviewAnswer = z.object({ at: col.time, classes: z.array(retentionClassProof) });
export type RetentionPreviewAnswer = z.infer<typeof retentionPreviewAnswer>;

export const retentionApi = {
  policy: defineCall({
    method: 'GET',
    path: '/retention/policy',
    permission: 'menu:retention',
    summary: '数据保留期限：每类数据的保留天数、默认值、最低天数及其依据，和最近一次清理的记录',
    input: labelled(z.object({}), retentionLabels),
    answer: retentionPolicyAnswer,
  }),
  save: defineCall({
    method: 'POST',
    path: '/retention/policy',
    permission: 'retention:edit',
    summary: '修改保留期限（天）：低于法定最低天数或超过 3650 天的返回400，且不保存任何一项',
    operation: '修改数据保留期限',
    input: retentionPolicyInput,
    answer: retentionPolicyAnswer,
  }),
  preview: defineCall({
    method: 'POST',
    path: '/retention/preview',
    permission: 'menu:retention',
    summary: '预览清理：按当前（或传入的）保留期限，每类现在会清理的条数和清理后最早保留的时间',
    input: retentionPreviewInput,
    answer: retentionPreviewAnswer,
  }),
  run: defineCall({
    method: 'POST',
    path: '/retention/run',
    permission: 'retention:run',
    summary: '立即清理：按保留期限删除或匿名化过期数据，完成后返回本次清理记录；已有清理在进行时返回409',
    operation: '立即清理过期数据',
    input: labelled(z.object({}), retentionLabels),
    answer: retentionRunProof,
  }),
};
