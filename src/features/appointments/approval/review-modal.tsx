import { useQuery } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { appointmentKinds } from '../../../../domain/appointment-kinds';
import { APPROVED_TEXT, type QueueName } from '../../../../domain/appointments';
import { batchReviewModalFor, reviewModalFor, type ReviewKind } from '../../../components/approval/review-modal';
import { call } from '../../../lib/http';
import type { ScreenModalProps } from '../../../list-screen';
import { applicationDetails } from '../shared/application-detail';
import { queueOf, type Queue } from './queue-of';
import { reviewable, taskSubtitle, taskTitle, type TaskRow } from './task-row';
import './approval.css';

/** The application under review: the list embeds it without its drivers and passengers, the task detail carries all of it. */
function summaryOf(queue: Queue): ComponentType<{ row: TaskRow }> {
  return function ApplicationSummary({ row: listRow }) {
    const detail = useQuery({
      queryKey: ['approval', 'task-detail', queue.kind, listRow.process_task_id],
      queryFn: () => call(queue.kindCalls.taskDetail, { id: listRow.process_task_id }) as Promise<TaskRow>,
      staleTime: 30_000,
      retry: false,
    });
    const row = detail.data ?? listRow;
    const k = appointmentKinds[queue.kind];
    const Detail = applicationDetails[queue.kind] as ComponentType<{ row: object }>;
    const application = row[k.wrapper] as object | undefined;
    return application ? <Detail row={application} /> : <div className="rv-missing">{k.words.missing}</div>;
  };
}

const kinds = new Map<QueueName, ReviewKind<TaskRow>>();

/** An appointment queue as the shared review sees it (spec 000 §3 payload, §4 rules). */
function reviewKindOf(name: QueueName): ReviewKind<TaskRow> {
  let k = kinds.get(name);
  if (!k) {
    const queue = queueOf(name);
    k = {
      name,
      checkPath: queue.calls.check.path,
      check: queue.check,
      processCall: queue.kindCalls.process,
      approvedText: APPROVED_TEXT,
      title: (r) => taskTitle(queue.kind, r),
      subtitle: (r) => taskSubtitle(queue.kind, r),
      reviewable: (r) => reviewable(queue.kind, r),
      Summary: summaryOf(queue),
    };
    kinds.set(name, k);
  }
  return k;
}

/** The 审核 row action's modal for a queue. */
export const ReviewModal = (name: QueueName): ComponentType<ScreenModalProps<TaskRow>> => reviewModalFor(reviewKindOf(name));

/** 批量审核: result and opinion only (spec 000 §2), for every selected task. */
export const BatchReviewModal = (name: QueueName): ComponentType<ScreenModalProps<TaskRow>> => batchReviewModalFor(reviewKindOf(name));
