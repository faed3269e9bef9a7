import { lazy, useContext } from 'react';
import { AccessContext } from './access-context';
import { canReach, type AppRoute } from './routes';

const NoAccessPage = lazy(() => import('../features/errors/no-access-page'));

/**
 * One registry screen behind the menu check; the shell's Suspense covers both lazy pages.
 * Part of the first load (the router's): it must not bring the data layer, so the visits the home counts are recorded by the shell.
 */
export function AppPage({ route }: { route: AppRoute }) {
  const granted = useContext(AccessContext);
  if (granted && !canReach(route, granted)) return <NoAccessPage />;
  const Page = route.page;
  return <Page />;
}
