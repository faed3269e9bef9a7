import { sql, type Kysely } from 'kysely';
import { storableAnswer, withoutUrlQuery } from '../../core/idempotency';
import type { SecretAnswer } from '../../core/context';

/**
 * The routes whose stored answers held a secret before secretAnswer existed,
 * matched on the lower-cased path as the idempotency hook recorded it
 * ('POST /api/equipment/gate/issueKey'), with how each is kept now.
 */
const SECRET_ROUTES: Array<{ like: string; secret: SecretAnswer }> = [
  { like: '%/issuekey%', secret: 'refuse' },
  { like: '%/file/accesstoken%', secret: 'refuse' },
  { like: '%/file/upload%', secret: withoutUrlQuery },
];

/**
 * Rewrites the stored Idempotency-Key answers that carry a secret (a device
 * key in clear, a file access token) as the routes keep them now
 * (core/idempotency.ts storableAnswer); answers how many rows changed.
 * Safe to run again: a rewritten answer holds nothing more to take out.
 */
export async function scrubSecretAnswers(db: Kysely<any>): Promise<number> {
  let changed = 0;
  for (const { like, secret } of SECRET_ROUTES) {
    const rows = (await db
      .selectFrom('idempotency_key')
      .select(['user_id', 'idem_key', 'http_status', 'response'])
      .where(sql`lower(route)`, 'like', like)
      .where('response', 'is not', null)
      .where('http_status', 'is not', null)
      .execute()) as Array<{ user_id: number; idem_key: string; http_status: number; response: string }>;
    for (const r of rows) {
      const kept = storableAnswer(secret, r.http_status, r.response);
      if (kept.status === r.http_status && kept.payload === r.response) continue;
      await db.updateTable('idempotency_key').set({ http_status: kept.status, response: kept.payload }).where('user_id', '=', r.user_id).where('idem_key', '=', r.idem_key).execute();
      changed++;
    }
  }
  return changed;
}

/**
 * Issue 23, device keys and device files.
 * - file_object.uploader_device_id: which device uploaded a file (its
 *   uploader_user_id stays 0, devices/routes.ts DEVICE_UPLOADER), so that an
 *   event may name only its own device's files. Files uploaded before this
 *   migration have none: no event can name them any more, and the cleanup
 *   removes them once a day old and unreferenced.
 * - An index for that cleanup's scan (device files by age).
 * - The idempotency answers stored so far with a secret in them are scrubbed.
 */
export function deviceFiles() {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('file_object').addColumn('uploader_device_id', 'integer').execute();
      await db.schema.createIndex('file_object_uploader_age').on('file_object').columns(['uploader_user_id', 'created_at']).execute();
      await scrubSecretAnswers(db);
    },
  };
}
