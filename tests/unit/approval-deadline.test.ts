import { describe, expect, it } from 'vitest';
import { AutoAction, deadlineAt, deadlineStep, deadlineText, DeadlineUnit, firstStepAt, NO_DEADLINE, overtimeFieldsOf, overtimeRule, type DeadlineRule } from '../../domain/approval-deadline';
import { DayKind } from '../../domain/work-calendar';

const H = 3_600_000;
const rule = (r: Partial<DeadlineRule>): DeadlineRule => ({ ...NO_DEADLINE, value: 2, ...r });

describe('a node deadline', () => {
  it('fires reminders at the deadline and each interval, then decides one interval after the last', () => {
    const r = rule({ remindTimes: 3, remindIntervalHours: 4, escalateRoleId: 7, autoAction: AutoAction.REJECT });
    const due = 1_000;
    expect(deadlineStep(r, 0, due)).toEqual({ remind: true, escalate: true, decide: AutoAction.NONE, nextAt: due + 4 * H });
    expect(deadlineStep(r, 1, due)).toEqual({ remind: true, escalate: false, decide: AutoAction.NONE, nextAt: due + 8 * H });
    expect(deadlineStep(r, 2, due)).toEqual({ remind: true, escalate: false, decide: AutoAction.NONE, nextAt: due + 12 * H });
    expect(deadlineStep(r, 3, due)).toEqual({ remind: false, escalate: false, decide: AutoAction.REJECT, nextAt: null });
  });

  it('decides at the deadline itself without reminders, and stops after the reminders without a decision', () => {
    expect(deadlineStep(overtimeRule(24), 0, 5)).toEqual({ remind: false, escalate: false, decide: AutoAction.APPROVE, nextAt: null });
    expect(deadlineStep(rule({ remindTimes: 2, remindIntervalHours: 1 }), 1, 0)).toEqual({ remind: true, escalate: false, decide: AutoAction.NONE, nextAt: null });
    // A deadline that does nothing is only counted overdue: the timer never wakes for it.
    expect(firstStepAt(rule({}), 10)).toBeNull();
    expect(firstStepAt(rule({ escalateRoleId: 3 }), 10)).toBe(10);
  });

  it('counts hours on the clock and working days on the calendar', () => {
    const now = Date.parse('2031-03-07T08:00:00Z'); // Friday 16:00 in the park
    expect(deadlineAt(rule({ value: 5 }), now, '2031-03-07 16:00:00', new Map())).toBe(now + 5 * H);
    const marks = new Map([['2031-03-10', DayKind.HOLIDAY]]);
    expect(deadlineAt(rule({ value: 1, unit: DeadlineUnit.WORKING_DAYS }), now, '2031-03-07 16:00:00', marks)).toBe(Date.parse('2031-03-11T08:00:00Z'));
    expect(deadlineAt(NO_DEADLINE, now, '2031-03-07 16:00:00', marks)).toBeNull();
  });

  it('reads as the spec’s overtime pair and in words', () => {
    expect(overtimeFieldsOf(overtimeRule(24))).toEqual({ overtime_auto_check: 1, overtime_hours: 24 });
    expect(overtimeFieldsOf(rule({ value: 2, unit: DeadlineUnit.WORKING_DAYS, autoAction: AutoAction.REJECT }))).toEqual({ overtime_auto_check: 0, overtime_hours: 48 });
    expect(deadlineText(rule({ value: 3, unit: DeadlineUnit.WORKING_DAYS, remindTimes: 2, remindIntervalHours: 4, escalateRoleId: 1, autoAction: AutoAction.REJECT }), () => '安全主管')).toBe(
      '3工作日内审批，到期提醒2次（每4小时），到期加入安全主管审批，提醒后自动驳回',
    );
    expect(deadlineText(NO_DEADLINE)).toBe('不限时');
  });
});
