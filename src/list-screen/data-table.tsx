import { Checkbox, Popover } from 'antd-mobile';
import { MoreOutline } from 'antd-mobile-icons';
import type { ReactNode } from 'react';
import { FieldValue, fieldText } from './field-value';
import type { FieldDef, Row } from './types';

export interface BoundAction {
  key: string;
  label: string;
  danger?: boolean;
  run: () => void;
}

export interface DataTableProps<R extends Row> {
  rows: R[];
  rowKey: keyof R & string;
  fields: FieldDef<R>[];
  actionsFor?: (row: R) => BoundAction[];
  hasActions: boolean;
  /** Estimated width of the actions column, so the table scrolls sideways only when it must. */
  actionWidth?: number;
  onOpen?: (row: R) => void;
  rowClassName?: (row: R) => string | undefined;
  selection?: { selected: Set<unknown>; toggle: (key: unknown) => void; toggleAll: (on: boolean) => void };
  /** Replaces the body (skeleton, empty and error states) while keeping the header. */
  placeholder?: ReactNode;
  busy?: boolean;
  /** Shows a leading 序号 column starting at this number (the first row of the page). */
  rowNumberFrom?: number;
}

const INLINE_ACTIONS = 4;

function ActionCell({ actions }: { actions: BoundAction[] }) {
  if (!actions.length) return <span className="ls-dash">-</span>;
  const inline = actions.length > INLINE_ACTIONS ? actions.slice(0, INLINE_ACTIONS - 1) : actions;
  const rest = actions.length > INLINE_ACTIONS ? actions.slice(INLINE_ACTIONS - 1) : [];
  return (
    <span className="dtb-actions">
      {inline.map((a) => (
        <button key={a.key} type="button" className={`dtb-link${a.danger ? ' dtb-link--danger' : ''}`} onClick={a.run} onDoubleClick={(e) => e.stopPropagation()}>
          {a.label}
        </button>
      ))}
      {rest.length > 0 && (
        <Popover.Menu trigger="click" placement="bottom-end" actions={rest.map((a) => ({ key: a.key, text: <span className={a.danger ? 'dtb-menu--danger' : undefined}>{a.label}</span>, onClick: a.run }))}>
          <button type="button" className="dtb-link" aria-label="更多操作">
            更多 <MoreOutline />
          </button>
        </Popover.Menu>
      )}
    </span>
  );
}

/** The desktop table: semantic markup, sticky header, zebra rows, sideways scroll with the actions pinned right. */
export function DataTable<R extends Row>({ rows, rowKey, fields, actionsFor, hasActions, actionWidth = 160, onOpen, rowClassName, selection, placeholder, busy, rowNumberFrom }: DataTableProps<R>) {
  const cols = fields.filter((f) => !f.hideInTable);
  const keys = rows.map((r) => (r as Record<string, unknown>)[rowKey]);
  const allOn = selection && keys.length > 0 && keys.every((k) => selection.selected.has(k));
  const someOn = selection && keys.some((k) => selection.selected.has(k));
  const numbered = rowNumberFrom !== undefined;
  const minWidth = cols.reduce((n, f) => n + (f.width ?? 140), 0) + (hasActions ? actionWidth : 0) + (selection ? 48 : 0) + (numbered ? 64 : 0);
  return (
    <div className={`dtb-scroll${busy ? ' dtb-scroll--busy' : ''}`}>
      <table className="dtb" style={{ minWidth }}>
        <thead>
          <tr>
            {selection && (
              <th className="dtb-check" scope="col">
                <Checkbox aria-label="全选本页" checked={!!allOn} indeterminate={!allOn && !!someOn} onChange={(on) => selection.toggleAll(on)} />
              </th>
            )}
            {numbered && (
              <th scope="col" className="dtb-num">
                序号
              </th>
            )}
            {cols.map((f) => (
              <th key={f.name} scope="col" style={{ width: f.width, textAlign: f.align }} className={f.fixed ? 'dtb-fixed-left' : undefined}>
                {f.label}
              </th>
            ))}
            {hasActions && (
              <th scope="col" className="dtb-action-col">
                操作
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {placeholder ? (
            <tr className="dtb-placeholder">
              <td colSpan={cols.length + (hasActions ? 1 : 0) + (selection ? 1 : 0) + (numbered ? 1 : 0)}>{placeholder}</td>
            </tr>
          ) : (
            rows.map((r, i) => {
              const k = (r as Record<string, unknown>)[rowKey];
              const on = selection?.selected.has(k);
              return (
                <tr
                  key={String(k)}
                  className={[on ? 'dtb-row--selected' : '', rowClassName?.(r) ?? '', onOpen ? 'dtb-row--open' : ''].join(' ').trim() || undefined}
                  onDoubleClick={onOpen ? () => onOpen(r) : undefined}
                  title={onOpen ? '双击查看详情' : undefined}
                >
                  {selection && (
                    <td className="dtb-check">
                      <Checkbox aria-label="选择此行" checked={!!on} onChange={() => selection.toggle(k)} />
                    </td>
                  )}
                  {numbered && <td className="dtb-num">{rowNumberFrom + i}</td>}
                  {cols.map((f) => (
                    <td key={f.name} style={{ textAlign: f.align, maxWidth: f.ellipsis ? f.width : undefined }} className={[f.ellipsis ? 'dtb-ellipsis' : '', f.fixed ? 'dtb-fixed-left' : ''].join(' ').trim() || undefined} title={f.ellipsis ? fieldText(f, r) : undefined}>
                      <FieldValue field={f} row={r} />
                    </td>
                  ))}
                  {hasActions && (
                    <td className="dtb-action-col">
                      <ActionCell actions={actionsFor?.(r) ?? []} />
                    </td>
                  )}
                </tr>
              );
            })
          )}
        </tbody>
      </table>
    </div>
  );
}
