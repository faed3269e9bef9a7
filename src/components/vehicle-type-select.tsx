import { useMemo } from 'react';
import { useVehicleTypes } from '../lib/preloads';
import type { FieldInputProps } from '../list-screen/types';
import { EnumSelect } from './enum-select';

/** A vehicle model from the preloaded models (a list screen's 'custom' input). */
export function VehicleTypeSelect({ value, onChange, placeholder, disabled }: FieldInputProps) {
  const types = useVehicleTypes();
  const options = useMemo(() => (types.data ?? []).map((t) => ({ value: t.id, label: t.name })), [types.data]);
  return <EnumSelect aria-label="车型" value={value} onChange={onChange} options={options} placeholder={types.isLoading ? '车型加载中…' : placeholder} disabled={disabled} />;
}
