import { z } from 'zod';
import { binary, col, defineCall, pageOf } from '../contract';
import { idField, intField, labelled, optionalFilterInt, pageQuery, requiredText, text, type FieldLabels } from './common';

/**
 * 应急清点, the emergency headcount (docs/muster.md): a lead starts one for
 * a park or both, the list is everyone and every vehicle inside at that
 * moment, marshals mark people safe at assembly points, the board counts
 * accounted and unaccounted per enterprise, and the end leaves a report.
 */

export const MUSTER_MARK_METHODS = ['pass', 'idcard', 'list', 'plate'] as const;
export type MusterMarkMethod = (typeof MUSTER_MARK_METHODS)[number];
export const musterMethodLabels: Record<MusterMarkMethod, string> = { pass: '扫通行码', idcard: '证件号码', list: '名单勾选', plate: '车牌' };

/** Where a row of the list came from: an approved visit, the white list, a stay with neither, or a person found at an assembly point who was not on it. */
export const MUSTER_SOURCES = ['visit', 'white', 'none', 'extra'] as const;
export type MusterSource = (typeof MUSTER_SOURCES)[number];
export const musterSourceLabels: Record<MusterSource, string> = { visit: '预约访客', white: '白名单', none: '无预约记录', extra: '名单外到场' };

/** The group of white-list people and of stays without a visit: they visited no enterprise. */
export const WHITE_GROUP = '白名单人员';

/** How a mark's text names a person: the name and the masked ID number; retention puts the anonymised name in (docs/retention.md). */
export const personInMark = (name: string, maskedId: string) => `${name || '人员'}（${maskedId}）`;
export const NO_VISIT_GROUP = '未关联预约';

export const MAX_MUSTER_MESSAGE = 200;
export const MAX_MARK_PLACE = 60;

export const musterLabels: FieldLabels = {
  visit_area: '清点范围',
  drill: '是否演练',
  message: '通知内容',
  muster_id: '清点',
  method: '标记方式',
  pass: '通行码',
  idcard: '证件号码',
  subject_id: '人员',
  license_plate: '车牌号',
  place: '集合点',
  marked_at: '标记时间',
  id: '清点',
};

const TIME_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

export const musterStartInput = labelled(
  z.object({
    visit_area: intField('请选择清点范围').pipe(z.union([z.literal(1), z.literal(2), z.literal(3)], { error: '请选择清点范围（化工区、港区或化工区和港区）' })),
    drill: z.preprocess(
      (v) => (v === undefined || v === null || v === '' ? 0 : v === true ? 1 : v === false ? 0 : typeof v === 'string' ? Number(v) : v),
      z.union([z.literal(0), z.literal(1)], { error: '是否演练只能是0或1' }),
    ),
    message: requiredText('请输入通知内容', MAX_MUSTER_MESSAGE, `通知内容不能超过${MAX_MUSTER_MESSAGE}个字符`),
  }),
  musterLabels,
);
export type MusterStartInput = z.input<typeof musterStartInput>;

/**
 * One mark: which muster, how the person was identified (a pass QR, an ID
 * number typed or scanned, a name picked from the list, a plate), where
 * (the assembly point) and, for a mark made offline, when it was made.
 */
export const musterMarkInput = labelled(
  z
    .object({
      muster_id: idField('清点'),
      method: z.enum(MUSTER_MARK_METHODS, { error: '标记方式只能是扫通行码、证件号码、名单勾选或车牌' }),
      pass: text().trim().max(2000, { error: '通行码不能超过2000个字符' }).optional(),
      idcard: text().trim().max(30, { error: '证件号码不能超过30个字符' }).optional(),
      subject_id: intField('人员不正确').optional(),
      license_plate: text().trim().max(12, { error: '车牌号不能超过12个字符' }).optional(),
      place: requiredText('请输入集合点', MAX_MARK_PLACE, `集合点不能超过${MAX_MARK_PLACE}个字符`),
      marked_at: text().trim().regex(TIME_PATTERN, { error: '标记时间格式应为 YYYY-MM-DD HH:mm:ss' }).optional(),
    })
    .superRefine((v, ctx) => {
      const need: Record<MusterMarkMethod, [keyof typeof v, string]> = {
        pass: ['pass', '请扫描通行码'],
        idcard: ['idcard', '请输入证件号码'],
        list: ['subject_id', '请从名单中选择人员'],
        plate: ['license_plate', '请输入车牌号'],
      };
      const [field, message] = need[v.method];
      const value = v[field];
      if (value === undefined || value === '') ctx.addIssue({ code: 'custom', path: [field], message });
    }),
  musterLabels,
);
export type MusterMarkInput = z.input<typeof musterMarkInput>;

export const musterIdInput = labelled(z.object({ muster_id: idField('清点') }), musterLabels);
export const musterReportInput = labelled(z.object({ id: idField('清点') }), musterLabels);

export const musterPageQuery = labelled(pageQuery.extend({ visit_area: optionalFilterInt, drill: optionalFilterInt }), musterLabels);

export const musterRow = z.object({
  id: col.id,
  visit_area: col.int,
  drill: col.flag,
  message: col.text,
  started_at: col.time,
  started_by_name: col.text,
  ended_at: col.time.nullable(),
  ended_by_name: col.text.nullable(),
  total: col.int,
  accounted: col.int,
});
export type MusterRow = z.infer<typeof musterRow>;

