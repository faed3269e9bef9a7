import { lazy, useContext } from 'react';
import { AccessContext } from './access-context';
import { canReach } from './menu';
import type { AppRoute } from './routes';

const NoAccessPage = lazy(() => import('../features/errors/no-access-page'));

/** One registry screen behind the menu check; the shell's Suspense covers both lazy pages. */
export function AppPage({ route }: { route: AppRoute }) {
  const granted = useContext(AccessContext);
  if (granted && !canReach(route, granted)) return <NoAccessPage />;
  const Page = route.page;
  return <Page />;
}
