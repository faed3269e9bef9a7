import { useContext } from 'react';
import { MenuGroupsContext } from '../../app/access-context';
import { MenuGrid } from '../../app/menu-grid';
import './workbench.css';

/** Every screen the person may open, grouped like the desktop side menu. */
export default function WorkbenchPage() {
  const groups = useContext(MenuGroupsContext);
  return (
    <div className="page workbench">
      {groups.length === 0 && <div className="card workbench-empty">当前账号暂无可用功能，请联系管理员分配权限。</div>}
      {groups.map((g) => (
        <section key={g.code} className="card workbench-group">
          <h3 className="workbench-group-title">{g.name}</h3>
          <MenuGrid entries={g.entries} />
        </section>
      ))}
    </div>
  );
}
