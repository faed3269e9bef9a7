/**
 * The permission catalogue: every code named in section 6 of the three spec
 * documents, arranged as the tree the seed writes into the permission table
 * (type 0 directory, 1 menu, 2 permission). Menu routes are the PWA's routes.
 *
 * A menu node's own code (menu:...) grants seeing the screen; the spec's codes
 * are its buttons and searches. `open` menus (statistics, dashboard: "always
 * allowed" in spec 002 §6) are shown to every user who holds any role.
 */
export type PermissionType = 0 | 1 | 2;

export interface PermissionSeed<C extends string = string> {
  name: string;
  code: C;
  type: PermissionType;
  route?: string;
  icon?: string;
  open?: boolean;
  children?: readonly PermissionSeed[];
}

// The helpers keep each code's literal type, so the tree below is also the type of every code (PermissionCode).
const p = <const C extends string>(code: C, name: string) => ({ code, name, type: 2 as const });
const menu = <const C extends string, const K extends readonly PermissionSeed[]>(code: C, name: string, route: string, icon: string, children: K, open = false) => ({
  code,
  name,
  type: 1 as const,
  route,
  icon,
  children,
  ...(open ? { open } : {}),
});
const dir = <const C extends string, const K extends readonly PermissionSeed[]>(code: C, name: string, icon: string, children: K) => ({ code, name, type: 0 as const, icon, children });

/** Standard button set: list/add/edit/delete (+commit/revoke) under a code prefix. */
const crud = <const P extends string, const E extends string = never>(prefix: P, what: string, extra: ReadonlyArray<readonly [E, string]> = []) => [
  p(`${prefix}:list`, `${what}查询`),
  p(`${prefix}:add`, `新增${what}`),
  p(`${prefix}:edit`, `编辑${what}`),
  p(`${prefix}:delete`, `删除${what}`),
  ...extra.map(([c, n]) => p(`${prefix}:${c}` as `${P}:${E}`, n)),
];

/**
 * The scan screen and its lookup need the vehicle-marks list code: the
 * existing code that patrols and security leads hold for their field work
 * (no code in the spec names scanning).
 */
export const SCAN_PERMISSION = 'carMark:list' satisfies PermissionCode;

