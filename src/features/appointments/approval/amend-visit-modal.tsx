import { useQueryClient } from '@tanstack/react-query';
import { useState, type ComponentType } from 'react';
import type { QueueName } from '../../../../domain/appointments';
import { appointmentKinds } from '../../../../domain/appointment-kinds';
import { DateRangeInput } from '../../../components/date-inputs';
import { ApiError, call } from '../../../lib/http';
import { useIsDesktop } from '../../../lib/use-media';
import { failureText, ScreenModal, type ScreenModalProps } from '../../../list-screen';
import { canAmendKey } from './can-amend';
import { queueOf, type Queue } from './queue-of';
import { taskSubtitle, taskTitle, visitRange, type TaskRow } from './task-row';
import './approval.css';
import { showToast } from '../../../lib/feedback';

const OK_TEXT = '编辑成功！';
const FAIL_PREFIX = '编辑错误：';

/** The amend body of the queue's kind: application id, instance id and the new visit window. */
function amendPayload(queue: Queue, row: TaskRow, [begin, end]: [unknown, unknown]) {
  const k = appointmentKinds[queue.kind];
  return k.schemas.amend.safeParse({ [k.key]: row.ref_id, process_instance_id: row.process_instance_id, [k.begin]: begin, [k.end]: end });
}

function AmendVisit({ queue, row, open, onClose, onDone }: { queue: Queue; row: TaskRow; open: boolean; onClose: () => void; onDone: () => void }) {
  const desktop = useIsDesktop();
  const qc = useQueryClient();
  const current = visitRange(queue.kind, row);
  const [range, setRange] = useState<[unknown, unknown]>(current);
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const k = appointmentKinds[queue.kind];
  const type = (row[k.wrapper] as { visitor_type?: number } | undefined)?.visitor_type;
  const hint = k.visitRules.hint(type);

  const submit = async () => {
    if (saving) return;
    const [b, e] = range;
    if (typeof b === 'string' && typeof e === 'string' && e < b) return setError('来访结束时间不能早于开始时间');
    const parsed = amendPayload(queue, row, range);
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setSaving(true);
    try {
      await call(queue.kindCalls.amend, parsed.data as never);
      showToast({ icon: 'success', content: OK_TEXT });
      void qc.invalidateQueries({ queryKey: ['process-info', queue.kindCalls.process.path, row.ref_id] });
      void qc.invalidateQueries({ queryKey: canAmendKey(queue.kind, row) });
      onDone();
    } catch (err) {
      const msg = err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err);
      const fieldErr = err instanceof ApiError ? err.fieldErrors.find((f) => /_(begin|end)_time$/.test(f.field)) : undefined;
      if (fieldErr) setError(fieldErr.message);
      showToast({ icon: 'fail', content: failureText(FAIL_PREFIX, msg), duration: 3000 });
    } finally {
      setSaving(false);
    }
  };

  return (
    <ScreenModal open={open} title="修改来访时间" onClose={onClose} onOk={() => void submit()} okText={desktop ? '确定' : '保存'} okLoading={saving}>
      <div className="av">
        <div className="av-subject">
          <b>{taskTitle(queue.kind, row)}</b>
          <span>{taskSubtitle(queue.kind, row)}</span>
          <span className="av-subject__now">
            当前来访时间：{current[0] ?? '-'} 至 {current[1] ?? '-'}
          </span>
        </div>
        <div className={`ef pf-boxed ${desktop ? 'ef--horizontal' : 'ef--vertical'}`}>
          <div className={`ef-item${error ? ' ef-item--error' : ''}`}>
            <span className="ef-label">
              <span className="ef-req" aria-hidden>
                *
              </span>
              来访时间
            </span>
            <div className="ef-control">
              <DateRangeInput
                aria-label="来访时间"
                withTime
                value={range}
                disabled={saving}
                onChange={(v) => {
                  setRange(Array.isArray(v) ? [v[0], v[1]] : [undefined, undefined]);
                  setError(undefined);
                }}
              />
              {error ? (
                <div className="ef-error" role="alert">
                  {error}
                </div>
              ) : hint ? (
                <div className="ef-help">{hint}</div>
              ) : null}
            </div>
          </div>
        </div>
      </div>
    </ScreenModal>
  );
}

const modals = new Map<QueueName, ComponentType<ScreenModalProps<TaskRow>>>();

/** 修改来访时间 for a queue's rows: only the visit time range (spec 000 §2). */
export function AmendVisitModal(name: QueueName): ComponentType<ScreenModalProps<TaskRow>> {
  let C = modals.get(name);
  if (!C) {
    const queue = queueOf(name);
    C = function QueueAmendVisitModal({ open, row, onClose, onDone }: ScreenModalProps<TaskRow>) {
      return <AmendVisit queue={queue} row={row!} open={open} onClose={onClose} onDone={onDone} />;
    };
    modals.set(name, C);
  }
  return C;
}
