import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, DotLoading } from 'antd-mobile';
import { useState } from 'react';
import { SAFETY_BOUNDS, safetySettingApi, safetySettingInput, safetySettingLabels, type SafetySettings } from '../../../domain/schemas/safety-setting';
import { showToast } from '../../lib/feedback';
import { ApiError, call } from '../../lib/http';
import { useCan } from '../../lib/me';
import { useIsDesktop } from '../../lib/use-media';
// The look of 数据保留, the other settings form of 系统设置.
import '../../components/settings-form.css';
import './safety-settings.css';
import { SettingsLoadFailed } from '../../components/settings-load-failed';

/**
 * 安全设置 (系统设置): each park's cap on hazardous-goods vehicles inside at
 * once (empty: no cap), and when repeated real alarms of one plate or ID
 * number file a black-list draft. Checked here by the schema the server
 * checks with; every refusal names the field and its rule.
 */

const settingsKey = ['safetySetting'] as const;
const FIELDS = ['hazmat_cap_chemical', 'hazmat_cap_port', 'repeat_offender_threshold', 'repeat_offender_days'] as const;
type Field = (typeof FIELDS)[number];
type Drafts = Partial<Record<Field, string>>;
type Errors = Partial<Record<Field, string>>;

const L = safetySettingLabels as Record<Field, string>;
/** What each field means and its bounds, under its name. */
const hints: Record<Field, string> = {
  hazmat_cap_chemical: `化工区内同时在园的危化品车辆最多几辆；留空为不限，否则${SAFETY_BOUNDS.cap.min}-${SAFETY_BOUNDS.cap.max}。达到上限后，下一辆危化品车辆入园被拒绝。`,
  hazmat_cap_port: `港区内同时在园的危化品车辆最多几辆；留空为不限，否则${SAFETY_BOUNDS.cap.min}-${SAFETY_BOUNDS.cap.max}。`,
  repeat_offender_threshold: `同一车牌或证件号码的告警经处理确认属实（非误判）达到此次数，系统自动提报黑名单；${SAFETY_BOUNDS.threshold.min}-${SAFETY_BOUNDS.threshold.max}，默认${SAFETY_BOUNDS.threshold.default}。`,
  repeat_offender_days: `统计最近多少天内的告警；${SAFETY_BOUNDS.days.min}-${SAFETY_BOUNDS.days.max}，默认${SAFETY_BOUNDS.days.default}。`,
};
const units: Record<Field, string> = { hazmat_cap_chemical: '辆', hazmat_cap_port: '辆', repeat_offender_threshold: '次', repeat_offender_days: '天' };

const shown = (s: SafetySettings | undefined, f: Field): string => (s?.[f] == null ? '' : String(s[f]));

const fieldErrorsOf = (err: unknown): Errors =>
  err instanceof ApiError ? Object.fromEntries(err.fieldErrors.filter((f) => (FIELDS as readonly string[]).includes(f.field)).map((f) => [f.field, f.message])) : {};

