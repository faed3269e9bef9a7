import { queryOptions } from '@tanstack/react-query';
import { drivingRouteCalls } from '../../../domain/schemas/driving-route';
import { call } from '../../lib/http';

/** The park's points (location/all): gates join them as the register gains them, so read afresh on each screen visit. */
export const locationsQuery = queryOptions({ queryKey: ['drivingRoute', 'locations'], queryFn: () => call(drivingRouteCalls.locations, {}), staleTime: 60_000 });

/** Every department's route (depart/find): the bind modal marks departments that binding here would move. */
export const bindingsQuery = queryOptions({ queryKey: ['drivingRoute', 'bindings'], queryFn: () => call(drivingRouteCalls.find, {}), staleTime: 0 });
