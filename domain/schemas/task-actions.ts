import { z } from 'zod';
import { col, defineCall, none } from '../contract';
import { idField, labelled, optionalText, requiredText } from './common';

/**
 * What an approver may do with their pending task besides deciding it
 * (docs/approvals.md): 转交 (hand it to another holder of the node's role in
 * the node's departments, with a reason) and 加签 (add a signer before
 * themself, after, or alongside). Both answer who may be chosen first.
 */

export const SignerMode = { BEFORE: 1, AFTER: 2, ALONGSIDE: 3 } as const;
export type SignerMode = (typeof SignerMode)[keyof typeof SignerMode];
export const signerModeLabels: Record<SignerMode, string> = {
  [SignerMode.BEFORE]: '前加签',
  [SignerMode.AFTER]: '后加签',
  [SignerMode.ALONGSIDE]: '并加签',
};
/** What each mode means, under the choice. */
export const signerModeHelp: Record<SignerMode, string> = {
  [SignerMode.BEFORE]: '加签人先审核，通过后任务回到我',
  [SignerMode.AFTER]: '我同意后，再由加签人审核',
  [SignerMode.ALONGSIDE]: '我与加签人都须审核通过',
};

export const REASON_MAX = 200;

export const taskActionLabels = {
  taskId: '审批任务',
  userId: '人员',
  purpose: '用途',
  reason: '转交原因',
  mode: '加签方式',
  remark: '审批意见',
};

const taskId = idField(taskActionLabels.taskId);

export const candidatesQuery = labelled(z.object({ taskId, purpose: z.enum(['transfer', 'signer'], { error: '用途不正确' }) }), taskActionLabels);
export const transferBody = labelled(z.object({ taskId, userId: idField('转交对象'), reason: requiredText('请输入转交原因', REASON_MAX, `转交原因不能超过${REASON_MAX}个字`) }), taskActionLabels);
export const addSignerBody = labelled(
  z.object({
    taskId,
    userId: idField('加签人'),
    mode: z.preprocess((v) => (typeof v === 'string' && /^\d$/.test(v) ? Number(v) : v), z.union([z.literal(1), z.literal(2), z.literal(3)], { error: '请选择加签方式' })),
    // With 后加签 it is the approver's own opinion, given with their approval.
    remark: optionalText(REASON_MAX, `审批意见不能超过${REASON_MAX}个字`),
  }),
  taskActionLabels,
);

export const candidateRow = z.object({ user_id: col.id, user_name: col.text, depart_name: col.text });
export type CandidateRow = z.infer<typeof candidateRow>;

export const taskActionApi = {
  candidates: defineCall({
    method: 'POST',
    path: '/approvalTask/candidates',
    permission: 'role',
    summary: '可转交或加签的人员（本人待审批任务；转交：节点角色与部门范围内；加签：可审核此类申请的人员）',
    input: candidatesQuery,
    answer: z.array(candidateRow),
  }),
  transfer: defineCall({
    method: 'POST',
    path: '/approvalTask/transfer',
    permission: 'role',
    summary: '转交本人的待审批任务（须填写原因）',
    operation: '转交审批任务',
    input: transferBody,
    answer: z.object({ process_task_id: col.id }),
  }),
  addSigner: defineCall({
    method: 'POST',
    path: '/approvalTask/addSigner',
    permission: 'role',
    summary: '为本人的待审批任务加签（前加签、后加签、并加签）',
    operation: '加签',
    input: addSignerBody,
    answer: none,
  }),
};
