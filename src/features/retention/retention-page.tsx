import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, DotLoading } from 'antd-mobile';
import { useState } from 'react';
import { daysInWords, RETENTION_CLASSES, retentionTriggerLabels, type RetentionClass } from '../../../domain/retention';
import { retentionApi, retentionDays, type RetentionClassProof, type RetentionPolicyClass, type RetentionPreviewAnswer, type RetentionRunProof } from '../../../domain/schemas/retention';
import { confirmDialog, showToast } from '../../lib/feedback';
import { ApiError, call } from '../../lib/http';
import { useCan } from '../../lib/me';
import { useIsDesktop } from '../../lib/use-media';
import '../../components/settings-form.css';
import './retention.css';
import { SettingsLoadFailed } from '../../components/settings-load-failed';

/**
 * 数据保留 (系统设置): how many days each class of personal data is kept
 * (domain/retention.ts), the floor and the law beside a class that has one,
 * 预览 (what a run would take now, with the days on screen) and 立即清理
 * (with the saved days), and the proof of the last run. The nightly run and
 * what each class takes: docs/retention.md.
 */

const policyKey = ['retention', 'policy'] as const;
const policyQuery = { queryKey: policyKey, queryFn: () => call(retentionApi.policy, {}) };
/** A first run over years of rows takes minutes; the call waits for it rather than the usual 15 s. */
const RUN_WAIT_MS = 30 * 60_000;

type Drafts = Partial<Record<RetentionClass, string>>;
type Errors = Partial<Record<RetentionClass, string>>;

/** The days typed for each class, checked by the schema the server checks with; errors name the field and the rule. */
function readDrafts(classes: RetentionPolicyClass[], drafts: Drafts): { days: Partial<Record<RetentionClass, number>>; errors: Errors } {
  const days: Partial<Record<RetentionClass, number>> = {};
  const errors: Errors = {};
  for (const c of classes) {
    const typed = drafts[c.key];
    if (typed === undefined) continue;
    const r = retentionDays.shape[c.key].safeParse(typed.trim() === '' ? '' : typed);
    if (!r.success) errors[c.key] = r.error.issues[0]?.message ?? `${c.field_label}不正确`;
    else if (r.data === undefined) errors[c.key] = `请填写${c.field_label}`;
    else days[c.key] = r.data;
  }
  return { days, errors };
}

const fieldErrorsOf = (err: unknown): Errors =>
  err instanceof ApiError ? Object.fromEntries(err.fieldErrors.filter((f) => (RETENTION_CLASSES as readonly string[]).includes(f.field)).map((f) => [f.field, f.message])) : {};

