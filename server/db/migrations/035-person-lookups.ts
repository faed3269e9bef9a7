import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * Lookups by a person's ID number that a request about that person makes
 * (modules/pii.ts: the export and anonymisation of one person's data): the
 * vehicle applicant, a car's persons and the imported rows had none of their
 * own. And the failed-SMS count of /metrics (ops/metrics.ts), which scanned
 * the outbox: failed rows by channel.
 */
export function personLookups() {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('car_application_applicant_idcard').on('car_application').columns(['applicant_idcard']).execute();
      await db.schema.createIndex('car_person_id_card').on('car_person').columns(['id_card']).execute();
      await db.schema.createIndex('person_import_row_idcard_only').on('person_import_row').columns(['idcard']).execute();
      await db.schema.createIndex('outbox_message_failed').on('outbox_message').columns(['channel']).where(sql.ref('state'), '=', 3).execute();
    },
  };
}
