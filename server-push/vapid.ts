import webpush from 'web-push';
import type { PushStore } from './store';

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
export async function loadVapidKeys(store: Pick<PushStore, 'setting' | 'settingIfAbsent'>, subject = 'mailto:security@park.local'): Promise<VapidKeys> {
  const read = async () => {
    const [publicKey, privateKey] = await Promise.all([store.setting('vapid_public'), store.setting('vapid_private')]);
    return publicKey && privateKey ? { publicKey, privateKey } : null;
  };
  let keys = await read();
  if (!keys) {
    const fresh = webpush.generateVAPIDKeys();
    // Two servers starting at once: the first insert wins and both read it back.
    await store.settingIfAbsent('vapid_public', fresh.publicKey);
    await store.settingIfAbsent('vapid_private', fresh.privateKey);
    keys = await read();
    if (!keys) throw new Error('VAPID keys could not be stored');
  }
  return { ...keys, subject };
}