export default function RetentionPage() {
  const client = useQueryClient();
  const can = useCan();
  const desktop = useIsDesktop();
  const policy = useQuery(policyQuery);
  const [drafts, setDrafts] = useState<Drafts>({});
  const [errors, setErrors] = useState<Errors>({});
  const [preview, setPreview] = useState<RetentionPreviewAnswer | null>(null);
  const editable = can('retention:edit');
  const classes = policy.data?.classes ?? [];
  const changed = classes.filter((c) => drafts[c.key] !== undefined && drafts[c.key]!.trim() !== String(c.days));

  const save = useMutation({
    mutationFn: (days: Partial<Record<RetentionClass, number>>) => call(retentionApi.save, days),
    onSuccess: (answer) => {
      client.setQueryData(policyKey, answer);
      setDrafts({});
      setErrors({});
      showToast({ icon: 'success', content: '保存成功！' });
    },
    onError: (err) => {
      setErrors(fieldErrorsOf(err));
      showToast({ icon: 'fail', content: `保存失败：${err.message}`, duration: 4000 });
    },
  });

  const previewing = useMutation({
    mutationFn: (days: Partial<Record<RetentionClass, number>>) => call(retentionApi.preview, days),
    onSuccess: (answer) => setPreview(answer),
    onError: (err) => {
      setErrors(fieldErrorsOf(err));
      showToast({ icon: 'fail', content: `预览失败：${err.message}`, duration: 4000 });
    },
  });

  const running = useMutation({
    mutationFn: () => call(retentionApi.run, {}, { timeout: RUN_WAIT_MS }),
    onSuccess: (proof) => {
      const rows = proof.classes.reduce((n, c) => n + c.rows, 0);
      showToast({ icon: 'success', content: `清理完成：共处理 ${rows} 条` });
      setPreview(null);
    },
    onError: (err) => showToast({ icon: 'fail', content: `清理失败：${err.message}`, duration: 4000 }),
    onSettled: () => void client.invalidateQueries({ queryKey: policyKey }),
  });

  /** The typed days, or their errors under the fields (nothing is sent then). */
  const checked = () => {
    const read = readDrafts(classes, drafts);
    setErrors(read.errors);
    return Object.keys(read.errors).length ? null : read.days;
  };

  const onSave = () => {
    const days = checked();
    if (!days) return;
    const sent = Object.fromEntries(changed.map((c) => [c.key, days[c.key]]));
    if (!Object.keys(sent).length) return void showToast('保留期限没有修改');
    save.mutate(sent);
  };

  const onPreview = () => {
    const days = checked();
    if (days) previewing.mutate(days);
  };

  const onRun = async () => {
    const unsaved = changed.length ? '页面上还有未保存的修改，本次按已保存的期限清理。' : '';
    const ok = await confirmDialog({
      title: '立即清理',
      content: `${unsaved}将按保留期限删除超期的照片、过闸图片和记录、运单与日志，并匿名化超期的访客信息，删除后无法恢复。确定立即清理吗？`,
      confirmText: '立即清理',
      danger: true,
    });
    if (ok) running.mutate();
  };

  if (policy.error) return <SettingsLoadFailed what="数据保留设置" error={policy.error} pageClass="rt" onRetry={() => void policy.refetch()} />;

  return (
    <div className="page sf rt" data-testid="retention-page">
      <section className="card sf-card" aria-labelledby="rt-policy-title">
        <h3 className="sf-title" id="rt-policy-title">
          保留期限
        </h3>
        <p className="sf-hint">个人信息只保存到用途所需的期限（《个人信息保护法》第六、十九、四十七条）。每晚 03:30 自动清理超过期限的数据；也可先预览，再立即清理。</p>
        {policy.isPending ? (
          <div className="sf-state">
            <DotLoading color="primary" /> 加载中
          </div>
        ) : (
          <div className={desktop ? 'sf-grid' : 'sf-list'} role={desktop ? 'table' : undefined} aria-label={desktop ? '保留期限' : undefined}>
            {desktop && (
              <div className="sf-grid-head" role="row">
                <span role="columnheader">数据类别</span>
                <span role="columnheader">保留期限</span>
                <span role="columnheader">最低要求</span>
                <span role="columnheader">到期处理</span>
              </div>
            )}
            {classes.map((c) => (
              <ClassRow
                key={c.key}
                c={c}
                desktop={desktop}
                editable={editable}
                value={drafts[c.key] ?? String(c.days)}
                error={errors[c.key]}
                onChange={(v) => {
                  setDrafts((d) => ({ ...d, [c.key]: v }));
                  setErrors((e) => ({ ...e, [c.key]: undefined }));
                }}
              />
            ))}
          </div>
        )}
        <div className="sf-actions">
          {editable && (
            <Button color="primary" loading={save.isPending} disabled={policy.isPending || !changed.length} onClick={onSave}>
              保存
            </Button>
          )}
          <Button color="primary" fill="outline" loading={previewing.isPending} disabled={policy.isPending} onClick={onPreview}>
            预览
          </Button>
          {can('retention:run') && (
            <Button color="danger" fill="outline" loading={running.isPending} disabled={policy.isPending} onClick={() => void onRun()}>
              立即清理
            </Button>
          )}
        </div>
      </section>

      {preview && (
        <section className="card sf-card" aria-labelledby="rt-preview-title" data-testid="retention-preview">
          <h3 className="sf-title" id="rt-preview-title">
            预览
          </h3>
          <p className="sf-hint">
            按{changed.length ? '页面上填写的' : '已保存的'}期限，于 {preview.at} 清理时：
          </p>
          <ProofTable rows={preview.classes} desktop={desktop} kind="preview" />
        </section>
      )}

      <section className="card sf-card" aria-labelledby="rt-proof-title" data-testid="retention-proof">
        <h3 className="sf-title" id="rt-proof-title">
          最近一次清理
        </h3>
        {policy.isPending ? null : policy.data?.last_run ? <RunProof run={policy.data.last_run} desktop={desktop} /> : <p className="sf-hint">尚未清理过。</p>}
      </section>
    </div>
  );
}

