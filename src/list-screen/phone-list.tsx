import { Badge, Button, Popup, Skeleton } from 'antd-mobile';
import { ActionSheet } from '../components/action-sheet';
import { AddOutline, FilterOutline } from 'antd-mobile-icons';
import { CardList } from './card-list';
import { activeFilterCount } from './conventions';
import { FieldValue } from './field-value';
import { FilterForm } from './filter-form';
import { BatchBar, hasListState, ListOverlays, ListState, StaleBanner } from './list-parts';
import { SimplePager } from './pager';
import type { ListActions, ListOverlay } from './use-list-actions';
import type { ListData } from './use-list-data';
import type { Row, ScreenDef } from './types';

/**
 * The phone layout (spec 000 §1): a bar with 筛选 and the count, cards with
 * their actions in a sheet, the filters in a bottom sheet. `sheets` is the
 * state of those two sheets, kept by the screen so the auto refresh pauses
 * while one is open.
 */
export function PhoneList<R extends Row>({
  def,
  data,
  ui,
  actions,
  sheets,
}: {
  def: ScreenDef<R>;
  data: ListData<R>;
  ui: ListOverlay<R>;
  actions: ListActions<R>;
  sheets: { filterOpen: boolean; setFilterOpen: (open: boolean) => void; sheetRow: R | null; setSheetRow: (row: R | null) => void };
}) {
  const { state, draft, setDraft, query, rows, total, firstLoad } = data;
  const { filterOpen, setFilterOpen, sheetRow, setSheetRow } = sheets;
  const activeCount = activeFilterCount(state.filters, def.fields);
  const createAction = actions.toolbar.find((t) => t.type === 'create') ?? actions.toolbar.find((t) => t.primary);
  const otherTools = actions.toolbar.filter((t) => t !== createAction);
  const sheetActions = sheetRow ? actions.actionsFor(sheetRow) : [];
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
              setFilterOpen(true);
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
            <Button key={t.key} size="mini" fill="outline" color="primary" onClick={() => actions.runToolbar(t)}>
              {t.label}
            </Button>
          ))}
          {createAction && (
            <Button size="mini" color="primary" onClick={() => actions.runToolbar(createAction)} className="ls-add">
              {createAction.type === 'create' ? <AddOutline /> : createAction.icon} {createAction.label}
            </Button>
          )}
        </span>
      </div>
      {activeCount > 0 && (
        <div className="ls-active">
          已按 {activeCount} 个条件筛选
          <button type="button" onClick={data.reset}>
            清除
          </button>
        </div>
      )}
      <BatchBar actions={actions} />
      <StaleBanner data={data} />
      <div className={`ls-cards${query.isFetching && !firstLoad ? ' ls-cards--busy' : ''}`}>
        {firstLoad ? (
          [0, 1, 2].map((i) => (
            <div key={i} className="cl-card cl-card--skeleton">
              <Skeleton.Title animated />
              <Skeleton.Paragraph lineCount={3} animated />
            </div>
          ))
        ) : hasListState(data) ? (
          <div className="ls-phone-state">
            <ListState data={data} />
          </div>
        ) : (
          <CardList
            rows={rows}
            rowKey={def.rowKey}
            fields={def.fields}
            card={def.card}
            actionsFor={actions.actionsFor}
            onMore={setSheetRow}
            onOpen={actions.onOpen}
            rowClassName={def.rowClassName}
            selection={actions.selection}
          />
        )}
      </div>
      {total > 0 && def.list.paged !== false && <SimplePager pn={state.pn} size={state.size} total={total} onPage={data.setPage} onSize={data.setSize} />}

      <Popup visible={filterOpen} onMaskClick={() => setFilterOpen(false)} onClose={() => setFilterOpen(false)} bodyClassName="ls-sheet" position="bottom">
        <div className="ls-sheet__head">
          <span className="ls-sheet__title">筛选</span>
          <button type="button" className="ls-sheet__close" onClick={() => setFilterOpen(false)}>
            关闭
          </button>
        </div>
        <FilterForm
          fields={def.fields}
          values={draft}
          onChange={setDraft}
          layout="sheet"
          onSearch={() => {
            data.search();
            setFilterOpen(false);
          }}
          onReset={() => {
            data.reset();
            setFilterOpen(false);
          }}
        />
      </Popup>
      <ActionSheet
        visible={!!sheetRow}
        actions={sheetActions.map((a) => ({ key: a.key, text: a.label, danger: a.danger, onClick: a.run }))}
        extra={
          sheetRow && titleField ? (
            <span className="ls-sheet-extra">
              <FieldValue field={titleField} row={sheetRow} />
            </span>
          ) : undefined
        }
        onClose={() => setSheetRow(null)}
      />
      <ListOverlays def={def} data={data} ui={ui} actions={actions} />
    </div>
  );
}
