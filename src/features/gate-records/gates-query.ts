import { queryOptions, useQuery } from '@tanstack/react-query';
import { post } from '../../lib/http';

export interface GateOption {
  id: number;
  name: string;
  number: string;
}

/** The park's vehicle barriers, the vehicle records' gate filter (POST /device/record/car/gates). */
export const gatesQuery = queryOptions({
  queryKey: ['gateRecords', 'gates'],
  queryFn: () => post<GateOption[]>('/device/record/car/gates', {}),
  staleTime: 10 * 60_000,
});

export const useGates = () => useQuery(gatesQuery);
