import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { Button, DotLoading, Input, Radio, TextArea } from 'antd-mobile';
import { SearchOutline } from 'antd-mobile-icons';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { ErrorCode } from '../../../domain/errors';
import { addSignerBody, REASON_MAX, SignerMode, signerModeHelp, signerModeLabels, taskActionApi, taskActionLabels, transferBody, type CandidateRow } from '../../../domain/schemas/task-actions';
import { alertDialog, showToast } from '../../lib/feedback';
import { ApiError, call } from '../../lib/http';
import { onlineNow } from '../../lib/use-online';
import { useIsDesktop } from '../../lib/use-media';
import { failureText, fieldErrorMap, FormItem, ScreenModal } from '../../list-screen';
import { ModalForm } from '../reason-modal';
import './task-actions.css';

/**
 * 转交 and 加签 of one pending task (docs/approvals.md), opened from the
 * review beside 同意/驳回: pick a person the server offers
 * (taskActionApi.candidates), then a required reason (转交) or the mode and an
 * optional opinion (加签). Sent at once, never through the outbox: who may be
 * chosen is the server's answer of the moment, so these need a connection.
 */

export type TaskAction = 'transfer' | 'signer';

/** A search box shows above the people once there are more than this many. */
const SEARCH_FROM = 9;

const words: Record<TaskAction, { title: string; person: string; search: string; pick: string; empty: string; emptyWhy: string; ok: string; fail: string; notice?: string }> = {
  transfer: {
    title: '转交',
    person: '转交给',
    search: '搜索转交对象',
    pick: '请选择转交对象',
    empty: '没有可转交的人员',
    emptyWhy: '须为本节点的审核角色、在节点的部门范围内，且不是申请人或已在此节点审批的人员。',
    ok: '转交成功',
    fail: '转交失败',
    notice: '转交后，此任务改由所选人员审批，您不再处理此任务。',
  },
  signer: {
    title: '加签',
    person: '加签人',
    search: '搜索加签人',
    pick: '请选择加签人',
    empty: '没有可加签的人员',
    emptyWhy: '加签人须能审核此类申请，且不是申请人或已在此节点审批的人员。',
    ok: '加签成功',
    fail: '加签失败',
  },
};

const modes = [SignerMode.BEFORE, SignerMode.AFTER, SignerMode.ALONGSIDE] as const;

/** What the task is, so the person sees whose application they hand on. */
export interface TaskActionSubject {
  taskId: number;
  title: string;
  subtitle?: string;
}

interface Values {
  userId?: number;
  reason: string;
  mode: SignerMode;
  remark: string;
}

/** Who may be chosen, as the server says now (never kept: the next open asks again). */
const useCandidates = (taskId: number, purpose: TaskAction) =>
  useQuery({
    queryKey: ['approval', 'task-candidates', taskId, purpose],
    queryFn: () => call(taskActionApi.candidates, { taskId, purpose }),
    retry: false,
    staleTime: 0,
    gcTime: 0,
  });

