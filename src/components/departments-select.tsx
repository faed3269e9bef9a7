import { Tag } from 'antd-mobile';
import { useDepartments } from '../lib/preloads';
import { DepartmentSelect } from './department-select';
import './fields.css';

/** Ids from an array or a comma-joined string, as forms and rows hold them. */
export const idsOf = (value: unknown): number[] => {
  if (Array.isArray(value)) return value.map(Number).filter((n) => n > 0);
  if (typeof value === 'string' && value)
    return value
      .split(',')
      .map(Number)
      .filter((n) => n > 0);
  return [];
};

export interface DepartmentsSelectProps {
  value?: unknown;
  onChange?: (value: number[]) => void;
  disabled?: boolean;
  /** The picker's placeholder before any department is chosen. */
  placeholder?: string;
  'aria-label'?: string;
}

/**
 * Several departments from the tree (a notice's departments, a node's
 * reviewers, a route's binding): the chosen ones as removable tags, and the
 * tree picker below to add one more.
 */
export function DepartmentsSelect({ value, onChange, disabled, placeholder = '请选择部门', ...aria }: DepartmentsSelectProps) {
  const { data: departments = [] } = useDepartments();
  const ids = idsOf(value);
  const name = (id: number) => departments.find((d) => d.depart_id === id)?.name ?? String(id);
  return (
    <div className={`departs-select${disabled ? ' departs-select--off' : ''}`}>
      {ids.length > 0 && (
        <div className="departs-select__tags" role="group" aria-label="已选部门">
          {ids.map((id) => (
            <Tag key={id} color="primary" fill="outline" className="departs-select__tag">
              {name(id)}
              {!disabled && (
                <button type="button" className="departs-select__remove" aria-label={`移除${name(id)}`} onClick={() => onChange?.(ids.filter((x) => x !== id))}>
                  ×
                </button>
              )}
            </Tag>
          ))}
        </div>
      )}
      <DepartmentSelect
        aria-label={aria['aria-label'] ?? '添加部门'}
        value={undefined}
        onChange={(v) => {
          const id = Number(v);
          if (id > 0 && !ids.includes(id)) onChange?.([...ids, id]);
        }}
        placeholder={ids.length ? '继续添加部门' : placeholder}
        allowClear={false}
        disabled={disabled}
      />
    </div>
  );
}
