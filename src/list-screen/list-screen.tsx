import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionSheet, Badge, Button, Empty, ErrorBlock, Popup, Skeleton } from 'antd-mobile';
import { AddOutline, FilterOutline, RedoOutline } from 'antd-mobile-icons';
import { useCallback, useEffect, useMemo, useRef, useState, type ComponentType } from 'react';
import type { Page } from '../../domain/envelope';
import { OPEN_PARAM } from '../../domain/notifications';
import { useSearchParams } from 'react-router-dom';
import { ApiError, send } from '../lib/http';
import { useCan } from '../lib/me';
import { useIsDesktop } from '../lib/use-media';
import { CardList } from './card-list';
import { activeFilterCount, buildListParams, defaultFilters, failureText, loadScreenState, MESSAGES, saveScreenState, stepBackPage, type ScreenState } from './conventions';
import { DataTable, type BoundAction } from './data-table';
import { DetailView } from './detail-view';
import { EntityForm } from './entity-form';
import { FieldValue } from './field-value';
import { FilterForm } from './filter-form';
import { toggled } from '../lib/toggled';
import { Pager, SimplePager } from './pager';
import type { BatchAction, Endpoint, Row, RowAction, ScreenDef, ScreenModalProps, Values } from './types';
import './list-screen.css';
import { confirmDialog, showToast } from '../lib/feedback';

type Overlay<R extends Row> =
  | { kind: 'form'; mode: 'create' | 'edit'; row?: R; seq: number }
  | { kind: 'detail'; row: R; seq: number }
  | { kind: 'custom'; component: ComponentType<ScreenModalProps<R>>; row?: R; rows?: R[]; seq: number };

type OverlayInput<R extends Row> = Overlay<R> extends infer O ? (O extends unknown ? Omit<O, 'seq'> : never) : never;

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The one generic list screen (DESIGN.md §6): every shared convention of
 * spec 000 §1 lives here once, driven by a ScreenDef.
 */
