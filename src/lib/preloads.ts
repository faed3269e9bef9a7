import { queryOptions, useQuery } from '@tanstack/react-query';
import { departmentApi } from '../../domain/schemas/department';
import { userApi } from '../../domain/schemas/user';
import { vehicleTypeApi } from '../../domain/schemas/vehicle-type';
import { call } from './http';

/** The preloads spec 002 §7 loads after login; screens read them from the cache. */
export const departmentsQuery = queryOptions({
  queryKey: ['preload', 'departments'],
  queryFn: () => call(departmentApi.calls.all, {}),
  staleTime: 10 * 60_000,
});

export const vehicleTypesQuery = queryOptions({
  queryKey: ['preload', 'vehicleTypes'],
  // Not the page call with a huge size as the spec's desktop client does: list pages stop at 100 rows.
  queryFn: () => call(vehicleTypeApi.calls.all, {}),
  staleTime: 10 * 60_000,
});

export const userOptionsQuery = queryOptions({
  queryKey: ['preload', 'users'],
  queryFn: () => call(userApi.options, {}),
  staleTime: 10 * 60_000,
});

export const useDepartments = () => useQuery(departmentsQuery);
export const useVehicleTypes = () => useQuery(vehicleTypesQuery);
export const useUserOptions = () => useQuery(userOptionsQuery);
