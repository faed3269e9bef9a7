import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Page } from '../../domain/envelope';
import { call } from '../lib/http';
import { buildListParams, defaultFilters, loadScreenState, saveScreenState, stepBackPage, type ScreenState } from './conventions';
import type { Row, ScreenDef, Values } from './types';

/**
 * A list screen's data: its remembered state (filters, page, size), the
 * filters being typed, the query for the page on screen, and what moves
 * them (search, reset, page, size, reload). `paused` stops the auto refresh
 * while a modal, sheet or confirm is open.
 */
export function useListData<R extends Row>(def: ScreenDef<R>, opts: { enabled: boolean; paused: boolean }) {
  const qc = useQueryClient();
  const [state, setState] = useState<ScreenState>(() => loadScreenState(def.key, def.fields));
  const [draft, setDraft] = useState<Values>(state.filters);

  useEffect(() => saveScreenState(def.key, state), [def.key, state]);

  const params = useMemo(() => buildListParams(state.filters, def.fields, state, def.list.params), [state, def.fields, def.list.params]);
  // An array answer is fetched once per filter set and paged here; a page answer is fetched per page.
  const whole = def.list.answer === 'array';
  const requestParams = useMemo(() => {
    if (!whole) return params;
    const { size: _size, pn: _pn, ...filters } = params;
    void _size;
    void _pn;
    return filters;
  }, [params, whole]);
  const query = useQuery({
    queryKey: ['list', def.key, requestParams],
    queryFn: async (): Promise<Page<R>> => {
      const answer = (await call(def.list.path, requestParams as never)) as Page<R> | R[];
      if (!Array.isArray(answer)) return def.list.arrange ? { ...answer, list: def.list.arrange(answer.list) } : answer;
      const list = def.list.arrange ? def.list.arrange(answer) : answer;
      return { list, total: list.length };
    },
    select: whole && def.list.paged !== false ? (all: Page<R>) => ({ list: all.list.slice((state.pn - 1) * state.size, state.pn * state.size), total: all.total }) : undefined,
    placeholderData: keepPreviousData,
    enabled: opts.enabled,
    refetchInterval: def.autoRefresh && !opts.paused ? def.autoRefresh : false,
    refetchIntervalInBackground: false,
  });

  // An empty page beyond the first (a delete emptied it, or rows went away meanwhile): step back and reload.
  useEffect(() => {
    if (!query.data || query.isPlaceholderData) return;
    const back = stepBackPage(state.pn, query.data.list.length);
    if (back) setState((s) => ({ ...s, pn: back }));
  }, [query.data, query.isPlaceholderData, state.pn]);

  const reload = useCallback(() => {
    void qc.invalidateQueries({ queryKey: ['list', def.key] });
    for (const queryKey of def.invalidates ?? []) void qc.invalidateQueries({ queryKey });
  }, [qc, def.key, def.invalidates]);

  const search = (filters: Values = draft) => {
    // Same filters on page 1 give the same query key: fetch again, as a person pressing 查询 expects.
    if (state.pn === 1 && JSON.stringify(filters) === JSON.stringify(state.filters)) void query.refetch();
    else setState((s) => ({ ...s, filters, pn: 1 }));
  };
  const reset = () => {
    const d = defaultFilters(def.fields);
    setDraft(d);
    search(d);
  };

  return {
    state,
    params,
    draft,
    setDraft,
    query,
    rows: query.data?.list ?? [],
    total: query.data?.total ?? 0,
    firstLoad: query.isLoading && !query.data,
    reload,
    search,
    reset,
    setPage: (pn: number) => setState((s) => ({ ...s, pn })),
    setSize: (size: number) => setState((s) => ({ ...s, size, pn: 1 })),
  };
}

export type ListData<R extends Row> = ReturnType<typeof useListData<R>>;
