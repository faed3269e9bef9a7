import { defineResourceContract, undeclared } from '../../domain/contract';
import { equipmentKindList, equipmentLabels, equipmentSchemas, type EquipmentKindDef } from '../../domain/schemas/equipment';
import { defineResource, resourceRoutes } from '../core/resource';
import { readRule } from './access';

/**
 * 设备管理 (spec 001): each of the seven kinds is the same declaration over the shared equipment table.
 * State and key time are the device API's (DESIGN.md §8), answered but never taken from a form;
 * key_hash and last_seen_at stay on the server.
 */
const equipmentResource = (k: EquipmentKindDef) => {
  const base = `/equipment/${k.kind}`;
  return defineResource({
    contract: defineResourceContract({
      noun: k.title,
      key: 'id',
      labels: equipmentLabels,
      paths: { list: `${base}/list`, detail: { url: `${base}/detail`, method: 'GET' }, save: `${base}/save`, edit: `${base}/edit`, delete: `${base}/delete` },
      permissions: { list: `${k.codes}:list`, save: `${k.codes}:add`, edit: `${k.codes}:edit`, delete: `${k.codes}:delete` },
      schemas: equipmentSchemas(k),
      row: undeclared,
    }),
    table: 'equipment',
    softDelete: 'deleted',
    scope: { kind: k.kind },
    columns: ['id', 'name', 'number', ...k.fields.filter((f) => f !== 'name' && f !== 'number'), 'state', 'state_update_time', 'key_issued_time', 'create_time', 'update_time'],
    readable: readRule('equipment'),
    filters: Object.fromEntries(k.filters.map((f) => [f, { column: f, match: f === 'name' || f === 'number' || f === 'plate' ? 'contains' : 'equals' }])),
    unique: [{ field: 'number', column: 'number', acrossScope: true }],
    stamps: { createUser: 'create_user_id' },
  });
};

export const equipmentResources = equipmentKindList.map(equipmentResource);
export const equipmentRoutes = resourceRoutes(...equipmentResources);
