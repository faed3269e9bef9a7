import { menuRoutes, type MenuCode } from './permissions';

/**
 * The menu screens the app has built, by menu code: the app's screen registry
 * (src/app/routes.tsx) and the permission screens' 未上线 tag both read it. A
 * menu code missing here is a screen not built yet: its entry stays out of
 * the app's menu, and the permission tree marks it 未上线.
 */
export const builtScreenCodes = [
  'menu:personApply',
  'menu:carApply',
  'menu:personApplyHistory',
  'menu:carApplyHistory',
  'menu:allPersonApplyHistory',
  'menu:allCarApplyHistory',
  'menu:carApplyApproval',
  'menu:heavytipperApproval',
  'menu:mediumlargeApproval',
  'menu:chemicalsCarApproval',
  'menu:carShddFinalCheck',
  'menu:personAppyApproval',
  'menu:personShddFinalCheck',
  'menu:scan',
  'menu:carList',
  'menu:personList',
  'menu:carListApproval',
  'menu:personListApproval',
  'menu:carRegistration',
  'menu:carRegistrationHistory',
  'menu:carRegistrationApproval',
  'menu:transportListHis',
  'menu:allTransportListHis',
  'menu:transportListApproval',
  'menu:carMark',
  'menu:personBatchApply',
  'menu:carRoute',
  'menu:vehicleGateCrosRecords',
  'menu:personGateCrosRecords',
  'menu:strandedManagementPerson',
  'menu:strandedManagementCar',
  'menu:routeDeviation',
  'menu:muster',
  'menu:gateDevice',
  'menu:bumpingPostDevice',
  'menu:tireBreakerDevice',
  'menu:liftingPillarDevice',
  'menu:securityLaneIDevice',
  'menu:carScaleSystemDevice',
  'menu:carFaceDevice',
  'menu:user',
  'menu:dept',
  'menu:role',
  'menu:perm',
  'menu:icons',
  'menu:modal',
  'menu:process',
  'menu:processNode',
  'menu:processDefinition',
  'menu:loginLog',
  'menu:operationLog',
  'menu:backup',
  'menu:retention',
  'menu:safetySetting',
  'menu:workCalendar',
  'menu:privacy',
  'menu:statVehicleInOut',
  'menu:statCarReservation',
  'menu:statApplicationCounts',
  'menu:statPersonReservation',
  'menu:statDepartPerson',
  'menu:statDepartCar',
  'menu:statVehicleType',
  'menu:statVehicleIncrease',
  'menu:statPersonInOut',
  'menu:statApproval',
  'menu:statVehicleGateTimes',
  'menu:dashboard',
  'menu:notice',
] as const satisfies readonly MenuCode[];

export type ScreenCode = (typeof builtScreenCodes)[number];

/**
 * The routes of those screens. The app shows a menu entry by its route (a
 * menu the park adds may point at a built screen), so "built" is read by route.
 */
export const builtScreenRoutes: ReadonlySet<string> = new Set(builtScreenCodes.map((code) => menuRoutes.get(code)!.route));
