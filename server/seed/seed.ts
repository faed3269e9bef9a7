import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { allPermissionCodes, flattenPermissions, permissionTree, type PermissionSeed } from '../../domain/permissions';
import { joinIds, serializePath } from '../../domain/schemas/driving-route';
import { formatInZone } from '../../domain/time';
import type { AppContext } from '../core/context';
import { hashPassword } from '../core/crypto';
import { addGatePoints } from '../modules/driving-routes/locations';
import { seedDemoAppointments } from './seed-appointments';
import { HISTORY_DAYS, seedGateHistory } from './seed-gate-history';
import { seedDemoLists } from './seed-lists';
import { seedProcesses } from './seed-processes';
import { seedDemoRegistrations } from './seed-registrations';
import { seedDemoWaybills } from './seed-waybills';

interface DepartSeed {
  code: string;
  name: string;
  visit_area: number;
  remark?: string;
  children?: DepartSeed[];
}

export const demoDepartments: DepartSeed[] = [
  {
    code: 'PARK_ADMIN',
    name: '大亚湾石化区园区管理委员会',
    visit_area: 3,
    remark: '园区管理',
    children: [
      { code: 'SQUAD', name: '石化大队', visit_area: 3, remark: '园区安保与终审' },
      { code: 'HAZMAT', name: '危化品安全管理部', visit_area: 3, remark: '危化品、重型自卸货车、中大型客车专项审核' },
      { code: 'INFO_CENTER', name: '园区信息中心', visit_area: 3 },
    ],
  },
  {
    code: 'ENTERPRISES',
    name: '入园企业',
    visit_area: 3,
    children: [
      { code: 'CNOOC_SHELL', name: '中海壳牌石油化工有限公司', visit_area: 1 },
      { code: 'YUXIN', name: '惠州宇新化工有限责任公司', visit_area: 1 },
      { code: 'HZ_PORT', name: '惠州港务集团有限公司', visit_area: 2 },
      { code: 'QUANWAN', name: '惠州港荃湾港区码头有限公司', visit_area: 2 },
      { code: 'HUADE', name: '大亚湾华德石化有限公司', visit_area: 3 },
    ],
  },
];

/**
 * Roles of DESIGN.md §3 with the spec codes each one works with; menu and
 * directory codes are added from the tree. Who sees whose visits: a contact
 * handles the appointments the contact filed (the own lists, no history
 * codes); reading and revoking visits that others filed belongs to the
 * visited enterprise's reviewer (department history, its branch) and the
 * squad (all-history). Bound on the first seed only: migration 008 brings
 * older databases' seeded contact and reviewer roles in line.
 */
