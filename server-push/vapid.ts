import webpush from 'web-push';
import type { Kysely } from 'kysely';
import type { DB } from '../server/db/schema';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

/**
 * VAPID keys are generated on first start and kept in the database: every
 * server sharing it signs pushes with the same identity, and browsers'
 * subscriptions (bound to the public key) survive restarts.
 */
export async function loadVapidKeys(db: Kysely<DB>, subject = 'mailto:security@park.local'): Promise<VapidKeys> {
  const read = async () => {
    const rows = await db.selectFrom('sys_setting').select(['key', 'value']).where('key', 'in', ['vapid_public', 'vapid_private']).execute();
    const m = new Map(rows.map((r) => [r.key, r.value]));
    return m.get('vapid_public') && m.get('vapid_private') ? { publicKey: m.get('vapid_public')!, privateKey: m.get('vapid_private')! } : null;
  };
  let keys = await read();
  if (!keys) {
    const fresh = webpush.generateVAPIDKeys();
    // Two servers starting at once: the first insert wins and both read it back.
    await db
      .insertInto('sys_setting')
      .values({ key: 'vapid_public', value: fresh.publicKey })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    await db
      .insertInto('sys_setting')
      .values({ key: 'vapid_private', value: fresh.privateKey })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    keys = await read();
    if (!keys) throw new Error('VAPID keys could not be stored');
  }
  return { ...keys, subject };
}
