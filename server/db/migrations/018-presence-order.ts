import type { Kysely } from 'kysely';

/**
 * A crossing delivered late is placed among the subject's stays by capture
 * time (presence.ts trackCrossing): it reads the subject's last stay that
 * began by then, one step down this index, however many stays the subject
 * has had. The open-stay index answered only for the newest stay.
 */
export function presenceOrder() {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('presence_subject_entry').on('presence').columns(['kind', 'subject', 'entry_time', 'id']).execute();
    },
  };
}
