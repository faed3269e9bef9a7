import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

/**
 * The outbox of what leaves the process besides Web Push (issue 25 item 5):
 * SMS, the sign-in code's and the stranded alarm's. A row is written in the
 * transaction of what it reports and sent after commit by the server whose
 * conditional UPDATE claims it (state 0 → 1), so it goes out once however
 * many servers share the database (server/core/sms-outbox.ts). Web Push has
 * its outbox in the notification rows themselves (push_state, migration 005).
 *
 * Alarms whose SMS still waited (stranded_alarm.sms_state 1, migration 020)
 * get their row here, so that the minute pass sends them as before.
 */
export function outbox(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('outbox_message'), 'message_id', dialect)
        .addColumn('channel', 'varchar(20)', (c) => c.notNull())
        // What the message is about, for its settlement there: 'captcha', 'stranded_alarm' (with the alarm's id).
        .addColumn('origin', 'varchar(40)', (c) => c.notNull())
        .addColumn('origin_id', 'integer')
        // JSON: the messages, one per recipient; a sign-in code's text is blanked once settled.
        .addColumn('payload', 'text', (c) => c.notNull())
        // 0 waiting, 1 claimed by the server sending it, 2 sent, 3 failed (error says why).
        .addColumn('state', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('settled_at', 'bigint')
        .addColumn('error', 'varchar(500)')
        .execute();
      await db.schema.createIndex('outbox_message_waiting').on('outbox_message').columns(['origin', 'origin_id']).where(sql.ref('state'), '=', 0).execute();
      const waiting = await db.selectFrom('stranded_alarm').select(['id', 'phones', 'sms_content']).where('sms_state', '=', 1).execute();
      const now = Date.now();
      for (const a of waiting as Array<{ id: number; phones: string; sms_content: string }>) {
        const messages = a.phones
          .split(',')
          .filter(Boolean)
          .map((phone) => ({ phone, account: '', text: a.sms_content }));
        await db
          .insertInto('outbox_message')
          .values({ channel: 'sms', origin: 'stranded_alarm', origin_id: a.id, payload: JSON.stringify(messages), created_at: now })
          .execute();
      }
    },
  };
}
