import { z } from 'zod';
import { col, defineCall } from '../contract';
import { labelled, type FieldLabels } from './common';

/**
 * 安全设置 (系统设置 > 安全设置): how many hazardous-goods vehicles each park
 * holds at once (the gate's cap, domain/gate.ts), and when repeated real
 * alarms of one plate or ID number file a black-list draft
 * (server/modules/stranded/repeat-offenders.ts). Stored by
 * server/modules/safety-settings.ts; docs/decisions.md says why each rule is so.
 */

export const safetySettingLabels: FieldLabels = {
  hazmat_cap_chemical: '化工区危化品车辆上限',
  hazmat_cap_port: '港区危化品车辆上限',
  repeat_offender_threshold: '重复告警次数',
  repeat_offender_days: '重复告警统计天数',
  updated_by: '修改人',
  updated_at: '修改时间',
};

/** The bounds of each field, stated once for the schema, the screen's hints and the messages. */
export const SAFETY_BOUNDS = {
  cap: { min: 1, max: 10_000 },
  threshold: { min: 2, max: 20, default: 3 },
  days: { min: 7, max: 365, default: 90 },
} as const;

const L = safetySettingLabels as Record<'hazmat_cap_chemical' | 'hazmat_cap_port' | 'repeat_offender_threshold' | 'repeat_offender_days', string>;

/** A digit string from a form is its number; '' and null are "not filled". */
const fromForm = (v: unknown) => (typeof v === 'string' ? (v.trim() === '' ? undefined : /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v) : v === null ? undefined : v);

const wholeIn = (label: string, min: number, max: number) => {
  const rule = `${label}必须是${min}到${max}之间的整数`;
  return z
    .number({ error: (issue) => (issue.input === undefined ? `请填写${label}` : rule) })
    .int({ error: rule })
    .min(min, { error: rule })
    .max(max, { error: rule });
};

/** A park's cap: empty means no cap (null), otherwise a whole number of vehicles. */
const capField = (label: string) => z.preprocess(fromForm, wholeIn(label, SAFETY_BOUNDS.cap.min, SAFETY_BOUNDS.cap.max).optional()).transform((v) => v ?? null);

const requiredWhole = (label: string, b: { min: number; max: number }) => z.preprocess(fromForm, wholeIn(label, b.min, b.max));

/** 保存: the whole form; every field is checked before any is saved. */
export const safetySettingInput = labelled(
  z.object({
    hazmat_cap_chemical: capField(L.hazmat_cap_chemical),
    hazmat_cap_port: capField(L.hazmat_cap_port),
    repeat_offender_threshold: requiredWhole(L.repeat_offender_threshold, SAFETY_BOUNDS.threshold),
    repeat_offender_days: requiredWhole(L.repeat_offender_days, SAFETY_BOUNDS.days),
  }),
  safetySettingLabels,
);
export type SafetySettingInput = z.input<typeof safetySettingInput>;
export type SafetySettingValues = z.output<typeof safetySettingInput>;

/** The settings in force: a cap of null is no cap. */
export const safetySettingAnswer = z.object({
  hazmat_cap_chemical: col.int.nullable(),
  hazmat_cap_port: col.int.nullable(),
  repeat_offender_threshold: col.int,
  repeat_offender_days: col.int,
  updated_by: col.text.nullable(),
  updated_at: col.time.nullable(),
});
export type SafetySettings = z.infer<typeof safetySettingAnswer>;

/** What a park that never saved its settings runs with: no cap, three real alarms in 90 days. */
export const DEFAULT_SAFETY_SETTINGS: SafetySettings = {
  hazmat_cap_chemical: null,
  hazmat_cap_port: null,
  repeat_offender_threshold: SAFETY_BOUNDS.threshold.default,
  repeat_offender_days: SAFETY_BOUNDS.days.default,
  updated_by: null,
  updated_at: null,
};

/** The cap of one park (visit_area 1 化工区, 2 港区); null when none is set. */
export const hazmatCapOf = (s: Pick<SafetySettings, 'hazmat_cap_chemical' | 'hazmat_cap_port'>, park: number): number | null =>
  park === 1 ? s.hazmat_cap_chemical : park === 2 ? s.hazmat_cap_port : null;

export const safetySettingApi = {
  get: defineCall({
    method: 'GET',
    path: '/safetySetting/get',
    permission: 'menu:safetySetting',
    summary: '安全设置：各园区危化品车辆同时在园上限（空为不限），重复告警自动提报黑名单的次数与统计天数',
    input: labelled(z.object({}), safetySettingLabels),
    answer: safetySettingAnswer,
  }),
  save: defineCall({
    method: 'POST',
    path: '/safetySetting/save',
    permission: 'safetySetting:edit',
    summary: '保存安全设置：上限为空或1-10000的整数，次数2-20，统计天数7-365；任一项不合规返回400，且不保存任何一项',
    operation: '修改安全设置',
    input: safetySettingInput,
    answer: safetySettingAnswer,
  }),
};
