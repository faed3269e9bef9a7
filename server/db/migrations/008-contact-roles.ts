import type { Kysely } from 'kysely';

/** The history screens' codes with their menus: department history and all-history, of both kinds. */
const HISTORY_CODES = [
  'menu:personApplyHistory',
  'personApplyHistory:list',
  'personApplyHis:revoke',
  'menu:carApplyHistory',
  'carApplyHistory:list',
  'carApplyHis:revoke',
  'menu:allPersonApplyHistory',
  'allPersonApplyHistory:list',
  'allPersonApplyHistory:export',
  'personApplyAllHis:revoke',
  'menu:allCarApplyHistory',
  'allCarApplyHistory:list',
  'allCarApplyHistory:label',
  'allCarApplyHistory:export',
  'carApplyAllHis:revoke',
];

/** Department-history revoke beside the department-history list the seeded reviewer already holds. */
const REVIEWER_REVOKE: Array<[list: string, revoke: string]> = [
  ['personApplyHistory:list', 'personApplyHis:revoke'],
  ['carApplyHistory:list', 'carApplyHis:revoke'],
];

/**
 * Who sees whose visits (issue 9, item 7). The demo seed binds role codes on
 * the first start only, and databases seeded before this release gave the
 * enterprise contact (王芳 of 中海壳牌) the department-history codes: with
 * them a contact read, and revoked, the applications other contacts filed
 * to visit the contact's enterprise. A contact handles the appointments the
 * contact filed; reading and revoking visits others filed belongs to the
 * visited enterprise's reviewer and the squad. So: the seeded
 * `enterprise_contact` role loses every history code, and the seeded
 * `enterprise_reviewer` role, where it still holds a department-history list,
 * gains that list's revoke. On a fresh database the roles do not exist yet
 * and this does nothing; the seed then binds the new code lists.
 */
export function contactRoles() {
  return {
    async up(db: Kysely<any>) {
      const roleId = async (code: string): Promise<number | undefined> =>
        (await db.selectFrom('sys_role').select('role_id').where('code', '=', code).where('deleted', '=', 0).executeTakeFirst())?.role_id;
      const permissions = new Map<string, number>(
        (
          await db
            .selectFrom('sys_permission')
            .select(['code', 'permission_id'])
            .where('code', 'in', [...HISTORY_CODES])
            .where('deleted', '=', 0)
            .execute()
        ).map((r) => [r.code, r.permission_id]),
      );
      if (!permissions.size) return;

      const contact = await roleId('enterprise_contact');
      if (contact !== undefined) {
        await db
          .deleteFrom('sys_role_permission')
          .where('role_id', '=', contact)
          .where('permission_id', 'in', [...permissions.values()])
          .execute();
      }

      const reviewer = await roleId('enterprise_reviewer');
      if (reviewer !== undefined) {
        const held = new Set((await db.selectFrom('sys_role_permission').select('permission_id').where('role_id', '=', reviewer).execute()).map((r) => r.permission_id));
        for (const [list, revoke] of REVIEWER_REVOKE) {
          const listId = permissions.get(list);
          const revokeId = permissions.get(revoke);
          if (listId !== undefined && revokeId !== undefined && held.has(listId) && !held.has(revokeId)) {
            await db.insertInto('sys_role_permission').values({ role_id: reviewer, permission_id: revokeId }).execute();
          }
        }
      }
    },
  };
}
