import { describe, expect, it } from 'vitest';
import { allPermissionCodes, flattenPermissions, type PermissionCode } from '../../domain/permissions';
import { unreleasedIds } from '../../domain/schemas/permission';
import { builtScreenCodes, builtScreenRoutes } from '../../domain/screens';

// The type check (npm run typecheck, tsconfig.tests.json) is the real test here: a code the tree does not declare is an error.
const known: PermissionCode = 'carApplyApproval:check';
// @ts-expect-error misspelled code (carApplyApprovel)
const misspelled: PermissionCode = 'carApplyApprovel:check';

describe('permission codes', () => {
  it('derives the code type from the tree the seed writes', () => {
    expect(allPermissionCodes).toContain(known);
    expect(allPermissionCodes).not.toContain(misspelled);
  });
});

describe('built screens', () => {
  it('lists each built screen once, by a menu code of the tree', () => {
    const menus = new Set(
      flattenPermissions()
        .filter((n) => n.type === 1)
        .map((n) => n.code),
    );
    for (const code of builtScreenCodes) expect(menus, code).toContain(code);
    expect(new Set(builtScreenCodes).size).toBe(builtScreenCodes.length);
    expect(builtScreenRoutes.size).toBe(builtScreenCodes.length);
  });

  it('tags menus without a built screen 未上线, with what sits below them and directories left with nothing built', () => {
    const seeded = flattenPermissions();
    const ids = new Map(seeded.map((n, i) => [n.code, i + 1]));
    const rows = seeded.map((n) => ({ permission_id: ids.get(n.code)!, pid: n.parentCode ? ids.get(n.parentCode)! : 0, type: n.type, route: n.route ?? null }));
    // A menu the park adds: one pointing at a built screen opens it, one pointing nowhere does not.
    const system = ids.get('dir:system')!;
    rows.push({ permission_id: 900, pid: system, type: 1, route: '/system/users' }, { permission_id: 901, pid: system, type: 1, route: '/system/nowhere' });
    const off = unreleasedIds(rows);
    const tagged = (code: string) => off.has(ids.get(code)!);
    for (const code of [
      'menu:user',
      'user:add',
      'menu:personBatchApply',
      'personBatchApply:commit',
      'menu:operationLog',
      'dir:system',
      'dir:appointment',
      'menu:scan',
      'menu:dashboard',
      'menu:statApproval',
      'dir:statistics',
      'menu:notice',
      'notice:add',
      'menu:carRoute',
      'carRoute:bind',
    ])
      expect(tagged(code), code).toBe(false);
    expect(off.has(900)).toBe(false);
    expect(off.has(901)).toBe(true);
  });
});
