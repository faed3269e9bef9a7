import { useQueryClient } from '@tanstack/react-query';
import { Button, TextArea } from 'antd-mobile';
import { ClockCircleOutline, ExclamationCircleFill } from 'antd-mobile-icons';
import { useCallback, useState, type ComponentType } from 'react';
import { APPROVAL_NOTICE, TaskResult } from '../../../domain/appointments';
import { enums } from '../../../domain/enums';
import type { PermissionCode } from '../../../domain/permissions';
import { checkBody } from '../../../domain/schemas/car-application';
import { useCan } from '../../lib/me';
import { stateLabels, useOutbox, waitingItemOfTask, waitingTaskIds } from '../../lib/outbox';
import { sendAction, type Refusal } from '../../lib/outbox/action';
import { useIsDesktop } from '../../lib/use-media';
import { failureText, ScreenModal, type ScreenModalProps } from '../../list-screen';
import { ChoiceRadio } from '../choice-radio';
import { ProcessTimeline, type ProcessInfoCall } from '../process/process-timeline';
import './review.css';
import { alertDialog, showToast } from '../../lib/feedback';
import { TaskActionModal, type TaskAction } from './task-actions';

/** An approval task row of any queue: the task's own fields beside the record it wraps. */
export interface ReviewTask {
  process_task_id: number;
  ref_id: number;
  state: number;
  submit_time?: string | null;
  node_name?: string | null;
}

/**
 * What reviewing in one queue means: where decisions go, who may make them,
 * how a task names its record, which tasks may still be decided, and the
 * record's read-only detail. Appointments' seven queues and each register's
 * queue are values of this; the modal and its outbox path are written once.
 */
export interface ReviewKind<R extends ReviewTask> {
  /** The queue's name, kept with a queued decision. */
  name: string;
  checkPath: string;
  check: PermissionCode;
  /** The process-info call of the record's kind. */
  processCall: ProcessInfoCall;
  /** The opinion an approval starts with ('同意'; spec 001's registers: '审批通过。'). */
  approvedText: string;
  title: (row: R) => string;
  subtitle: (row: R) => string;
  reviewable: (row: R) => boolean;
  /** The record under review (a single review only); may load more than the list row carries. */
  Summary: ComponentType<{ row: R }>;
}

const OK_TEXT = '审核成功！';
const FAIL_PREFIX = '审核错误：';
const QUEUED_TEXT = '已加入待发送队列，联网后自动发送';
/** How long an online decision waits for its send before the modal lets go and leaves it to the outbox. */
const SEND_WAIT_MS = 15_000;

interface Decision {
  result: number;
  remark: string;
}

/** The outbox line of a decision: '审核 粤L12345 同意', or '批量审核 3 项（粤L1、粤L2、粤L3）同意'. */
function decisionTitle<R extends ReviewTask>(queue: ReviewKind<R>, rows: R[], result: number): string {
  const verdict = enums.approvalResult.find((o) => o.value === result)?.label ?? '';
  const names = rows.map((r) => queue.title(r));
  if (rows.length === 1) return `审核 ${names[0]} ${verdict}`;
  const shown = names.length > 3 ? `${names.slice(0, 3).join('、')} 等` : names.join('、');
  return `批量审核 ${rows.length} 项（${shown}）${verdict}`;
}

/**
 * The decision and its call (spec 000 §3 "approval payload", §4, §8): 同意 by
 * default with the opinion '同意'; another result clears the opinion, which
 * checkBody then requires. The decision goes through the outbox (DESIGN.md §5)
 * and is sent at once: online it reads as before; offline, or while the send is
 * slow, it is said to wait, never to be done. A task someone else already
 * settled (409, or 404 once it is gone) is said plainly and the list reloads.
 */
