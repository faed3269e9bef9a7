import { z } from 'zod';
import { col, defineCall } from '../contract';
import { eachDay, isValidDate } from '../visit-rules';
import { DayKind, MAX_RANGE_DAYS } from '../work-calendar';
import { intField, labelled, optionalText, text, type FieldLabels } from './common';

/**
 * 工作日历 (系统设置 > 工作日历): the days that differ from the week, marked by
 * the administrator; the rule is domain/work-calendar.ts, stored by
 * server/modules/work-calendar.ts (docs/work-calendar.md).
 */

export const workCalendarLabels: FieldLabels = {
  year: '年份',
  start_date: '开始日期',
  end_date: '结束日期',
  day: '日期',
  kind: '类型',
  name: '名称',
  update_user_name: '修改人',
  update_time: '修改时间',
};

/** The years the calendar holds. */
export const CALENDAR_YEARS = { min: 2000, max: 2100 } as const;
export const NAME_MAX = 20;

const yearRule = `年份必须是${CALENDAR_YEARS.min}到${CALENDAR_YEARS.max}之间的整数`;
const dateField = (label: string) =>
  text(`请选择${label}`)
    .trim()
    .min(1, { error: `请选择${label}` })
    .refine(isValidDate, { error: `${label}格式不正确，应为YYYY-MM-DD` });

/** A range of days, both ends included, at most MAX_RANGE_DAYS long. */
const range = z
  .object({ start_date: dateField('开始日期'), end_date: dateField('结束日期') })
  .refine((r) => r.end_date >= r.start_date, { error: '结束日期不能早于开始日期', path: ['end_date'] })
  .refine((r) => r.end_date < r.start_date || eachDay(r.start_date, r.end_date).length <= MAX_RANGE_DAYS, { error: `一次最多设置${MAX_RANGE_DAYS}天`, path: ['end_date'] });

export const workCalendarYearInput = labelled(
  z.object({ year: intField(yearRule).pipe(z.number().int({ error: yearRule }).min(CALENDAR_YEARS.min, { error: yearRule }).max(CALENDAR_YEARS.max, { error: yearRule })) }),
  workCalendarLabels,
);

const kindRule = '类型必须是节假日（1）或调休上班（2）';
export const workCalendarSaveInput = labelled(
  range.and(
    z.object({
      kind: intField('请选择类型').pipe(z.union([z.literal(DayKind.HOLIDAY), z.literal(DayKind.WORKDAY)], { error: kindRule })),
      name: optionalText(NAME_MAX, `名称不能超过${NAME_MAX}个字符`),
    }),
  ),
  workCalendarLabels,
);
export type WorkCalendarSave = z.output<typeof workCalendarSaveInput>;

export const workCalendarClearInput = labelled(range, workCalendarLabels);

export const workCalendarDay = z.object({
  day: col.text,
  kind: col.int,
  name: col.text,
  update_user_name: col.text,
  update_time: col.time,
});
export type WorkCalendarDay = z.infer<typeof workCalendarDay>;

export const workCalendarYearAnswer = z.object({ year: col.int, days: z.array(workCalendarDay) });
const changedAnswer = z.object({ days: col.int });

export const workCalendarApi = {
  list: defineCall({
    method: 'GET',
    path: '/workCalendar/list',
    permission: 'menu:workCalendar',
    summary: '一年中设置过的日期：节假日（1，工作日休息）和调休上班（2，周末上班）；其余日期周一至周五为工作日',
    input: workCalendarYearInput,
    answer: workCalendarYearAnswer,
  }),
  save: defineCall({
    method: 'POST',
    path: '/workCalendar/save',
    permission: 'workCalendar:edit',
    summary: `把开始到结束日期（含，最多${MAX_RANGE_DAYS}天）设为节假日或调休上班；已设置的日期改为新的类型和名称`,
    operation: '设置工作日历',
    input: workCalendarSaveInput,
    answer: changedAnswer,
  }),
  clear: defineCall({
    method: 'POST',
    path: '/workCalendar/clear',
    permission: 'workCalendar:edit',
    summary: '把开始到结束日期（含）恢复为按星期计算（周一至周五工作）',
    operation: '恢复工作日历',
    input: workCalendarClearInput,
    answer: changedAnswer,
  }),
};