export const demoRoles: Array<{ code: string; name: string; remark: string; codes: string[] | 'all' }> = [
  { code: 'admin', name: '系统管理员', remark: '拥有全部权限', codes: 'all' },
  {
    code: 'enterprise_contact',
    name: '企业联系人',
    remark: '填报并处理本人的人员、车辆预约及备案',
    codes: [
      'personApply:list',
      'personApply:add',
      'personApply:edit',
      'personApply:delete',
      'personApply:commit',
      'personApply:revoke',
      'carApply:list',
      'carApply:add',
      'carApply:edit',
      'carApply:delete',
      'carApply:commit',
      'carApply:revoke',
      'carApply:proprietorImport',
      'carApply:buildImport',
      'personBatchApply:list',
      'personBatchApply:add',
      'personBatchApply:edit',
      'personBatchApply:commit',
      'personBatchApply:delete',
      'carRegistration:list',
      'carRegistration:add',
      'carRegistration:edit',
      'carRegistration:delete',
      'carRegistration:commit',
      'carRegistration:revoke',
      'transportListHis:revoke',
      'menu:transportListHis',
      'transportListHis:add',
      'transportListHis:edit',
      'transportListHis:delete',
      'transportListHis:commit',
    ],
  },
  {
    code: 'enterprise_reviewer',
    name: '企业审核员',
    remark: '审核、查看和撤销来访本企业的人员和车辆预约',
    codes: [
      'carApplyApproval:list',
      'carApplyApproval:check',
      'carApplyApproval:batch',
      'heavytipperApproval:check',
      'mediumlargeApproval:check',
      'chemicalsCarApproval:list',
      'chemicalsCarApproval:check',
      'personAppyApproval:list',
      'personAppyApproval:check',
      'personAppyApproval:batch',
      'personApplyHistory:list',
      'personApplyHis:revoke',
      'carApplyHistory:list',
      'carApplyHis:revoke',
      // Face and ID photos of the visits it reviews, and a masked field revealed with a reason (docs/personal-data.md).
      'pii:view',
    ],
  },
  {
    code: 'squad_reviewer',
    name: '石化大队审核员',
    remark: '终审人员和车辆预约，管理名单与运单',
    codes: [
      'carApplyApproval:list',
      'carApplyApproval:check',
      'carApplyApproval:batch',
      'carApplyApproval:showDept',
      'heavytipperApproval:check',
      'heavytipperApproval:showDept',
      'mediumlargeApproval:check',
      'mediumlargeApproval:showDept',
      'chemicalsCarApproval:list',
      'chemicalsCarApproval:check',
      'chemicalsCarApproval:showDept',
      'carShddFinalCheck:check',
      'personShddFinalCheck:check',
      'personAppyApproval:list',
      'personAppyApproval:check',
      'personAppyApproval:batch',
      'personApplyApproval:ShowDept',
      'allPersonApplyHistory:list',
      'allPersonApplyHistory:export',
      'personApplyAllHis:revoke',
      'allCarApplyHistory:list',
      'allCarApplyHistory:label',
      'allCarApplyHistory:export',
      'carApplyAllHis:revoke',
      'carRegistrationApproval:list',
      'carRegistrationApproval:check',
      'carRegistrationHistory:list',
      'carRegistrationHistory:revoke',
      'carListApproval:list',
      'carListApproval:check',
      'personListApproval:list',
      'personListApproval:check',
      'transportListApproval:check',
      'allTransportListHis:revoke',
      'menu:allTransportListHis',
      // README: the squad reads both lists it approves (their menus, no filing codes); the lead files them.
      'menu:carList',
      'menu:personList',
      'pii:view',
    ],
  },
  {
    code: 'hazard_reviewer',
    name: '危化品审核员',
    remark: '危化品、重型自卸货车、中大型客车专项审核',
    codes: [
      'chemicalsCarApproval:list',
      'chemicalsCarApproval:check',
      'chemicalsCarApproval:showDept',
      'heavytipperApproval:check',
      'heavytipperApproval:showDept',
      'mediumlargeApproval:check',
      'mediumlargeApproval:showDept',
      'carRegistrationApproval:list',
      'carRegistrationApproval:check',
      'transportListApproval:check',
      'allCarApplyHistory:list',
    ],
  },
  {
    code: 'patrol',
    name: '巡逻员',
    remark: '现场巡查、标记车辆、查看过闸记录',
    codes: [
      'menu:scan',
      'carMark:list',
      'carMark:add',
      'carMark:edit',
      'allCarApplyHistory:list',
      'allCarApplyHistory:label',
      'vehicleGateCrosRecords:list',
      'personGateCrosRecords:list',
      'strandedManagementCar:list',
      'strandedManagementPerson:list',
      'menu:routeDeviation',
      // A marshal at an assembly point during an emergency headcount.
      'menu:muster',
      'muster:mark',
    ],
  },
  {
    code: 'security_lead',
    name: '安保负责人',
    remark: '接收并处理滞留告警，查看设备与记录',
    codes: [
      'menu:scan',
      'strandedManagementPerson:list',
      'strandedManagementPerson:deal',
      'strandedManagementCar:list',
      'strandedManagementCar:deal',
      'menu:routeDeviation',
      // Starts the emergency headcount and marks at an assembly point like a marshal.
      'menu:muster',
      'muster:start',
      'muster:mark',
      'menu:safetySetting',
      'vehicleGateCrosRecords:list',
      'personGateCrosRecords:list',
      'carMark:list',
      'carMark:add',
      'carMark:edit',
      'carMark:delete',
      'allCarApplyHistory:list',
      'allCarApplyHistory:label',
      'allPersonApplyHistory:list',
      'gateDevice:list',
      'bumpingPostDevice:list',
      'tireBreakerDevice:list',
      'liftingPillarDevice:list',
      'securityLaneIDevice:list',
      'carScaleSystemDevice:list',
      'carFaceDevice:list',
      'notice:list',
      'notice:add',
      'notice:edit',
      // The lead files list entries from what the field reports; the squad approves them (nobody approves their own).
      'carList:add',
      'carList:edit',
      'carList:delete',
      'carList:commit',
      'carList:revoke',
      'personList:add',
      'personList:edit',
      'personList:delete',
      'personList:commit',
      'personList:revoke',
    ],
  },
  {
    code: 'auditor',
    name: '审计员',
    remark: '只读查看日志、记录与报表',
    codes: [
      'loginLog:list',
      'operationLog:list',
      'user:list',
      'allPersonApplyHistory:list',
      'allPersonApplyHistory:export',
      'allCarApplyHistory:list',
      'allCarApplyHistory:export',
      'vehicleGateCrosRecords:list',
      'personGateCrosRecords:list',
    ],
  },
];

