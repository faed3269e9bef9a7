import { addDays, dateOf } from './visit-rules';

/**
 * How long each class of personal data is kept (PIPL arts. 6, 19, 47;
 * docs/retention.md): its default, the floor a law sets where one does, and
 * the cut-off a run deletes or anonymises before. Pure, so the screen, the
 * server and the tests read the same rules; the SQL each class runs is in
 * server/modules/retention/classes.ts.
 */

export const RETENTION_CLASSES = ['photos', 'visitor_fields', 'gate_images', 'gate_rows', 'waybills', 'logs'] as const;
export type RetentionClass = (typeof RETENTION_CLASSES)[number];

export interface RetentionClassDef {
  key: RetentionClass;
  /** The class's name on the screen and in proofs. */
  label: string;
  /** The days field's name: what every message about the field starts with. */
  fieldLabel: string;
  /** What the class holds. */
  scope: string;
  /** Where its days are counted from: 计算起点. */
  clock: string;
  /** What a run does to a row past its time. */
  action: string;
  defaultDays: number;
  /** The least a law allows, with the law; absent where none sets one. */
  minimum?: { days: number; rule: string; short: string };
}

/** No class is kept longer than 10 years: a bound on input, not a rule of law. */
export const MAX_RETENTION_DAYS = 3650;

export const retentionClasses: Record<RetentionClass, RetentionClassDef> = {
  photos: {
    key: 'photos',
    label: '证件与人脸照片',
    fieldLabel: '证件与人脸照片保留期限',
    scope: '预约中访客、申请人和随车人员的人脸与证件照片，人员黑白名单照片，人员批量导入的压缩包',
    clock: '来访结束时（名单为失效或删除时，导入为最后一次处理时）',
    action: '删除照片文件，记录保留',
    defaultDays: 30,
  },
  visitor_fields: {
    key: 'visitor_fields',
    label: '访客个人信息',
    fieldLabel: '访客个人信息保留期限',
    scope: '预约、人员黑白名单和应急清点名单中访客、申请人、司机和随车人员的姓名、证件号码、手机号和住址',
    clock: '来访结束时（名单为失效或删除时，应急清点名单为清点结束时）',
    action: '匿名化：姓名只留姓氏，证件号码与手机号打码；记录和统计保留',
    defaultDays: 180,
  },
  gate_images: {
    key: 'gate_images',
    label: '过闸图片',
    fieldLabel: '过闸图片保留期限',
    scope: '车辆过闸的车牌图与车辆图，人员过闸的抓拍照片',
    clock: '过闸时',
    action: '删除图片文件，过闸记录保留',
    defaultDays: 90,
  },
  gate_rows: {
    key: 'gate_rows',
    label: '过闸记录',
    fieldLabel: '过闸记录保留期限',
    scope: '车辆与人员过闸记录',
    clock: '过闸时',
    action: '删除记录；统计报表按日汇总，不受影响',
    defaultDays: 365,
    minimum: { days: 180, rule: '《视频安防监控系统工程设计规范》GB 50396', short: 'GB 50396' },
  },
  waybills: {
    key: 'waybills',
    label: '运单',
    fieldLabel: '运单保留期限',
    scope: '危险货物运单（含司机、押运员、托运人等人员信息和附件）；审核中的运单不删除',
    clock: '填报时（发货日期更晚的为发货日期）',
    action: '删除运单及其附件',
    // 12 months are at most 366 days: counted in days, a leap year still keeps them 12 months.
    defaultDays: 366,
    minimum: { days: 366, rule: '《危险货物道路运输安全管理办法》（交通运输部令 2019 年第 29 号）：运单保存期限不少于 12 个月', short: '交通运输部令 2019 年第 29 号：不少于 12 个月' },
  },
  logs: {
    key: 'logs',
    label: '登录与操作日志',
    fieldLabel: '日志保留期限',
    scope: '登录日志与操作日志',
    clock: '记录时',
    action: '删除日志',
    // Three years of 365 days and the leap day one of them holds.
    defaultDays: 1096,
    // Six months are at most 184 days (two 31-day months in a row, twice).
    minimum: { days: 184, rule: '《网络安全法》第二十一条：网络日志留存不少于六个月', short: '网络安全法第二十一条：不少于六个月' },
  },
};

/** The refusal of a value under a class's minimum, naming the field and the rule: 过闸记录保留期限不能少于 180 天（GB 50396）. */
export const minimumMessage = (c: RetentionClassDef): string => (c.minimum ? `${c.fieldLabel}不能少于 ${c.minimum.days} 天（${c.minimum.short}）` : `${c.fieldLabel}至少为 1 天`);
export const maximumMessage = (c: RetentionClassDef): string => `${c.fieldLabel}不能超过 ${MAX_RETENTION_DAYS} 天（10 年）`;
export const wholeDaysMessage = (c: RetentionClassDef): string => `${c.fieldLabel}必须是整数天数`;

/** The least number of days a class may be set to. */
export const minimumDays = (c: RetentionClassDef): number => c.minimum?.days ?? 1;

/** Why `days` cannot be the class's period, or null when it can. */
export function daysProblem(c: RetentionClassDef, days: unknown): string | null {
  if (typeof days !== 'number' || !Number.isInteger(days)) return wholeDaysMessage(c);
  if (days < minimumDays(c)) return minimumMessage(c);
  if (days > MAX_RETENTION_DAYS) return maximumMessage(c);
  return null;
}

/**
 * The park time before which a class's data is past its period at `parkNow`
 * ('YYYY-MM-DD HH:mm:ss'): the same clock time `days` calendar days earlier,
 * so a run at 03:30 with 30 days takes what ended before 03:30 thirty days ago.
 */
export const retentionCutoff = (parkNow: string, days: number): string => `${addDays(dateOf(parkNow), -days)}${parkNow.slice(10)}`;

/** Days in the words a person reads beside the field: 30 天, 约 6 个月, 约 3 年. */
export function daysInWords(days: number): string {
  if (days < 60) return `${days} 天`;
  const months = Math.round(days / 30.44);
  return months % 12 === 0 ? `约 ${months / 12} 年` : `约 ${months} 个月`;
}

/** How a run was started. */
export const RETENTION_TRIGGERS = ['nightly', 'manual'] as const;
export type RetentionTrigger = (typeof RETENTION_TRIGGERS)[number];
export const retentionTriggerLabels: Record<RetentionTrigger, string> = { nightly: '每晚自动清理', manual: '立即清理' };
