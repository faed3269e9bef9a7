import { Radio, Space } from 'antd-mobile';
import type { EnumOption } from '../../domain/enums';
import './fields.css';

export interface ChoiceRadioProps {
  value?: unknown;
  onChange?: (value: unknown) => void;
  options: EnumOption[];
  disabled?: boolean;
}

/** A short code table (性别, 状态, 是/否) as inline radios: one tap, all choices visible. */
export function ChoiceRadio({ value, onChange, options, disabled }: ChoiceRadioProps) {
  const current = options.find((o) => String(o.value) === String(value))?.value;
  return (
    <Radio.Group value={current ?? null} onChange={(v) => onChange?.(v)} disabled={disabled}>
      <Space wrap className="pf-radios" style={{ '--gap-horizontal': '24px' } as React.CSSProperties}>
        {options.map((o) => (
          <Radio
            key={String(o.value)}
            value={o.value}
            style={{ '--icon-size': 'calc(18px * var(--app-font-scale))', '--font-size': 'calc(15px * var(--app-font-scale))', '--gap': '6px' } as React.CSSProperties}
          >
            {o.label}
          </Radio>
        ))}
      </Space>
    </Radio.Group>
  );
}