/** One person or vehicle of the list. A person's `subject` is their ID number masked; a vehicle's is its plate. */
export const musterSubject = z.object({
  id: col.id,
  kind: z.enum(['person', 'car']),
  subject: col.text,
  name: col.text,
  /** In clear while the muster runs, to those who hold its codes: an emergency call (docs/muster.md). */
  phone: col.text,
  enterprise: col.text,
  gate: col.text,
  entry_time: col.time.nullable(),
  source: z.enum(MUSTER_SOURCES),
  application_number: col.text,
  marked_at: col.time.nullable(),
  marked_by_name: col.text.nullable(),
  mark_place: col.text.nullable(),
  mark_method: z.enum(MUSTER_MARK_METHODS).nullable(),
});
export type MusterSubject = z.infer<typeof musterSubject>;

/** The board's counts of one enterprise (or of the white list, or of stays without a visit). */
export const musterGroup = z.object({
  enterprise: col.text,
  persons: col.int,
  persons_accounted: col.int,
  vehicles: col.int,
  vehicles_accounted: col.int,
});
export type MusterGroup = z.infer<typeof musterGroup>;

export const musterGate = z.object({ gate: col.text, persons: col.int, vehicles: col.int, unaccounted: col.int });

/** The muster under way with its board, or none. */
export const musterCurrentAnswer = z.object({
  muster: musterRow.nullable(),
  groups: z.array(musterGroup),
  gates: z.array(musterGate),
  /** SMS queued to the people inside at the start (those with a mobile number). */
  sms_count: col.int,
});
export type MusterCurrentAnswer = z.infer<typeof musterCurrentAnswer>;

export const musterSubjectsAnswer = z.object({ muster_id: col.id, running: z.boolean(), subjects: z.array(musterSubject) });
export type MusterSubjectsAnswer = z.infer<typeof musterSubjectsAnswer>;

export const musterMarkAnswer = z.object({
  subject: musterSubject,
  /** True when this person had already been marked: the first mark stands. */
  already: z.boolean(),
});
export type MusterMarkAnswer = z.infer<typeof musterMarkAnswer>;

export const musterEvent = z.object({
  id: col.id,
  type: z.enum(['start', 'mark', 'end']),
  at: col.time,
  user_name: col.text,
  place: col.text,
  text: col.text,
});
export type MusterEvent = z.infer<typeof musterEvent>;

/** The report: the muster, its timeline, and who was still unaccounted when it ended. */
export const musterReportAnswer = z.object({
  muster: musterRow,
  events: z.array(musterEvent),
  unaccounted: z.array(musterSubject),
  groups: z.array(musterGroup),
});
export type MusterReportAnswer = z.infer<typeof musterReportAnswer>;

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The most people and vehicles one muster lists: far beyond a park's day, and what bounds its snapshot and its list's answer. */
export const MAX_MUSTER_SUBJECTS = 100_000;

export const musterApi = {
  start: defineCall({
    method: 'POST',
    path: '/muster/start',
    permission: 'muster:start',
    summary: '发起应急清点：列出范围内当前在园的人员和车辆，并通知其中有手机号的人；已有清点进行中时返回409',
    operation: '发起应急清点',
    input: musterStartInput,
    answer: musterCurrentAnswer,
  }),
  current: defineCall({
    method: 'GET',
    path: '/muster/current',
    permission: 'menu:muster',
    summary: '进行中的应急清点及各企业已清点、未清点人数；没有时 muster 为 null',
    input: labelled(z.object({}), musterLabels),
    answer: musterCurrentAnswer,
  }),
  subjects: defineCall({
    method: 'GET',
    path: '/muster/subjects',
    permission: 'menu:muster',
    summary: '一次清点的全部人员和车辆（标记时离线可用的名单）',
    input: musterIdInput,
    answer: musterSubjectsAnswer,
  }),
  mark: defineCall({
    method: 'POST',
    path: '/muster/mark',
    permission: 'muster:mark',
    summary: '标记人员或车辆已到集合点：扫通行码、证件号码、名单勾选或车牌；重复标记时保留第一次',
    operation: '应急清点标记',
    input: musterMarkInput,
    answer: musterMarkAnswer,
  }),
  end: defineCall({
    method: 'POST',
    path: '/muster/end',
    permission: 'muster:start',
    summary: '结束应急清点，返回报告',
    operation: '结束应急清点',
    input: musterIdInput,
    answer: musterReportAnswer,
  }),
  page: defineCall({
    method: 'POST',
    path: '/muster/page',
    permission: 'menu:muster',
    summary: '应急清点记录（分页）',
    input: musterPageQuery,
    answer: pageOf(musterRow),
  }),
  report: defineCall({
    method: 'GET',
    path: '/muster/report',
    permission: 'menu:muster',
    summary: '应急清点报告：时间线和结束时未清点的人员',
    input: musterReportInput,
    answer: musterReportAnswer,
  }),
  reportExport: defineCall({
    method: 'GET',
    path: '/muster/reportExport',
    permission: 'menu:muster',
    summary: '导出应急清点报告（.xlsx）',
    input: musterReportInput,
    answer: binary(XLSX),
  }),
};
