/**
 * Stranded alarms (spec 001 §2 "Stranded alarms", §3, §7; DESIGN.md §8): the
 * lists' filters, the handling form and their labels, shared by the screens
 * and the server.
 */
import { z } from 'zod';
import { shellWire } from '../shell-calls';
import { binary, col, defineCall, defineResourceContract, none, pageOf } from '../contract';
import type { EnumOption } from '../enums';
import type { PermissionCode } from '../permissions';
import { choice01, labelled, optionalFilterInt, optionalFilterText, pageQuery, text, type FieldLabels } from './common';
import { filterTimeField } from './car-application';

// The kinds' differences are zod-free, so the home's open alarms load without the schemas.
import { ALARM_LISTS, AlarmLevel, alarmListOf, alarmLists, routeDeviationAlarms, STRANDED_KINDS, strandedKinds, type AlarmList, type StrandedKind, type StrandedKindDecl } from '../stranded-kinds';
export { ALARM_LISTS, AlarmLevel, alarmListOf, alarmLists, routeDeviationAlarms, STRANDED_KINDS, strandedKinds, type AlarmList, type StrandedKind, type StrandedKindDecl };

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
  /** 偏离路线告警: the published route the visit was to follow, and each crossing off it. */
  route_name: '行车路线',
  crossings: '偏离记录',
  deviation_gate: '偏离闸口',
  deviation_count: '偏离次数',
  capture_time: '过闸时间',
  gate: '闸口',
  direction: '进出方向',
  open_result: '开闸结果',
  record_id: '过闸记录',
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
export const strandedStats = z.object({
  begin_time: col.time,
  end_time: col.time,
  total: col.int,
  days: z.array(z.object({ date: col.text, car: col.int, person: col.int })),
  kinds: z.array(z.object({ kind: z.enum(STRANDED_KINDS), level_type: col.int, total: col.int })),
  states: z.array(z.object({ state: col.int, total: col.int })),
  gates: z.array(z.object({ gate: col.text.nullable(), total: col.int })),
});
export type StrandedStats = z.infer<typeof strandedStats>;

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
const infoText = col.text.nullable().optional();
export const strandedApplicationInfo = z.object({
  application_number: infoText,
  license_plate: infoText,
  applicant_name: infoText,
  applicant_phone: infoText,
  visitor_name: infoText,
  visitor_phone: infoText,
  visitor_company: infoText,
  visitor_begin_time: infoText,
  visitor_end_time: infoText,
  visit_begin_time: infoText,
  visit_end_time: infoText,
  interviewee_name: infoText,
  interviewee_phone: infoText,
  interviewee_depart_name: infoText,
  vehicle_type_name: infoText,
  cargo_type: col.int.nullable().optional(),
  cargo_name: infoText,
  /** A route deviation's: the published route of the visited department when the alarm was raised. */
  route_name: infoText,
});
export type StrandedApplicationInfo = z.infer<typeof strandedApplicationInfo>;

/**
 * One crossing off the route, as a route-deviation alarm keeps it: the gate
 * record, the gate (its name when crossed), when and which way, and whether
 * the gate opened.
 */
export const deviationCrossing = z.object({
  record_id: col.id,
  device_id: col.id,
  gate: col.text,
  direction: col.int,
  open_result: col.int,
  capture_time: col.time,
});
export type DeviationCrossing = z.infer<typeof deviationCrossing>;

/** A stranded alarm as the lists and the detail answer it (spec 001 §3). */
export const strandedAlarmRow = z.object({
  id: col.id,
  kind: z.enum(STRANDED_KINDS),
  application_id: col.id.nullable(),
  application_info: strandedApplicationInfo,
  license_plate: col.text,
  idcard: col.text,
  person_name: col.text,
  visit_area: col.int.nullable(),
  level_type: col.int,
  is_black: col.flag,
  entry_time: col.time,
  /** The gate the subject came in by (the stay's entry device); null when that device is unknown. */
  entry_gate_name: col.text.nullable(),
  alarm_time: col.time,
  exit_time: col.time.nullable(),
  handle_user_id: col.id.nullable(),
  handle_user_name: col.text.nullable(),
  handled_remark: col.text,
  false_alarm: col.int.nullable(),
  handle_time: col.time.nullable(),
  phones: col.text,
  sms_send: col.int,
  sms_content: col.text,
  sms_error_response: col.text.nullable(),
  create_time: col.time,
  /** A route deviation's crossings off the route, by capture time; empty for every other alarm. */
  crossings: z.array(deviationCrossing),
});
export type StrandedAlarmRow = z.infer<typeof strandedAlarmRow>;

