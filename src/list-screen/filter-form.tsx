import { Button } from 'antd-mobile';
import { FieldInput } from './field-input';
import { searchFields, textWidth } from './conventions';
import type { FieldDef, Row, Values } from './types';

export interface FilterFormProps<R extends Row> {
  fields: FieldDef<R>[];
  values: Values;
  onChange: (values: Values) => void;
  onSearch: () => void;
  onReset: () => void;
  layout: 'inline' | 'sheet';
}

/** The search form: inline grid above the desktop table, a stacked form in the phone's bottom sheet. */
export function FilterForm<R extends Row>({ fields, values, onChange, onSearch, onReset, layout }: FilterFormProps<R>) {
  const list = searchFields(fields);
  // The inline labels share one width, that of the longest with its colon, so none is cut ('备案有效…').
  const labelWidth = Math.max(0, ...list.map((f) => textWidth(f.label))) + 16;
  return (
    <form
      className={`ff ff--${layout} pf-boxed`}
      style={layout === 'inline' ? ({ '--ff-label-width': `${labelWidth}px` } as React.CSSProperties) : undefined}
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch();
      }}
    >
      <div className="ff-grid">
        {list.map((f) => (
          <div key={f.name} className={`ff-item${f.kind === 'datetimeRange' || f.kind === 'dateRange' ? ' ff-item--wide' : ''}`}>
            <label className="ff-label" htmlFor={`ff-${f.name}`}>
              {f.label}
            </label>
            <div className="ff-control">
              <FieldInput field={f} value={values[f.name]} onChange={(v) => onChange({ ...values, [f.name]: v })} purpose="search" id={`ff-${f.name}`} onEnter={onSearch} />
            </div>
          </div>
        ))}
        <div className="ff-actions">
          <Button size={layout === 'inline' ? 'small' : 'large'} className="ff-btn" onClick={onReset} type="button">
            重置
          </Button>
          <Button size={layout === 'inline' ? 'small' : 'large'} className="ff-btn" color="primary" type="submit">
            查询
          </Button>
        </div>
      </div>
    </form>
  );
}
