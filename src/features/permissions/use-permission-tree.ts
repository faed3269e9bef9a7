import { useEffect, useMemo, useState } from 'react';
import { parentIds, permissionTreeOf, unreleasedIds, visibleTreeRows, type PermissionRow } from '../../../domain/schemas/permission';
import { toggled } from '../../lib/toggled';
import { usePermissions } from './api/get-permissions';

const STATE_KEY = 'park.screen.system.permissions';

const loadSearch = () => {
  try {
    return sessionStorage.getItem(STATE_KEY) ?? '';
  } catch {
    return '';
  }
};

/**
 * The permission tree as the page shows it: the rows, the search (a hit keeps
 * its ancestors; remembered for the session), which nodes are unfolded
 * (directories at first), and what is visible of it.
 */
export function usePermissionTree(allowed: boolean) {
  const list = usePermissions(allowed);
  const rows = useMemo<PermissionRow[]>(() => list.data ?? [], [list.data]);
  const roots = useMemo(() => permissionTreeOf(rows), [rows]);
  const [open, setOpen] = useState<Set<number> | null>(null);
  const [draft, setDraft] = useState(loadSearch);
  const [search, setSearch] = useState(draft.trim());

  // Directories start unfolded, so that every menu is in sight.
  useEffect(() => {
    if (open === null && list.data) setOpen(new Set(roots.filter((r) => r.children.length).map((r) => r.row.permission_id)));
  }, [open, list.data, roots]);
  useEffect(() => {
    try {
      sessionStorage.setItem(STATE_KEY, search);
    } catch {
      // Remembering the search is a comfort only.
    }
  }, [search]);

  const q = search.toLowerCase();
  const visible = useMemo(() => visibleTreeRows(roots, (id) => !!open?.has(id), q ? (r) => r.name.toLowerCase().includes(q) : undefined), [roots, open, q]);
  const withChildren = useMemo(() => new Set(parentIds(rows)), [rows]);
  const unreleased = useMemo(() => unreleasedIds(rows), [rows]);

  return {
    list,
    rows,
    visible,
    withChildren,
    unreleased,
    draft,
    setDraft,
    search,
    /** A search is on: folding does not apply (every hit shows, unfolded). */
    searching: !!q,
    apply: (text: string) => setSearch(text.trim()),
    expandAll: () => setOpen(new Set(parentIds(rows))),
    collapseAll: () => setOpen(new Set()),
    toggle: (id: number) => setOpen((s) => toggled(s ?? new Set<number>(), id)),
    unfold: (id: number) => setOpen((o) => new Set(o ?? []).add(id)),
  };
}

export type PermissionTree = ReturnType<typeof usePermissionTree>;
