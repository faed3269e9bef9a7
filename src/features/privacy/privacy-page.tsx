import { useMutation } from '@tanstack/react-query';
import { Button, Input, TextArea } from 'antd-mobile';
import { useState } from 'react';
import { piiApi, piiLabels, subjectInput } from '../../../domain/schemas/pii';
import { FormItem, failureText, fieldErrorMap } from '../../list-screen';
import { downloadFile } from '../../lib/download';
import { confirmDialog, showToast } from '../../lib/feedback';
import { ApiError, call } from '../../lib/http';
import { useCan } from '../../lib/me';
import { useIsDesktop } from '../../lib/use-media';
import './privacy.css';

/**
 * 个人信息保护 (系统设置): a person's request about their own data (PIPL arts.
 * 45 and 47), by ID number and with a reason: 导出个人信息 (everything held,
 * whole, as one xlsx) and 匿名化 (now, except what a legal minimum keeps).
 * Both are in the operation log with the reason. What is masked, and who
 * sees it whole: docs/personal-data.md.
 */

type Field = 'idcard' | 'reason';
type Values = Record<Field, string>;
type Errors = Partial<Record<Field, string>>;
type Anonymised = Awaited<ReturnType<typeof anonymise>>;

const anonymise = (values: Values) => call(piiApi.subjectAnonymise, values);
const labels = { ...piiLabels, reason: '原因' } as Record<Field, string>;

/** The typed request checked by the schema the server checks with: errors name the field and the rule. */
function check(values: Values): { errors: Errors; ok: boolean } {
  const r = subjectInput.safeParse(values);
  return r.success ? { errors: {}, ok: true } : { errors: fieldErrorMap(r.error.issues) as Errors, ok: false };
}

const fieldErrorsOf = (err: unknown): Errors =>
  err instanceof ApiError ? Object.fromEntries(err.fieldErrors.filter((f) => f.field === 'idcard' || f.field === 'reason').map((f) => [f.field, f.message])) : {};

export default function PrivacyPage() {
  const can = useCan();
  const desktop = useIsDesktop();
  const [values, setValues] = useState<Values>({ idcard: '', reason: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [result, setResult] = useState<Anonymised | null>(null);
  const allowed = can('pii:subject');

  const anonymising = useMutation({
    mutationFn: anonymise,
    onSuccess: (answer) => {
      setResult(answer);
      showToast({ icon: 'success', content: '已匿名化' });
    },
    onError: (err) => {
      setErrors(fieldErrorsOf(err));
      showToast({ icon: 'fail', content: failureText('匿名化失败：', err.message), duration: 4000 });
    },
  });

  const set = (field: Field) => (v: string) => {
    setValues((old) => ({ ...old, [field]: v }));
    setErrors((old) => ({ ...old, [field]: undefined }));
  };

  const checked = () => {
    const r = check(values);
    setErrors(r.errors);
    return r.ok;
  };

  const onExport = () => {
    if (!checked()) return;
    void downloadFile({ method: 'post', path: piiApi.subjectExport.path, body: values, fallbackName: '个人信息.xlsx', loadingText: '正在导出…' });
  };

  const onAnonymise = async () => {
    if (!checked()) return;
    const ok = await confirmDialog({
      title: '匿名化个人信息',
      content: '将立即匿名化该证件号码的预约、名单、导入记录与过期的过闸记录和运单，删除人脸与证件照片；生效中的黑白名单和法定保存期内的记录保留。此操作无法恢复，确定继续吗？',
      confirmText: '匿名化',
      danger: true,
    });
    if (ok) anonymising.mutate(values);
  };

  return (
    <div className="page pv" data-testid="privacy-page">
      <section className="card pv-card" aria-labelledby="pv-title">
        <h3 className="pv-title" id="pv-title">
          个人信息查阅与删除
        </h3>
        <p className="pv-hint">本人申请查阅或删除其个人信息时（《个人信息保护法》第四十五、四十七条），按证件号码导出园区保存的全部记录，或立即匿名化。两项操作均须填写原因，并记入操作日志。</p>
        <form
          className={`ef pf-boxed ${desktop ? 'ef--horizontal' : 'ef--vertical'}`}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            onExport();
          }}
        >
          <FormItem label={labels.idcard} required error={errors.idcard} htmlFor="pv-idcard">
            <Input id="pv-idcard" value={values.idcard} onChange={set('idcard')} placeholder="请输入证件号码" maxLength={30} clearable autoComplete="off" aria-invalid={!!errors.idcard} />
          </FormItem>
          <FormItem label={labels.reason} required error={errors.reason} help="如：本人来电申请查阅，工单号 2026-118" htmlFor="pv-reason">
            <TextArea id="pv-reason" value={values.reason} onChange={set('reason')} placeholder="请填写原因" maxLength={200} showCount rows={2} aria-invalid={!!errors.reason} />
          </FormItem>
        </form>
        {allowed ? (
          <div className="pv-actions">
            <Button color="primary" onClick={onExport}>
              导出个人信息
            </Button>
            <Button color="danger" fill="outline" loading={anonymising.isPending} onClick={() => void onAnonymise()}>
              匿名化
            </Button>
          </div>
        ) : (
          <p className="pv-muted">没有操作权限：缺少权限 pii:subject（个人信息导出与删除）</p>
        )}
      </section>

      {result && (
        <section className="card pv-card" aria-labelledby="pv-result-title" data-testid="privacy-result">
          <h3 className="pv-title" id="pv-result-title">
            已匿名化 {result.idcard_masked}
          </h3>
          <ul className="pv-counts">
            {result.counts.map((c) => (
              <li key={c.record}>
                {c.record}：{c.rows} 条
              </li>
            ))}
          </ul>
          {result.kept.length > 0 && (
            <>
              <h4 className="pv-subtitle">暂时保留</h4>
              <ul className="pv-counts">
                {result.kept.map((k) => (
                  <li key={k.record}>
                    {k.record}：{k.rows} 条<span className="pv-rule">{k.rule}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
    </div>
  );
}
