import { sql, type Kysely } from 'kysely';
import { formatInZone } from '../../../domain/time';

/** The longest route name the column holds (029: varchar(50)). */
const NAME_MAX = 50;

/**
 * Every declared `unique` of a register (server/core/resource.ts) is held by
 * a unique index over the live rows, so two saves at once cannot both pass
 * the check before either inserts (docs/decisions.md). Accounts, role,
 * department and permission codes, vehicle model names (001) and equipment
 * numbers (009) have had theirs from the start; route names (029) had none.
 *
 * A park may already hold live routes of one name. The oldest keeps it; each
 * later one is renamed '<name>（重复<id>）' (shortened to fit), and each
 * rename is written to the operation log (操作日志, operation 行车路线重名处理)
 * and to the server's log, so the administrator can see what changed.
 */
export function uniqueLiveNames() {
  return {
    async up(db: Kysely<any>) {
      const routes = (await db.selectFrom('driving_route').select(['id', 'name']).where('deleted', '=', 0).orderBy('id').execute()) as Array<{ id: number; name: string }>;
      const taken = new Set(routes.map((r) => r.name));
      const kept = new Set<string>();
      const now = formatInZone(Date.now());
      for (const route of routes) {
        if (!kept.has(route.name)) {
          kept.add(route.name);
          continue;
        }
        const name = freeName(route.name, route.id, taken);
        taken.add(name);
        await db.updateTable('driving_route').set({ name, update_time: now }).where('id', '=', route.id).execute();
        await db
          .insertInto('sys_operation_log')
          .values({
            user_id: null,
            account: '',
            user_name: '数据库迁移',
            depart_id: null,
            operation: '行车路线重名处理',
            result: 1,
            operate_time: now,
            api: 'migration 030-unique-live-names',
            method: 'MIGRATE',
            params: JSON.stringify({ id: route.id, name: route.name, renamed: name }),
          })
          .execute();
        console.warn(`migration 030: 行车路线 ${route.id} “${route.name}” 与更早的路线重名，已改名为“${name}”`);
      }
      await db.schema.createIndex('driving_route_name_live').on('driving_route').column('name').unique().where(sql.ref('deleted'), '=', 0).execute();
    },
  };
}

/** '<name>（重复<id>）' within NAME_MAX characters, numbered further in the unlikely case that is taken too. */
function freeName(name: string, id: number, taken: Set<string>): string {
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? `（重复${id}）` : `（重复${id}-${n}）`;
    const candidate = [...name].slice(0, NAME_MAX - [...suffix].length).join('') + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
