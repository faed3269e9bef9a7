import { Button, Empty } from 'antd-mobile';
import { LeftOutline, RightOutline } from 'antd-mobile-icons';
import type { IconItem } from '../../domain/icons';
import { useIconGlyphs } from './icon-glyph';
import './icon-grid.css';

export interface IconGridProps {
  items: readonly IconItem[];
  total: number;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
  /** A tile was tapped; `el` is the tile, for a copy that falls back to selecting its code. */
  onPick: (item: IconItem, el: HTMLElement) => void;
  /** The code shown as chosen (the permission form's current icon). */
  selected?: string | null;
  /** What a tile's tap does, for its label: 复制 in the gallery, 选择 in a picker. */
  verb: string;
  busy?: boolean;
}

/**
 * A page of the one icon set as tiles (glyph, code, name) with a pager: the
 * icon gallery and the permission form's icon picker are the same grid.
 */
export function IconGrid({ items, total, page, pageSize, onPage, onPick, selected, verb, busy }: IconGridProps) {
  const glyphs = useIconGlyphs();
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (!busy && items.length === 0) return <Empty className="ig-empty" description="没有找到匹配的图标" />;
  return (
    <div className={`ig${busy ? ' ig--busy' : ''}`}>
      <ul className="ig-grid" aria-label="图标">
        {items.map((i) => {
          const Glyph = glyphs?.[i.code];
          return (
            <li key={i.code}>
              <button
                type="button"
                className={`ig-tile${selected === i.code ? ' ig-tile--on' : ''}`}
                title={`${verb} ${i.code}`}
                aria-pressed={selected === undefined ? undefined : selected === i.code}
                onClick={(e) => onPick(i, e.currentTarget.querySelector('.ig-code') ?? e.currentTarget)}
              >
                <span className="ig-glyph" aria-hidden>
                  {Glyph ? <Glyph /> : <span className="ig-glyph__wait" />}
                </span>
                <span className="ig-code">{i.code}</span>
                <span className="ig-title">{i.title}</span>
                {/* A screen reader hears what a tap does after what the tile shows (a name must begin with the words on screen). */}
                <span className="visually-hidden">，{verb}图标</span>
              </button>
            </li>
          );
        })}
      </ul>
      <nav className="ig-pager" aria-label="分页">
        <span className="ig-total">共 {total} 个</span>
        <Button size="small" fill="none" disabled={page <= 1} onClick={() => onPage(page - 1)} aria-label="上一页">
          <LeftOutline />
        </Button>
        <span className="ig-page">
          第 {page} / {pages} 页
        </span>
        <Button size="small" fill="none" disabled={page >= pages} onClick={() => onPage(page + 1)} aria-label="下一页">
          <RightOutline />
        </Button>
      </nav>
    </div>
  );
}
