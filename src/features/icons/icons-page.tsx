import { Button, ErrorBlock, SearchBar, Skeleton } from 'antd-mobile';
import { useEffect, useState } from 'react';
import { ICON_PAGE_SIZE, type IconItem } from '../../../domain/icons';
import { copyText } from '../../components/copy-field';
import { IconGrid } from '../../components/icon-grid';
import { useCan } from '../../lib/me';
import { useIsDesktop } from '../../lib/use-media';
import { useIconList } from './api/get-icon-list';
import './icons-page.css';
import { showToast } from '../../lib/feedback';

const STATE_KEY = 'park.screen.system.icons';

function loadState(): { title: string; page: number } {
  try {
    const v = JSON.parse(sessionStorage.getItem(STATE_KEY) ?? 'null') as { title?: unknown; page?: unknown } | null;
    return { title: typeof v?.title === 'string' ? v.title : '', page: typeof v?.page === 'number' && v.page >= 1 ? v.page : 1 };
  } catch {
    return { title: '', page: 1 };
  }
}

/**
 * 图标库 (spec 002 §2 Icon gallery): the one icon set that menus and the
 * permission form use, 72 a page, searchable; tapping an icon copies its
 * code, and the toast names what was copied (or that it was not).
 */
export default function IconsPage() {
  const desktop = useIsDesktop();
  const can = useCan();
  const allowed = can('sys:manage');
  const [state, setState] = useState(loadState);
  const [draft, setDraft] = useState(state.title);
  const list = useIconList(state.title, state.page, allowed);

  useEffect(() => {
    try {
      sessionStorage.setItem(STATE_KEY, JSON.stringify(state));
    } catch {
      // Remembering the search is a comfort only.
    }
  }, [state]);

  // A page beyond the last (the set shrank under a remembered search): step back, as lists do.
  useEffect(() => {
    if (list.data && !list.isPlaceholderData && list.data.data.length === 0 && state.page > 1) setState((s) => ({ ...s, page: s.page - 1 }));
  }, [list.data, list.isPlaceholderData, state.page]);

  const search = (title: string) => setState({ title: title.trim(), page: 1 });

  const copy = async (item: IconItem, el: HTMLElement) => {
    if (await copyText(item.code, el)) showToast({ icon: 'success', content: `已复制：${item.code}` });
    else showToast({ icon: 'fail', content: `复制失败：${item.code}，已选中文本，请按 Ctrl+C 或长按复制`, duration: 3000 });
  };

  if (!allowed) {
    return (
      <div className="icp icp--blocked">
        <ErrorBlock status="disconnected" title="没有查询权限" description="当前账号没有图标库的查询权限（sys:manage），请联系管理员。" />
      </div>
    );
  }

  return (
    <div className={`icp ${desktop ? 'icp--desktop' : 'icp--phone'}`}>
      <section className="icp-panel" aria-label="图标库">
        <div className="icp-head">
          {desktop && <h2 className="icp-title">图标库</h2>}
          <SearchBar className="icp-search" placeholder="搜索图标名称或编码" value={draft} onChange={setDraft} onSearch={search} onClear={() => search('')} aria-label="搜索图标" />
          {desktop && (
            <Button size="small" color="primary" onClick={() => search(draft)}>
              查询
            </Button>
          )}
        </div>
        <p className="icp-hint">点击图标即可复制其编码，在权限管理中为菜单选择图标时使用同一套图标。</p>
        {list.isLoading && !list.data ? (
          <Skeleton.Paragraph lineCount={8} animated />
        ) : list.isError && !list.data ? (
          <ErrorBlock status="default" title="加载失败" description={list.error.message}>
            <Button size="small" color="primary" fill="outline" onClick={() => void list.refetch()}>
              重试
            </Button>
          </ErrorBlock>
        ) : (
          <IconGrid
            items={list.data?.data ?? []}
            total={list.data?.totalCount ?? 0}
            page={state.page}
            pageSize={ICON_PAGE_SIZE}
            onPage={(page) => setState((s) => ({ ...s, page }))}
            onPick={(i, el) => void copy(i, el)}
            verb="复制"
            busy={list.isFetching && list.isPlaceholderData}
          />
        )}
      </section>
    </div>
  );
}
