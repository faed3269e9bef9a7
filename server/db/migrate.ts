import { Migrator, type Migration } from 'kysely';
import type { Database_ } from './index';
import { foundation } from './migrations/001-foundation';
import { appointments } from './migrations/002-appointments';
import { historyIndex } from './migrations/003-history-index';
import { idempotency } from './migrations/004-idempotency';
import { notifications } from './migrations/005-notifications';
import { rateCounters } from './migrations/006-rate-counters';
import { fileAccess } from './migrations/007-file-access';
import { contactRoles } from './migrations/008-contact-roles';
import { equipment } from './migrations/009-equipment';
import { vehicleRegistration } from './migrations/010-vehicle-registration';
import { transportList } from './migrations/011-transport-list';
import { devices } from './migrations/012-devices';
import { stranded } from './migrations/013-stranded';
import { logIndexes } from './migrations/014-log-indexes';
import { instanceChain } from './migrations/015-instance-chain';
import { authEpoch } from './migrations/016-auth-epoch';
import { deviceFiles } from './migrations/017-device-files';
import { presenceOrder } from './migrations/018-presence-order';
import { operationLogName } from './migrations/019-operation-log-name';
import { openAlarms } from './migrations/020-open-alarms';
import { taskSubmitTime } from './migrations/021-task-submit-time';
import { outbox } from './migrations/022-outbox';
import { reportRollups } from './migrations/023-report-rollups';
import { boardFigures } from './migrations/024-board-figures';
import { instanceArea } from './migrations/025-instance-area';
import { notices } from './migrations/026-notices';
import { reportCrossingIndex } from './migrations/027-report-crossing-index';
import { personImport } from './migrations/028-person-import';
import { entryRoutes } from './migrations/029-entry-routes';
import { uniqueLiveNames } from './migrations/030-unique-live-names';

/** Migrations are code, listed here in order; Kysely's lock makes concurrent starts on PostgreSQL safe. */
export async function migrate({ db, dialect }: Database_): Promise<void> {
  const migrations: Record<string, Migration> = {
    '001-foundation': foundation(dialect),
    '002-appointments': appointments(dialect),
    '003-history-index': historyIndex(),
    '004-idempotency': idempotency(),
    '005-notifications': notifications(dialect),
    '006-rate-counters': rateCounters(),
    '007-file-access': fileAccess(),
    '008-contact-roles': contactRoles(),
    '009-equipment': equipment(dialect),
    '010-vehicle-registration': vehicleRegistration(dialect),
    '011-transport-list': transportList(dialect),
    '012-devices': devices(dialect),
    '013-stranded': stranded(dialect),
    '014-log-indexes': logIndexes(),
    '015-instance-chain': instanceChain(dialect),
    '016-auth-epoch': authEpoch(dialect),
    '017-device-files': deviceFiles(),
    '018-presence-order': presenceOrder(),
    '019-operation-log-name': operationLogName(),
    '020-open-alarms': openAlarms(),
    '021-task-submit-time': taskSubmitTime(),
    '022-outbox': outbox(dialect),
    '023-report-rollups': reportRollups(dialect),
    '024-board-figures': boardFigures(dialect),
    '025-instance-area': instanceArea(dialect),
    '026-notices': notices(dialect),
    '027-report-crossing-index': reportCrossingIndex(),
    '028-person-import': personImport(dialect),
    '029-entry-routes': entryRoutes(dialect),
    '030-unique-live-names': uniqueLiveNames(),
  };
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`数据库迁移失败: ${failed?.migrationName ?? ''} ${error instanceof Error ? error.message : String(error ?? '')}`);
  }
}
