import { createContext } from 'react';
import type { MenuGroup } from './menu';

/**
 * Routes the signed-in user's menu grants. The shell provides it once /user/info
 * has answered; null means "not known yet" and never denies.
 */
export const AccessContext = createContext<ReadonlySet<string> | null>(null);

/**
 * The signed-in user's menu as the app shows it (visibleGroups), for the pages that
 * list it (home, workbench). Handed down by the shell, because a feature must not
 * import the route table that imports the features.
 */
export const MenuGroupsContext = createContext<MenuGroup[]>([]);
