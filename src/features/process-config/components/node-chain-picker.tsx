import { Button, DotLoading, SearchBar } from 'antd-mobile';
import { AddOutline, CloseOutline, DownOutline, UpOutline } from 'antd-mobile-icons';
import { useMemo, useState } from 'react';
import type { ProcessNodeRow } from '../../../../domain/schemas/process-config';
import { useIsDesktop } from '../../../lib/use-media';
import type { FieldInputProps } from '../../../list-screen/types';
import { idsOf } from '../../../components/departments-select';
import { useProcessNodes } from '../api';
import { ChainLine } from './chain-line';
import { reviewersText } from './node-inputs';
import './process-config.css';

/**
 * The definition form's ordered node selection (spec 002 §2, a transfer):
 * available nodes on the left, the chain in approval order on the right
 * (stacked on phones), with the line view under them. Editable when editing
 * too (issue 24): the server refuses a changed chain while an application on
 * the definition is in review, and says so on this field.
 */
export function NodeChainPicker({ value, onChange, disabled }: FieldInputProps) {
  const desktop = useIsDesktop();
  const nodes = useProcessNodes();
  const [search, setSearch] = useState('');
  const chosen = idsOf(value);
  const byId = useMemo(() => new Map((nodes.data ?? []).map((n) => [n.process_node_id, n])), [nodes.data]);
  const nameOf = (id: number) => byId.get(id)?.name ?? `节点${id}`;
  const set = (ids: number[]) => onChange?.(ids);
  const move = (i: number, by: -1 | 1) => {
    const next = [...chosen];
    const [x] = next.splice(i, 1);
    next.splice(i + by, 0, x!);
    set(next);
  };

  const line = <ChainLine names={chosen.map(nameOf)} notes={chosen.map((id) => (byId.get(id) ? reviewersText(byId.get(id)!) : undefined))} />;

  if (disabled) {
    return <div className="pc-picker pc-picker--locked">{line}</div>;
  }

  const available = (nodes.data ?? []).filter((n) => !chosen.includes(n.process_node_id) && (!search || n.name.includes(search.trim())));
  const nodeText = (n: ProcessNodeRow) => (
    <span className="pc-picker__text">
      <span className="pc-picker__name">{n.name}</span>
      <span className="pc-picker__meta">{reviewersText(n)}</span>
    </span>
  );

  return (
    <div className="pc-picker">
      <div className={`pc-picker__panes${desktop ? '' : ' pc-picker__panes--stacked'}`}>
        <section className="pc-pane" aria-label="可选节点">
          <header className="pc-pane__head">
            <span>可选节点</span>
            <span className="pc-pane__count">{available.length}</span>
          </header>
          <SearchBar className="pc-pane__search" placeholder="搜索节点名称" value={search} onChange={setSearch} />
          <ul className="pc-pane__list">
            {nodes.isLoading ? (
              <li className="pc-pane__state">
                <DotLoading />
              </li>
            ) : available.length === 0 ? (
              <li className="pc-pane__state">{search ? '没有匹配的节点' : '节点已全部选择'}</li>
            ) : (
              available.map((n) => (
                <li key={n.process_node_id} className="pc-pane__item">
                  {nodeText(n)}
                  <Button size="mini" color="primary" fill="outline" aria-label={`添加${n.name}`} onClick={() => set([...chosen, n.process_node_id])}>
                    <AddOutline /> 添加
                  </Button>
                </li>
              ))
            )}
          </ul>
        </section>
        <section className="pc-pane pc-pane--chosen" aria-label="已选节点">
          <header className="pc-pane__head">
            <span>已选节点（按审批顺序）</span>
            <span className="pc-pane__count">{chosen.length}</span>
          </header>
          <ol className="pc-pane__list">
            {chosen.length === 0 ? (
              <li className="pc-pane__state">从可选节点中添加，按添加顺序审批</li>
            ) : (
              chosen.map((id, i) => (
                <li key={id} className="pc-pane__item">
                  <span className="pc-picker__no">{i + 1}</span>
                  {byId.get(id) ? nodeText(byId.get(id)!) : <span className="pc-picker__text">{nameOf(id)}</span>}
                  <span className="pc-picker__ops">
                    <button type="button" className="pc-op" aria-label={`上移${nameOf(id)}`} disabled={i === 0} onClick={() => move(i, -1)}>
                      <UpOutline />
                    </button>
                    <button type="button" className="pc-op" aria-label={`下移${nameOf(id)}`} disabled={i === chosen.length - 1} onClick={() => move(i, 1)}>
                      <DownOutline />
                    </button>
                    <button type="button" className="pc-op pc-op--danger" aria-label={`移除${nameOf(id)}`} onClick={() => set(chosen.filter((x) => x !== id))}>
                      <CloseOutline />
                    </button>
                  </span>
                </li>
              ))
            )}
          </ol>
        </section>
      </div>
      <div className="pc-picker__preview">
        <span className="pc-picker__label">流程预览</span>
        {line}
      </div>
      <div className="pc-picker__hint">修改节点只影响此后提交的申请；该流程定义有审核中的申请时不能修改节点</div>
    </div>
  );
}