export const demoUsers: Array<{ account: string; name: string; gender: number; phone: string; depart: string; role?: string; can: string }> = [
  { account: 'admin', name: '系统管理员', gender: 0, phone: '13800000001', depart: 'INFO_CENTER', role: 'admin', can: '全部功能' },
  { account: 'contact', name: '王芳', gender: 1, phone: '13800000002', depart: 'CNOOC_SHELL', role: 'enterprise_contact', can: '填报、提交、撤销本人的人员与车辆预约，车辆备案' },
  { account: 'reviewer', name: '李强', gender: 0, phone: '13800000003', depart: 'CNOOC_SHELL', role: 'enterprise_reviewer', can: '审核来访中海壳牌的预约，查看与撤销其预约记录' },
  { account: 'squad', name: '陈刚', gender: 0, phone: '13800000004', depart: 'SQUAD', role: 'squad_reviewer', can: '石化大队终审，黑白名单、备案与运单审核' },
  { account: 'hazard', name: '刘洋', gender: 0, phone: '13800000005', depart: 'HAZMAT', role: 'hazard_reviewer', can: '危化品、自卸货车、客车专项审核' },
  { account: 'patrol', name: '张伟', gender: 0, phone: '13800000006', depart: 'SQUAD', role: 'patrol', can: '巡查、标记车辆、过闸记录' },
  { account: 'lead', name: '赵敏', gender: 1, phone: '13800000007', depart: 'SQUAD', role: 'security_lead', can: '处理滞留告警、设备与公告，填报车辆与人员黑白名单' },
  { account: 'auditor', name: '孙丽', gender: 1, phone: '13800000008', depart: 'PARK_ADMIN', role: 'auditor', can: '查看日志、记录与报表' },
  { account: 'portcontact', name: '黄磊', gender: 0, phone: '13800000009', depart: 'HZ_PORT', role: 'enterprise_contact', can: '港区企业联系人：本人的人员与车辆预约' },
  { account: 'norole', name: '周杰', gender: 0, phone: '13800000010', depart: 'HZ_PORT', can: '未分配角色：只能看到403页面' },
];

/** The dangerous-goods tanker is alarmed after four hours inside however long its visit (DESIGN.md §8 dwell limit). */
export const demoVehicleTypes = [
  { name: '小型汽车', speed: 60, need_record: 0, show_cargo_type: 0, check_overweight: 0, need_blind_video: 0, dwell_limit_minutes: null },
  { name: '重型自卸货车', speed: 30, need_record: 1, show_cargo_type: 1, check_overweight: 1, need_blind_video: 1, dwell_limit_minutes: null },
  { name: '中型客车', speed: 40, need_record: 0, show_cargo_type: 0, check_overweight: 0, need_blind_video: 1, dwell_limit_minutes: null },
  { name: '大型客车', speed: 40, need_record: 1, show_cargo_type: 0, check_overweight: 0, need_blind_video: 1, dwell_limit_minutes: null },
  { name: '危险化学品运输车', speed: 30, need_record: 1, show_cargo_type: 1, check_overweight: 1, need_blind_video: 1, dwell_limit_minutes: 240 },
  { name: '混凝土搅拌车', speed: 30, need_record: 1, show_cargo_type: 0, check_overweight: 1, need_blind_video: 1, dwell_limit_minutes: null },
  { name: '普通货车', speed: 40, need_record: 0, show_cargo_type: 1, check_overweight: 1, need_blind_video: 0, dwell_limit_minutes: null },
];

