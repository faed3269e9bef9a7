import type { ComponentType } from 'react';
import type { QueueName } from '../../domain/appointments';
import type { EquipmentKind } from '../../domain/schemas/equipment';
import type { Row, ScreenDef } from '../list-screen';
import type { ScreenCode } from '../../domain/screens';
import type { ReportKey } from '../../domain/reports';

type Loader = () => Promise<{ default: ComponentType }>;

/**
 * How each menu screen loads, keyed by its menu code: its own chunk, fetched
 * on first visit. This table is a chunk of its own too, fetched with the
 * signed-in shell (require-auth.tsx), so that the sign-in screen's first load
 * does not carry one loader (and its list of preloaded files) per screen.
 * domain/screens.ts lists the codes; the type makes the two lists agree.
 */

/** A list screen is its declaration alone: the declaration and the generic screen load together, on first visit. */
const screen =
  <R extends Row>(load: () => Promise<ScreenDef<R>>): Loader =>
  () =>
    Promise.all([load(), import('../list-screen')]).then(([def, { ListScreen }]) => ({ default: () => <ListScreen def={def} /> }));

const equipment = (kind: EquipmentKind) => screen(() => import('../features/equipment/equipment-screens').then((m) => m.equipmentScreens[kind]));
const history = () => import('../features/appointments/history/history-screens');
const registers = () => import('../features/registers/list-screens');
const waybills = () => import('../features/registers/waybill-screens');
const registrations = () => import('../features/registers/registration-screens');
const processConfig = () => import('../features/process-config/process-config-screens');
/** A report is its declaration alone (domain/reports.ts), rendered by the one report screen. */
const report =
  (key: ReportKey): Loader =>
  () =>
    Promise.all([import('../../domain/reports'), import('../features/reports/report-screen')]).then(([{ reports }, { ReportScreen }]) => {
      const def = reports.find((r) => r.key === key)!;
      return { default: () => <ReportScreen def={def} /> };
    });
const queue =
  (name: QueueName): Loader =>
  () =>
    import('../features/appointments/approval/approval-page').then((m) => ({ default: m.queuePage(name) }));

