import { equipmentApi, equipmentColumns, type EquipmentApi } from '../../domain/schemas/equipment';
import { defineResource, resourceRoutes } from '../core/resource';
import { readRule } from './access';

/**
 * 设备管理 (spec 001): each of the seven kinds is the same declaration over the shared equipment table,
 * its wire side (paths, codes, schemas, row) the kind's in domain/schemas/equipment.ts.
 * State and key time are the device API's (DESIGN.md §8), answered but never taken from a form;
 * key_hash and last_seen_at stay on the server.
 */
const equipmentResource = (api: EquipmentApi) => {
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
  });
};

export const equipmentResources = Object.values(equipmentApi).map(equipmentResource);
export const equipmentRoutes = resourceRoutes(...equipmentResources);