function useDecision<R extends ReviewTask>(queue: ReviewKind<R>, rows: R[], onDone: () => void) {
  const qc = useQueryClient();
  const [value, setValue] = useState<Decision>({ result: TaskResult.APPROVE, remark: queue.approvedText });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);

  const setResult = (v: unknown) => {
    const result = Number(v);
    setValue({ result, remark: result === TaskResult.APPROVE ? queue.approvedText : '' });
    setErrors({});
  };
  const setRemark = (remark: string) => {
    setValue((s) => ({ ...s, remark }));
    setErrors((e) => (e.remark ? { ...e, remark: '' } : e));
  };

  const settled = () => {
    // The application's process changed whatever the outcome: the timeline and other queues must not show the old one.
    for (const r of rows) void qc.invalidateQueries({ queryKey: ['process-info', queue.processCall.path, r.ref_id] });
    void qc.invalidateQueries({ queryKey: ['home', 'approval-pending'] });
    onDone();
  };

  const refused = async ({ message, status, fieldErrors }: Refusal) => {
    if (status === 409 || status === 404) {
      await alertDialog({ title: '无法审核', content: failureText(FAIL_PREFIX, message), confirmText: '知道了' });
      settled();
      return;
    }
    const remarkError = fieldErrors.find((f) => f.field === 'remark');
    if (remarkError) setErrors({ remark: remarkError.message });
    showToast({ icon: 'fail', content: failureText(FAIL_PREFIX, message), duration: 3000 });
  };

  const submit = async () => {
    if (saving) return;
    const body = { taskIds: rows.map((r) => r.process_task_id).join(','), result: value.result, remark: value.remark };
    const parsed = checkBody.safeParse(body);
    if (!parsed.success) {
      const out: Record<string, string> = {};
      for (const i of parsed.error.issues) {
        const k = String(i.path[0] ?? '');
        if (!out[k]) out[k] = i.message;
      }
      setErrors(out);
      if (!out.remark && !out.result) showToast({ icon: 'fail', content: failureText(FAIL_PREFIX, Object.values(out)[0]) });
      return;
    }
    setSaving(true);
    try {
      await sendAction(
        {
          kind: rows.length > 1 ? 'batchApproval' : 'approval',
          url: queue.checkPath,
          body: { ...body, remark: parsed.data.remark },
          title: decisionTitle(queue, rows, value.result),
          meta: { taskIds: rows.map((r) => r.process_task_id), queue: queue.name, refIds: rows.map((r) => r.ref_id) },
        },
        {
          waitMs: SEND_WAIT_MS,
          okText: OK_TEXT,
          waitingText: { offline: QUEUED_TEXT, slow: QUEUED_TEXT },
          onDone: settled,
          // Refused while the person is still here: they read why (and may decide again).
          onRefused: refused,
          onQueued: settled,
          // A decision carries no photos: without a usable IndexedDB it is made directly, as before the outbox.
          direct: true,
        },
      );
    } finally {
      setSaving(false);
    }
  };

  return { value, errors, saving, setResult, setRemark, submit };
}

type DecisionApi = ReturnType<typeof useDecision<ReviewTask>>;

function DecisionFields({ d, withNotice }: { d: DecisionApi; withNotice: boolean }) {
  const desktop = useIsDesktop();
  const reject = d.value.result !== TaskResult.APPROVE;
  return (
    <section className="rv-card rv-decision" aria-label="审核意见">
      {withNotice && (
        <div className="rv-notice" role="note">
          <ExclamationCircleFill className="rv-notice__icon" />
          <span>{APPROVAL_NOTICE}</span>
        </div>
      )}
      <div className={`ef pf-boxed ${desktop ? 'ef--horizontal' : 'ef--vertical'}`}>
        <div className={`ef-item${d.errors.result ? ' ef-item--error' : ''}`}>
          <span className="ef-label">
            <span className="ef-req" aria-hidden>
              *
            </span>
            审核结果
          </span>
          <div className="ef-control" role="radiogroup" aria-label="审核结果">
            <ChoiceRadio value={d.value.result} onChange={d.setResult} options={enums.approvalResult} disabled={d.saving} />
            {d.errors.result && (
              <div className="ef-error" role="alert">
                {d.errors.result}
              </div>
            )}
          </div>
        </div>
        <div className={`ef-item${d.errors.remark ? ' ef-item--error' : ''}`}>
          <label className="ef-label" htmlFor="rv-remark">
            {reject && (
              <span className="ef-req" aria-hidden>
                *
              </span>
            )}
            审批意见
          </label>
          <div className="ef-control">
            <TextArea
              id="rv-remark"
              value={d.value.remark}
              onChange={d.setRemark}
              placeholder={reject ? '请输入驳回原因' : '请输入审批意见'}
              autoSize={{ minRows: 3, maxRows: 6 }}
              maxLength={200}
              showCount
              disabled={d.saving}
            />
            {d.errors.remark && (
              <div className="ef-error" role="alert">
                {d.errors.remark}
              </div>
            )}
          </div>
        </div>
      </div>
    </section>
  );
}

