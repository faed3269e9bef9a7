import { Picker } from 'antd-mobile';
import { DownOutline } from 'antd-mobile-icons';
import { useState } from 'react';
import type { EnumOption } from '../../domain/enums';
import { useIsDesktop } from '../lib/use-media';
import { optionLabel } from './enum-options';
import { triggerName } from './trigger-name';
import './fields.css';

export interface EnumSelectProps {
  value?: unknown;
  onChange?: (value: unknown) => void;
  options: EnumOption[];
  placeholder?: string;
  disabled?: boolean;
  'aria-label'?: string;
}

/**
 * One value out of a code table: a native select on desktop (keyboard friendly,
 * no bottom sheet on a wide screen), antd-mobile's wheel picker on phones.
 */
export function EnumSelect({ value, onChange, options, placeholder = '请选择', disabled, ...aria }: EnumSelectProps) {
  const desktop = useIsDesktop();
  const [open, setOpen] = useState(false);
  const numeric = options.every((o) => typeof o.value === 'number');
  const toValue = (raw: string) => (raw === '' ? undefined : numeric ? Number(raw) : raw);

  if (desktop) {
    const current = value === undefined || value === null ? '' : String(value);
    return (
      <select
        className={`pf-select${current === '' ? ' pf-select--empty' : ''}`}
        value={current}
        disabled={disabled}
        aria-label={aria['aria-label']}
        onChange={(e) => onChange?.(toValue(e.target.value))}
      >
        {!options.some((o) => String(o.value) === current) && <option value="">{placeholder}</option>}
        {options.map((o) => (
          <option key={String(o.value)} value={String(o.value)}>
            {o.label}
          </option>
        ))}
      </select>
    );
  }

  const label = optionLabel(options, value);
  return (
    <>
      <button type="button" className="pf-trigger" disabled={disabled} aria-label={triggerName(aria['aria-label'], label || placeholder)} onClick={() => setOpen(true)}>
        <span className={label ? 'pf-trigger__text' : 'pf-trigger__placeholder'}>{label || placeholder}</span>
        <span className="pf-trigger__arrow" aria-hidden>
          <DownOutline />
        </span>
      </button>
      <Picker
        visible={open}
        onClose={() => setOpen(false)}
        columns={[options.map((o) => ({ label: o.label, value: o.value }))]}
        value={value === undefined || value === null ? [] : [value as string | number]}
        onConfirm={(v) => onChange?.(v[0] ?? undefined)}
        confirmText="确定"
        cancelText="取消"
      />
    </>
  );
}
