import { Link } from 'react-router-dom';
import type { MenuEntry } from './menu';
import { MenuIcon } from './menu-icons';
import './menu-grid.css';

/** Tappable tiles for menu entries: the phone's way into screens the side menu lists on desktop. */
export function MenuGrid({ entries }: { entries: MenuEntry[] }) {
  return (
    <div className="menu-grid">
      {entries.map((e) => (
        <Link key={e.code} to={e.route} className="menu-tile">
          <span className="menu-tile-icon">
            <MenuIcon name={e.icon} fontSize={24} />
          </span>
          <span className="menu-tile-name">{e.name}</span>
        </Link>
      ))}
    </div>
  );
}