/** The read-only part of a single review: who and what, then the process so far. */
function TaskSummary<R extends ReviewTask>({ queue, row }: { queue: ReviewKind<R>; row: R }) {
  const { Summary } = queue;
  return (
    <>
      <header className="rv-head">
        <div className="rv-head__main">
          <span className="rv-head__title">{queue.title(row)}</span>
          <span className="rv-head__sub">{queue.subtitle(row)}</span>
        </div>
        <div className="rv-head__meta">
          {row.node_name && <span className="rv-chip">{row.node_name}</span>}
          {row.submit_time && <span className="rv-head__time">提交于 {row.submit_time}</span>}
        </div>
      </header>
      <Summary row={row} />
      <section className="rv-card" aria-label="审批记录">
        <h3 className="rv-card__title">审批记录</h3>
        <ProcessTimeline process={queue.processCall} id={row.ref_id} />
      </section>
    </>
  );
}

/** A decision on these tasks already waits in the outbox: say so, and where to follow it. */
function WaitingNotice({ taskIds, skipped }: { taskIds: number[]; skipped?: number }) {
  const box = useOutbox();
  const item = taskIds.map((id) => waitingItemOfTask(id, box)).find(Boolean);
  const text = skipped
    ? `已选的任务中有 ${skipped} 项的审核已在待发送队列中，本次将跳过这些任务。`
    : item
      ? `此任务的审核（${item.title}）已在待发送队列中：${stateLabels[item.state]}${item.error ? `，${item.error}` : ''}。可在“待发送”中查看、重试或放弃。`
      : '此任务的审核已发送，请刷新列表。';
  return (
    <div className="rv-notice rv-notice--waiting" role="note">
      <ClockCircleOutline className="rv-notice__icon" />
      <span>{text}</span>
    </div>
  );
}

function ReviewContent<R extends ReviewTask>({
  queue,
  rows,
  single,
  decide,
  d,
  held,
  skipped,
}: {
  queue: ReviewKind<R>;
  rows: R[];
  single: boolean;
  decide: boolean;
  d: DecisionApi;
  held: boolean;
  skipped: number;
}) {
  return (
    <div className={`rv${single ? '' : ' rv--batch'}`}>
      {held && <WaitingNotice taskIds={rows.map((r) => r.process_task_id)} />}
      {skipped > 0 && <WaitingNotice taskIds={[]} skipped={skipped} />}
      {single && <TaskSummary queue={queue} row={rows[0]} />}
      {decide && <DecisionFields d={d} withNotice={single} />}
    </div>
  );
}

