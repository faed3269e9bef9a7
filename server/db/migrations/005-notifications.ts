import type { Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * The notification centre and Web Push subscriptions (DESIGN.md §2, §5).
 * A notification row is written in the transaction of the event it reports
 * and is the unit of delivery: push_state/push_lease let any server sharing
 * the database claim unsent rows with one conditional UPDATE.
 */
export function notifications(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('notification'), 'notification_id', dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('kind', 'varchar(30)', (c) => c.notNull())
        .addColumn('title', 'varchar(60)', (c) => c.notNull())
        .addColumn('body', 'varchar(300)', (c) => c.notNull())
        .addColumn('url', 'varchar(300)', (c) => c.notNull())
        .addColumn('tag', 'varchar(100)', (c) => c.notNull())
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('read_at', time)
        // 0 waiting for Web Push, 1 sent (or nothing to send to), 2 given up.
        .addColumn('push_state', 'integer', (c) => c.notNull().defaultTo(0))
        // Epoch ms until which one server owns the push; a crashed server's claim runs out.
        .addColumn('push_lease', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('push_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('notification_user').on('notification').columns(['user_id', 'created_at', 'notification_id']).execute();
      await db.schema.createIndex('notification_user_unread').on('notification').columns(['user_id', 'read_at']).execute();
      await db.schema.createIndex('notification_push').on('notification').columns(['push_state', 'notification_id']).execute();
      await db.schema.createIndex('notification_created').on('notification').column('created_at').execute();

      await withId(db.schema.createTable('push_subscription'), 'push_subscription_id', dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull())
        // Pushes go only while this session lives: a shared phone stops showing the last person's tasks once they sign out.
        .addColumn('session_id', 'integer', (c) => c.notNull())
        .addColumn('endpoint', 'varchar(1000)', (c) => c.notNull())
        .addColumn('p256dh', 'varchar(200)', (c) => c.notNull())
        .addColumn('auth', 'varchar(100)', (c) => c.notNull())
        .addColumn('device_label', 'varchar(60)', (c) => c.notNull())
        .addColumn('user_agent', 'varchar(300)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('last_push_time', time)
        .addColumn('last_push_error', 'varchar(200)')
        .execute();
      await db.schema.createIndex('push_subscription_endpoint').on('push_subscription').column('endpoint').unique().execute();
      await db.schema.createIndex('push_subscription_user').on('push_subscription').column('user_id').execute();
    },
  };
}