export function ListScreen<R extends Row>({ def }: { def: ScreenDef<R> }) {
  const desktop = useIsDesktop();
  const can = useCan();
  const qc = useQueryClient();

  const [state, setState] = useState<ScreenState>(() => loadScreenState(def.key, def.fields));
  const [draft, setDraft] = useState<Values>(state.filters);
  const [overlay, setOverlay] = useState<Overlay<R> | null>(null);
  const [filterSheet, setFilterSheet] = useState(false);
  const [sheetRow, setSheetRow] = useState<R | null>(null);
  const [confirming, setConfirming] = useState(0);
  const [selected, setSelected] = useState<Set<unknown>>(new Set());
  const seq = useRef(0);

  useEffect(() => saveScreenState(def.key, state), [def.key, state]);

  const canList = can(def.list.permission);
  const params = useMemo(() => buildListParams(state.filters, def.fields, state, def.list.params), [state, def.fields, def.list.params]);
  const anyOpen = !!overlay || filterSheet || !!sheetRow || confirming > 0;

  // An array answer is fetched once per filter set and paged here; a page answer is fetched per page.
  const whole = def.list.answer === 'array';
  const requestParams = useMemo(() => {
    if (!whole) return params;
    const { size: _size, pn: _pn, ...filters } = params;
    void _size;
    void _pn;
    return filters;
  }, [params, whole]);
  const query = useQuery({
    queryKey: ['list', def.key, requestParams],
    queryFn: async (): Promise<Page<R>> => {
      const answer = await send<Page<R> | R[]>(def.list.path, requestParams, def.list.method);
      if (!Array.isArray(answer)) return def.list.arrange ? { ...answer, list: def.list.arrange(answer.list) } : answer;
      const list = def.list.arrange ? def.list.arrange(answer) : answer;
      return { list, total: list.length };
    },
    select: whole && def.list.paged !== false ? (all: Page<R>) => ({ list: all.list.slice((state.pn - 1) * state.size, state.pn * state.size), total: all.total }) : undefined,
    placeholderData: keepPreviousData,
    enabled: canList,
    refetchInterval: def.autoRefresh && !anyOpen ? def.autoRefresh : false,
    refetchIntervalInBackground: false,
  });
  const rows = query.data?.list ?? [];
  const total = query.data?.total ?? 0;

  // An empty page beyond the first (a delete emptied it, or rows went away meanwhile): step back and reload.
  useEffect(() => {
    if (!query.data || query.isPlaceholderData) return;
    const back = stepBackPage(state.pn, query.data.list.length);
    if (back) setState((s) => ({ ...s, pn: back }));
  }, [query.data, query.isPlaceholderData, state.pn]);

  // A selection only means something for the rows on screen.
  useEffect(() => setSelected(new Set()), [params]);

  const reload = useCallback(() => {
    void qc.invalidateQueries({ queryKey: ['list', def.key] });
    for (const queryKey of def.invalidates ?? []) void qc.invalidateQueries({ queryKey });
  }, [qc, def.key, def.invalidates]);
  const open = (o: OverlayInput<R>) => setOverlay({ ...o, seq: ++seq.current } as Overlay<R>);
  const close = useCallback(() => setOverlay(null), []);

  const search = (filters: Values = draft) => {
    // Same filters on page 1 give the same query key: fetch again, as a person pressing 查询 expects.
    if (state.pn === 1 && JSON.stringify(filters) === JSON.stringify(state.filters)) void query.refetch();
    else setState((s) => ({ ...s, filters, pn: 1 }));
  };
  const reset = () => {
    const d = defaultFilters(def.fields);
    setDraft(d);
    search(d);
  };

  const confirm = async (content: string, danger?: boolean) => {
    setConfirming((n) => n + 1);
    try {
      return await confirmDialog({ content, danger });
    } finally {
      setConfirming((n) => n - 1);
    }
  };

  const call = async (to: Endpoint, body: Values, ok: string, fail: string) => {
    const t = showToast({ icon: 'loading', content: '处理中…', duration: 0 });
    try {
      await send(to, body);
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
        return call(a.path, a.body(row), MESSAGES.deleteOk, MESSAGES.deleteFail);
      case 'call':
        return call(a.path, a.body(row), a.success, a.failure);
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
    else await call(a.path, a.body(picked), a.success, a.failure);
  };

  const toolbar = (def.toolbar ?? []).filter((t) => can(t.permission) && (!t.visible || t.visible(can)));
  const runToolbar = (t: (typeof toolbar)[number]) => {
    if (t.type === 'create') open({ kind: 'form', mode: 'create' });
    else if (t.type === 'modal') open({ kind: 'custom', component: t.component });
    else void t.run({ filters: state.filters, reload });
  };
  const batch = (def.batch ?? []).filter((b) => can(b.permission));
  const selectable = batch.length > 0;
  const detailComponent = def.detail?.component;
  const onOpen = detailComponent ? (row: R) => open({ kind: 'custom', component: detailComponent, row }) : def.detail ? (row: R) => open({ kind: 'detail', row }) : undefined;
  const heldActions = (def.rowActions ?? []).filter((a) => can(a.permission));
  const hasActions = heldActions.length > 0;
  const setPage = (pn: number) => setState((s) => ({ ...s, pn }));
  const setSize = (size: number) => setState((s) => ({ ...s, size, pn: 1 }));
  const toggle = (k: unknown) => setSelected((s) => toggled(s, k));
  const toggleAll = (on: boolean) => setSelected(on ? new Set(rows.map((r) => (r as Record<string, unknown>)[def.rowKey])) : new Set());

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

  if (!canList) {
    return (
      <div className="ls ls--blocked">
        <ErrorBlock status="disconnected" title="没有查询权限" description="当前账号没有此列表的查询权限，请联系管理员。" />
      </div>
    );
  }

  const firstLoad = query.isLoading && !query.data;
  const failed = query.isError && !query.data;
  const stateBlock = firstLoad ? null : failed ? (
    <ErrorBlock status="default" title="加载失败" description={errorText(query.error)} className="ls-error">
      <Button size="small" color="primary" fill="outline" onClick={() => void query.refetch()}>
        重试
      </Button>
    </ErrorBlock>
  ) : rows.length === 0 ? (
    <Empty className="ls-empty" description={MESSAGES.empty} />
  ) : null;
  const staleError = query.isError && !!query.data && (
    <div className="ls-banner" role="status">
      刷新失败：{errorText(query.error)}
      <button type="button" onClick={() => void query.refetch()}>
        重试
      </button>
    </div>
  );

  const batchBar = selectable && selected.size > 0 && (
    <div className="ls-batch" role="region" aria-label="批量操作">
      <span>
        已选 <b>{selected.size}</b> 项
      </span>
      <span className="ls-batch__actions">
        {batch.map((b) => (
          <Button key={b.key} size="small" color={b.danger ? 'danger' : 'primary'} onClick={() => void runBatch(b)}>
            {b.label}
          </Button>
        ))}
        <Button size="small" fill="none" onClick={() => setSelected(new Set())}>
          取消选择
        </Button>
      </span>
    </div>
  );

  const overlays = (
    <>
      {overlay?.kind === 'form' && def.form && (
        <EntityForm
          key={overlay.seq}
          open
          mode={overlay.mode}
          row={overlay.row}
          rowKey={def.rowKey}
          fields={def.fields}
          form={def.form}
          title={overlay.mode === 'edit' ? (def.form.edit?.title ?? '编辑') : (def.form.create?.title ?? toolbar.find((t) => t.type === 'create')?.label ?? '新增')}
          onClose={close}
          onSaved={() => {
            close();
            reload();
          }}
        />
      )}
      {overlay?.kind === 'detail' && def.detail && <DetailView key={overlay.seq} def={def} row={overlay.row} open onClose={close} />}
      {overlay?.kind === 'custom' && (
        <overlay.component
          key={overlay.seq}
          open
          row={overlay.row}
          rows={overlay.rows}
          onClose={close}
          onDone={() => {
            close();
            setSelected(new Set());
            reload();
          }}
        />
      )}
    </>
  );

  if (desktop) {
    return (
      <div className="ls ls--desktop">
        {def.fields.some((f) => !f.hideInSearch) && (
          <section className="ls-panel ls-filters" aria-label="查询条件">
            <FilterForm fields={def.fields} values={draft} onChange={setDraft} onSearch={() => search()} onReset={reset} layout="inline" />
          </section>
        )}
        <section className="ls-panel ls-result" aria-label={def.title}>
          <div className="ls-toolbar">
            <div className="ls-titles">
              <h2 className="ls-title">{def.title}</h2>
              {def.description && <p className="ls-desc">{def.description}</p>}
            </div>
            <span className="ls-toolbar__right">
              <button type="button" className="ls-icon-btn" aria-label="刷新" title="刷新" onClick={() => void query.refetch()}>
                <RedoOutline className={query.isFetching ? 'ls-spin' : undefined} />
              </button>
              {toolbar.map((t) => (
                <Button key={t.key} size="small" color={t.type === 'create' || t.primary ? 'primary' : 'default'} onClick={() => runToolbar(t)}>
                  {t.type === 'create' ? <AddOutline className="ls-btn-icon" /> : t.icon ? <span className="ls-btn-icon">{t.icon}</span> : null}
                  {t.label}
                </Button>
              ))}
            </span>
          </div>
          {batchBar}
          {staleError}
          <DataTable
            rows={rows}
            rowKey={def.rowKey}
            fields={def.fields}
            card={def.card}
            actionsFor={actionsFor}
            hasActions={hasActions}
            onOpen={onOpen}
            rowClassName={def.rowClassName}
            rowNumberFrom={def.rowNumber ? (state.pn - 1) * state.size + 1 : undefined}
            selection={selectable ? { selected, toggle, toggleAll } : undefined}
            busy={query.isFetching && !firstLoad}
            placeholder={firstLoad ? <Skeleton.Paragraph lineCount={6} animated className="ls-skeleton" /> : stateBlock}
          />
          {total > 0 &&
            (def.list.paged === false ? (
              <div className="pg">
                <span className="pg-total">共 {total} 条</span>
              </div>
            ) : (
              <Pager pn={state.pn} size={state.size} total={total} onPage={setPage} onSize={setSize} />
            ))}
        </section>
        {overlays}
      </div>
    );
  }

  const activeCount = activeFilterCount(state.filters, def.fields);
  const createAction = toolbar.find((t) => t.type === 'create') ?? toolbar.find((t) => t.primary);
  const otherTools = toolbar.filter((t) => t !== createAction);
  const sheetActions = sheetRow ? actionsFor(sheetRow) : [];
  const titleField = def.fields.find((f) => f.name === def.card?.title) ?? def.fields.find((f) => !f.hideInTable && !f.hideInCard);
  return (
    <div className="ls ls--phone">
      {/* The title is the top bar's; the line saying what the screen is for sits above the filter bar. */}
      {def.description && <p className="ls-desc ls-desc--phone">{def.description}</p>}
      <div className="ls-phonebar">
        {def.fields.some((f) => !f.hideInSearch) ? (
          <button
            type="button"
            className={`ls-filter-btn${activeCount ? ' ls-filter-btn--on' : ''}`}
            onClick={() => {
              setDraft(state.filters);
              setFilterSheet(true);
            }}
          >
            <FilterOutline /> 筛选
            {activeCount > 0 && <Badge content={activeCount} className="ls-filter-badge" />}
          </button>
        ) : (
          <span />
        )}
        {/* No count before the first answer: 共 0 条 over skeleton cards read as an empty list. */}
        <span className="ls-phonebar__total">{firstLoad ? null : `共 ${total} 条`}</span>
        <span className="ls-phonebar__tools">
          {otherTools.map((t) => (
            <Button key={t.key} size="mini" fill="outline" color="primary" onClick={() => runToolbar(t)}>
              {t.label}
            </Button>
          ))}
          {createAction && (
            <Button size="mini" color="primary" onClick={() => runToolbar(createAction)} className="ls-add">
              {createAction.type === 'create' ? <AddOutline /> : createAction.icon} {createAction.label}
            </Button>
          )}
        </span>
      </div>
      {activeCount > 0 && (
        <div className="ls-active">
          已按 {activeCount} 个条件筛选
          <button type="button" onClick={reset}>
            清除
          </button>
        </div>
      )}
      {batchBar}
      {staleError}
      <div className={`ls-cards${query.isFetching && !firstLoad ? ' ls-cards--busy' : ''}`}>
        {firstLoad ? (
          [0, 1, 2].map((i) => (
            <div key={i} className="cl-card cl-card--skeleton">
              <Skeleton.Title animated />
              <Skeleton.Paragraph lineCount={3} animated />
            </div>
          ))
        ) : stateBlock ? (
          <div className="ls-phone-state">{stateBlock}</div>
        ) : (
          <CardList
            rows={rows}
            rowKey={def.rowKey}
            fields={def.fields}
            card={def.card}
            actionsFor={actionsFor}
            onMore={setSheetRow}
            onOpen={onOpen}
            rowClassName={def.rowClassName}
            selection={selectable ? { selected, toggle } : undefined}
          />
        )}
      </div>
      {total > 0 && def.list.paged !== false && <SimplePager pn={state.pn} size={state.size} total={total} onPage={setPage} onSize={setSize} />}

      <Popup visible={filterSheet} onMaskClick={() => setFilterSheet(false)} onClose={() => setFilterSheet(false)} bodyClassName="ls-sheet" position="bottom">
        <div className="ls-sheet__head">
          <span className="ls-sheet__title">筛选</span>
          <button type="button" className="ls-sheet__close" onClick={() => setFilterSheet(false)}>
            关闭
          </button>
        </div>
        <FilterForm
          fields={def.fields}
          values={draft}
          onChange={setDraft}
          layout="sheet"
          onSearch={() => {
            search();
            setFilterSheet(false);
          }}
          onReset={() => {
            reset();
            setFilterSheet(false);
          }}
        />
      </Popup>
      <ActionSheet
        visible={!!sheetRow}
        actions={sheetActions.map((a) => ({ key: a.key, text: a.label, danger: a.danger, onClick: a.run }))}
        cancelText="取消"
        extra={
          sheetRow && titleField ? (
            <span className="ls-sheet-extra">
              <FieldValue field={titleField} row={sheetRow} />
            </span>
          ) : undefined
        }
        closeOnAction
        onClose={() => setSheetRow(null)}
      />
      {overlays}
    </div>
  );
}