function ReviewFrame<R extends ReviewTask>({
  queue,
  rows: picked,
  single,
  open,
  onClose,
  onDone,
}: {
  queue: ReviewKind<R>;
  rows: R[];
  single: boolean;
  open: boolean;
  onClose: () => void;
  onDone: () => void;
}) {
  const desktop = useIsDesktop();
  const can = useCan();
  // Tasks whose decision already waits in the outbox when the modal opens: not decided twice. Read once, so the
  // decision this modal itself queues does not turn it read-only while it is being sent.
  const [waitingAtOpen] = useState(() => waitingTaskIds());
  const rows = single ? picked : picked.filter((r) => !waitingAtOpen.has(r.process_task_id));
  const held = single && waitingAtOpen.has(picked[0]!.process_task_id);
  const d = useDecision(queue, rows, onDone) as unknown as DecisionApi;
  // Someone who may list the queue but not decide in it (or a task no longer pending) gets the same view, read-only.
  const decide = can(queue.check) && !held && rows.length > 0 && (!single || queue.reviewable(rows[0]!));
  const reject = d.value.result !== TaskResult.APPROVE;
  const title = single ? (decide ? '审核' : '详情') : `批量审核（${rows.length} 项）`;
  // 转交 and 加签 (docs/approvals.md): one task at a time, from its own review.
  const [action, setAction] = useState<TaskAction | null>(null);
  const closeAction = useCallback(() => setAction(null), []);
  const qc = useQueryClient();
  const row = rows[0];
  const actedOn = useCallback(() => {
    setAction(null);
    // As after a decision: the application's process changed, and the queue reloads as the modal closes.
    if (row) void qc.invalidateQueries({ queryKey: ['process-info', queue.processCall.path, row.ref_id] });
    void qc.invalidateQueries({ queryKey: ['home', 'approval-pending'] });
    onDone();
  }, [qc, queue.processCall.path, row, onDone]);
  const okText = desktop ? '确定' : reject ? '驳回' : '同意';
  const footer =
    decide && single ? (
      <>
        <div className="rv-foot-aside">
          <Button className="sm-btn rv-aside-btn" aria-haspopup="dialog" onClick={() => setAction('transfer')} disabled={d.saving}>
            转交
          </Button>
          <Button className="sm-btn rv-aside-btn" aria-haspopup="dialog" onClick={() => setAction('signer')} disabled={d.saving}>
            加签
          </Button>
        </div>
        <Button className="sm-btn" onClick={onClose} disabled={d.saving}>
          取消
        </Button>
        <Button className="sm-btn" color={reject ? 'danger' : 'primary'} loading={d.saving} onClick={() => void d.submit()}>
          {okText}
        </Button>
      </>
    ) : undefined;
  return (
    <>
      <ScreenModal open={open} title={title} width={700} onClose={onClose} onOk={decide ? () => void d.submit() : undefined} okText={okText} okDanger={reject} okLoading={d.saving} footer={footer}>
        <ReviewContent queue={queue} rows={rows.length ? rows : picked} single={single} decide={decide} d={d} held={held} skipped={picked.length - rows.length} />
      </ScreenModal>
      {action && row && open && (
        <TaskActionModal action={action} subject={{ taskId: row.process_task_id, title: queue.title(row), subtitle: queue.subtitle(row) }} onClose={closeAction} onDone={actedOn} />
      )}
    </>
  );
}

const reviewModals = new WeakMap<object, ComponentType<ScreenModalProps<never>>>();
const batchModals = new WeakMap<object, ComponentType<ScreenModalProps<never>>>();

/** The 审核 row action's modal (and the row's detail) for a queue: one component per queue, so it keeps its identity. */
export function reviewModalFor<R extends ReviewTask>(queue: ReviewKind<R>): ComponentType<ScreenModalProps<R>> {
  let C = reviewModals.get(queue) as ComponentType<ScreenModalProps<R>> | undefined;
  if (!C) {
    C = function QueueReviewModal({ open, row, onClose, onDone }: ScreenModalProps<R>) {
      return <ReviewFrame queue={queue} rows={[row!]} single open={open} onClose={onClose} onDone={onDone} />;
    };
    reviewModals.set(queue, C as ComponentType<ScreenModalProps<never>>);
  }
  return C;
}

/** 批量审核: result and opinion only, for every selected task. */
export function batchReviewModalFor<R extends ReviewTask>(queue: ReviewKind<R>): ComponentType<ScreenModalProps<R>> {
  let C = batchModals.get(queue) as ComponentType<ScreenModalProps<R>> | undefined;
  if (!C) {
    C = function QueueBatchReviewModal({ open, rows, onClose, onDone }: ScreenModalProps<R>) {
      return <ReviewFrame queue={queue} rows={rows ?? []} single={false} open={open} onClose={onClose} onDone={onDone} />;
    };
    batchModals.set(queue, C as ComponentType<ScreenModalProps<never>>);
  }
  return C;
}
