import { Button, Empty, ErrorBlock } from 'antd-mobile';
import { DetailView } from './detail-view';
import { EntityForm } from './entity-form';
import { MESSAGES } from './conventions';
import { errorText, type ListActions, type ListOverlay } from './use-list-actions';
import type { ListData } from './use-list-data';
import type { Row, ScreenDef } from './types';

/** The parts both layouts of a list show: what stands in for rows, the stale-data banner, the batch bar, and what is open over the list. */

/** Nothing yet, a failure with 重试, or 暂无数据; null while rows are shown. */
export function ListState<R extends Row>({ data }: { data: ListData<R> }) {
  const { query, rows, firstLoad } = data;
  if (firstLoad) return null;
  if (query.isError && !query.data) {
    return (
      <ErrorBlock status="default" title="加载失败" description={errorText(query.error)} className="ls-error">
        <Button size="small" color="primary" fill="outline" onClick={() => void query.refetch()}>
          重试
        </Button>
      </ErrorBlock>
    );
  }
  return rows.length === 0 ? <Empty className="ls-empty" description={MESSAGES.empty} /> : null;
}

export const hasListState = <R extends Row>({ query, rows, firstLoad }: ListData<R>) => !firstLoad && ((query.isError && !query.data) || rows.length === 0);

/** Rows still shown after a refresh failed. */
export function StaleBanner<R extends Row>({ data }: { data: ListData<R> }) {
  const { query } = data;
  if (!(query.isError && query.data)) return null;
  return (
    <div className="ls-banner" role="status">
      刷新失败：{errorText(query.error)}
      <button type="button" onClick={() => void query.refetch()}>
        重试
      </button>
    </div>
  );
}

export function BatchBar<R extends Row>({ actions }: { actions: ListActions<R> }) {
  const { selection, batch, runBatch } = actions;
  if (!selection || selection.selected.size === 0) return null;
  return (
    <div className="ls-batch" role="region" aria-label="批量操作">
      <span>
        已选 <b>{selection.selected.size}</b> 项
      </span>
      <span className="ls-batch__actions">
        {batch.map((b) => (
          <Button key={b.key} size="small" color={b.danger ? 'danger' : 'primary'} onClick={() => void runBatch(b)}>
            {b.label}
          </Button>
        ))}
        <Button size="small" fill="none" onClick={selection.clear}>
          取消选择
        </Button>
      </span>
    </div>
  );
}

export function ListOverlays<R extends Row>({ def, data, ui, actions }: { def: ScreenDef<R>; data: ListData<R>; ui: ListOverlay<R>; actions: ListActions<R> }) {
  const { overlay, close } = ui;
  return (
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
          title={overlay.mode === 'edit' ? (def.form.edit?.title ?? '编辑') : (def.form.create?.title ?? actions.toolbar.find((t) => t.type === 'create')?.label ?? '新增')}
          onClose={close}
          onSaved={() => {
            close();
            data.reload();
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
            actions.selection?.clear();
            data.reload();
          }}
        />
      )}
    </>
  );
}
