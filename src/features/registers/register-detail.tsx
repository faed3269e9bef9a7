import { FieldValue } from '../../list-screen/field-value';
import type { FieldDef, Row } from '../../list-screen';
import './register-detail.css';

/**
 * A register's read-only detail in titled sections (spec 001 §2: the waybill
 * detail's identification, carrier, people, shipment): each line is a field
 * the screen declares already, shown as its detail line, so a value reads the
 * same in the table, the card and here.
 */
export interface DetailSection {
  title: string;
  /** Field names in order; a wide field takes the whole row (photos, addresses). */
  fields: Array<string | { name: string; wide?: boolean }>;
}

export function DetailSections<R extends Row>({ sections, fields, row, label }: { sections: DetailSection[]; fields: FieldDef<R>[]; row: R; label?: (name: string) => string | undefined }) {
  const byName = new Map(fields.map((f) => [f.name, f]));
  return (
    <div className="rd">
      {sections.map((s) => (
        <section key={s.title} className="rd-section" aria-label={s.title}>
          <h4 className="rd-title">{s.title}</h4>
          <dl className="rd-grid">
            {s.fields.map((entry) => {
              const { name, wide } = typeof entry === 'string' ? { name: entry, wide: false } : entry;
              const field = byName.get(name);
              if (!field) return null;
              return (
                <div key={name} className={`rd-item${wide ? ' rd-item--wide' : ''}`}>
                  <dt className="rd-label">{label?.(name) ?? field.label}</dt>
                  <dd className="rd-value">
                    <FieldValue field={field} row={row} variant="detail" />
                  </dd>
                </div>
              );
            })}
          </dl>
        </section>
      ))}
    </div>
  );
}