export const permissionTree = [
  dir('dir:appointment', '预约管理', 'CalendarOutline', [
    menu(
      'menu:personApply',
      '人员预约',
      '/appointments/person',
      'UserAddOutline',
      crud('personApply', '人员预约', [
        ['commit', '提交人员预约'],
        ['revoke', '撤销人员预约'],
      ]),
    ),
    menu(
      'menu:carApply',
      '车辆预约',
      '/appointments/car',
      'TruckOutline',
      crud('carApply', '车辆预约', [
        ['commit', '提交车辆预约'],
        ['revoke', '撤销车辆预约'],
        ['proprietorImport', '业主车辆导入'],
        ['buildImport', '施工车辆导入'],
      ]),
    ),
    menu('menu:personApplyHistory', '人员预约记录', '/appointments/person-history', 'FileOutline', [p('personApplyHistory:list', '人员预约记录查询'), p('personApplyHis:revoke', '撤销人员预约记录')]),
    menu('menu:carApplyHistory', '车辆预约记录', '/appointments/car-history', 'FileOutline', [p('carApplyHistory:list', '车辆预约记录查询'), p('carApplyHis:revoke', '撤销车辆预约记录')]),
    menu('menu:allPersonApplyHistory', '人员预约总记录', '/appointments/person-all-history', 'UnorderedListOutline', [
      p('allPersonApplyHistory:list', '人员预约总记录查询'),
      p('allPersonApplyHistory:export', '导出人员预约总记录'),
      p('personApplyAllHis:revoke', '撤销、驳回、继续审批人员预约'),
    ]),
    menu('menu:allCarApplyHistory', '车辆预约总记录', '/appointments/car-all-history', 'UnorderedListOutline', [
      p('allCarApplyHistory:list', '车辆预约总记录查询'),
      p('allCarApplyHistory:label', '标记车辆'),
      p('allCarApplyHistory:export', '导出车辆预约总记录'),
      p('carApplyAllHis:revoke', '撤销、驳回、继续审批车辆预约'),
    ]),
    menu('menu:personBatchApply', '人员批量导入', '/appointments/person-batch', 'UploadOutline', [
      p('personBatchApply:list', '批量导入查询'),
      p('personBatchApply:add', '新增批量导入'),
      p('personBatchApply:edit', '编辑批量导入'),
      p('personBatchApply:commit', '开始导入'),
      p('personBatchApply:delete', '删除批量导入'),
    ]),
  ]),
  dir('dir:approval', '审批中心', 'CheckShieldOutline', [
    menu('menu:carApplyApproval', '车辆预约审核', '/approval/car', 'CheckCircleOutline', [
      p('carApplyApproval:list', '车辆预约审核查询'),
      p('carApplyApproval:check', '审核车辆预约'),
      p('carApplyApproval:batch', '批量审核车辆预约'),
      p('carApplyApproval:showDept', '按被访部门筛选'),
    ]),
    menu('menu:heavytipperApproval', '重型自卸货车审核', '/approval/heavy-tipper', 'CheckCircleOutline', [
      p('heavytipperApproval:check', '审核重型自卸货车'),
      p('heavytipperApproval:showDept', '按被访部门筛选'),
    ]),
    menu('menu:mediumlargeApproval', '中大型客车审核', '/approval/medium-large', 'CheckCircleOutline', [
      p('mediumlargeApproval:check', '审核中大型客车'),
      p('mediumlargeApproval:showDept', '按被访部门筛选'),
    ]),
    menu('menu:chemicalsCarApproval', '危化品车辆审核', '/approval/chemicals', 'ExclamationShieldOutline', [
      p('chemicalsCarApproval:list', '危化品车辆审核查询'),
      p('chemicalsCarApproval:check', '审核危化品车辆'),
      p('chemicalsCarApproval:showDept', '按被访部门筛选'),
    ]),
    menu('menu:carShddFinalCheck', '车辆预约终审', '/approval/car-final', 'CheckShieldOutline', [p('carShddFinalCheck:check', '车辆预约终审')]),
    menu('menu:personAppyApproval', '人员预约审核', '/approval/person', 'CheckCircleOutline', [
      p('personAppyApproval:list', '人员预约审核查询'),
      p('personAppyApproval:check', '审核人员预约'),
      p('personAppyApproval:batch', '批量审核人员预约'),
      p('personApplyApproval:ShowDept', '按被访部门筛选'),
    ]),
    menu('menu:personShddFinalCheck', '人员预约终审', '/approval/person-final', 'CheckShieldOutline', [p('personShddFinalCheck:check', '人员预约终审')]),
    menu('menu:carRegistrationApproval', '车辆备案审核', '/approval/registration', 'CheckCircleOutline', [
      p('carRegistrationApproval:list', '车辆备案审核查询'),
      p('carRegistrationApproval:check', '审核车辆备案'),
    ]),
    menu('menu:carListApproval', '车辆黑白名单审核', '/approval/car-list', 'CheckCircleOutline', [p('carListApproval:list', '车辆黑白名单审核查询'), p('carListApproval:check', '审核车辆黑白名单')]),
    menu('menu:personListApproval', '人员黑白名单审核', '/approval/person-list', 'CheckCircleOutline', [
      p('personListApproval:list', '人员黑白名单审核查询'),
      p('personListApproval:check', '审核人员黑白名单'),
    ]),
    menu('menu:transportListApproval', '运单审核', '/approval/transport', 'CheckCircleOutline', [p('transportListApproval:check', '审核运单')]),
  ]),
  dir('dir:vehicle', '车辆与名单', 'TruckOutline', [
    menu(
      'menu:carRegistration',
      '车辆备案',
      '/vehicles/registration',
      'FileOutline',
      crud('carRegistration', '车辆备案', [
        ['commit', '提交车辆备案'],
        ['revoke', '撤销车辆备案'],
      ]),
    ),
    menu('menu:carRegistrationHistory', '车辆备案记录', '/vehicles/registration-history', 'FileOutline', [
      p('carRegistrationHistory:list', '车辆备案记录查询'),
      p('carRegistrationHistory:revoke', '撤销车辆备案记录'),
    ]),
    menu('menu:carList', '车辆黑白名单', '/vehicles/car-list', 'StopOutline', [
      p('carList:add', '新增车辆黑白名单'),
      p('carList:edit', '编辑车辆黑白名单'),
      p('carList:delete', '删除车辆黑白名单'),
      p('carList:commit', '提交车辆黑白名单'),
      p('carList:revoke', '撤销车辆黑白名单'),
    ]),
    menu('menu:personList', '人员黑白名单', '/vehicles/person-list', 'StopOutline', [
      p('personList:add', '新增人员黑白名单'),
      p('personList:edit', '编辑人员黑白名单'),
      p('personList:delete', '删除人员黑白名单'),
      p('personList:commit', '提交人员黑白名单'),
      p('personList:revoke', '撤销人员黑白名单'),
    ]),
    // The spec names only the revoke; a carrier files waybills too, so the filing buttons are ours.
    menu('menu:transportListHis', '运单记录', '/vehicles/transport-history', 'FileOutline', [
      p('transportListHis:add', '新增运单'),
      p('transportListHis:edit', '编辑运单'),
      p('transportListHis:delete', '删除运单'),
      p('transportListHis:commit', '提交运单'),
      p('transportListHis:revoke', '撤销运单'),
    ]),
    menu('menu:allTransportListHis', '运单总记录', '/vehicles/transport-all-history', 'UnorderedListOutline', [p('allTransportListHis:revoke', '撤销运单总记录')]),
    menu('menu:carMark', '车辆标记', '/vehicles/marks', 'FlagOutline', crud('carMark', '车辆标记')),
    menu('menu:carRoute', '行车路线', '/vehicles/routes', 'EnvironmentOutline', crud('carRoute', '行车路线', [['bind', '绑定部门']])),
  ]),
  dir('dir:security', '安防管理', 'ExclamationShieldOutline', [
    // Patrols' field screen: verifies a pass offline and looks up what it names (the lookup itself asks for carMark:list).
    menu('menu:scan', '扫码核验', '/scan', 'ScanningOutline', []),
    menu('menu:strandedManagementPerson', '人员滞留告警', '/security/stranded-person', 'ExclamationCircleOutline', [
      p('strandedManagementPerson:list', '人员滞留查询'),
      p('strandedManagementPerson:deal', '处理人员滞留告警'),
    ]),
    menu('menu:strandedManagementCar', '车辆滞留告警', '/security/stranded-car', 'ExclamationCircleOutline', [
      p('strandedManagementCar:list', '车辆滞留查询'),
      p('strandedManagementCar:deal', '处理车辆滞留告警'),
    ]),
    // Beyond the spec: read and handled with the vehicle alarms' codes (docs/decisions.md), so this menu has no codes of its own.
    menu('menu:routeDeviation', '偏离路线告警', '/security/route-deviation', 'EnvironmentOutline', []),
    // Beyond the spec: the emergency headcount (docs/muster.md); leads start one, marshals mark people safe.
    menu('menu:muster', '应急清点', '/security/muster', 'TeamOutline', [p('muster:start', '发起应急清点'), p('muster:mark', '清点标记')]),
    menu('menu:vehicleGateCrosRecords', '车辆过闸记录', '/security/vehicle-gate-records', 'TruckOutline', [p('vehicleGateCrosRecords:list', '车辆过闸记录查询')]),
    menu('menu:personGateCrosRecords', '人员过闸记录', '/security/person-gate-records', 'UserOutline', [p('personGateCrosRecords:list', '人员过闸记录查询')]),
  ]),
  dir('dir:device', '设备管理', 'SetOutline', [
    menu('menu:gateDevice', '道闸设备', '/devices/gate', 'SetOutline', crud('gateDevice', '道闸设备')),
    menu('menu:bumpingPostDevice', '防撞柱', '/devices/bumping-post', 'SetOutline', crud('bumpingPostDevice', '防撞柱')),
    menu('menu:tireBreakerDevice', '破胎器', '/devices/tire-breaker', 'SetOutline', crud('tireBreakerDevice', '破胎器')),
    // The spec names no codes for this kind; ours follow the others' pattern (docs/decisions.md).
    menu('menu:liftingPillarDevice', '升降防撞柱', '/devices/lifting-pillar', 'SetOutline', crud('liftingPillarDevice', '升降防撞柱')),
    menu('menu:securityLaneIDevice', '安检通道识别', '/devices/security-lane', 'SetOutline', crud('securityLaneIDevice', '安检通道识别设备')),
    menu('menu:carScaleSystemDevice', '地磅系统', '/devices/car-scale', 'SetOutline', crud('carScaleSystemDevice', '地磅设备')),
    menu('menu:carFaceDevice', '车载人脸识别', '/devices/car-face', 'SetOutline', crud('carFaceDevice', '车载人脸识别设备')),
  ]),
  dir('dir:statistics', '统计报表', 'HistogramOutline', [
    menu('menu:dashboard', '数据看板', '/dashboard', 'AppstoreOutline', [], true),
    menu('menu:statVehicleInOut', '车辆进出统计', '/statistics/vehicle-in-out', 'HistogramOutline', [], true),
    menu('menu:statCarReservation', '车辆预约统计', '/statistics/car-reservation', 'HistogramOutline', [], true),
    menu('menu:statApplicationCounts', '申请数量统计', '/statistics/application-counts', 'HistogramOutline', [], true),
    menu('menu:statPersonReservation', '人员预约统计', '/statistics/person-reservation', 'HistogramOutline', [], true),
    menu('menu:statDepartPerson', '部门人员申请统计', '/statistics/depart-person', 'HistogramOutline', [], true),
    menu('menu:statDepartCar', '部门车辆预约统计', '/statistics/depart-car', 'HistogramOutline', [], true),
    menu('menu:statVehicleType', '车型进出报表', '/statistics/vehicle-type', 'HistogramOutline', [], true),
    menu('menu:statVehicleIncrease', '车型新增及去重统计', '/statistics/vehicle-increase', 'HistogramOutline', [], true),
    menu('menu:statPersonInOut', '人员进出统计', '/statistics/person-in-out', 'HistogramOutline', [], true),
    menu('menu:statApproval', '审批统计', '/statistics/approval', 'HistogramOutline', [], true),
    menu('menu:statVehicleGateTimes', '车辆过闸次数统计', '/statistics/vehicle-gate-times', 'HistogramOutline', [], true),
  ]),
  dir('dir:system', '系统管理', 'SetOutline', [
    menu('menu:user', '用户管理', '/system/users', 'UserOutline', [
      p('user:list', '用户查询'),
      p('user:add', '新增用户'),
      p('user:edit', '编辑用户'),
      p('user:delete', '删除用户'),
      p('user:bindRole', '绑定角色'),
    ]),
    menu('menu:dept', '部门管理', '/system/departments', 'TeamOutline', [p('dept:add', '新增部门'), p('dept:edit', '编辑部门'), p('dept:delete', '删除部门')]),
    menu('menu:role', '角色管理', '/system/roles', 'UserSetOutline', [
      p('role:list', '角色查询'),
      p('role:add', '新增角色'),
      p('role:edit', '编辑角色'),
      p('role:delete', '删除角色'),
      p('role:bindPerm', '绑定权限'),
    ]),
    menu('menu:perm', '权限管理', '/system/permissions', 'LockOutline', [p('perm:list', '权限查询'), p('perm:add', '新增权限'), p('perm:edit', '编辑权限'), p('perm:delete', '删除权限')]),
    menu('menu:modal', '车型管理', '/system/vehicle-types', 'TruckOutline', [p('modal:add', '新增车型'), p('modal:edit', '编辑车型'), p('modal:delete', '删除车型')]),
    menu('menu:process', '审批流程', '/system/processes', 'AppOutline', [p('process:add', '新增流程'), p('process:edit', '编辑流程'), p('process:delete', '删除流程')]),
    menu('menu:processNode', '流程节点', '/system/process-nodes', 'AppOutline', [p('processNode:add', '新增流程节点'), p('processNode:edit', '编辑流程节点'), p('processNode:delet', '删除流程节点')]),
    menu('menu:processDefinition', '流程定义', '/system/process-definitions', 'AppOutline', []),
    menu('menu:notice', '通知公告', '/system/notices', 'SoundOutline', [p('notice:list', '通知公告查询'), p('notice:add', '新增通知公告'), p('notice:edit', '编辑通知公告')]),
    menu('menu:loginLog', '登录日志', '/system/login-logs', 'FileOutline', [p('loginLog:list', '登录日志查询')]),
    menu('menu:operationLog', '操作日志', '/system/operation-logs', 'FileOutline', [p('operationLog:list', '操作日志查询')]),
    menu('menu:icons', '图标库', '/system/icons', 'AppstoreOutline', [p('sys:manage', '系统维护')]),
  ]),
  dir('dir:settings', '系统设置', 'SetOutline', [
    menu('menu:backup', '备份', '/settings/backups', 'FolderOutline', [p('backup:list', '备份查询'), p('backup:run', '立即备份')]),
    menu('menu:retention', '数据保留', '/settings/retention', 'ClockCircleOutline', [p('retention:edit', '编辑保留期限'), p('retention:run', '立即清理')]),
    // pii:view: face and ID photos, and revealing one masked field with a reason (docs/personal-data.md); pii:subject: a person's data on request.
    // Beyond the spec: the hazardous-goods cap per park and the repeat-offender rule (docs/decisions.md).
    menu('menu:safetySetting', '安全设置', '/settings/safety', 'ExclamationShieldOutline', [p('safetySetting:edit', '编辑安全设置')]),
    // Beyond the spec: the working days approval deadlines count (docs/work-calendar.md).
    menu('menu:workCalendar', '工作日历', '/settings/work-calendar', 'CalendarOutline', [p('workCalendar:edit', '编辑工作日历')]),
    menu('menu:privacy', '个人信息保护', '/settings/privacy', 'EyeInvisibleOutline', [p('pii:view', '查看个人信息'), p('pii:subject', '个人信息导出与删除')]),
  ]),
] as const satisfies readonly PermissionSeed[];