export const screenLoaders: Record<ScreenCode, Loader> = {
  'menu:personApply': screen(() => import('../features/appointments/person/person-screen').then((m) => m.personApplicationsScreen)),
  'menu:carApply': screen(() => import('../features/appointments/car/car-screen').then((m) => m.carApplicationsScreen)),
  'menu:personApplyHistory': screen(() => history().then((m) => m.personHistoryScreen)),
  'menu:carApplyHistory': screen(() => history().then((m) => m.carHistoryScreen)),
  'menu:allPersonApplyHistory': screen(() => history().then((m) => m.personAllHistoryScreen)),
  'menu:allCarApplyHistory': screen(() => history().then((m) => m.carAllHistoryScreen)),
  'menu:carApplyApproval': queue('car_task'),
  'menu:heavytipperApproval': queue('car_zxzxc'),
  'menu:mediumlargeApproval': queue('car_bus'),
  'menu:chemicalsCarApproval': queue('car_chemicals'),
  'menu:carShddFinalCheck': queue('car_final'),
  'menu:personAppyApproval': queue('person_task'),
  'menu:personShddFinalCheck': queue('person_final'),
  // The flag action of the appointments feature is handed in here, since features do not import each other; the page also asks for SCAN_PERMISSION.
  'menu:scan': () =>
    Promise.all([import('../features/scan/scan-page'), import('../features/appointments/shared/action-modals')]).then(([scan, modals]) => ({
      default: scan.scanPageWith({ FlagModal: modals.flagModalFor() }),
    })),
  'menu:carList': screen(() => registers().then((m) => m.carListScreen)),
  'menu:personList': screen(() => registers().then((m) => m.personListScreen)),
  'menu:carListApproval': screen(() => registers().then((m) => m.carListQueueScreen)),
  'menu:personListApproval': screen(() => registers().then((m) => m.personListQueueScreen)),
  'menu:carRegistration': screen(() => registrations().then((m) => m.registrationScreen)),
  'menu:carRegistrationHistory': screen(() => registrations().then((m) => m.registrationHistoryScreen)),
  'menu:carRegistrationApproval': screen(() => registrations().then((m) => m.registrationQueueScreen)),
  'menu:transportListHis': screen(() => waybills().then((m) => m.waybillHistoryScreen)),
  'menu:allTransportListHis': screen(() => waybills().then((m) => m.allWaybillHistoryScreen)),
  'menu:transportListApproval': screen(() => waybills().then((m) => m.waybillQueueScreen)),
  'menu:notice': screen(() => import('../features/notices/notices-screen').then((m) => m.noticesScreen)),
  // The map line editor loads with the form or a route's map (src/components/park-map/lazy.tsx), not with the list.
  'menu:carRoute': screen(() => import('../features/driving-routes/routes-screen').then((m) => m.drivingRoutesScreen)),
  'menu:carMark': screen(() => import('../features/marks/marks-screen').then((m) => m.vehicleMarksScreen)),
  'menu:personBatchApply': screen(() => import('../features/person-import/person-import-screen').then((m) => m.personImportScreen)),
  'menu:vehicleGateCrosRecords': screen(() => import('../features/gate-records/gate-record-screens').then((m) => m.vehicleGateRecordsScreen)),
  'menu:personGateCrosRecords': screen(() => import('../features/gate-records/gate-record-screens').then((m) => m.personGateRecordsScreen)),
  'menu:strandedManagementPerson': screen(() => import('../features/stranded/stranded-screens').then((m) => m.personStrandedScreen)),
  // The vehicle alarms with their daily statistics as a second tab (docs/decisions.md).
  'menu:strandedManagementCar': () => import('../features/stranded/stranded-car-page'),
  'menu:routeDeviation': screen(() => import('../features/stranded/stranded-screens').then((m) => m.routeDeviationScreen)),
  'menu:gateDevice': equipment('gate'),
  'menu:bumpingPostDevice': equipment('bumpingPost'),
  'menu:tireBreakerDevice': equipment('tireCrushing'),
  'menu:liftingPillarDevice': equipment('liftingAntiCollisionPillar'),
  'menu:securityLaneIDevice': equipment('securityLaneIdentification'),
  'menu:carScaleSystemDevice': equipment('truckScales'),
  'menu:carFaceDevice': equipment('carMountedFacialRecognition'),
  'menu:user': screen(() => import('../features/users/users-screen').then((m) => m.usersScreen)),
  'menu:dept': screen(() => import('../features/departments/departments-screen').then((m) => m.departmentsScreen)),
  'menu:role': screen(() => import('../features/roles/roles-screen').then((m) => m.rolesScreen)),
  // A tree with fold and unfold rather than a list: its own page (docs/decisions.md).
  'menu:perm': () => import('../features/permissions/permissions-page'),
  // The gallery's glyphs load with this route only (src/components/icon-glyph.tsx).
  'menu:icons': () => import('../features/icons/icons-page'),
  'menu:modal': screen(() => import('../features/vehicle-types/vehicle-types-screen').then((m) => m.vehicleTypesScreen)),
  'menu:process': screen(() => processConfig().then((m) => m.processesScreen)),
  'menu:processNode': screen(() => processConfig().then((m) => m.processNodesScreen)),
  'menu:processDefinition': screen(() => processConfig().then((m) => m.processDefinitionsScreen)),
  'menu:loginLog': screen(() => import('../features/logs/log-screens').then((m) => m.loginLogScreen)),
  'menu:operationLog': screen(() => import('../features/logs/log-screens').then((m) => m.operationLogScreen)),
  'menu:backup': screen(() => import('../features/backups/backups-screen').then((m) => m.backupsScreen)),
  // A form of periods with its preview and proof rather than a list: its own page.
  'menu:retention': () => import('../features/retention/retention-page'),
  // A live board and a marking panel rather than a list: its own page.
  'menu:muster': () => import('../features/muster/muster-page'),
  'menu:safetySetting': () => import('../features/safety-settings/safety-settings-page'),
  // A month's grid with a range picker rather than a list: its own page (docs/work-calendar.md).
  'menu:workCalendar': () => import('../features/work-calendar/work-calendar-page'),
  'menu:privacy': () => import('../features/privacy/privacy-page'),
  'menu:statVehicleInOut': report('vehicleInOut'),
  'menu:statCarReservation': report('carReservation'),
  'menu:statApplicationCounts': report('applicationCounts'),
  'menu:statPersonReservation': report('personReservation'),
  'menu:statDepartPerson': report('departPerson'),
  'menu:statDepartCar': report('departCar'),
  'menu:statVehicleType': report('vehicleType'),
  'menu:statVehicleIncrease': report('vehicleIncrease'),
  'menu:statPersonInOut': report('personInOut'),
  'menu:statApproval': report('approval'),
  'menu:statVehicleGateTimes': report('vehicleGateTimes'),
  // The dark board with its charts; recharts loads with this route only.
  'menu:dashboard': () => import('../features/dashboard/dashboard-page'),
};
