import type { FastifyInstance } from 'fastify';
import { equipmentApi, equipmentColumns, type EquipmentApi } from '../../domain/schemas/equipment';
import { formatInZone } from '../../domain/time';
import type { AppContext } from '../core/context';
import { defineResource, registerResource } from '../core/resource';
import { readRule } from './access';

/**
 * 设备管理 (spec 001): each of the seven kinds is the same declaration over the shared equipment table,
 * its wire side (paths, codes, schemas, row) the kind's in domain/schemas/equipment.ts.
 * State, key time and the allow-list's version and time are the device API's (docs/api.md, docs/offline-gates.md),
 * answered but never taken from a form; key_hash and last_seen_at stay on the server.
 */
const equipmentResource = (api: EquipmentApi, ctx: AppContext) => {
  const k = api.kind;
  return defineResource({
    contract: api,
    table: 'equipment',
    softDelete: 'deleted',
    scope: { kind: k.kind },
    columns: equipmentColumns(k),
    readable: readRule('equipment'),
    filters: Object.fromEntries(k.filters.map((f) => [f, { column: f, match: f === 'name' || f === 'number' || f === 'plate' ? 'contains' : 'equals' }])),
    unique: [{ field: 'number', column: 'number', acrossScope: true }],
    stamps: { createUser: 'create_user_id' },
    // A list older than ALLOWLIST_MAX_AGE: the gate refuses visitors while offline, and the screens show its time in red.
    decorate: async (rows) => {
      const oldest = formatInZone(ctx.now() - ctx.config.allowlistMaxAgeHours * 3_600_000, ctx.config.tz);
      return rows.map((r) => ({ ...r, allowlist_stale: typeof r.allowlist_time === 'string' && r.allowlist_time < oldest ? 1 : 0 }));
    },
  });
};

export async function equipmentRoutes(app: FastifyInstance) {
  for (const api of Object.values(equipmentApi)) await registerResource(app, equipmentResource(api, app.ctx));
}
