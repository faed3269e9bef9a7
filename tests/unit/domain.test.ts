import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../domain/backoff';
import { allPermissionCodes, buildMenuTree, flattenPermissions, openCodes } from '../../domain/permissions';
import { formatCountdown, formatInZone } from '../../domain/time';
import { userCreate, userUpdate } from '../../domain/schemas/user';
import { vehicleTypeCreate } from '../../domain/schemas/vehicle-type';
import { buildTree } from '../../domain/schemas/department';
import { enumLabel, withAll } from '../../domain/enums';

/** Every code named in section 6 of the three spec documents. */
const specCodes = [
  ...['list', 'add', 'edit', 'delete', 'bindRole'].map((a) => `user:${a}`),
  'dept:add',
  'dept:edit',
  'dept:delete',
  ...['list', 'add', 'edit', 'delete', 'bindPerm'].map((a) => `role:${a}`),
  ...['list', 'add', 'edit', 'delete'].map((a) => `perm:${a}`),
  'modal:add',
  'modal:edit',
  'modal:delete',
  'process:add',
  'process:edit',
  'process:delete',
  'processNode:add',
  'processNode:edit',
  'processNode:delet',
  'loginLog:list',
  'operationLog:list',
  'sys:manage',
  ...['list', 'add', 'edit', 'delete', 'commit', 'revoke'].map((a) => `personApply:${a}`),
  'personApplyHistory:list',
  'personApplyHis:revoke',
  'allPersonApplyHistory:list',
  'allPersonApplyHistory:export',
  'personApplyAllHis:revoke',
  ...['list', 'add', 'edit', 'delete', 'commit', 'revoke', 'proprietorImport', 'buildImport'].map((a) => `carApply:${a}`),
  'carApplyHistory:list',
  'carApplyHis:revoke',
  'allCarApplyHistory:list',
  'allCarApplyHistory:label',
  'allCarApplyHistory:export',
  'carApplyAllHis:revoke',
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
  ...['list', 'add', 'edit', 'delete', 'commit', 'revoke'].map((a) => `carRegistration:${a}`),
  'carRegistrationHistory:list',
  'carRegistrationHistory:revoke',
  'carRegistrationApproval:list',
  'carRegistrationApproval:check',
  ...['add', 'edit', 'delete', 'revoke', 'commit'].map((a) => `carList:${a}`),
  'carListApproval:list',
  'carListApproval:check',
  ...['add', 'edit', 'delete', 'commit', 'revoke'].map((a) => `personList:${a}`),
  'personListApproval:list',
  'personListApproval:check',
  'allTransportListHis:revoke',
  'transportListHis:revoke',
  'transportListApproval:check',
  ...['list', 'add', 'edit', 'delete'].map((a) => `carMark:${a}`),
  'strandedManagementPerson:list',
  'strandedManagementPerson:deal',
  'strandedManagementCar:list',
  'strandedManagementCar:deal',
  'notice:list',
  'notice:add',
  'notice:edit',
  ...['list', 'add', 'edit', 'delete', 'bind'].map((a) => `carRoute:${a}`),
  ...['list', 'add', 'edit', 'commit', 'delete'].map((a) => `personBatchApply:${a}`),
  'vehicleGateCrosRecords:list',
  'personGateCrosRecords:list',
  ...['bumpingPostDevice', 'gateDevice', 'tireBreakerDevice', 'securityLaneIDevice', 'carScaleSystemDevice', 'carFaceDevice'].flatMap((d) => ['list', 'add', 'edit', 'delete'].map((a) => `${d}:${a}`)),
];

