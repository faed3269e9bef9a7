import { useEffect, useSyncExternalStore } from 'react';
import { enums } from '../../../../domain/enums';
import type { ProcessNodeRow } from '../../../../domain/schemas/process-config';
import { ChoiceRadio } from '../../../components/choice-radio';
import { DepartmentsSelect, idsOf } from '../../../components/departments-select';
import { EnumSelect } from '../../../components/enum-select';
import type { FieldInputProps } from '../../../list-screen/types';
import { useProcessRoles } from '../api';
import './process-config.css';

/**
 * The node form's inputs (spec 002 §4: choosing the visited-enterprise check
 * clears the departments, sets countersign to no and disables both; the
 * deadline's follow-up fields are in deadline-inputs.tsx). The list
 * framework's form hands each input only its own value, so the choices that
 * govern others publish theirs here; only one node form is open at a time.
 */
export function watch() {
  let value: unknown;
  const listeners = new Set<() => void>();
  const subscribe = (l: () => void) => {
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  };
  return {
    publish(v: unknown) {
      if (Object.is(v, value)) return;
      value = v;
      for (const l of listeners) l();
    },
    // eslint-disable-next-line react-hooks/rules-of-hooks -- a hook factory: `useValue` is called from components only.
    useValue: () => useSyncExternalStore(subscribe, () => value),
  };
}

const companyCheck = watch();

/** 是 before 否, as people read a yes/no question (and as the framework's own yes/no inputs do). */
const yesFirst = [...enums.yesNo].reverse();

/** Publishes the input's value while the form is open. */
export function usePublish(w: ReturnType<typeof watch>, value: unknown) {
  useEffect(() => w.publish(value), [w, value]);
  useEffect(() => () => w.publish(undefined), [w]);
}

export function CompanyCheckInput({ value, onChange, disabled }: FieldInputProps) {
  usePublish(companyCheck, value);
  return <ChoiceRadio value={value} onChange={onChange} options={yesFirst} disabled={disabled} />;
}

const isYes = (v: unknown) => v !== undefined && v !== null && Number(v) === 1;

/** Countersign: forced to 否 and disabled under the visited-enterprise check. */
export function CountersignInput({ value, onChange, disabled }: FieldInputProps) {
  const company = isYes(companyCheck.useValue());
  useEffect(() => {
    if (company && value !== 0) onChange?.(0);
  }, [company, value, onChange]);
  return <ChoiceRadio value={company ? 0 : value} onChange={onChange} options={yesFirst} disabled={disabled || company} />;
}

/** Related departments, several (components/departments-select.tsx). Cleared and disabled under the visited-enterprise check. */
export function DepartmentsInput({ value, onChange, disabled }: FieldInputProps) {
  const company = isYes(companyCheck.useValue());
  const ids = idsOf(value);
  useEffect(() => {
    if (company && ids.length) onChange?.([]);
  }, [company, ids.length, onChange]);
  if (company) return <div className="pc-departs__note">被访企业审核：由申请所访问的部门审核，无需关联部门</div>;
  return <DepartmentsSelect value={ids} onChange={onChange} disabled={disabled} placeholder="请选择关联部门" aria-label="添加关联部门" />;
}

/**
 * A role of the role register. `none` adds a first choice of value 0 that
 * stands for no role (the schema reads 0 as none), so an optional role can be
 * cleared again; an empty value then shows it.
 */
export function RoleSelect({ value, onChange, placeholder, disabled, label = '关联角色', none }: FieldInputProps & { label?: string; none?: string }) {
  const { data: roles = [], isLoading } = useProcessRoles();
  const options = roles.map((r) => ({ value: r.role_id, label: r.status === 0 ? `${r.name}（停用）` : r.name }));
  const empty = value === undefined || value === null || value === '';
  return (
    <EnumSelect
      aria-label={label}
      value={none && empty ? 0 : value}
      onChange={onChange}
      options={none ? [{ value: 0, label: none }, ...options] : options}
      placeholder={isLoading ? '加载中…' : placeholder}
      disabled={disabled}
    />
  );
}

/** How a node's reviewers read on one line: the role, where. */
export function reviewersText(n: Pick<ProcessNodeRow, 'company_check' | 'departList' | 'role'>): string {
  const where = n.company_check === 1 ? '被访企业' : n.departList.map((d) => d.name).join('、') || '-';
  return `${n.role?.name ?? '-'} · ${where}`;
}
