import { useCallback, useEffect, useRef, useState, type ComponentType } from 'react';
import { useSearchParams } from 'react-router-dom';
import { OPEN_PARAM } from '../../domain/notifications';
import { confirmDialog, showToast } from '../lib/feedback';
import { ApiError, call } from '../lib/http';
import { toggled } from '../lib/toggled';
import { failureText, MESSAGES } from './conventions';
import type { BoundAction } from './data-table';
import type { ListData } from './use-list-data';
import type { BatchAction, Can, Endpoint, Row, RowAction, ScreenDef, ScreenModalProps, ToolbarAction, Values } from './types';

export type Overlay<R extends Row> =
  | { kind: 'form'; mode: 'create' | 'edit'; row?: R; seq: number }
  | { kind: 'detail'; row: R; seq: number }
  | { kind: 'custom'; component: ComponentType<ScreenModalProps<R>>; row?: R; rows?: R[]; seq: number };

type OverlayInput<R extends Row> = Overlay<R> extends infer O ? (O extends unknown ? Omit<O, 'seq'> : never) : never;

export const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** What is open over a list: a form, a detail or a screen's own modal, and how many confirms are asked. */
export function useListOverlay<R extends Row>() {
  const [overlay, setOverlay] = useState<Overlay<R> | null>(null);
  const [confirming, setConfirming] = useState(0);
  const seq = useRef(0);
  const open = (o: OverlayInput<R>) => setOverlay({ ...o, seq: ++seq.current } as Overlay<R>);
  const close = useCallback(() => setOverlay(null), []);
  const confirm = async (content: string, danger?: boolean) => {
    setConfirming((n) => n + 1);
    try {
      return await confirmDialog({ content, danger });
    } finally {
      setConfirming((n) => n - 1);
    }
  };
  return { overlay, open, close, confirm, confirming: confirming > 0 };
}

export type ListOverlay<R extends Row> = ReturnType<typeof useListOverlay<R>>;

/**
 * A list's actions as the declaration states them: row actions (with their
 * permission and state rules), the toolbar, batch actions over the selected
 * rows, the detail a tap opens, and a notification's link to one row.
 */
export function useListActions<R extends Row>(def: ScreenDef<R>, data: ListData<R>, ui: ListOverlay<R>, ctx: { can: Can; desktop: boolean }) {
  const { can, desktop } = ctx;
  const { rows, reload, query } = data;
  const { open, confirm } = ui;
  const [selected, setSelected] = useState<Set<unknown>>(new Set());

  // A selection only means something for the rows on screen.
  useEffect(() => setSelected(new Set()), [data.params]);

  const act = async (to: Endpoint, body: Values, ok: string, fail: string) => {
    const t = showToast({ icon: 'loading', content: '处理中…', duration: 0 });
    try {
      await call(to, body as never);
      t.close();
      showToast({ icon: 'success', content: ok });
      reload();
    } catch (e) {
      t.close();
      showToast({ icon: 'fail', content: failureText(fail, e instanceof ApiError ? e.message : errorText(e)), duration: 3000 });
    }
  };

  const runRowAction = async (a: RowAction<R>, row: R) => {
    const text = a.confirm ? (typeof a.confirm === 'function' ? a.confirm(row) : a.confirm) : a.type === 'delete' ? MESSAGES.deleteConfirm : undefined;
    if (text && !(await confirm(text, a.danger || a.type === 'delete'))) return;
    switch (a.type) {
      case 'edit':
        return open({ kind: 'form', mode: 'edit', row });
      case 'detail':
        // The screen's own detail (with its actions, e.g. 处理告警) whichever way it is opened: a tap, a link or this button.
        return def.detail?.component ? open({ kind: 'custom', component: def.detail.component, row }) : open({ kind: 'detail', row });
      case 'createFrom':
        return open({ kind: 'form', mode: 'create', row });
      case 'delete':
        return act(a.path, a.body(row), MESSAGES.deleteOk, MESSAGES.deleteFail);
      case 'call':
        return act(a.path, a.body(row), a.success, a.failure);
      case 'modal':
        return open({ kind: 'custom', component: a.component, row });
    }
  };

  const actionsFor = (row: R): BoundAction[] =>
    (def.rowActions ?? [])
      // A phone card opens its detail by itself (tap, 查看详情): a 详情 button beside it would only take room.
      .filter((a) => !(a.type === 'detail' && !desktop && def.detail))
      .filter((a) => can(a.permission) && (!a.visible || a.visible(row, can)))
      .map((a) => ({ key: a.key, label: a.label, danger: a.danger || a.type === 'delete', run: () => void runRowAction(a, row) }));

  const runBatch = async (a: BatchAction<R>) => {
    const picked = rows.filter((r) => selected.has((r as Record<string, unknown>)[def.rowKey]));
    if (!picked.length) return;
    if (a.confirm && !(await confirm(a.confirm, a.danger))) return;
    if (a.type === 'modal') open({ kind: 'custom', component: a.component, rows: picked });
    else await act(a.path, a.body(picked), a.success, a.failure);
  };

  const toolbar = (def.toolbar ?? []).filter((t) => can(t.permission) && (!t.visible || t.visible(can)));
  const runToolbar = (t: ToolbarAction<R>) => {
    if (t.type === 'create') open({ kind: 'form', mode: 'create' });
    else if (t.type === 'modal') open({ kind: 'custom', component: t.component });
    else void t.run({ filters: data.state.filters, reload });
  };
  const batch = (def.batch ?? []).filter((b) => can(b.permission));
  const detailComponent = def.detail?.component;
  const onOpen = detailComponent ? (row: R) => open({ kind: 'custom', component: detailComponent, row }) : def.detail ? (row: R) => open({ kind: 'detail', row }) : undefined;

  // A link to one record (a notification's url, OPEN_PARAM): open it once its page is here, then drop the parameter
  // so going back or reloading does not open it again.
  const [linkParams, setLinkParams] = useSearchParams();
  const wanted = linkParams.get(OPEN_PARAM);
  useEffect(() => {
    if (!wanted || !query.data || query.isPlaceholderData) return;
    setLinkParams(
      (p) => {
        p.delete(OPEN_PARAM);
        return p;
      },
      { replace: true },
    );
    const row = query.data.list.find((r) => String((r as Record<string, unknown>)[def.rowKey]) === wanted);
    if (row && onOpen) onOpen(row);
    else showToast({ content: MESSAGES.openMissing, duration: 3000 });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- onOpen is rebuilt on every render; the link is acted on once, when the data for it arrives.
  }, [wanted, query.data, query.isPlaceholderData]);

  return {
    actionsFor,
    hasActions: (def.rowActions ?? []).some((a) => can(a.permission)),
    toolbar,
    runToolbar,
    batch,
    runBatch,
    onOpen,
    selection:
      batch.length > 0
        ? {
            selected,
            toggle: (k: unknown) => setSelected((s) => toggled(s, k)),
            toggleAll: (on: boolean) => setSelected(on ? new Set(rows.map((r) => (r as Record<string, unknown>)[def.rowKey])) : new Set()),
            clear: () => setSelected(new Set()),
          }
        : undefined,
  };
}

export type ListActions<R extends Row> = ReturnType<typeof useListActions<R>>;
