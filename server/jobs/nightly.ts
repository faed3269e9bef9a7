import type { Kysely } from 'kysely';
import { formatInZone } from '../../domain/time';
import type { DB } from '../db/schema';

/**
 * Work done once a night at a park time, once across every server sharing
 * the database (the nightly backup, the retention run). Each server checks
 * every minute; the night is taken by the one insert of its claim row
 * (backup_claim, keyed by the job and the park date) that succeeds. A server
 * that was down at the hour still takes the night when it comes back within
 * CATCH_UP_MINUTES; later it waits for the next night, rather than load the
 * park in the day.
 */

/** How long after the hour a night's work is still done. */
export const CATCH_UP_MINUTES = 120;

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The park date whose work is due at `now` for a job at `at` ('HH:mm' park time), or null outside the hour's window. */
export function dueNight(at: string, now: number, tz: string): string | null {
  const local = formatInZone(now, tz);
  const since = (minutesOf(local.slice(11, 16)) - minutesOf(at) + 1440) % 1440;
  if (since >= CATCH_UP_MINUTES) return null;
  // After midnight for an hour late in the evening, the night is the day before.
  return formatInZone(now - since * 60_000, tz).slice(0, 10);
}

/** Claims a night's work for this server: the one insert of `key` that succeeds, whichever servers try at once. */
export async function claimNight(db: Kysely<DB>, key: string, holder: string, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('backup_claim')
      .values({ claim_key: key, holder, claimed_at: now, expires_at: null })
      .onConflict((oc) => oc.column('claim_key').doNothing())
      .returning('claim_key')
      .executeTakeFirst();
    return !!row;
  });
}
