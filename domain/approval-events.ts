/**
 * What happens to an approval besides decisions (docs/approvals.md), as the
 * process view names it: each is a process_event row under its node, by a
 * person or by the system.
 */

export const ProcessEventKind = {
  /** The deadline passed and the approvers were reminded. */
  REMIND: 'remind',
  /** The deadline passed and the holders of the node's escalation role joined. */
  ESCALATE: 'escalate',
  /** The system decided the node's task at its deadline. */
  AUTO_DECIDE: 'auto',
  /** The applicant urged the current approvers. */
  URGE: 'urge',
  /** An approver handed their task to someone else. */
  TRANSFER: 'transfer',
  /** An approver added a signer. */
  ADD_SIGNER: 'add_signer',
  /** The node passed by itself: its approver already approved the node before. */
  SKIP: 'skip',
  /** The node's decision was copied to people who may read the application. */
  COPY: 'copy',
} as const;
export type ProcessEventKind = (typeof ProcessEventKind)[keyof typeof ProcessEventKind];

export const processEventLabels: Record<ProcessEventKind, string> = {
  remind: '超时提醒',
  escalate: '超时升级',
  auto: '自动处理',
  urge: '催办',
  transfer: '转交',
  add_signer: '加签',
  skip: '自动跳过',
  copy: '抄送',
};

/** How a task came to its approver, beyond the node's own candidates. */
export const TaskOrigin = { NODE: 0, ESCALATED: 1, TRANSFERRED: 2, ADDED_BEFORE: 3, ADDED_AFTER: 4, ADDED_ALONGSIDE: 5 } as const;
export type TaskOrigin = (typeof TaskOrigin)[keyof typeof TaskOrigin];

/** The remark of a node passed by itself because its approver approved the node before (相同审核人自动通过). */
export const SKIP_REMARK = '同一审核人已审核，自动通过';

/** The actor of a step nobody took. */
export const SYSTEM_ACTOR = '系统';

/** 催办: at most once per this many minutes per application … */
export const URGE_EVERY_MINUTES = 30;
/** … and this many times per park day. */
export const URGE_PER_DAY = 3;

/**
 * Whether the applicant may urge now, given the application's urges so far:
 * `lastAt` the latest (ms, null for none) and `today` how many fell on the
 * current park day. Answers the refusal in words, naming when the next urge
 * is allowed, or null.
 */
export function urgeRefusal(lastAt: number | null, today: number, nowMs: number, clockOf: (ms: number) => string): string | null {
  if (today >= URGE_PER_DAY) return `每天最多催办${URGE_PER_DAY}次，今日已催办${today}次，请明天再试`;
  const next = lastAt === null ? null : lastAt + URGE_EVERY_MINUTES * 60_000;
  if (next !== null && next > nowMs) return `每${URGE_EVERY_MINUTES}分钟只能催办一次，请于${clockOf(next).slice(11, 16)}后再试`;
  return null;
}