type Kids<N> = N extends { children: infer K extends readonly unknown[] } ? K[number] : never;
type Directories = (typeof permissionTree)[number];
type Menus = Kids<Directories>;

/** Every code the tree declares (three levels: directory, menu, button): a misspelled code in a route, a screen or a resource fails the type check. */
export type PermissionCode = Directories['code'] | Menus['code'] | Kids<Menus>['code'];

/** A screen's code: the key of the app's screen registry (src/app/routes.tsx). */
export type MenuCode = Menus['code'];

/** Each menu's route and name as the tree declares them: where the registry finds a screen's path and fallback title. */
export const menuRoutes = new Map<string, { route: string; name: string }>(
  permissionTree.flatMap((d) => d.children.map((m): [string, { route: string; name: string }] => [m.code, { route: m.route, name: m.name }])),
);

/** A prefix holding the whole button set of `crud` (list, add, edit, delete): what a declared register names as its codes. */
export type CrudPrefix = {
  [C in PermissionCode]: C extends `${infer P}:list` ? (`${P}:add` | `${P}:edit` | `${P}:delete` extends PermissionCode ? P : never) : never;
}[PermissionCode];

export function flattenPermissions(tree: readonly PermissionSeed[] = permissionTree, parent?: PermissionSeed): Array<PermissionSeed & { parentCode?: string }> {
  return tree.flatMap((n) => [{ ...n, ...(parent ? { parentCode: parent.code } : {}) }, ...flattenPermissions(n.children ?? [], n)]);
}

