import type { Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * Person batch import (spec 001 §2, §3 "Batch import task"): a task holds one
 * uploaded zip (an xlsx of persons and their face photos), kept under
 * DATA_DIR/imports and never served; its rows record what each person of the
 * sheet became, an application or a reason. A task is claimed for its run
 * by one server (claimed_by, status 0|3 → 1 in one conditional UPDATE) that
 * beats heartbeat_at while it imports, so a run whose server died is found
 * and released (server/modules/person-import/job.ts).
 */
export function personImport(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('person_import_task'), 'id', dialect)
        .addColumn('name', 'varchar(50)', (c) => c.notNull())
        // The name the zip was uploaded under (the list's 文件); the stored one is file_path.
        .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
        .addColumn('file_size', 'bigint', (c) => c.notNull())
        .addColumn('file_path', 'varchar(100)', (c) => c.notNull())
        // 0 待导入, 1 导入中, 2 已完成, 3 失败 (reason says why).
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('reason', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('done_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failed_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('claimed_by', 'varchar(64)')
        .addColumn('heartbeat_at', 'bigint')
        .addColumn('create_user_id', 'integer', (c) => c.notNull())
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .execute();
      // The list: a user's own tasks, newest first; the live-progress poll: a user's recently touched ones.
      await db.schema.createIndex('person_import_task_creator').on('person_import_task').columns(['create_user_id', 'id']).execute();
      await db.schema.createIndex('person_import_task_touched').on('person_import_task').columns(['create_user_id', 'heartbeat_at']).execute();
      // The stale-run check reads only running tasks.
      await db.schema.createIndex('person_import_task_status').on('person_import_task').columns(['status', 'heartbeat_at']).execute();

      await withId(db.schema.createTable('person_import_row'), 'id', dialect)
        .addColumn('task_id', 'integer', (c) => c.notNull())
        .addColumn('row_no', 'integer', (c) => c.notNull())
        .addColumn('idcard', 'varchar(30)', (c) => c.notNull())
        .addColumn('name', 'varchar(50)', (c) => c.notNull())
        // 1 imported (person_application_id and application_number set), 2 failed (error says why).
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('person_application_id', 'integer')
        .addColumn('application_number', 'varchar(40)')
        .addColumn('error', 'varchar(1000)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', time, (c) => c.notNull())
        .execute();
      // A task's rows in sheet order (the results file); a restart skips the ID numbers already imported.
      await db.schema.createIndex('person_import_row_task').on('person_import_row').columns(['task_id', 'row_no']).execute();
      await db.schema.createIndex('person_import_row_idcard').on('person_import_row').columns(['task_id', 'idcard', 'status']).execute();
    },
  };
}
