import { Checkbox } from 'antd-mobile';
import { MoreOutline, RightOutline } from 'antd-mobile-icons';
import { FieldValue } from './field-value';
import type { BoundAction } from './data-table';
import type { FieldDef, Row } from './types';
// The list screen's styles: a report screen (src/features/reports) draws this part without the rest.
import './list-screen.css';

export interface CardListProps<R extends Row> {
  rows: R[];
  rowKey: keyof R & string;
  fields: FieldDef<R>[];
  card?: { title: string; extra?: string };
  actionsFor?: (row: R) => BoundAction[];
  onMore: (row: R) => void;
  onOpen?: (row: R) => void;
  rowClassName?: (row: R) => string | undefined;
  selection?: { selected: Set<unknown>; toggle: (key: unknown) => void };
}

/** Phone rows: a title line with its tag, the key fields, and '…' for the row's actions. */
export function CardList<R extends Row>({ rows, rowKey, fields, card, actionsFor, onMore, onOpen, rowClassName, selection }: CardListProps<R>) {
  const shown = fields.filter((f) => !f.hideInTable && !f.hideInCard);
  const titleField = shown.find((f) => f.name === card?.title) ?? shown[0];
  const extraField = card?.extra ? shown.find((f) => f.name === card.extra) : undefined;
  const lines = shown.filter((f) => f !== titleField && f !== extraField);
  return (
    <ul className="cl">
      {rows.map((r) => {
        const k = (r as Record<string, unknown>)[rowKey];
        const actions = actionsFor?.(r) ?? [];
        const on = selection?.selected.has(k);
        return (
          <li key={String(k)} className={['cl-card', on ? 'cl-card--selected' : '', rowClassName?.(r) ?? ''].join(' ').trim()}>
            {/* A tap anywhere on the card opens it; keyboards and screen readers use 查看详情 below (the card holds a tick box, which a button may not). */}
            <div className={`cl-main${onOpen ? ' cl-main--open' : ''}`} onClick={onOpen ? () => onOpen(r) : undefined}>
              <div className="cl-head">
                {selection && (
                  <span onClick={(e) => e.stopPropagation()}>
                    <Checkbox checked={!!on} onChange={() => selection.toggle(k)}>
                      <span className="visually-hidden">选择</span>
                    </Checkbox>
                  </span>
                )}
                <span className="cl-title">{titleField ? <FieldValue field={titleField} row={r} /> : String(k)}</span>
                {extraField && (
                  <span className="cl-extra">
                    <FieldValue field={extraField} row={r} />
                  </span>
                )}
              </div>
              <dl className="cl-lines">
                {lines.map((f) => (
                  <div key={f.name} className="cl-line">
                    <dt>{f.label}</dt>
                    <dd>
                      <FieldValue field={f} row={r} />
                    </dd>
                  </div>
                ))}
              </dl>
            </div>
            {(actions.length > 0 || onOpen) && (
              <div className="cl-foot">
                {onOpen ? (
                  <button type="button" className="cl-detail" onClick={() => onOpen(r)}>
                    查看详情 <RightOutline />
                  </button>
                ) : (
                  <span />
                )}
                {actions.length > 0 && (
                  <span className="cl-actions">
                    {actions.length <= 2 ? (
                      actions.map((a) => (
                        <button key={a.key} type="button" className={`cl-act${a.danger ? ' cl-act--danger' : ''}`} onClick={a.run}>
                          {a.label}
                        </button>
                      ))
                    ) : (
                      <>
                        <button type="button" className="cl-act" onClick={actions[0].run}>
                          {actions[0].label}
                        </button>
                        <button type="button" className="cl-act cl-act--more" aria-label="更多操作" onClick={() => onMore(r)}>
                          <MoreOutline /> 更多
                        </button>
                      </>
                    )}
                  </span>
                )}
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}
