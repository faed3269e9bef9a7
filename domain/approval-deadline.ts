import { addWorkingDays, type CalendarMarks } from './work-calendar';

/**
 * A node's deadline (审批时限, docs/approvals.md): how long its approvers
 * have, in hours or in working days of the 工作日历, and what happens once it
 * has passed. Pure, so the node form, the engine, the timer and the tests read
 * one rule.
 *
 * The deadline job fires a task's steps in order (step j at the deadline
 * plus j intervals):
 * - step 0, at the deadline: the first reminder, and the escalation;
 * - steps 1 … times-1: the other reminders, one per interval;
 * - step `times` (step 0 with no reminders): the automatic decision.
 * So a node that reminds and also decides gives its approvers one interval
 * after the last reminder before the system decides for them.
 */

export const DeadlineUnit = { HOURS: 1, WORKING_DAYS: 2 } as const;
export type DeadlineUnit = (typeof DeadlineUnit)[keyof typeof DeadlineUnit];
export const deadlineUnitLabels: Record<DeadlineUnit, string> = { [DeadlineUnit.HOURS]: '小时', [DeadlineUnit.WORKING_DAYS]: '工作日' };

export const AutoAction = { NONE: 0, APPROVE: 1, REJECT: 2 } as const;
export type AutoAction = (typeof AutoAction)[keyof typeof AutoAction];
export const autoActionLabels: Record<AutoAction, string> = { [AutoAction.NONE]: '不自动处理', [AutoAction.APPROVE]: '自动通过', [AutoAction.REJECT]: '自动驳回' };

/** The spec's overtime limit, 1–720 hours, is the limit of a deadline in hours too. */
export const DEADLINE_HOURS_MAX = 720;
export { MAX_DEADLINE_WORKING_DAYS as DEADLINE_WORKING_DAYS_MAX } from './work-calendar';
/** Yida's limit: at most 10 reminders. */
export const REMIND_TIMES_MAX = 10;
/** Reminders a week apart at the most. */
export const REMIND_INTERVAL_HOURS_MAX = 168;

export const AUTO_APPROVE_REMARK = '超时自动通过';
export const AUTO_REJECT_REMARK = '超时自动驳回';

export interface DeadlineRule {
  /** 0: the node has no deadline. */
  value: number;
  unit: DeadlineUnit;
  remindTimes: number;
  remindIntervalHours: number;
  /** The role whose holders become approvers too at the deadline; null for none. */
  escalateRoleId: number | null;
  autoAction: AutoAction;
}

export const NO_DEADLINE: DeadlineRule = { value: 0, unit: DeadlineUnit.HOURS, remindTimes: 0, remindIntervalHours: 0, escalateRoleId: null, autoAction: AutoAction.NONE };

/** The spec's 超时自动审核 after `hours`: a deadline in hours that approves. */
export const overtimeRule = (hours: number): DeadlineRule => ({ ...NO_DEADLINE, value: hours, autoAction: AutoAction.APPROVE });

export const hasDeadline = (r: DeadlineRule): boolean => r.value > 0;

/** How the spec's two overtime fields read a rule: on when it approves by itself, with its limit in hours (calendar hours of working days: 24 each). */
export function overtimeFieldsOf(r: DeadlineRule): { overtime_auto_check: number; overtime_hours: number } {
  const on = hasDeadline(r) && r.autoAction === AutoAction.APPROVE;
  return { overtime_auto_check: on ? 1 : 0, overtime_hours: hasDeadline(r) ? (r.unit === DeadlineUnit.HOURS ? r.value : r.value * 24) : 24 };
}

const wall = (t: string) => Date.parse(`${t.replace(' ', 'T')}Z`);

/**
 * The deadline, in epoch ms, of a task created at `nowMs` (park time `nowText`).
 * Working days count on the calendar's marks; the park's zone keeps no
 * daylight saving, so a difference of park times is exact.
 */
export function deadlineAt(r: DeadlineRule, nowMs: number, nowText: string, marks: CalendarMarks): number | null {
  if (!hasDeadline(r)) return null;
  if (r.unit === DeadlineUnit.HOURS) return nowMs + r.value * 3_600_000;
  return nowMs + (wall(addWorkingDays(nowText, r.value, marks)) - wall(nowText));
}

export interface DeadlineStep {
  remind: boolean;
  escalate: boolean;
  decide: AutoAction;
  /** When the step after this one is due (ms), or null: this was the last. */
  nextAt: number | null;
}

/** What step `step` of a task due at `dueMs` does, and when the next one is. */
export function deadlineStep(r: DeadlineRule, step: number, dueMs: number): DeadlineStep {
  const interval = r.remindIntervalHours * 3_600_000;
  const remind = step < r.remindTimes;
  const decide = step === r.remindTimes ? r.autoAction : AutoAction.NONE;
  const next = step + 1;
  const hasNext = next < r.remindTimes || (next === r.remindTimes && r.autoAction !== AutoAction.NONE);
  return { remind, escalate: step === 0 && r.escalateRoleId !== null, decide, nextAt: hasNext ? dueMs + next * interval : null };
}

/** The first step's time: the deadline, when the rule does anything there; null when the timer has nothing to do. */
export function firstStepAt(r: DeadlineRule, dueMs: number | null): number | null {
  if (dueMs === null) return null;
  return r.remindTimes > 0 || r.escalateRoleId !== null || r.autoAction !== AutoAction.NONE ? dueMs : null;
}

/** The rule in words, for the node list and the process view: 24小时内审批，到期提醒3次（每4小时），升级至安全主管，提醒后自动驳回. */
export function deadlineText(r: DeadlineRule, roleName?: (id: number) => string): string {
  if (!hasDeadline(r)) return '不限时';
  const parts = [`${r.value}${deadlineUnitLabels[r.unit]}内审批`];
  if (r.remindTimes > 0) parts.push(`到期提醒${r.remindTimes}次（每${r.remindIntervalHours}小时）`);
  if (r.escalateRoleId !== null) parts.push(`到期加入${roleName?.(r.escalateRoleId) || '指定角色'}审批`);
  if (r.autoAction !== AutoAction.NONE) parts.push(`${r.remindTimes > 0 ? '提醒后' : '到期'}${autoActionLabels[r.autoAction]}`);
  return parts.join('，');
}

/** The reason an automatic decision names in the process view. */
export function autoDecisionRule(r: DeadlineRule): string {
  const limit = `${r.value}${deadlineUnitLabels[r.unit]}`;
  const after = r.remindTimes > 0 ? `，已提醒${r.remindTimes}次` : '';
  return `审批时限${limit}已到${after}，${autoActionLabels[r.autoAction]}`;
}
