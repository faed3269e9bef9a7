import { Migrator, sql, type Migration } from 'kysely';
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
import { routeDeviationAlarms } from './migrations/031-route-deviation-alarms';
import { backups } from './migrations/032-backups';
import { fileStore } from './migrations/033-file-store';
import { retention } from './migrations/034-retention';
import { personLookups } from './migrations/035-person-lookups';
import { muster } from './migrations/036-muster';
import { offlineGate } from './migrations/037-offline-gate';
import { hazmatGate } from './migrations/038-hazmat-gate';
import { musterRetention } from './migrations/039-muster-retention';
import { workCalendar } from './migrations/040-work-calendar';
import { approvalDeadlines } from './migrations/041-approval-deadlines';
import { addedSigners } from './migrations/042-added-signers';
import { skipRepeat } from './migrations/043-skip-repeat';

/** Migrations are code, listed here in order; the last one's name is this build's migration level. */
function migrationsOf(dialect: Database_['dialect']): Record<string, Migration> {
  return {
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
    '031-route-deviation-alarms': routeDeviationAlarms(dialect),
    '032-backups': backups(dialect),
    '033-file-store': fileStore(dialect),
    '034-retention': retention(dialect),
    '035-person-lookups': personLookups(),
    '036-muster': muster(dialect),
    '037-offline-gate': offlineGate(dialect),
    '038-hazmat-gate': hazmatGate(dialect),
    '039-muster-retention': musterRetention(),
    '040-work-calendar': workCalendar(),
    '041-approval-deadlines': approvalDeadlines(dialect),
    '042-added-signers': addedSigners(),
    '043-skip-repeat': skipRepeat(),
  };
}

/** This build's migration level: the name of its last migration. */
export const MIGRATION_LEVEL = Object.keys(migrationsOf('sqlite')).at(-1)!;

/** The migration level a database is at: the last migration applied to it, or null for an empty one. */
export async function databaseLevel({ db, dialect }: Pick<Database_, 'db' | 'dialect'>): Promise<string | null> {
  const known = await sql<{
    n: number;
  }>`select count(*) as n from ${sql.raw(dialect === 'postgres' ? "information_schema.tables where table_name = 'kysely_migration' and table_schema = current_schema()" : "sqlite_master where type = 'table' and name = 'kysely_migration'")}`.execute(
    db,
  );
  if (Number(known.rows[0]?.n ?? 0) === 0) return null;
  const last = await sql<{ name: string | null }>`select max(name) as name from kysely_migration`.execute(db);
  return last.rows[0]?.name ?? null;
}

/**
 * Brings the database to this build's level. A database a newer build has migrated is refused before anything
 * is touched: this build's code would read and write tables whose shape it does not know. Kysely's lock makes
 * concurrent starts on PostgreSQL safe.
 */
export async function migrate(database: Database_): Promise<void> {
  const { dialect } = database;
  const migrations = migrationsOf(dialect);
  const level = await databaseLevel(database);
  if (level !== null && !(level in migrations) && level > MIGRATION_LEVEL) {
    throw new Error(`数据库的迁移级别 ${level} 高于本程序的 ${MIGRATION_LEVEL}：请使用与数据库相同或更新版本的程序启动`);
  }
  // An index built over years of rows may take longer than any call is allowed to.
  const maintenance = database.maintenance();
  const migrator = new Migrator({ db: maintenance.db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest().finally(() => maintenance.close());
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`数据库迁移失败: ${failed?.migrationName ?? ''} ${error instanceof Error ? error.message : String(error ?? '')}`);
  }
}
