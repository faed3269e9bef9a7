import type { Kysely } from 'kysely';

/**
 * Department history counts submitted applications (state ≠ 0) of one visited
 * department: with the state in the index the count reads the index alone
 * instead of every row.
 */
export function historyIndex() {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('car_application_depart_state').on('car_application').columns(['interviewee_depart_id', 'is_deleted', 'state']).execute();
      await db.schema.createIndex('person_application_depart_state').on('person_application').columns(['interviewee_depart_id', 'is_deleted', 'state']).execute();
    },
  };
}
