import { lazy, useContext, useEffect } from 'react';
import { useMe } from '../lib/me';
import { AccessContext } from './access-context';
import { recordVisit } from './frequent-screens';
import { canReach, type AppRoute } from './routes';

const NoAccessPage = lazy(() => import('../features/errors/no-access-page'));

/** One registry screen behind the menu check; the shell's Suspense covers both lazy pages. */
export function AppPage({ route }: { route: AppRoute }) {
  const granted = useContext(AccessContext);
  const userId = useMe().data?.user.user_id;
  const known = granted !== null;
  const allowed = !granted || canReach(route, granted);
  // Menu screens the person may open count towards the home's shortcuts (the tabs and open pages are no menu entries).
  useEffect(() => {
    if (known && userId !== undefined && allowed && !route.open) recordVisit(userId, route.path);
  }, [known, userId, allowed, route.open, route.path]);
  if (!allowed) return <NoAccessPage />;
  const Page = route.page;
  return <Page />;
}
