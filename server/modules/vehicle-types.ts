import { vehicleTypeApi, type VehicleTypeCreate } from '../../domain/schemas/vehicle-type';
import { defineResource, resourceRoutes } from '../core/resource';
import { readRule } from './access';

/** 车型管理 (spec 002 §2, §5; codes modal:*): a declared register. */
export const vehicleTypes = defineResource({
  contract: vehicleTypeApi,
  table: 'vehicle_type',
  softDelete: 'deleted',
  columns: ['id', 'name', 'speed', 'need_record', 'show_cargo_type', 'check_overweight', 'need_blind_video', 'dwell_limit_minutes', 'create_time', 'update_time'],
  orderBy: [['id', 'asc']],
  readable: readRule('vehicle_type'),
  filters: { name: { column: 'name', match: 'contains' } },
  unique: [{ field: 'name', column: 'name' }],
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