/** The people who may be chosen, as radios (name and department), with a search once the list is long. */
function PersonPicker({
  people,
  purpose,
  value,
  onChange,
  error,
  disabled,
}: {
  people: UseQueryResult<CandidateRow[], Error>;
  purpose: TaskAction;
  value?: number;
  onChange: (id: number) => void;
  error?: string;
  disabled: boolean;
}) {
  const w = words[purpose];
  const ids = useId();
  const labelId = `${ids}-label`;
  const searchId = `${ids}-search`;
  const errorId = `${ids}-error`;
  const [needle, setNeedle] = useState('');
  const list = useMemo(() => people.data ?? [], [people.data]);
  const q = needle.trim().toLowerCase();
  const shown = q ? list.filter((c) => c.user_name.toLowerCase().includes(q) || c.depart_name.toLowerCase().includes(q)) : list;
  const chosen = list.find((c) => c.user_id === value);

  let body: React.ReactNode;
  if (people.isPending) {
    body = (
      <div className="ta-state" aria-busy="true">
        <DotLoading color="primary" />
        <span>正在加载人员…</span>
      </div>
    );
  } else if (people.isError) {
    body = (
      <div className="ta-state ta-state--error" role="alert">
        <span>{failureText('人员加载失败', people.error.message)}</span>
        <Button size="small" fill="outline" color="primary" onClick={() => void people.refetch()}>
          重试
        </Button>
      </div>
    );
  } else if (!list.length) {
    body = (
      <div className="ta-state ta-state--empty" role="status">
        <b>{w.empty}</b>
        <span>{w.emptyWhy}</span>
      </div>
    );
  } else {
    body = (
      <>
        {list.length >= SEARCH_FROM && (
          <div className="ta-search">
            <label className="visually-hidden" htmlFor={searchId}>
              {w.search}
            </label>
            <SearchOutline className="ta-search__icon" aria-hidden />
            <Input id={searchId} value={needle} onChange={setNeedle} placeholder="搜索姓名或部门" clearable disabled={disabled} />
          </div>
        )}
        {shown.length ? (
          <Radio.Group value={value ?? null} onChange={(v) => onChange(Number(v))} disabled={disabled}>
            <div className="ta-people" role="radiogroup" aria-labelledby={labelId} aria-required="true" aria-invalid={!!error} aria-describedby={error ? errorId : undefined}>
              {shown.map((c: CandidateRow) => (
                <Radio key={c.user_id} value={c.user_id} block className="ta-person">
                  <span className="ta-person__name">{c.user_name}</span>
                  <span className="ta-person__dept">{c.depart_name || '未分配部门'}</span>
                </Radio>
              ))}
            </div>
          </Radio.Group>
        ) : (
          <div className="ta-state" role="status">
            没有匹配“{needle.trim()}”的人员
          </div>
        )}
        <div className="ta-count" aria-live="polite">
          {chosen ? `已选择：${chosen.user_name}${chosen.depart_name ? `（${chosen.depart_name}）` : ''}` : q ? `匹配 ${shown.length} 人，共 ${list.length} 人` : `共 ${list.length} 人可选`}
        </div>
      </>
    );
  }

  return (
    <div className={`ef-item${error ? ' ef-item--error' : ''}`}>
      <span className="ef-label" id={labelId}>
        <span className="ef-req" aria-hidden>
          *
        </span>
        {w.person}
      </span>
      <div className="ef-control">
        {body}
        {error && (
          <div className="ef-error" id={errorId} role="alert">
            {error}
          </div>
        )}
      </div>
    </div>
  );
}

/** 加签方式: the three modes as radios, each with what it means under it. */
function ModeChoice({ value, onChange, disabled }: { value: SignerMode; onChange: (m: SignerMode) => void; disabled: boolean }) {
  const labelId = useId();
  return (
    <div className="ef-item">
      <span className="ef-label" id={labelId}>
        <span className="ef-req" aria-hidden>
          *
        </span>
        {taskActionLabels.mode}
      </span>
      <div className="ef-control">
        <Radio.Group value={value} onChange={(v) => onChange(Number(v) as SignerMode)} disabled={disabled}>
          <div className="ta-modes" role="radiogroup" aria-labelledby={labelId} aria-required="true">
            {modes.map((m) => (
              <Radio key={m} value={m} block className="ta-mode">
                <span className="ta-mode__label">{signerModeLabels[m]}</span>
                <span className="ta-mode__help">{signerModeHelp[m]}</span>
              </Radio>
            ))}
          </div>
        </Radio.Group>
      </div>
    </div>
  );
}

/**
 * The sheet (phone) or dialog (desktop) of one action. Mounted while open
 * (its state starts afresh each time); Esc closes it alone, never the review
 * underneath, and the focus goes back to the button that opened it.
 */