export default function SafetySettingsPage() {
  const client = useQueryClient();
  const can = useCan();
  const desktop = useIsDesktop();
  const settings = useQuery({ queryKey: settingsKey, queryFn: () => call(safetySettingApi.get, {}) });
  const [drafts, setDrafts] = useState<Drafts>({});
  const [errors, setErrors] = useState<Errors>({});
  const editable = can('safetySetting:edit');
  const value = (f: Field) => drafts[f] ?? shown(settings.data, f);
  const changed = FIELDS.some((f) => drafts[f] !== undefined && drafts[f]!.trim() !== shown(settings.data, f));

  const save = useMutation({
    mutationFn: (form: Record<Field, string>) => call(safetySettingApi.save, form),
    onSuccess: (answer) => {
      client.setQueryData(settingsKey, answer);
      setDrafts({});
      setErrors({});
      showToast({ icon: 'success', content: '保存成功！' });
    },
    onError: (err) => {
      setErrors(fieldErrorsOf(err));
      showToast({ icon: 'fail', content: `保存失败：${err.message}`, duration: 4000 });
    },
  });

  const onSave = () => {
    const form = Object.fromEntries(FIELDS.map((f) => [f, value(f).trim()])) as Record<Field, string>;
    const checked = safetySettingInput.safeParse(form);
    if (!checked.success) {
      setErrors(Object.fromEntries(checked.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    save.mutate(form);
  };

  if (settings.error) return <SettingsLoadFailed what="安全设置" error={settings.error} pageClass="ss" onRetry={() => void settings.refetch()} />;

  const field = (f: Field) => {
    const id = `ss-${f}`;
    const input = editable ? (
      <div className={`sf-days${errors[f] ? ' sf-days--error' : ''}`}>
        <input
          id={id}
          className="sf-input"
          inputMode="numeric"
          autoComplete="off"
          value={value(f)}
          placeholder={f.startsWith('hazmat_cap') ? '不限' : ''}
          onChange={(e) => {
            setDrafts((d) => ({ ...d, [f]: e.target.value }));
            setErrors((x) => ({ ...x, [f]: undefined }));
          }}
          aria-label={L[f]}
          aria-invalid={!!errors[f]}
          aria-describedby={`${id}-hint`}
          maxLength={5}
        />
        <span className="sf-unit">{units[f]}</span>
      </div>
    ) : (
      <span className="sf-days-text">{value(f) ? `${value(f)} ${units[f]}` : '不限'}</span>
    );
    const hint = (
      <div className="sf-field-hint" id={`${id}-hint`}>
        {errors[f] ? (
          <span className="sf-error" role="alert">
            {errors[f]}
          </span>
        ) : (
          hints[f]
        )}
      </div>
    );
    return desktop ? (
      <div className="sf-grid-row" role="row" key={f}>
        <div role="cell">
          <label className="sf-name" htmlFor={id}>
            {L[f]}
          </label>
        </div>
        <div role="cell">
          {input}
          {hint}
        </div>
      </div>
    ) : (
      <div className="sf-item" key={f}>
        <div className="sf-item-head">
          <label className="sf-name" htmlFor={id}>
            {L[f]}
          </label>
          {input}
        </div>
        {hint}
      </div>
    );
  };

  const group = (title: string, id: string, intro: string, fields: readonly Field[]) => (
    <section className="card sf-card" aria-labelledby={id}>
      <h3 className="sf-title" id={id}>
        {title}
      </h3>
      <p className="sf-hint">{intro}</p>
      {settings.isPending ? (
        <div className="sf-state">
          <DotLoading color="primary" /> 加载中
        </div>
      ) : (
        <div className={desktop ? 'sf-grid' : 'sf-list'} role={desktop ? 'table' : undefined} aria-label={desktop ? title : undefined}>
          {fields.map(field)}
        </div>
      )}
    </section>
  );

  return (
    <div className="page sf ss" data-testid="safety-settings-page">
      {group('危化品车辆', 'ss-hazmat-title', '危化品车辆入园须有覆盖当天、登记其车牌且已审批通过的运单；无运单被拒时向安防负责人告警（横幅、推送和短信）。', [
        'hazmat_cap_chemical',
        'hazmat_cap_port',
      ])}
      {group('重复告警', 'ss-offender-title', '告警处理为属实后统计；已有待审批或生效中的黑名单时不再提报。提报的黑名单草稿自动提交审批，并通知黑白名单填报人。', [
        'repeat_offender_threshold',
        'repeat_offender_days',
      ])}
      <section className="card sf-card">
        <p className="sf-hint">{settings.data?.updated_by ? `${settings.data.updated_by} 于 ${settings.data.updated_at} 修改` : '尚未修改，使用默认设置。'}</p>
        {editable && (
          <div className="sf-actions">
            <Button color="primary" loading={save.isPending} disabled={settings.isPending || !changed} onClick={onSave}>
              保存
            </Button>
          </div>
        )}
      </section>
    </div>
  );
}
