import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * 通知公告 (spec 001 §3 Notice, issue 27): the notice, the departments it is
 * for, its attachments (at most five, spec 001 §5) and, beyond the spec, its
 * delivery: one row per user it reached when enabled, with when they read it,
 * so the list can say per department how many it reached and how many read it.
 */
export function notices(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('notice'), 'notice_id', dialect)
        .addColumn('title', 'varchar(50)', (c) => c.notNull())
        // 1 通知, 2 注意事项
        .addColumn('type', 'integer', (c) => c.notNull())
        // 0 草稿, 1 启用, 2 停用
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('publish_time', time)
        // Bumped by every edit: a re-enabled notice that was changed reaches its readers again as unread.
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('create_user_id', 'integer')
        .addColumn('update_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('notice_live').on('notice').columns(['deleted', 'notice_id']).execute();

      await db.schema
        .createTable('notice_depart')
        .addColumn('notice_id', 'integer', (c) => c.notNull())
        .addColumn('depart_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('notice_depart_pk', ['notice_id', 'depart_id'])
        .execute();

      await withId(db.schema.createTable('notice_attachment'), 'id', dialect)
        .addColumn('notice_id', 'integer', (c) => c.notNull())
        .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
        .addColumn('file_type', 'varchar(20)', (c) => c.notNull())
        .addColumn('file_size', 'integer', (c) => c.notNull())
        .addColumn('file_url', 'varchar(64)', (c) => c.notNull())
        .addColumn('create_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('notice_attachment_notice').on('notice_attachment').columns(['notice_id', 'id']).execute();

      await db.schema
        .createTable('notice_delivery')
        .addColumn('notice_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        // The user's department when it reached them: the list counts per department named on the notice.
        .addColumn('depart_id', 'integer', (c) => c.notNull())
        // The notice's version it carries; a changed notice enabled again makes older deliveries unread.
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('delivered_time', time, (c) => c.notNull())
        .addColumn('read_time', time)
        .addPrimaryKeyConstraint('notice_delivery_pk', ['notice_id', 'user_id'])
        .execute();
      // A reader's notices newest first, and their unread count.
      await db.schema.createIndex('notice_delivery_user').on('notice_delivery').columns(['user_id', 'notice_id']).execute();
      await db.schema.createIndex('notice_delivery_unread').on('notice_delivery').columns(['user_id']).where(sql.ref('read_time'), 'is', null).execute();
    },
  };
}
