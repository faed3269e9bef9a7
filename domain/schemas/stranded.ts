/**
 * Stranded alarms (spec 001 §2 "Stranded alarms", §3, §7; DESIGN.md §8): the
 * lists' filters, the handling form and their labels, shared by the screens
 * and the server.
 */
import { z } from 'zod';
import type { EnumOption } from '../enums';
import { choice01, labelled, optionalFilterInt, optionalFilterText, pageQuery, text, type FieldLabels } from './common';
import { filterTimeField } from './car-application';

export type StrandedKind = 'car' | 'person';

export const strandedLabels: FieldLabels = {
  id: '告警ID',
  license_plate: '车牌号',
  idcard: '证件号码',
  person_name: '姓名',
  visit_area: '来访园区',
  level_type: '告警类型',
  is_black: '黑名单',
  entry_time: '入园时间',
  /** The gate the subject came in by (the stay's entry device). */
  entry_gate_name: '入园闸口',
  alarm_time: '告警时间',
  exit_time: '出园时间',
  application_info: '预约信息',
  handle_user_id: '处理人',
  handle_user_name: '处理人',
  handled_remark: '处理说明',
  false_alarm: '是否误判',
  handle_time: '处理时间',
  phones: '短信接收号码',
  sms_send: '短信发送',
  sms_content: '短信内容',
  sms_error_response: '短信失败原因',
  begin_time: '开始时间',
  end_time: '结束时间',
  /** The handled state the lists show (handle_time set or not). */
  handled: '处理状态',
  /** 车辆滞留统计 (the export's headers). */
  stat_date: '统计日期',
  create_time: '告警时间',
};

/** What the handler's choice pre-fills (spec 001 §2): yes, a false alarm; no, the alarm was right. */
export const handledRemarkFor = (falseAlarm: number) => (falseAlarm === 1 ? '出现误判！' : '判断准确！');

export const strandedListQuery = labelled(
  pageQuery.extend({
    license_plate: optionalFilterText,
    person_name: optionalFilterText,
    visit_area: optionalFilterInt,
    begin_time: filterTimeField('begin'),
    end_time: filterTimeField('end'),
  }),
  strandedLabels,
);

/** The longest range 滞留统计 counts at once: a year of days, so the per-day answer stays small (DESIGN.md §11). */
export const STRANDED_STAT_MAX_DAYS = 366;

/** 滞留统计's filters: the alarm time range (default from 7 days ago to tomorrow, as the lists) and the park. */
export const strandedStatQuery = labelled(
  z.object({ visit_area: optionalFilterInt, begin_time: filterTimeField('begin'), end_time: filterTimeField('end') }).superRefine((q, ctx) => {
    if (!q.begin_time || !q.end_time) return;
    if (q.end_time < q.begin_time) ctx.addIssue({ code: 'custom', path: ['end_time'], message: '结束时间不能早于开始时间' });
    else if (Date.parse(q.end_time.slice(0, 10)) - Date.parse(q.begin_time.slice(0, 10)) >= STRANDED_STAT_MAX_DAYS * 86_400_000)
      ctx.addIssue({ code: 'custom', path: ['end_time'], message: `统计时间范围不能超过${STRANDED_STAT_MAX_DAYS}天` });
  }),
  strandedLabels,
);

/** 滞留统计's handling states: nobody yet, judged a false alarm, judged right (the handling form's two answers). */
export const strandedHandlingOptions: EnumOption[] = [
  { value: 0, label: '未处理', color: 'warning' },
  { value: 1, label: '误判', color: 'default' },
  { value: 2, label: '判断准确', color: 'success' },
];
export const handlingStateOf = (row: { handle_time?: string | null; false_alarm?: number | null }): number => (!row.handle_time ? 0 : row.false_alarm === 1 ? 1 : 2);

/** 滞留统计's answer: the alarms in the range counted per park day (by kind), per kind and level, per handling state, per entry gate. */
export interface StrandedStats {
  begin_time: string;
  end_time: string;
  total: number;
  days: Array<{ date: string; car: number; person: number }>;
  kinds: Array<{ kind: StrandedKind; level_type: number; total: number }>;
  states: Array<{ state: number; total: number }>;
  gates: Array<{ gate: string | null; total: number }>;
}

export const alarmDealBody = labelled(
  z.object({
    id: z.number({ error: '请提供告警ID' }).int({ error: '告警ID不正确' }).min(1, { error: '告警ID不正确' }).max(2147483647, { error: '告警ID不正确' }),
    false_alarm: choice01('请选择是否误判'),
    handled_remark: text('请输入处理说明').trim().min(1, { error: '请输入处理说明' }).max(200, { error: '处理说明不能超过200个字符' }),
  }),
  strandedLabels,
);
export type AlarmDeal = z.infer<typeof alarmDealBody>;

/** Handled or not: an alarm is handled once (its handle_time is set), never reopened. */
export const strandedHandledOptions: EnumOption[] = [
  { value: 0, label: '未处理', color: 'warning' },
  { value: 1, label: '已处理', color: 'success' },
];
export const isAlarmHandled = (row: { handle_time?: string | null }): boolean => !!row.handle_time;

/** sms_send: 1 when every holder's SMS was accepted by the provider (server/modules/stranded/notification.ts); values not shown by the spec. */
export const smsSendOptions: EnumOption[] = [
  { value: 1, label: '发送成功', color: 'success' },
  { value: 0, label: '发送失败', color: 'danger' },
];

/**
 * The visit as it was when the alarm was raised (application_info, stored by
 * server/modules/stranded/detection.ts): a vehicle appointment's or a person
 * appointment's fields; empty when the subject came in without an approved visit.
 */
export interface StrandedApplicationInfo {
  application_number?: string | null;
  license_plate?: string | null;
  applicant_name?: string | null;
  applicant_phone?: string | null;
  visitor_name?: string | null;
  visitor_phone?: string | null;
  visitor_company?: string | null;
  visitor_begin_time?: string | null;
  visitor_end_time?: string | null;
  visit_begin_time?: string | null;
  visit_end_time?: string | null;
  interviewee_name?: string | null;
  interviewee_phone?: string | null;
  interviewee_depart_name?: string | null;
  vehicle_type_name?: string | null;
  cargo_type?: number | null;
  cargo_name?: string | null;
}

/** A stranded alarm as the lists and the detail answer it (spec 001 §3). */
export interface StrandedAlarmRow {
  id: number;
  kind: StrandedKind;
  application_id: number | null;
  application_info: StrandedApplicationInfo;
  license_plate: string;
  idcard: string;
  person_name: string;
  visit_area: number | null;
  level_type: number;
  is_black: number;
  entry_time: string;
  entry_gate_name: string | null;
  alarm_time: string;
  exit_time: string | null;
  handle_user_id: number | null;
  handle_user_name: string | null;
  handled_remark: string | null;
  false_alarm: number | null;
  handle_time: string | null;
  phones: string | null;
  sms_send: number | null;
  sms_content: string | null;
  sms_error_response: string | null;
  create_time: string;
}

/** One alarm nobody has handled yet, as GET /stranded/open lists them for the home. */
export type OpenAlarm = Pick<StrandedAlarmRow, 'id' | 'kind' | 'license_plate' | 'person_name' | 'idcard' | 'is_black' | 'level_type' | 'visit_area' | 'entry_time' | 'alarm_time' | 'entry_gate_name'>;

/** One row of 车辆滞留统计 (spec 001 §3 "Stranded row"). */
export interface StrandedStatRow {
  id: number;
  stat_date: string;
  visit_area: number | null;
  license_plate: string;
  create_time: string;
}
