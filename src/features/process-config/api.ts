import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ProcessDefinitionRow, ProcessNodeRow } from '../../../domain/schemas/process-config';
import { post } from '../../lib/http';

/** What the three configuration screens read besides their own lists: each save invalidates the pickers that show it. */

export interface RoleOption {
  role_id: number;
  name: string;
  status?: number;
}

export const processRolesQuery = queryOptions({
  queryKey: ['process-config', 'roles'],
  queryFn: () => post<RoleOption[]>('/role/all', {}),
  staleTime: 60_000,
});

/** The node picker of the definition form. */
export const processNodesQuery = queryOptions({
  queryKey: ['process-config', 'nodes'],
  queryFn: () => post<ProcessNodeRow[]>('/processNode/all', {}),
  staleTime: 30_000,
});

/** The definition picker of the process form. */
export const processDefinitionsQuery = queryOptions({
  queryKey: ['process-config', 'definitions'],
  queryFn: () => post<ProcessDefinitionRow[]>('/processDefinition/all', {}),
  staleTime: 30_000,
});

export const useProcessRoles = () => useQuery(processRolesQuery);
export const useProcessNodes = () => useQuery(processNodesQuery);
export const useProcessDefinitions = () => useQuery(processDefinitionsQuery);