function ClassRow(p: { c: RetentionPolicyClass; desktop: boolean; editable: boolean; value: string; error?: string; onChange: (v: string) => void }) {
  const { c } = p;
  const id = `rt-days-${c.key}`;
  const days = Number(p.value);
  const minimum = c.rule ? (
    <>
      不少于 {c.min_days} 天<span className="sf-rule">依据：{c.rule}</span>
    </>
  ) : (
    <span className="sf-muted">无法定最低期限</span>
  );
  const who = c.updated_by ? `${c.updated_by} 于 ${c.updated_at} 修改` : `默认 ${c.default_days} 天`;
  const input = p.editable ? (
    <div className={`sf-days${p.error ? ' sf-days--error' : ''}`}>
      <input
        id={id}
        className="sf-input"
        inputMode="numeric"
        autoComplete="off"
        value={p.value}
        onChange={(e) => p.onChange(e.target.value)}
        aria-label={c.field_label}
        aria-invalid={!!p.error}
        aria-describedby={`${id}-hint`}
        maxLength={4}
      />
      <span className="sf-unit">天</span>
    </div>
  ) : (
    <span className="sf-days-text">{c.days} 天</span>
  );
  const hint = (
    <div className="sf-field-hint" id={`${id}-hint`}>
      {p.error ? (
        <span className="sf-error" role="alert">
          {p.error}
        </span>
      ) : (
        <>
          {Number.isInteger(days) && days >= 60 ? `${daysInWords(days)} · ` : ''}
          {who}
        </>
      )}
    </div>
  );

  if (p.desktop) {
    return (
      <div className="sf-grid-row" role="row">
        <div role="cell">
          <label className="sf-name" htmlFor={id}>
            {c.label}
          </label>
          <div className="sf-scope">{c.scope}</div>
        </div>
        <div role="cell">
          {input}
          {hint}
        </div>
        <div role="cell" className="sf-minimum">
          {minimum}
        </div>
        <div role="cell" className="sf-action">
          <div>{c.action}</div>
          <div className="sf-muted">自{c.clock}起算</div>
        </div>
      </div>
    );
  }
  return (
    <div className="sf-item">
      <div className="sf-item-head">
        <label className="sf-name" htmlFor={id}>
          {c.label}
        </label>
        {input}
      </div>
      {hint}
      <div className="sf-scope">{c.scope}</div>
      <div className="sf-meta">
        <span>计算起点：{c.clock}</span>
        <span>到期处理：{c.action}</span>
        <span className="sf-minimum">最低要求：{minimum}</span>
      </div>
    </div>
  );
}

function RunProof({ run, desktop }: { run: RetentionRunProof; desktop: boolean }) {
  const total = run.classes.reduce((n, c) => n + c.rows, 0);
  return (
    <>
      <dl className="rt-run">
        <div>
          <dt>时间</dt>
          <dd>
            {run.started_at} 至 {run.finished_at ?? '未完成'}
          </dd>
        </div>
        <div>
          <dt>方式</dt>
          <dd>
            {retentionTriggerLabels[run.trigger]}
            {run.user_name ? `（${run.user_name}）` : ''}
          </dd>
        </div>
        <div>
          <dt>处理</dt>
          <dd>共 {total} 条</dd>
        </div>
        <div>
          <dt>主机</dt>
          <dd>{run.host}</dd>
        </div>
      </dl>
      {run.error && (
        <p className="sf-problem" role="alert">
          {run.error}
        </p>
      )}
      <ProofTable rows={run.classes} desktop={desktop} kind="run" />
    </>
  );
}

/** Per class: the rows a run took (or would take), the files it removed, and the oldest kept; the cut-off beside. */
function ProofTable({ rows, desktop, kind }: { rows: RetentionClassProof[]; desktop: boolean; kind: 'run' | 'preview' }) {
  const verb = kind === 'run' ? '已处理' : '将处理';
  if (!desktop) {
    return (
      <ul className="rt-proof-list">
        {rows.map((r) => (
          <li key={r.key} className="rt-proof-item">
            <div className="rt-proof-head">
              <span className="sf-name">{r.label}</span>
              <span className="rt-count">
                {verb} {r.rows} 条
              </span>
            </div>
            <div className="sf-meta">
              {kind === 'run' && <span>删除文件 {r.files} 个</span>}
              <span>
                保留 {r.days} 天，早于 {r.cutoff} 的到期
              </span>
              <span>最早保留：{r.oldest_kept ?? '无'}</span>
            </div>
          </li>
        ))}
      </ul>
    );
  }
  return (
    <table className="rt-table">
      <thead>
        <tr>
          <th scope="col">数据类别</th>
          <th scope="col">保留期限</th>
          <th scope="col">到期界限</th>
          <th scope="col" className="rt-num">
            {verb}（条）
          </th>
          {kind === 'run' && (
            <th scope="col" className="rt-num">
              删除文件（个）
            </th>
          )}
          <th scope="col">最早保留</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <th scope="row">{r.label}</th>
            <td>{r.days} 天</td>
            <td>{r.cutoff}</td>
            <td className="rt-num">{r.rows}</td>
            {kind === 'run' && <td className="rt-num">{r.files}</td>}
            <td>{r.oldest_kept ?? '无'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