export function TaskActionModal({ action, subject, onClose, onDone }: { action: TaskAction; subject: TaskActionSubject; onClose: () => void; onDone: () => void }) {
  const desktop = useIsDesktop();
  const w = words[action];
  const ids = useId();
  const [values, setValues] = useState<Values>({ reason: '', mode: SignerMode.BEFORE, remark: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);
  const alerting = useRef(false);
  const formRef = useRef<HTMLDivElement>(null);
  const [returnFocusTo] = useState(() => document.activeElement);
  const people = useCandidates(subject.taskId, action);
  // Nobody to choose: the dialog says so and offers only 关闭.
  const nobody = people.isSuccess && people.data.length === 0;

  const set = <K extends keyof Values>(key: K, v: Values[K]) => {
    setValues((s) => ({ ...s, [key]: v }));
    setErrors((e) => (e[key] ? { ...e, [key]: '' } : e));
  };

  // Esc closes this dialog only: captured on window and stopped there, so the review's own Esc (ScreenModal) never sees it.
  useEffect(() => {
    if (!desktop) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.isComposing || alerting.current) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (!busyRef.current) onClose();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [desktop, onClose]);

  // A keyboard user starts in the form once the people are in (a phone's keyboard is not pushed up unasked); back on the opener when it closes.
  const loaded = !people.isPending;
  useEffect(() => {
    if (!desktop || !loaded) return;
    const t = window.setTimeout(() => formRef.current?.querySelector<HTMLElement>('input:not([disabled]), textarea:not([disabled]), button:not([disabled])')?.focus(), 300);
    return () => window.clearTimeout(t);
  }, [desktop, loaded]);
  useEffect(
    () => () => {
      if (returnFocusTo instanceof HTMLElement && returnFocusTo.isConnected) returnFocusTo.focus();
    },
    [returnFocusTo],
  );

  const submit = async () => {
    if (busyRef.current) return;
    if (!values.userId) {
      setErrors((e) => ({ ...e, userId: w.pick }));
      showToast({ icon: 'fail', content: w.pick });
      return;
    }
    const parsed =
      action === 'transfer'
        ? transferBody.safeParse({ taskId: subject.taskId, userId: values.userId, reason: values.reason })
        : addSignerBody.safeParse({ taskId: subject.taskId, userId: values.userId, mode: values.mode, remark: values.remark });
    if (!parsed.success) {
      const out = fieldErrorMap(parsed.error.issues);
      setErrors(out);
      if (!out.reason && !out.remark && !out.userId) showToast({ icon: 'fail', content: failureText(w.fail, Object.values(out)[0]) });
      return;
    }
    if (!onlineNow()) {
      showToast({ icon: 'fail', content: `当前处于离线状态，${w.title}需联网后操作`, duration: 3000 });
      return;
    }
    busyRef.current = true;
    setBusy(true);
    try {
      if ('reason' in parsed.data) await call(taskActionApi.transfer, parsed.data);
      else await call(taskActionApi.addSigner, parsed.data);
      showToast({ icon: 'success', content: w.ok });
      onDone();
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError(e instanceof Error ? e.message : String(e), ErrorCode.INTERNAL, 0);
      if (err.status === 409 || err.status === 404) {
        // Settled meanwhile (decided elsewhere, or the process moved on): said plainly, then the queue reloads.
        alerting.current = true;
        await alertDialog({ title: `无法${w.title}`, content: failureText(w.fail, err.message), confirmText: '知道了' });
        alerting.current = false;
        onDone();
        return;
      }
      const fields = fieldErrorMap(err.fieldErrors);
      if (Object.keys(fields).length) setErrors(fields);
      showToast({ icon: 'fail', content: failureText(w.fail, err.message), duration: 3000 });
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };

  const after = values.mode === SignerMode.AFTER;
  return (
    <ScreenModal open title={w.title} width={560} onClose={busy ? () => undefined : onClose} onOk={nobody ? undefined : () => void submit()} okText={w.title} okLoading={busy}>
      <div className="ta" ref={formRef}>
        <div className="am-subject">
          <div className="am-subject__main">
            <b>{subject.title}</b>
          </div>
          <div className="am-subject__meta">{subject.subtitle}</div>
        </div>
        {w.notice && !nobody && (
          <div className="am-notice" role="note">
            {w.notice}
          </div>
        )}
        <ModalForm>
          <PersonPicker people={people} purpose={action} value={values.userId} onChange={(id) => set('userId', id)} error={errors.userId} disabled={busy} />
          {nobody ? null : action === 'transfer' ? (
            <FormItem label={taskActionLabels.reason} required error={errors.reason} htmlFor={`${ids}-reason`}>
              <TextArea
                id={`${ids}-reason`}
                value={values.reason}
                onChange={(v) => set('reason', v)}
                placeholder="请输入转交原因，如：本周出差"
                autoSize={{ minRows: 3, maxRows: 6 }}
                maxLength={REASON_MAX}
                showCount
                disabled={busy}
              />
            </FormItem>
          ) : (
            <>
              <ModeChoice value={values.mode} onChange={(m) => set('mode', m)} disabled={busy} />
              <FormItem label={taskActionLabels.remark} error={errors.remark} htmlFor={`${ids}-remark`} help={after ? '您的同意意见，不填为“同意”' : '写给加签人的说明，显示在审批记录中'}>
                <TextArea
                  id={`${ids}-remark`}
                  value={values.remark}
                  onChange={(v) => set('remark', v)}
                  placeholder={after ? '同意' : '请输入审批意见（选填）'}
                  autoSize={{ minRows: 2, maxRows: 6 }}
                  maxLength={REASON_MAX}
                  showCount
                  disabled={busy}
                />
              </FormItem>
            </>
          )}
        </ModalForm>
      </div>
    </ScreenModal>
  );
}