/** One alarm nobody has handled yet, as the home's 待处理告警 lists them. */
export const openAlarm = strandedAlarmRow.pick({
  id: true,
  kind: true,
  license_plate: true,
  person_name: true,
  idcard: true,
  is_black: true,
  level_type: true,
  visit_area: true,
  entry_time: true,
  alarm_time: true,
  entry_gate_name: true,
  crossings: true,
});
export type OpenAlarm = z.infer<typeof openAlarm>;

/** One row of 车辆滞留统计 (spec 001 §3 "Stranded row"). */
export const strandedStatRow = z.object({ id: col.id, stat_date: col.text, visit_area: col.int.nullable(), license_plate: col.text, create_time: col.time });
export type StrandedStatRow = z.infer<typeof strandedStatRow>;

/** One list's calls (spec 001 §7): its list and GET detail (read only: detection raises alarms), and the lead's handling. */
export function strandedApiOf(k: StrandedKindDecl) {
  return {
    ...defineResourceContract({
      noun: k.noun,
      key: 'id',
      labels: strandedLabels,
      row: strandedAlarmRow,
      paths: { list: `${k.base}/list`, detail: { url: `${k.base}/detail`, method: 'GET' } },
      permissions: { list: k.list, detail: k.list },
      schemas: { list: strandedListQuery },
    }),
    // Handling is the security lead's (spec 001 §2), offline too: the outbox sends it with an Idempotency-Key.
    alarmDeal: defineCall({
      method: 'POST',
      path: `${k.base}/alarmDeal`,
      permission: k.deal,
      summary: `处理${k.noun}（是否误判、处理说明）`,
      operation: `处理${k.noun}`,
      input: alarmDealBody,
      answer: none,
    }),
  };
}

/** The two stranded lists, and 偏离路线告警 beside them by the same calls under /car/routeDeviation (docs/decisions.md). */
export const strandedApi: Record<AlarmList, ReturnType<typeof strandedApiOf>> = {
  car: strandedApiOf(strandedKinds.car),
  person: strandedApiOf(strandedKinds.person),
  deviation: strandedApiOf(routeDeviationAlarms),
};

/** 车辆滞留统计 (spec 001 §2, §7) and 滞留统计 (issue 24 item 6); the vehicle list's holders export it. */
export const strandedStatApi = {
  list: defineCall({ method: 'POST', path: '/stat_car_stranded/list', permission: strandedKinds.car.list, summary: '车辆滞留统计（分页）', input: strandedListQuery, answer: pageOf(strandedStatRow) }),
  export: defineCall({
    method: 'POST',
    path: '/stat_car_stranded/export',
    permission: strandedKinds.car.list,
    summary: '导出车辆滞留统计（.xlsx，筛选同列表）',
    operation: '导出车辆滞留统计',
    input: strandedListQuery,
    answer: binary('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
  }),
  // 'role' at the guard: either kind's list code is enough, and the counts cover the kinds the caller may list.
  summary: defineCall({
    method: 'POST',
    path: '/stat_car_stranded/summary',
    permission: 'role',
    summary: '滞留统计（按日、类型、处理状态、入园闸口计数）',
    input: strandedStatQuery,
    answer: strandedStats,
  }),
  // The alarms nobody has handled yet, of the kinds the caller may list: the home's 待处理告警 (issue 24 item 4).
  open: defineCall({
    ...shellWire.openAlarms,
    permission: 'role',
    summary: '待处理告警（滞留与偏离路线，最新5条与总数）',
    input: z.object({}),
    answer: z.object({ total: col.int, list: z.array(openAlarm) }),
  }),
};
