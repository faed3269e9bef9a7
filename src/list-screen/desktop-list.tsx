import { Button, Skeleton } from 'antd-mobile';
import { AddOutline, RedoOutline } from 'antd-mobile-icons';
import { DataTable } from './data-table';
import { FilterForm } from './filter-form';
import { BatchBar, hasListState, ListOverlays, ListState, StaleBanner } from './list-parts';
import { Pager } from './pager';
import type { ListActions, ListOverlay } from './use-list-actions';
import type { ListData } from './use-list-data';
import type { Row, ScreenDef } from './types';

/** The desktop layout (spec 000 §1): the filters in a panel above, then the titled table with its toolbar and pager. */
export function DesktopList<R extends Row>({ def, data, ui, actions }: { def: ScreenDef<R>; data: ListData<R>; ui: ListOverlay<R>; actions: ListActions<R> }) {
  const { state, draft, setDraft, query, rows, total, firstLoad } = data;
  return (
    <div className="ls ls--desktop">
      {def.fields.some((f) => !f.hideInSearch) && (
        <section className="ls-panel ls-filters" aria-label="查询条件">
          <FilterForm fields={def.fields} values={draft} onChange={setDraft} onSearch={() => data.search()} onReset={data.reset} layout="inline" />
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
            {actions.toolbar.map((t) => (
              <Button key={t.key} size="small" color={t.type === 'create' || t.primary ? 'primary' : 'default'} onClick={() => actions.runToolbar(t)}>
                {t.type === 'create' ? <AddOutline className="ls-btn-icon" /> : t.icon ? <span className="ls-btn-icon">{t.icon}</span> : null}
                {t.label}
              </Button>
            ))}
          </span>
        </div>
        <BatchBar actions={actions} />
        <StaleBanner data={data} />
        <DataTable
          label={def.title}
          rows={rows}
          rowKey={def.rowKey}
          fields={def.fields}
          card={def.card}
          actionsFor={actions.actionsFor}
          hasActions={actions.hasActions}
          onOpen={actions.onOpen}
          rowClassName={def.rowClassName}
          rowNumberFrom={def.rowNumber ? (state.pn - 1) * state.size + 1 : undefined}
          selection={actions.selection}
          busy={query.isFetching && !firstLoad}
          placeholder={firstLoad ? <Skeleton.Paragraph lineCount={6} animated className="ls-skeleton" /> : hasListState(data) ? <ListState data={data} /> : null}
        />
        {total > 0 &&
          (def.list.paged === false ? (
            <div className="pg">
              <span className="pg-total">共 {total} 条</span>
            </div>
          ) : (
            <Pager pn={state.pn} size={state.size} total={total} onPage={data.setPage} onSize={data.setSize} />
          ))}
      </section>
      <ListOverlays def={def} data={data} ui={ui} actions={actions} />
    </div>
  );
}
