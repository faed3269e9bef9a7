import { queryOptions, useQuery } from '@tanstack/react-query';
import { gateRecordApi } from '../../../domain/schemas/gate-record';
import { call } from '../../lib/http';

export type { GateOption } from '../../../domain/schemas/gate-record';

/** The park's vehicle barriers, the vehicle records' gate filter. */
export const gatesQuery = queryOptions({
  queryKey: ['gateRecords', 'gates'],
  queryFn: () => call(gateRecordApi.gates, {}),
  staleTime: 10 * 60_000,
});

export const useGates = () => useQuery(gatesQuery);
