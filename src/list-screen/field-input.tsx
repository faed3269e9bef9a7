import { Input, Selector, TextArea } from 'antd-mobile';
import { lazy, Suspense } from 'react';
import { ALL, enums } from '../../domain/enums';
import { ChoiceRadio } from '../components/choice-radio';
import { DateInput, DateRangeInput } from '../components/date-inputs';
import { DepartmentSelect } from '../components/department-select';
import { resolveOptions } from '../components/enum-options';
import { EnumSelect } from '../components/enum-select';
import { useIsDesktop } from '../lib/use-media';
import type { FieldDef, FormMode, Row } from './types';

// Loaded with the first photo field, so that list screens without one do not carry the image viewer.
const ImageUpload = lazy(() => import('../components/image-upload').then((m) => ({ default: m.ImageUpload })));

export interface FieldInputArgs<R extends Row> {
  field: FieldDef<R>;
  value: unknown;
  onChange: (v: unknown) => void;
  /** 'search' adds the 全部 choice and keeps selects compact; 'form' uses radios for short tables. */
  purpose: 'search' | 'form';
  mode?: FormMode;
  id?: string;
  onEnter?: () => void;
  disabled?: boolean;
}

function placeholderOf<R extends Row>(field: FieldDef<R>, purpose: 'search' | 'form', mode?: FormMode): string {
  if (purpose === 'search' && field.search?.placeholder) return field.search.placeholder;
  const p = field.form?.placeholder;
  if (purpose === 'form' && p) return typeof p === 'string' ? p : (p[mode ?? 'create'] ?? '');
  const choose = ['enum', 'yesNo', 'department', 'date', 'dateRange', 'datetimeRange'].includes(field.kind);
  return `${choose ? '请选择' : '请输入'}${(purpose === 'form' && field.form?.label) || field.label}`;
}

/** Today on this device as 'YYYY-MM-DD' (the Swedish locale writes dates that way), for fields that start today. */
const minDay = <R extends Row>(field: FieldDef<R>, purpose: 'search' | 'form') => (purpose === 'form' && field.form?.fromToday ? new Date().toLocaleDateString('sv-SE') : undefined);

/** The input a field's kind calls for, in the filter form or the create/edit form. */
export function FieldInput<R extends Row>({ field, value, onChange, purpose, mode, id, onEnter, disabled }: FieldInputArgs<R>) {
  const desktop = useIsDesktop();
  const placeholder = placeholderOf(field, purpose, mode);
  const str = value === undefined || value === null ? '' : String(value);
  switch (field.kind) {
    case 'custom': {
      const Custom = field.input;
      return Custom ? <Custom value={value} onChange={onChange} placeholder={placeholder} disabled={disabled} /> : null;
    }
    case 'textarea':
      if (purpose === 'form') return <TextArea id={id} value={str} onChange={onChange} placeholder={placeholder} autoSize={{ minRows: 2, maxRows: 6 }} disabled={disabled} />;
      break;
    case 'enum':
    case 'yesNo': {
      // 是 before 否 in a form, as people read a yes/no question.
      const base = field.kind === 'yesNo' ? (purpose === 'form' ? [...enums.yesNo].reverse() : enums.yesNo) : resolveOptions(field.options);
      if (purpose === 'search') {
        const options = [{ value: ALL, label: field.search?.allLabel ?? '全部' }, ...base];
        // In the phone's filter sheet a few choices read best as chips: one tap, all visible.
        if (!desktop && options.length <= 5)
          return (
            <Selector
              className="ls-chips"
              columns={options.length}
              showCheckMark={false}
              options={options.map((o) => ({ label: o.label, value: o.value }))}
              value={[value ?? ALL] as Array<string | number>}
              onChange={(v) => v.length && onChange(v[0])}
            />
          );
        return <EnumSelect aria-label={field.label} value={value ?? ALL} onChange={(v) => onChange(v ?? ALL)} options={options} placeholder={placeholder} disabled={disabled} />;
      }
      if (base.length <= 4) return <ChoiceRadio value={value} onChange={onChange} options={base} disabled={disabled} />;
      return <EnumSelect aria-label={field.label} value={value} onChange={onChange} options={base} placeholder={placeholder} disabled={disabled} />;
    }
    case 'department':
      return (
        <DepartmentSelect
          aria-label={field.label}
          value={typeof value === 'number' && value === ALL ? undefined : value}
          onChange={(v) => onChange(v)}
          placeholder={purpose === 'search' ? '全部部门' : placeholder}
          allowClear={purpose === 'search'}
          disabled={disabled}
        />
      );
    case 'images':
      return purpose === 'form' ? (
        <Suspense fallback={null}>
          <ImageUpload value={str} onChange={onChange} max={field.max} disabled={disabled} />
        </Suspense>
      ) : null;
    case 'date':
      return <DateInput aria-label={field.label} value={value} onChange={onChange} disabled={disabled} min={minDay(field, purpose)} />;
    case 'dateRange':
    case 'datetimeRange':
      return <DateRangeInput aria-label={field.label} value={value} onChange={onChange} withTime={field.kind === 'datetimeRange'} disabled={disabled} min={minDay(field, purpose)} />;
    default:
      break;
  }
  const isNumber = field.kind === 'number';
  return (
    <span className="ls-input-wrap">
      <Input
        id={id}
        type={field.kind === 'password' ? 'password' : 'text'}
        inputMode={isNumber ? 'numeric' : undefined}
        autoComplete={field.kind === 'password' ? 'new-password' : 'off'}
        value={str}
        onChange={onChange}
        placeholder={placeholder}
        clearable={purpose === 'search'}
        disabled={disabled}
        onEnterPress={onEnter}
      />
      {purpose === 'form' && field.unit && <span className="ls-unit">{field.unit}</span>}
    </span>
  );
}
