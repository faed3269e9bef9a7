import { RightOutline } from 'antd-mobile-icons';
import { useContext } from 'react';
import { Link } from 'react-router-dom';
import { DEFAULT_PARK_TZ, formatInZone } from '../../../domain/time';
import { MenuGroupsContext } from '../../app/access-context';
import { readVisits, shortcutEntries } from '../../app/frequent-screens';
import { MenuGrid } from '../../app/menu-grid';
import { useMe } from '../../lib/me';
import { OpenAlarms } from './open-alarms';
import { PendingApprovals } from './pending-approvals';
import { UnreadNotices } from './unread-notices';
import './home.css';

const WEEKDAYS = ['日', '一', '二', '三', '四', '五', '六'];

/** Greeting by the park's clock, not the device's: a phone abroad still greets in park time. */
function parkNow() {
  const stamp = formatInZone(new Date(), DEFAULT_PARK_TZ);
  const [date, time] = stamp.split(' ');
  const hour = Number(time.slice(0, 2));
  const [y, m, d] = date.split('-').map(Number);
  const weekday = WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
  const greeting = hour < 6 ? '凌晨好' : hour < 11 ? '上午好' : hour < 13 ? '中午好' : hour < 18 ? '下午好' : '晚上好';
  return { greeting, dateText: `${y}年${m}月${d}日 星期${weekday}` };
}

/**
 * 首页: what needs the person now (open alarms, unread notices, approvals waiting), then the
 * few screens they open most; 工作台 holds the whole menu by group.
 */
export default function HomePage() {
  const { data: me } = useMe();
  const groups = useContext(MenuGroupsContext);
  if (!me) return null;
  const { greeting, dateText } = parkNow();
  const entries = groups.flatMap((g) => g.entries);
  const shortcuts = shortcutEntries(entries, readVisits(me.user.user_id));
  return (
    <div className="page home">
      <section className="home-hero">
        <div className="home-hero-date">{dateText}</div>
        <h2 className="home-hero-title">
          {greeting}，{me.user.user_name}
        </h2>
        <div className="home-hero-meta">
          <span className="home-hero-dept">{me.user.depart_name ?? '未分配部门'}</span>
          <span className="home-hero-account">账号 {me.user.account}</span>
        </div>
        <div className="home-hero-roles">
          {me.roleNames.map((r) => (
            <span key={r} className="home-role">
              {r}
            </span>
          ))}
        </div>
      </section>

      <OpenAlarms />

      <UnreadNotices />

      <PendingApprovals />

      {groups.length === 0 ? (
        <section className="card home-empty">
          <div className="home-empty-title">暂无可用功能</div>
          <p>当前账号的角色还没有可用的功能菜单。如需办理业务，请联系管理员分配权限。</p>
        </section>
      ) : (
        <section aria-labelledby="home-shortcuts-title">
          <div className="home-section-head">
            <h3 className="section-title" id="home-shortcuts-title">
              常用功能
            </h3>
            {shortcuts.length < entries.length && (
              <Link to="/workbench" className="home-more">
                全部功能
                <RightOutline />
              </Link>
            )}
          </div>
          <div className="card">
            <MenuGrid entries={shortcuts} />
          </div>
        </section>
      )}

      <h3 className="section-title">账号与系统</h3>
      <div className="card home-links">
        <Link to="/profile" className="home-link">
          <span>个人资料与密码</span>
          <RightOutline />
        </Link>
        <Link to="/about" className="home-link">
          <span>版本信息</span>
          <RightOutline />
        </Link>
      </div>
    </div>
  );
}
