import { Tag } from 'antd-mobile';
import './task-flags.css';

/** What an approval-queue row says of its task's urgency (domain/schemas/approval-task.ts taskFields). */
export interface FlaggedTask {
  /** How often the applicant urged this task (催办). */
  urged?: number | null;
  /** The node's deadline in ms, or null: none. */
  due_at?: number | null;
}

/** Past its node's deadline (审批时限), as the task row carries it. */
export const isOverdue = (t: FlaggedTask, now = Date.now()): boolean => t.due_at != null && now > t.due_at;

/**
 * 已催办 N 次 when the applicant urged the task, 已超时 once its deadline has
 * passed: solid tags in the theme's warning and danger colours (white on them
 * reads 5:1, whatever the row's background). Nothing when neither holds, or a
 * dash with `dash` (a table cell); a phone card's header drops that dash.
 */
export function TaskFlags({ task, dash }: { task: FlaggedTask; dash?: boolean }) {
  const urged = task.urged ?? 0;
  const overdue = isOverdue(task);
  if (!urged && !overdue) return dash ? <span className="ls-dash tf-none">-</span> : null;
  return (
    <span className="tf">
      {urged > 0 && (
        <Tag color="warning" fill="solid" className="ls-tag tf-tag">
          已催办 {urged} 次
        </Tag>
      )}
      {overdue && (
        <Tag color="danger" fill="solid" className="ls-tag tf-tag">
          已超时
        </Tag>
      )}
    </span>
  );
}
