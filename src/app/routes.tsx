import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { menuRoutes, type MenuNode } from '../../domain/permissions';
import { builtScreenCodes, type ScreenCode } from '../../domain/screens';
import { visibleEntries } from './menu';

type Page = LazyExoticComponent<ComponentType>;

/**
 * The signed-in screens the app implements. A menu entry from /user/info is
 * shown only when its route is listed here, so unbuilt screens never appear
 * as dead links.
 */
export interface AppRoute {
  path: string;
  /** Fallback title; a menu entry's own name wins when the menu carries the route. */
  title: string;
  page: Page;
  /** Reachable by any user with a role, whether or not the menu contains it. */
  open?: boolean;
  /** Shown as a bottom tab on phones (the NavBar then has no back arrow). */
  tab?: boolean;
}

/** Screens outside the menu tree: the bottom tabs and what every signed-in user reaches from them. */
const openRoutes: AppRoute[] = [
  { path: '/', title: '首页', page: lazy(() => import('../features/home/home-page')), open: true, tab: true },
  { path: '/workbench', title: '工作台', page: lazy(() => import('../features/workbench/workbench-page')), open: true, tab: true },
  { path: '/profile', title: '个人中心', page: lazy(() => import('../features/profile/profile-page')), open: true, tab: true },
  { path: '/about', title: '版本信息', page: lazy(() => import('../features/about/about-page')), open: true },
  { path: '/notifications', title: '消息中心', page: lazy(() => import('../features/notifications/notifications-page')), open: true },
  { path: '/notices', title: '通知公告', page: lazy(() => import('../features/notices/reader-page')), open: true },
  { path: '/notifications/push', title: '推送设置', page: lazy(() => import('../features/notifications/push-settings-page')), open: true },
  { path: '/outbox', title: '待发送', page: lazy(() => import('../features/outbox/outbox-page')), open: true },
];

/** The signed-in pages that fill the window, outside the shell (router.tsx): 大屏 and 地图看板. */
export const fullScreenPaths = { bigScreen: '/big-screen', mapBoard: '/map-board' } as const;

export const loadScreens = () => import('./screens');
const menuPage = (code: ScreenCode): Page => lazy(() => loadScreens().then((m) => m.screenLoaders[code]()));

/**
 * The open routes, then the menu screens by code (domain/screens.ts lists the
 * built ones): a screen's path and fallback title are its menu node's in
 * domain/permissions.ts, and how it loads is in screens.tsx (a chunk of its
 * own: the sign-in screen does not need it). So adding a screen is its
 * declaration, its loader there and its code in domain/screens.ts; a menu
 * code missing there is a screen not built yet, and its entry stays hidden.
 */
export const appRoutes: AppRoute[] = [
  ...openRoutes,
  ...builtScreenCodes.map((code) => {
    const menu = menuRoutes.get(code)!;
    return { path: menu.route, title: menu.name, page: menuPage(code) };
  }),
];

const byPath = new Map(appRoutes.map((r) => [r.path, r]));

export function findAppRoute(path: string): AppRoute | undefined {
  return byPath.get(path);
}

/** Open routes (home, profile...) are for everyone with a role; the rest need the menu to list them. */
export function canReach(route: AppRoute, granted: ReadonlySet<string>): boolean {
  return !!route.open || granted.has(route.path);
}

/** The page title: the menu's own wording when the menu has the route, else the registry's. */
export function titleFor(path: string, menus: MenuNode[] | undefined): string {
  const fromMenu = menus ? visibleEntries(menus).find((e) => e.route === path)?.name : undefined;
  return fromMenu ?? findAppRoute(path)?.title ?? '';
}