export const allPermissionCodes: string[] = flattenPermissions().map((n) => n.code);

/** Codes every role holder gets without binding: the "always allowed" menus and their parents. */
export const openCodes: string[] = (() => {
  const flat = flattenPermissions();
  const open = flat.filter((n) => n.open).map((n) => n.code);
  const parents = new Set(flat.filter((n) => n.open && n.parentCode).map((n) => n.parentCode as string));
  return [...parents, ...open];
})();

/** The one permission test both sides use to show a button and to accept a call. */
export function can(held: ReadonlySet<string> | readonly string[], code: PermissionCode): boolean {
  return Array.isArray(held) ? held.includes(code) : (held as ReadonlySet<string>).has(code);
}

export interface MenuNode {
  code: string;
  name: string;
  type: PermissionType;
  route?: string;
  icon?: string;
  children?: MenuNode[];
}

/**
 * The menu a user sees: directories and menus whose code is held (or open),
 * directories only when they keep at least one visible child.
 */
export function buildMenuTree(
  rows: Array<{ code: string; name: string; type: number; route?: string | null; icon?: string | null; parentCode?: string | null }>,
  held: ReadonlySet<string>,
): MenuNode[] {
  const byParent = new Map<string, typeof rows>();
  for (const r of rows) {
    if (r.type === 2) continue;
    const key = r.parentCode ?? '';
    const list = byParent.get(key) ?? [];
    list.push(r);
    byParent.set(key, list);
  }
  const build = (parent: string): MenuNode[] =>
    (byParent.get(parent) ?? []).flatMap((r): MenuNode[] => {
      if (r.type === 1) {
        return held.has(r.code) ? [{ code: r.code, name: r.name, type: 1, ...(r.route ? { route: r.route } : {}), ...(r.icon ? { icon: r.icon } : {}) }] : [];
      }
      const children = build(r.code);
      return children.length ? [{ code: r.code, name: r.name, type: r.type as PermissionType, ...(r.icon ? { icon: r.icon } : {}), children }] : [];
    });
  return build('');
}
