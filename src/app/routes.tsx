import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { EquipmentKind } from '../../domain/schemas/equipment';
import type { Row, ScreenDef } from '../list-screen';

/**
 * The signed-in screens the app implements. A menu entry from /user/info is
 * shown only when its route is listed here, so unbuilt screens never appear
 * as dead links. Adding a screen = one line here (plus its page file).
 */
export interface AppRoute {
  path: string;
  /** Fallback title; a menu entry's own name wins when the menu carries the route. */
  title: string;
  page: LazyExoticComponent<ComponentType>;
  /** Reachable by any user with a role, whether or not the menu contains it. */
  open?: boolean;
  /** Shown as a bottom tab on phones (the NavBar then has no back arrow). */
  tab?: boolean;
}

/** A list screen is its declaration alone: the declaration and the generic screen load together, on first visit. */
const screen = <R extends Row>(load: () => Promise<ScreenDef<R>>): LazyExoticComponent<ComponentType> =>
  lazy(() => Promise.all([load(), import('../list-screen')]).then(([def, { ListScreen }]) => ({ default: () => <ListScreen def={def} /> })));

const equipment = (kind: EquipmentKind) => screen(() => import('../features/equipment/equipment-screens').then((m) => m.equipmentScreens[kind]));

export const appRoutes: AppRoute[] = [
  { path: '/', title: '首页', page: lazy(() => import('../features/home/home-page')), open: true, tab: true },
  { path: '/workbench', title: '工作台', page: lazy(() => import('../features/workbench/workbench-page')), open: true, tab: true },
  { path: '/profile', title: '个人中心', page: lazy(() => import('../features/profile/profile-page')), open: true, tab: true },
  { path: '/about', title: '版本信息', page: lazy(() => import('../features/about/about-page')), open: true },
  { path: '/notifications', title: '消息中心', page: lazy(() => import('../features/notifications/notifications-page')), open: true },
  { path: '/notifications/push', title: '推送设置', page: lazy(() => import('../features/notifications/push-settings-page')), open: true },
  { path: '/outbox', title: '待发送', page: lazy(() => import('../features/outbox/outbox-page')), open: true },
  // Reached from the 扫码核验 menu (patrols, security leads); the page also asks for SCAN_PERMISSION. The flag action of
  // the appointments feature is handed in here, since features do not import each other.
  {
    path: '/scan',
    title: '扫码核验',
    page: lazy(() =>
      Promise.all([import('../features/scan/scan-page'), import('../features/appointments/shared/action-modals')]).then(([scan, modals]) => ({ default: scan.scanPageWith({ FlagModal: modals.flagModalFor() }) })),
    ),
  },
  { path: '/system/users', title: '用户管理', page: screen(() => import('../features/users/users-screen').then((m) => m.usersScreen)) },
  { path: '/system/departments', title: '部门管理', page: screen(() => import('../features/departments/departments-screen').then((m) => m.departmentsScreen)) },
  { path: '/system/vehicle-types', title: '车型管理', page: screen(() => import('../features/vehicle-types/vehicle-types-screen').then((m) => m.vehicleTypesScreen)) },
  { path: '/devices/gate', title: '道闸设备', page: equipment('gate') },
  { path: '/devices/bumping-post', title: '防撞柱', page: equipment('bumpingPost') },
  { path: '/devices/tire-breaker', title: '破胎器', page: equipment('tireCrushing') },
  { path: '/devices/lifting-pillar', title: '升降防撞柱', page: equipment('liftingAntiCollisionPillar') },
  { path: '/devices/security-lane', title: '安检通道识别', page: equipment('securityLaneIdentification') },
  { path: '/devices/car-scale', title: '地磅系统', page: equipment('truckScales') },
  { path: '/devices/car-face', title: '车载人脸识别', page: equipment('carMountedFacialRecognition') },
  { path: '/appointments/person', title: '人员预约', page: lazy(() => import('../features/appointments/person/person-page')) },
  { path: '/appointments/car', title: '车辆预约', page: lazy(() => import('../features/appointments/car/car-page')) },
  { path: '/appointments/person-history', title: '人员预约记录', page: lazy(() => import('../features/appointments/history/person-history-page')) },
  { path: '/appointments/car-history', title: '车辆预约记录', page: lazy(() => import('../features/appointments/history/car-history-page')) },
  { path: '/appointments/person-all-history', title: '人员预约总记录', page: lazy(() => import('../features/appointments/history/person-all-history-page')) },
  { path: '/appointments/car-all-history', title: '车辆预约总记录', page: lazy(() => import('../features/appointments/history/car-all-history-page')) },
  { path: '/approval/car', title: '车辆预约审核', page: lazy(() => import('../features/appointments/approval/approval-page').then((m) => ({ default: m.queuePage('car_task') }))) },
  { path: '/approval/heavy-tipper', title: '重型自卸货车审核', page: lazy(() => import('../features/appointments/approval/approval-page').then((m) => ({ default: m.queuePage('car_zxzxc') }))) },
  { path: '/approval/medium-large', title: '中大型客车审核', page: lazy(() => import('../features/appointments/approval/approval-page').then((m) => ({ default: m.queuePage('car_bus') }))) },
  { path: '/approval/chemicals', title: '危化品车辆审核', page: lazy(() => import('../features/appointments/approval/approval-page').then((m) => ({ default: m.queuePage('car_chemicals') }))) },
  { path: '/approval/car-final', title: '车辆预约终审', page: lazy(() => import('../features/appointments/approval/approval-page').then((m) => ({ default: m.queuePage('car_final') }))) },
  { path: '/approval/person', title: '人员预约审核', page: lazy(() => import('../features/appointments/approval/approval-page').then((m) => ({ default: m.queuePage('person_task') }))) },
  { path: '/approval/person-final', title: '人员预约终审', page: lazy(() => import('../features/appointments/approval/approval-page').then((m) => ({ default: m.queuePage('person_final') }))) },
];

const byPath = new Map(appRoutes.map((r) => [r.path, r]));

export function findAppRoute(path: string): AppRoute | undefined {
  return byPath.get(path);
}

export function isImplemented(path: string | undefined): boolean {
  return !!path && byPath.has(path);
}