/** Brings the permission table in line with domain/permissions.ts: adds new codes, updates names, routes and order. */
async function syncPermissions(ctx: AppContext) {
  const { db } = ctx;
  const now = ctx.time();
  await db.transaction().execute(async (trx) => {
    const existing = new Map((await trx.selectFrom('sys_permission').select(['permission_id', 'code']).where('deleted', '=', 0).execute()).map((r) => [r.code, r.permission_id]));
    let sort = 0;
    const walk = async (nodes: readonly PermissionSeed[], pid: number) => {
      for (const n of nodes) {
        sort += 1;
        const values = { pid, name: n.name, type: n.type, route: n.route ?? null, icon: n.icon ?? null, open: n.open ? 1 : 0, sort, update_time: now };
        let id = existing.get(n.code);
        if (id) await trx.updateTable('sys_permission').set(values).where('permission_id', '=', id).execute();
        else {
          id = (
            await trx
              .insertInto('sys_permission')
              .values({ ...values, code: n.code, status: 1, remark: '', create_time: now })
              .returning('permission_id')
              .executeTakeFirstOrThrow()
          ).permission_id;
        }
        await walk(n.children ?? [], id);
      }
    };
    await walk(permissionTree, 0);
  });
}

function withAncestors(codes: string[]): string[] {
  const parent = new Map(flattenPermissions().map((n) => [n.code, n.parentCode]));
  const out = new Set<string>();
  for (const c of codes) {
    let cur: string | undefined = c;
    while (cur && !out.has(cur)) {
      out.add(cur);
      cur = parent.get(cur);
    }
  }
  return [...out];
}

async function bindRolePermissions(ctx: AppContext, roleId: number, codes: string[]) {
  const { db } = ctx;
  const ids = await db.selectFrom('sys_permission').select('permission_id').where('code', 'in', codes).where('deleted', '=', 0).execute();
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sys_role_permission').where('role_id', '=', roleId).execute();
    if (ids.length)
      await trx
        .insertInto('sys_role_permission')
        .values(ids.map((r) => ({ role_id: roleId, permission_id: r.permission_id })))
        .execute();
  });
}

function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  return 'Park' + [...bytes].map((b) => alphabet[b % alphabet.length]).join('') + '7';
}

/**
 * Demo park on first start; idempotent. The permission tree and the admin
 * role are synced on every start so that new releases' codes appear.
 */
export async function seed(ctx: AppContext, log: FastifyBaseLogger): Promise<void> {
  const { db } = ctx;
  await syncPermissions(ctx);

  const seeded = await db.selectFrom('sys_setting').select('value').where('key', '=', 'demo_seeded').executeTakeFirst();
  if (!seeded) await seedDemoPark(ctx, log);
  // Separate from the flag above so that databases seeded before the approval engine get their processes.
  await seedProcesses(ctx);
  // Before the appointments: their need_record vehicles are submitted only with an approved registration.
  await seedDemoRegistrations(ctx);
  // Before the appointments too: their black-listed plate is listed in force, so its draft is saved flagged.
  await seedDemoLists(ctx);
  await seedDemoAppointments(ctx);
  await seedDemoWaybills(ctx);
  await seedDemoEquipment(ctx);
  if (ctx.config.seedGateHistory) await seedGateHistory(ctx);
  // After the gate history: the demo's recorded crossings are not judged against a route drawn after them.
  await seedDemoRoute(ctx);

  const admin = await db.selectFrom('sys_role').select('role_id').where('code', '=', 'admin').where('deleted', '=', 0).executeTakeFirst();
  if (admin) await bindRolePermissions(ctx, admin.role_id, allPermissionCodes);
  // A park seeded just now has them already: its flags are only set.
  await grantReleaseCodes(ctx, !!seeded);
}

/**
 * Codes a later release gave the demo's roles, granted once to a demo park
 * seeded before it (a sys_setting flag per release), so an upgraded demo shows
 * the new screens; a role an administrator changed afterwards is left as it is.
 */
const releaseCodes: Array<{ flag: string; roles: Record<string, string[]> }> = [
  {
    flag: 'demo_codes_muster',
    roles: { patrol: ['menu:muster', 'muster:mark'], security_lead: ['menu:muster', 'muster:start', 'muster:mark', 'menu:safetySetting'] },
  },
];

async function grantReleaseCodes(ctx: AppContext, grant: boolean) {
  const { db } = ctx;
  for (const release of releaseCodes) {
    const taken = await db
      .insertInto('sys_setting')
      .values({ key: release.flag, value: ctx.time() })
      .onConflict((oc) => oc.column('key').doNothing())
      .returning('key')
      .executeTakeFirst();
    // Another server took this release's flag first, or it was granted before.
    if (!taken || !grant) continue;
    for (const [code, codes] of Object.entries(release.roles)) {
      const role = await db.selectFrom('sys_role').select('role_id').where('code', '=', code).where('deleted', '=', 0).executeTakeFirst();
      if (!role) continue;
      const ids = await db.selectFrom('sys_permission').select('permission_id').where('code', 'in', withAncestors(codes)).where('deleted', '=', 0).execute();
      const held = new Set((await db.selectFrom('sys_role_permission').select('permission_id').where('role_id', '=', role.role_id).execute()).map((r) => r.permission_id));
      const missing = ids.filter((r) => !held.has(r.permission_id));
      if (missing.length)
        await db
          .insertInto('sys_role_permission')
          .values(missing.map((r) => ({ role_id: role.role_id, permission_id: r.permission_id })))
          .execute();
    }
  }
}

