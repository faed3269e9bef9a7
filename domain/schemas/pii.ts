import { z } from 'zod';
import { binary, defineCall } from '../contract';
import { isMainlandIdNumber } from '../identity';
import { fieldLabels, idField, labelled, text, type FieldLabels } from './common';

/**
 * 个人信息保护 (系统设置 > 个人信息保护, docs/personal-data.md): one masked
 * field of one record revealed, with a reason, to a holder of pii:view; and
 * a person's data on request (PIPL arts. 45 and 47): everything held about
 * one ID number as an xlsx, or anonymised now. Each call is in the operation
 * log with its reason.
 */

/**
 * The records whose masked fields can be revealed, and which fields: the ID
 * and document numbers and phones each holds. A car's persons are their own
 * records (car_person), read through their application.
 */
export const revealableFields = {
  car_application: ['applicant_idcard', 'applicant_phone', 'interviewee_phone'],
  car_person: ['id_card', 'phone'],
  person_application: ['visitor_idcard', 'visitor_phone', 'interviewee_phone'],
  person_black_white_list: ['idcard'],
  vehicle_registration: ['phone'],
  transport_list: [
    'contact_phone',
    'driver_phone',
    'driver_qualification_certificate',
    'supercargo_phone',
    'supercargo_qualification_certificate',
    'shipper_phone',
    'recipient_phone',
    'carrier_phone',
    'loader_phone',
  ],
  gate_record_person: ['idcard'],
  user: ['phone'],
} as const;
export type RevealRecord = keyof typeof revealableFields;
export const revealRecords = Object.keys(revealableFields) as RevealRecord[];

/** A reason is what the log keeps: long enough to say something, short enough to stay a reason. */
export const REASON_MIN = 2;
export const REASON_MAX = 200;

export const piiLabels: FieldLabels = {
  record: '记录类型',
  id: '记录ID',
  field: '字段',
  reason: '查看原因',
  idcard: '证件号码',
  value: '完整内容',
};

const reason = (what: string) =>
  text(`请填写${what}`)
    .trim()
    .min(1, { error: `请填写${what}` })
    .min(REASON_MIN, { error: `${what}至少${REASON_MIN}个字` })
    .max(REASON_MAX, { error: `${what}不能超过${REASON_MAX}个字` });

export const revealInput = labelled(
  z
    .object({
      record: z.enum(revealRecords as [RevealRecord, ...RevealRecord[]], { error: '记录类型不正确' }),
      id: idField('记录ID'),
      field: text('请指定要查看的字段').trim().min(1, { error: '请指定要查看的字段' }).max(64, { error: '字段不正确' }),
      reason: reason('查看原因'),
    })
    .superRefine((v, ctx) => {
      if (!(revealableFields[v.record] as readonly string[]).includes(v.field)) ctx.addIssue({ code: 'custom', path: ['field'], message: '该字段不是可查看的个人信息' });
    }),
  piiLabels,
);

/** The ID number a request about a person names: an 18-character resident ID, or another document's number as typed. */
const subjectIdcard = text('请输入证件号码')
  .trim()
  .toUpperCase()
  .min(1, { error: '请输入证件号码' })
  .min(5, { error: '证件号码格式不正确' })
  .max(30, { error: '证件号码格式不正确' })
  .refine((v) => !/^\d{17}[\dX]$/.test(v) || isMainlandIdNumber(v), { error: '身份证号校验码不正确，请核对号码' })
  .refine((v) => /^[A-Z0-9]+$/.test(v), { error: '证件号码只能包含字母和数字' });

/**
 * An export's query with full_reason beside its filters: given, the export
 * holds personal data as stored, which takes pii:view; the export's
 * operation-log entry keeps the reason with the filters.
 */
export const withFullExportReason = <T extends z.ZodObject>(query: T) =>
  labelled(query.extend({ full_reason: reason('完整导出原因').optional() }), { ...(fieldLabels.get(query)?.labels ?? {}), full_reason: '完整导出原因' });

export const subjectInput = labelled(z.object({ idcard: subjectIdcard, reason: reason('原因') }), { ...piiLabels, reason: '原因' });

/** What anonymising a person changed, per kind of record. */
export const anonymiseAnswer = z.object({
  idcard_masked: z.string(),
  /** Rows anonymised, by record type (its Chinese name). */
  counts: z.array(z.object({ record: z.string(), rows: z.number().int() })),
  /** Rows a legal minimum keeps whole for now, by record type, with the rule. */
  kept: z.array(z.object({ record: z.string(), rows: z.number().int(), rule: z.string() })),
});

export const piiApi = {
  reveal: defineCall({
    method: 'POST',
    path: '/pii/reveal',
    permission: 'pii:view',
    summary: '查看一条记录中一个脱敏字段的完整内容（须填写原因，记入操作日志）',
    operation: '查看个人信息',
    input: revealInput,
    answer: z.object({ value: z.string() }),
  }),
  subjectExport: defineCall({
    method: 'POST',
    path: '/pii/subject/export',
    permission: 'pii:subject',
    summary: '导出某人的全部个人信息（.xlsx：预约、过闸、名单、导入与标记；须填写原因，记入操作日志）',
    operation: '导出个人信息',
    input: subjectInput,
    answer: binary('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
  }),
  subjectAnonymise: defineCall({
    method: 'POST',
    path: '/pii/subject/anonymise',
    permission: 'pii:subject',
    summary: '立即匿名化某人的个人信息（法定最短保存期内的记录除外；须填写原因，记入操作日志）',
    operation: '删除个人信息',
    input: subjectInput,
    answer: anonymiseAnswer,
  }),
};
