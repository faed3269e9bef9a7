/**
 * Stranded alarms (spec 001 §2 "Stranded alarms", §3, §7; DESIGN.md §8): the
 * lists' filters, the handling form and their labels, shared by the screens
 * and the server.
 */
import { z } from 'zod';
import { choice01, labelled, optionalFilterInt, optionalFilterText, pageQuery, type FieldLabels } from './common';
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

export const alarmDealBody = labelled(
  z.object({
    id: z.number({ error: '请提供告警ID' }).int({ error: '告警ID不正确' }).min(1, { error: '告警ID不正确' }).max(2147483647, { error: '告警ID不正确' }),
    false_alarm: choice01('请选择是否误判'),
    handled_remark: z.string({ error: '请输入处理说明' }).trim().min(1, { error: '请输入处理说明' }).max(200, { error: '处理说明不能超过200个字符' }),
  }),
  strandedLabels,
);