async function seedDemoPark(ctx: AppContext, log: FastifyBaseLogger) {
  const { db, config } = ctx;
  const now = ctx.time();

  const departIds = new Map<string, number>();
  const addDeparts = async (nodes: DepartSeed[], pid: number) => {
    for (const d of nodes) {
      const found = await db.selectFrom('sys_department').select('depart_id').where('code', '=', d.code).where('deleted', '=', 0).executeTakeFirst();
      const id =
        found?.depart_id ??
        (
          await db
            .insertInto('sys_department')
            .values({ pid, code: d.code, name: d.name, visit_area: d.visit_area, remark: d.remark ?? '', create_user_id: null, create_time: now, update_time: now })
            .returning('depart_id')
            .executeTakeFirstOrThrow()
        ).depart_id;
      departIds.set(d.code, id);
      await addDeparts(d.children ?? [], id);
    }
  };
  await addDeparts(demoDepartments, 0);

  const roleIds = new Map<string, number>();
  for (const r of demoRoles) {
    const found = await db.selectFrom('sys_role').select('role_id').where('code', '=', r.code).where('deleted', '=', 0).executeTakeFirst();
    const id =
      found?.role_id ??
      (await db.insertInto('sys_role').values({ code: r.code, name: r.name, remark: r.remark, status: 1, create_time: now, update_time: now }).returning('role_id').executeTakeFirstOrThrow()).role_id;
    roleIds.set(r.code, id);
    await bindRolePermissions(ctx, id, r.codes === 'all' ? allPermissionCodes : withAncestors(r.codes));
  }

  const password = config.demoPassword ?? generatePassword();
  const hash = await hashPassword(password);
  for (const u of demoUsers) {
    const found = await db.selectFrom('sys_user').select('user_id').where('account', '=', u.account).where('deleted', '=', 0).executeTakeFirst();
    if (found) continue;
    const { user_id } = await db
      .insertInto('sys_user')
      .values({
        user_name: u.name,
        account: u.account,
        password_hash: hash,
        gender: u.gender,
        phone: u.phone,
        depart_id: departIds.get(u.depart)!,
        status: 1,
        uuid: randomUUID(),
        create_user_id: null,
        create_time: now,
        update_time: now,
      })
      .returning('user_id')
      .executeTakeFirstOrThrow();
    if (u.role)
      await db
        .insertInto('sys_user_role')
        .values({ user_id, role_id: roleIds.get(u.role)! })
        .execute();
  }

  for (const v of demoVehicleTypes) {
    const found = await db.selectFrom('vehicle_type').select('id').where('name', '=', v.name).where('deleted', '=', 0).executeTakeFirst();
    if (!found)
      await db
        .insertInto('vehicle_type')
        .values({ ...v, create_user_id: null, create_time: now, update_time: now })
        .execute();
  }

  await db
    .insertInto('sys_setting')
    .values({ key: 'demo_seeded', value: now })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();

  if (!config.demoPassword) {
    const lines = ['园区出入管理系统 演示账号（首次启动时生成）', `密码（所有演示账号相同）: ${password}`, '', ...demoUsers.map((u) => `${u.account.padEnd(12)} ${u.name}  ${u.can}`), ''];
    fs.mkdirSync(config.dataDir, { recursive: true });
    const file = path.join(config.dataDir, 'demo-credentials.txt');
    fs.writeFileSync(file, lines.join('\n'), { mode: 0o600 });
    // Printed once, on first seed only, so a newcomer can sign in; later starts only point to the file.
    console.log(`\n${lines.join('\n')}\n(也已写入 ${file})\n`);
  }
  log.info('demo park seeded');
}

/**
 * One published 行车路线 (issue 27): from the west gate to the north gate,
 * passing both, bound to 宇新化工, a company the demo's appointments do not
 * visit, so the demo's own crossings stay as they were and a vehicle visit
 * filed to it shows its route. Only into a park with no routes yet.
 */
