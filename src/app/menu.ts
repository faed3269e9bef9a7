import type { MenuNode } from '../../domain/permissions';
import { builtScreenRoutes } from '../../domain/screens';

/** A menu entry the app can open, with the directory it sits in (for grouping). */
export interface MenuEntry {
  code: string;
  name: string;
  route: string;
  icon?: string;
}

export interface MenuGroup {
  code: string;
  name: string;
  icon?: string;
  entries: MenuEntry[];
}

/** Every route the user's menu grants, built or not: the access test must not depend on what the app implements. */
export function grantedRoutes(menus: MenuNode[]): Set<string> {
  const out = new Set<string>();
  const walk = (nodes: MenuNode[]) =>
    nodes.forEach((n) => {
      if (n.route) out.add(n.route);
      if (n.children) walk(n.children);
    });
  walk(menus);
  return out;
}

/**
 * The menu as the app shows it: only entries whose screen is built
 * (domain/screens.ts, the rule the permission tree's 未上线 follows), grouped by
 * their top-level directory; directories left empty disappear. Menus that sit
 * at the root (no directory) form one unnamed group so nothing is lost.
 */
export function visibleGroups(menus: MenuNode[]): MenuGroup[] {
  const entriesOf = (nodes: MenuNode[]): MenuEntry[] =>
    nodes.flatMap((n) =>
      n.type === 1 && !!n.route && builtScreenRoutes.has(n.route) ? [{ code: n.code, name: n.name, route: n.route!, ...(n.icon ? { icon: n.icon } : {}) }] : n.children ? entriesOf(n.children) : [],
    );
  const groups: MenuGroup[] = [];
  const loose: MenuEntry[] = [];
  for (const n of menus) {
    if (n.type === 0) {
      const entries = entriesOf(n.children ?? []);
      if (entries.length) groups.push({ code: n.code, name: n.name, ...(n.icon ? { icon: n.icon } : {}), entries });
    } else {
      loose.push(...entriesOf([n]));
    }
  }
  return loose.length ? [{ code: 'root', name: '常用', entries: loose }, ...groups] : groups;
}

export function visibleEntries(menus: MenuNode[]): MenuEntry[] {
  return visibleGroups(menus).flatMap((g) => g.entries);
}
