import { createContext } from 'react';

/**
 * Routes the signed-in user's menu grants. The shell provides it once /user/info
 * has answered; null means "not known yet" and never denies.
 */
export const AccessContext = createContext<ReadonlySet<string> | null>(null);
