import { useMemo } from 'react';
import { ALL } from '../../../domain/enums';
import { EnumSelect } from '../../components/enum-select';
import type { FieldInputProps } from '../../list-screen/types';
import { useGates } from './gates-query';

/** The gate filter of the vehicle records: 全部闸机 or one of the park's vehicle barriers (a list screen's 'custom' input). */
export function GateSelect({ value, onChange, placeholder, disabled }: FieldInputProps) {
  const gates = useGates();
  const options = useMemo(() => [{ value: ALL, label: '全部闸机' }, ...(gates.data ?? []).map((g) => ({ value: g.id, label: g.name }))], [gates.data]);
  return <EnumSelect aria-label="闸机" value={value ?? ALL} onChange={(v) => onChange?.(v ?? ALL)} options={options} placeholder={gates.isLoading ? '闸机加载中…' : placeholder} disabled={disabled} />;
}
