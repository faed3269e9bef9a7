import { TextArea } from 'antd-mobile';
import { useState } from 'react';
import type { AppointmentKind } from '../../../../domain/appointments';
import { appointmentKinds, kindCalls, rowId } from '../../../../domain/appointment-kinds';
import { dateOf, delayErrors, type FieldError } from '../../../../domain/visit-rules';
import { DateRangeInput } from '../../../components/date-inputs';
import { ApiError, call } from '../../../lib/http';
import { useIsDesktop } from '../../../lib/use-media';
import { ScreenModal, failureText, type Row, type ScreenModalProps } from '../../../list-screen';
import { FormItem, toErrors, type Errors } from './application-form';
import { parkNow } from './visit-time';
import './appointments.css';
import { showToast } from '../../../lib/feedback';

/**
 * 延期申请 (spec 000 §2, §3 "delay request"): a new visit range and a reason,
 * the kind's delay call. Days before today cannot be picked; the new end must
 * fall after today (domain/visit-rules delayErrors, as the server checks).
 */
function DelayModal({ kind, open, row, onClose, onDone }: ScreenModalProps<Row> & { kind: AppointmentKind }) {
  const desktop = useIsDesktop();
  const info = appointmentKinds[kind];
  const r = (row ?? {}) as Record<string, unknown>;
  const today = parkNow();
  const day = dateOf(today);
  const [range, setRange] = useState<unknown>(() => {
    const begin = typeof r[info.begin] === 'string' ? dateOf(r[info.begin] as string) : undefined;
    return [begin && begin > day ? begin : day, undefined];
  });
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  const type = typeof r.visitor_type === 'number' ? r.visitor_type : undefined;
  /** The server's delay rules: the end after today, then the visitor type's longest stay (not the earliest start). */
  const rangeErrors = (begin: string | undefined, end: string | undefined): FieldError[] => {
    const base = delayErrors({ begin, end }, today, { begin: info.begin, end: info.end });
    if (base.length || !begin || !end) return base;
    const span = info.visitRules.errors({ visitor_type: type, begin, end }, typeof r.vehicle_type_name === 'string' ? { name: r.vehicle_type_name } : null, today);
    return span.filter((e) => e.field === info.end);
  };
  const hint = info.visitRules.hint(type);

  const submit = async () => {
    if (busy) return;
    const [begin, end] = Array.isArray(range) ? (range as Array<string | undefined>) : [];
    const body = { id: rowId(kind, r), [info.begin]: begin, [info.end]: end, delay_reason: reason };
    const parsed = info.schemas.delay.safeParse(body);
    const errs = toErrors([...(parsed.success ? [] : parsed.error.issues), ...rangeErrors(begin, end)]);
    if (Object.keys(errs).length || !parsed.success) {
      setErrors(errs);
      return;
    }
    setBusy(true);
    try {
      await call(kindCalls[kind].delay, parsed.data as never);
      showToast({ icon: 'success', content: '延期申请成功！' });
      onDone();
    } catch (e) {
      const err = e instanceof ApiError ? e : undefined;
      if (err?.fieldErrors.length) setErrors(toErrors(err.fieldErrors));
      showToast({ icon: 'fail', content: failureText('延期申请失败', e instanceof Error ? e.message : String(e)), duration: 3000 });
    } finally {
      setBusy(false);
    }
  };

  const rangeError = errors[info.begin] ?? errors[info.end];
  const current = [r[info.begin], r[info.end]]
    .filter(Boolean)
    .map((v) => dateOf(String(v)))
    .join(' 至 ');
  return (
    <ScreenModal open={open} title="延期申请" onClose={onClose} onOk={() => void submit()} okLoading={busy} okText={desktop ? '确定' : '提交'}>
      <div className={`ef pf-boxed af-plain ${desktop ? 'ef--horizontal' : 'ef--vertical'}`}>
        {current && (
          <FormItem label="当前来访时间">
            <span className="af-static">{current}</span>
          </FormItem>
        )}
        <FormItem label="延期时间" required error={rangeError} help={hint || undefined}>
          <DateRangeInput
            aria-label="延期时间"
            value={range}
            min={day}
            onChange={(v) => {
              setRange(v);
              setErrors((e) => {
                const { [info.begin]: _b, [info.end]: _e, ...rest } = e;
                return rest;
              });
            }}
          />
        </FormItem>
        <FormItem label="延期理由" required error={errors.delay_reason} htmlFor="af-delay_reason">
          <TextArea
            id="af-delay_reason"
            value={reason}
            onChange={(v) => {
              setReason(v);
              setErrors(({ delay_reason: _d, ...rest }) => rest);
            }}
            placeholder="请输入延期理由"
            autoSize={{ minRows: 3, maxRows: 6 }}
            maxLength={200}
            showCount
          />
        </FormItem>
      </div>
    </ScreenModal>
  );
}

export function CarDelayModal(props: ScreenModalProps<Row>) {
  return <DelayModal {...props} kind="car" />;
}

export function PersonDelayModal(props: ScreenModalProps<Row>) {
  return <DelayModal {...props} kind="person" />;
}
