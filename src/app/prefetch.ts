import { notifyManager, type QueryClient } from '@tanstack/react-query';
import { enumNames, type EnumName, type EnumOption } from '../../domain/enums';
import { SCAN_PERMISSION } from '../../domain/permissions';
import { afterFirstScreen } from '../lib/after-first-screen';
import { meQuery } from '../lib/me';

/**
 * Spec 002 §7: after sign-in load the code tables and the preloads (vehicle
 * models, departments, users) so forms and filters open without waiting.
 * Deferred to idle time so the first screen's own calls go first; failures
 * are left for the screen that needs the data to retry and report.
 */
export function prefetchAfterSignIn(client: QueryClient): () => void {
  // The warm-up brings its own declarations (and with them the schemas), after the first screen has what it needs.
  const run = () =>
    void Promise.all([import('../lib/preloads'), import('../../domain/schemas/common-api'), import('../lib/http'), import('./enum-queries')])
      .then(([{ departmentsQuery, userOptionsQuery, vehicleTypesQuery }, { commonApi }, { call }, { enumQuery }]) => {
        void client.prefetchQuery(departmentsQuery);
        void client.prefetchQuery(vehicleTypesQuery);
        void client.prefetchQuery(userOptionsQuery);
        // One call for all code tables, written into each table's own query.
        return call(commonApi.enums).then((all) =>
          // One batch: each table written alone would wake every cache listener (banner, persister) once per table.
          notifyManager.batch(() => enumNames.forEach((name) => all[name] && client.setQueryData(enumQuery(name).queryKey, all[name]))),
        );
      })
      .catch(() => undefined);
  // The pass-verification key, so a patrol's phone can check passes offline even if /scan was never opened online.
  const cancelPassKey = afterFirstScreen(() => {
    if (client.getQueryData(meQuery.queryKey)?.permissions.includes(SCAN_PERMISSION)) {
      void import('../lib/pass-key').then((m) => m.refreshPassKey()).catch(() => undefined);
    }
  });
  if ('requestIdleCallback' in window) {
    const id = window.requestIdleCallback(run, { timeout: 3000 });
    return () => {
      window.cancelIdleCallback(id);
      cancelPassKey();
    };
  }
  const id = setTimeout(run, 300);
  return () => {
    clearTimeout(id);
    cancelPassKey();
  };
}
