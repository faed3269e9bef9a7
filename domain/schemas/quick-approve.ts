import { z } from 'zod';
import { col, defineCall } from '../contract';
import { QUICK_APPROVE_PATH } from '../notifications';
import { idField, labelled, text } from './common';

/**
 * 同意 from a new task's notification (docs/approvals.md): the service worker
 * has no session, so the push carried a token signed by the server for this
 * one task and its approver, valid as long as the push (24 hours). 'public'
 * to the guard: the route checks the token, that its user is still enabled
 * and still holds the queue's check code, then decides as the queue's check
 * does, with the opinion '同意'. Idempotency-Key is honoured as on the check.
 */
export const quickApproveLabels = { taskId: '审批任务', token: '审批凭证' };

export const quickApproveBody = labelled(
  z.object({
    taskId: idField(quickApproveLabels.taskId),
    token: text('缺少审批凭证，请打开应用审核').min(1, { error: '缺少审批凭证，请打开应用审核' }).max(200, { error: '审批凭证无效，请打开应用审核' }),
  }),
  quickApproveLabels,
);
export type QuickApproveBody = z.infer<typeof quickApproveBody>;

/** The task decided, and the record as the notification named it (for the confirmation). */
export const quickApproveAnswer = z.object({ done: z.array(col.id), name: col.text });

export const quickApproveApi = {
  approve: defineCall({
    method: 'POST',
    path: QUICK_APPROVE_PATH,
    permission: 'public',
    summary: '在通知中同意审批任务（凭推送中的审批凭证，无需登录；24 小时内有效）',
    operation: '通知中同意审批',
    input: quickApproveBody,
    answer: quickApproveAnswer,
  }),
};
