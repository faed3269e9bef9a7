import { queryOptions, useQuery } from '@tanstack/react-query';
import { processConfigApi } from '../../../domain/schemas/process-config';
import { roleApi } from '../../../domain/schemas/role';
import { call } from '../../lib/http';

/** What the three configuration screens read besides their own lists: each save invalidates the pickers that show it. */

export const processRolesQuery = queryOptions({
  queryKey: ['process-config', 'roles'],
  queryFn: () => call(roleApi.calls.all, {}),
  staleTime: 60_000,
});

/** The node picker of the definition form. */
export const processNodesQuery = queryOptions({
  queryKey: ['process-config', 'nodes'],
  queryFn: () => call(processConfigApi.node.all, {}),
  staleTime: 30_000,
});

/** The definition picker of the process form. */
export const processDefinitionsQuery = queryOptions({
  queryKey: ['process-config', 'definitions'],
  queryFn: () => call(processConfigApi.definition.all, {}),
  staleTime: 30_000,
});

export const useProcessRoles = () => useQuery(processRolesQuery);
export const useProcessNodes = () => useQuery(processNodesQuery);
export const useProcessDefinitions = () => useQuery(processDefinitionsQuery);
