import { Fragment } from 'react';
import { Link } from 'react-router-dom';
import type { MenuEntry } from './menu';
import { MenuIcon } from './menu-icons';
import './menu-grid.css';

const words = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter('zh', { granularity: 'word' }) : null;

/**
 * A name with line breaks allowed only between its words (人员|预约|总|记录):
 * with the balanced wrapping of menu-grid.css it splits 人员预约 / 总记录
 * rather than mid-word. Without a segmenter every character may break.
 */
function TileName({ name }: { name: string }) {
  const parts = words ? [...words.segment(name)].map((s) => s.segment) : [...name];
  return (
    <span className="menu-tile-name">
      {parts.map((p, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {p}
        </Fragment>
      ))}
    </span>
  );
}

/** Tappable tiles for menu entries: the phone's way into screens the side menu lists on desktop. */
export function MenuGrid({ entries }: { entries: MenuEntry[] }) {
  return (
    <div className="menu-grid">
      {entries.map((e) => (
        <Link key={e.code} to={e.route} className="menu-tile" title={e.name}>
          <span className="menu-tile-icon">
            <MenuIcon name={e.icon} fontSize={24} />
          </span>
          <TileName name={e.name} />
        </Link>
      ))}
    </div>
  );
}
