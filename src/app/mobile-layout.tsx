import { TabBar } from 'antd-mobile';
import { AppOutline, AppstoreOutline, LeftOutline, UserOutline } from 'antd-mobile-icons';
import { Suspense } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router-dom';
import { OfflineBanner } from '../components/offline-banner';
import { AlarmBanner } from '../features/notifications/alarm-banner';
import { NotificationBell } from '../features/notifications/notification-bell';
import { OutboxBadge } from '../features/outbox/outbox-badge';
import { useMe } from '../lib/me';
import { FirstScreenShown } from './boot-splash';
import { PageLoading } from './page-loading';
import { findAppRoute, titleFor } from './routes';
import { PRODUCT_NAME, useDocumentTitle } from './use-document-title';

const tabs = [
  { key: '/', title: '首页', icon: <AppOutline /> },
  { key: '/workbench', title: '工作台', icon: <AppstoreOutline /> },
  { key: '/profile', title: '我的', icon: <UserOutline /> },
];

/** Below 768 px: title bar, content, and the three main areas as bottom tabs (DESIGN.md §6). */
export function MobileLayout() {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const { data: me } = useMe();
  const route = findAppRoute(pathname);
  const title = titleFor(pathname, me?.menus);
  useDocumentTitle(pathname === '/' ? undefined : title);
  const isTab = !!route?.tab;
  // A deep link (pushed notification, shared URL) has no history to go back to.
  const back = () => ((window.history.state as { idx?: number } | null)?.idx ? navigate(-1) : navigate('/workbench'));

  return (
    <div className="m-layout">
      {/* Not antd-mobile's NavBar: its left slot is a nameless role="button" even with no back arrow, and the arrow itself no button. */}
      <header className="m-navbar">
        <div className="m-navbar-left">
          {!isTab && (
            <button type="button" className="m-navbar-back" onClick={back} aria-label="返回">
              <LeftOutline />
            </button>
          )}
        </div>
        <h1 className="m-navbar-title">{pathname === '/' ? PRODUCT_NAME : title}</h1>
        <div className="m-navbar-right">
          <OutboxBadge variant="phone" />
          <NotificationBell />
        </div>
      </header>
      <OfflineBanner />
      <AlarmBanner />
      <main className={isTab ? 'm-content has-tabbar' : 'm-content'}>
        <Suspense fallback={<PageLoading />}>
          <Outlet />
          <FirstScreenShown />
        </Suspense>
      </main>
      {isTab && (
        <TabBar className="m-tabbar" safeArea activeKey={pathname} onChange={(key) => navigate(key)}>
          {tabs.map((t) => (
            <TabBar.Item key={t.key} icon={t.icon} title={t.title} />
          ))}
        </TabBar>
      )}
    </div>
  );
}
