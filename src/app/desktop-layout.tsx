import { AppOutline, DownOutline, InformationCircleOutline, LeftOutline, RightOutline } from 'antd-mobile-icons';
import { Suspense, useMemo, useState } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { OfflineBanner } from '../components/offline-banner';
import { AlarmBanner } from '../features/notifications/alarm-banner';
import { NotificationBell } from '../features/notifications/notification-bell';
import { OutboxBadge } from '../features/outbox/outbox-badge';
import { useMe } from '../lib/me';
import { toggled } from '../lib/toggled';
import { confirmLogout } from './logout';
import { MenuIcon } from './menu-icons';
import { visibleGroups } from './menu';
import { titleFor } from './routes';
import { FirstScreenShown } from './boot-splash';
import { PageLoading } from './page-loading';
import { PRODUCT_NAME, useDocumentTitle } from './use-document-title';

const COLLAPSE_KEY = 'park.sideCollapsed';

function readCollapsed(): boolean {
  try {
    return localStorage.getItem(COLLAPSE_KEY) === '1';
  } catch {
    return false;
  }
}

/** From 768 px: side menu grouped by directory, a header with the signed-in person, and the content. */
export function DesktopLayout() {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const { data: me } = useMe();
  const groups = useMemo(() => visibleGroups(me?.menus ?? []), [me?.menus]);
  const [closed, setClosed] = useState<ReadonlySet<string>>(() => new Set());
  const [collapsed, setCollapsed] = useState(readCollapsed);
  const title = titleFor(pathname, me?.menus);
  const group = groups.find((g) => g.entries.some((e) => e.route === pathname));
  useDocumentTitle(pathname === '/' ? undefined : title);

  const toggleGroup = (code: string) => setClosed((prev) => toggled(prev, code));
  const toggleSide = () =>
    setCollapsed((c) => {
      try {
        localStorage.setItem(COLLAPSE_KEY, c ? '0' : '1');
      } catch {
        // a private window may refuse storage; the toggle still works for this visit
      }
      return !c;
    });

  const user = me?.user;
  return (
    <div className={collapsed ? 'd-layout is-collapsed' : 'd-layout'}>
      <aside className="d-side">
        <Link to="/" className="d-brand" title={PRODUCT_NAME}>
          <img src="/favicon.svg" alt="" width={32} height={32} />
          <span className="d-brand-name">{PRODUCT_NAME}</span>
        </Link>
        <nav className="d-nav" aria-label="主菜单">
          <NavLink to="/" end className="d-nav-item" title="首页">
            <AppOutline className="d-nav-icon" />
            <span className="d-nav-text">首页</span>
          </NavLink>
          {groups.map((g) => {
            const open = collapsed || !closed.has(g.code);
            return (
              <div key={g.code} className="d-nav-group">
                <button type="button" className="d-nav-group-head" aria-expanded={open} onClick={() => toggleGroup(g.code)} title={g.name}>
                  <MenuIcon name={g.icon} className="d-nav-icon" />
                  <span className="d-nav-text">{g.name}</span>
                  <DownOutline className={open ? 'd-nav-caret' : 'd-nav-caret is-closed'} />
                </button>
                {open && (
                  <div className="d-nav-children">
                    {g.entries.map((e) => (
                      <NavLink key={e.code} to={e.route} className="d-nav-item is-child" title={e.name}>
                        <MenuIcon name={e.icon} className="d-nav-icon" />
                        <span className="d-nav-text">{e.name}</span>
                      </NavLink>
                    ))}
                  </div>
                )}
              </div>
            );
          })}
        </nav>
        <button type="button" className="d-side-toggle" onClick={toggleSide} aria-label={collapsed ? '展开菜单' : '收起菜单'}>
          {collapsed ? <RightOutline /> : <LeftOutline />}
          <span className="d-nav-text">收起菜单</span>
        </button>
      </aside>
      <div className="d-main">
        <header className="d-header">
          <div className="d-crumbs">
            {group && <span className="d-crumb-parent">{group.name}</span>}
            {group && <span className="d-crumb-sep">/</span>}
            <span className="d-crumb-current">{pathname === '/' ? '首页' : title}</span>
          </div>
          <div className="d-header-right">
            <OutboxBadge variant="desktop" />
            <NotificationBell />
            <Link to="/about" className="d-header-link">
              <InformationCircleOutline /> 版本信息
            </Link>
            <button type="button" className="d-user" onClick={() => navigate('/profile')} title="个人中心">
              <span className="d-avatar">{user?.user_name?.slice(0, 1) ?? ''}</span>
              <span className="d-user-text">
                <span className="d-user-name">{user?.user_name}</span>
                <span className="d-user-dept">{user?.depart_name ?? '未分配部门'}</span>
              </span>
            </button>
            <button type="button" className="d-logout" onClick={() => void confirmLogout()}>
              退出登录
            </button>
          </div>
        </header>
        <OfflineBanner />
        <AlarmBanner />
        <main className="d-content">
          <Suspense fallback={<PageLoading />}>
            <Outlet />
            <FirstScreenShown />
          </Suspense>
        </main>
      </div>
    </div>
  );
}