async function seedDemoRoute(ctx: AppContext) {
  const { db } = ctx;
  if (await db.selectFrom('driving_route').select('id').limit(1).executeTakeFirst()) return;
  const depart = await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'YUXIN').where('deleted', '=', 0).executeTakeFirst();
  const gates = await db.selectFrom('equipment').select(['id', 'number']).where('number', 'in', ['GATE-W-01', 'GATE-N-01']).where('deleted', '=', 0).execute();
  if (!depart || gates.length < 2) return;
  const now = ctx.time();
  await addGatePoints(db, now);
  const points = await db
    .selectFrom('location')
    .select(['id', 'equipment_id'])
    .where(
      'equipment_id',
      'in',
      gates.map((g) => g.id),
    )
    .execute();
  const pointOf = (number: string) => points.find((p) => p.equipment_id === gates.find((g) => g.number === number)?.id)?.id;
  const ids = [pointOf('GATE-W-01'), pointOf('GATE-N-01')].filter((v): v is number => v !== undefined);
  const line = serializePath([
    [22.7391, 114.5083],
    [22.7418, 114.5112],
    [22.7455, 114.5139],
    [22.7489, 114.5171],
    [22.7512, 114.5196],
  ]);
  const route = await db
    .insertInto('driving_route')
    .values({ name: '西门—北门危化品车辆路线', publish: 1, path: line, location_id: joinIds(ids), create_user_id: null, update_user_id: null, create_time: now, update_time: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.insertInto('driving_route_depart').values({ depart_id: depart.depart_id, route_id: route.id, create_time: now }).execute();
}

/**
 * The demo park's devices: the three gates (west, north, east, around 22.74 N,
 * 114.52 E) and one or two of every other kind. Offline until the device API
 * hears from them (issue 12). Separate from the first-start flag, so databases
 * seeded before the equipment screens get them too.
 */
async function seedDemoEquipment(ctx: AppContext) {
  const { db } = ctx;
  if (await db.selectFrom('equipment').select('id').limit(1).executeTakeFirst()) return;
  const now = ctx.time();
  const at = (lat: number, lng: number) => ({ latitude: lat, longitude: lng });
  const rows = [
    { kind: 'gate', name: '西门车辆道闸1', number: 'GATE-W-01', type: 1, entrances_type: 1, is_security_check: 1, temporary_reservation: 1, ...at(22.7391, 114.5083) },
    { kind: 'gate', name: '西门人行闸机1', number: 'GATE-W-P01', type: 2, entrances_type: 1, is_security_check: 0, temporary_reservation: 1, ...at(22.7393, 114.5085) },
    { kind: 'gate', name: '北门车辆道闸1', number: 'GATE-N-01', type: 1, entrances_type: 2, is_security_check: 1, temporary_reservation: 0, ...at(22.7512, 114.5196) },
    { kind: 'gate', name: '东门车辆道闸1', number: 'GATE-E-01', type: 1, entrances_type: 3, is_security_check: 1, temporary_reservation: 1, ...at(22.7402, 114.5321) },
    { kind: 'bumpingPost', name: '西门防撞柱', number: 'BP-W-01', ...at(22.739, 114.5081) },
    { kind: 'bumpingPost', name: '东门防撞柱', number: 'BP-E-01', ...at(22.7401, 114.5323) },
    { kind: 'tireCrushing', name: '西门破胎器', number: 'TC-W-01', ...at(22.7389, 114.5082) },
    { kind: 'liftingAntiCollisionPillar', name: '北门升降防撞柱', number: 'LP-N-01', ...at(22.7513, 114.5194) },
    { kind: 'securityLaneIdentification', name: '西门安检通道', number: 'SL-W-01', lane_number: 'W1', ...at(22.7392, 114.5087) },
    { kind: 'truckScales', name: '东门地磅', number: 'TS-E-01', ...at(22.7404, 114.5318) },
    { kind: 'carMountedFacialRecognition', name: '巡逻车人脸识别', number: 'CF-01', plate: '粤L12345' },
  ];
  // Registered before the history the gates recorded: a device's events may not predate its registration (ingestEvents).
  const installed = formatInZone(ctx.now() - (HISTORY_DAYS + 1) * 86_400_000, ctx.config.tz);
  await db
    .insertInto('equipment')
    .values(rows.map((r) => ({ ...r, state: 0, create_user_id: null, create_time: installed, update_time: now })))
    .execute();
}
