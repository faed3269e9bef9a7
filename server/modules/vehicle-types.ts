import { vehicleTypeCreate, vehicleTypeLabels, vehicleTypePageQuery, vehicleTypeUpdate, type VehicleTypeCreate } from '../../domain/schemas/vehicle-type';
import { defineResource, resourceRoutes } from '../core/resource';
import { readRule } from './access';

/** 车型管理 (spec 002 §2, §5; codes modal:*): a declared register. */
export const vehicleTypes = defineResource({
  noun: '车型',
  table: 'vehicle_type',
  key: 'id',
  softDelete: 'deleted',
  columns: ['id', 'name', 'speed', 'need_record', 'show_cargo_type', 'check_overweight', 'need_blind_video', 'dwell_limit_minutes', 'create_time', 'update_time'],
  orderBy: [['id', 'asc']],
  labels: vehicleTypeLabels,
  readable: readRule('vehicle_type'),
  paths: { list: '/vehicleType/page', all: '/vehicleType/options', get: '/vehicleType/get', save: '/vehicleType/save', edit: '/vehicleType/update', delete: '/vehicleType/delete' },
  permissions: { list: 'role', get: 'role', save: 'modal:add', edit: 'modal:edit', delete: 'modal:delete' },
  schemas: { list: vehicleTypePageQuery, create: vehicleTypeCreate, update: vehicleTypeUpdate },
  filters: { name: { column: 'name', match: 'contains' } },
  unique: [{ field: 'name', column: 'name' }],
  operations: { save: '新增车型', edit: '编辑车型', delete: '删除车型' },
  messages: { save: '创建车型成功！', edit: '编辑车型成功！' },
  stamps: { createUser: 'create_user_id' },
  toRow: (values) => {
    const v = values as VehicleTypeCreate;
    return {
      name: v.name,
      speed: v.speed,
      need_record: v.needRecord,
      show_cargo_type: v.showCargoType,
      check_overweight: v.checkOverweight,
      need_blind_video: v.needBlindVideo,
      dwell_limit_minutes: v.dwellLimitMinutes ?? null,
    };
  },
});

export const vehicleTypeRoutes = resourceRoutes(vehicleTypes);