describe('permission catalogue', () => {
  it('holds every permission code of the three spec documents, each once', () => {
    for (const c of specCodes) expect(allPermissionCodes, c).toContain(c);
    expect(new Set(allPermissionCodes).size).toBe(allPermissionCodes.length);
  });

  it('gives every menu a route and keeps buttons under menus', () => {
    for (const n of flattenPermissions()) {
      if (n.type === 1) expect(n.route, n.code).toMatch(/^\//);
      if (n.type === 2) expect(flattenPermissions().find((m) => m.code === n.parentCode)?.type, n.code).toBe(1);
    }
    expect(openCodes).toContain('menu:dashboard');
    expect(openCodes).toContain('dir:statistics');
  });

  it('builds a menu of held menus only and drops empty directories', () => {
    const rows = flattenPermissions().map((n) => ({ ...n, parentCode: n.parentCode ?? null }));
    const tree = buildMenuTree(rows, new Set(['dir:system', 'menu:user', 'user:list', 'dir:device']));
    expect(tree).toEqual([
      { code: 'dir:system', name: '系统管理', type: 0, icon: 'SetOutline', children: [{ code: 'menu:user', name: '用户管理', type: 1, route: '/system/users', icon: 'UserOutline' }] },
    ]);
  });
});

describe('shared helpers', () => {
  it('backs off 1 s doubling for 6 steps', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => backoffDelay(i))).toEqual([1000, 2000, 4000, 8000, 16000, 32000, undefined]);
  });
  it('formats park time and countdowns', () => {
    expect(formatInZone(Date.UTC(2026, 0, 2, 16, 5, 9), 'Asia/Shanghai')).toBe('2026-01-03 00:05:09');
    expect(formatCountdown(59)).toBe('00:59');
    expect(formatCountdown(125)).toBe('02:05');
    expect(formatCountdown(-3)).toBe('00:00');
  });
  it('formats each second and each zone for itself, though it remembers the last second formatted', () => {
    const at = Date.UTC(2026, 0, 2, 15, 59, 59, 100);
    expect(formatInZone(at, 'Asia/Shanghai')).toBe('2026-01-02 23:59:59');
    expect(formatInZone(at + 800, 'Asia/Shanghai')).toBe('2026-01-02 23:59:59');
    expect(formatInZone(at + 900, 'Asia/Shanghai')).toBe('2026-01-03 00:00:00');
    expect(formatInZone(new Date(at + 900), 'UTC')).toBe('2026-01-02 16:00:00');
    expect(formatInZone(at + 900, 'Asia/Shanghai')).toBe('2026-01-03 00:00:00');
    expect(formatInZone(at - 86_400_000, 'Asia/Shanghai')).toBe('2026-01-01 23:59:59');
    expect(formatInZone(-1500, 'UTC')).toBe('1969-12-31 23:59:58');
  });
  it('builds the department tree from depart_id and pid', () => {
    const t = buildTree([
      { depart_id: 1, pid: 0 },
      { depart_id: 2, pid: 1 },
      { depart_id: 3, pid: 1 },
      { depart_id: 4, pid: 0 },
    ]);
    expect(t.map((n) => [n.node.depart_id, n.children.map((c) => c.node.depart_id)])).toEqual([
      [1, [2, 3]],
      [4, []],
    ]);
  });
  it('labels enums and puts 全部 (-1) first in filters', () => {
    expect(enumLabel('visitArea', 2)).toBe('港区');
    expect(withAll('status')[0]).toEqual({ value: -1, label: '全部' });
  });
});

describe('user and vehicle model rules', () => {
  const user = { userName: '张三', account: 'zhang_san:1', password: 'abc12345', gender: 0, phone: '13800000000', departId: 3 };
  it('requires a password on create only; empty means unchanged on edit', () => {
    expect(userCreate.safeParse(user).success).toBe(true);
    expect(userCreate.safeParse({ ...user, password: '' }).error?.issues[0].message).toBe('请输入密码');
    expect(userUpdate.safeParse({ ...user, userId: 1, password: '' }).success).toBe(true);
    expect(userUpdate.safeParse({ ...user, userId: 1, password: 'short1' }).success).toBe(false);
  });
  it('limits the account to digits, letters, colon and underscore', () => {
    expect(userCreate.safeParse({ ...user, account: '张三' }).error?.issues[0].message).toBe('仅限阿拉伯数字、英文字母');
  });
  it('bounds vehicle speed to 0-300 and takes digit strings from forms', () => {
    const v = { name: '车', speed: '300', needRecord: '1', showCargoType: 0, checkOverweight: 0, needBlindVideo: 0 };
    expect(vehicleTypeCreate.parse(v)).toMatchObject({ speed: 300, needRecord: 1 });
    expect(vehicleTypeCreate.safeParse({ ...v, speed: 300.5 }).success).toBe(false);
    expect(vehicleTypeCreate.safeParse({ ...v, speed: '' }).error?.issues[0].message).toBe('请输入车速');
  });
});
