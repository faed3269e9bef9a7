import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';

/**
 * An approval instance's park follows its application's (issue 26:
 * "an application for its visit_area"). Migration 023 stored the park on
 * process_instance at submit, but the filer may edit a rejected or revoked
 * application into another park and keep its approval (resume continues the
 * same instance), so the reservation and application-count reports kept the
 * old park while the application, its queues and the plain GROUP BY said the
 * new one. A trigger on each subject table copies a changed visit_area to the
 * instances about the row, in the write's transaction; 023's triggers on
 * process_instance then move their shares. The application row is locked
 * before the instance, as every approval path locks them (engine.ts).
 */

/** The subject tables of the process types (server/workflow/subjects.ts), by the types whose instances are about them. */
const subjects = [
  { table: 'person_application', key: 'person_application_id', types: 'process_type = 1' },
  { table: 'car_application', key: 'car_application_id', types: 'process_type BETWEEN 2 AND 5' },
  { table: 'vehicle_registration', key: 'id', types: 'process_type = 6' },
] as const;

export function instanceArea(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      for (const s of subjects) {
        const name = `instance_area_${s.table}`;
        const follow = `UPDATE process_instance SET visit_area = NEW.visit_area WHERE ${s.types} AND ref_id = NEW.${s.key}`;
        if (dialect === 'postgres') {
          await sql
            .raw(
              `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN
                IF OLD.visit_area IS DISTINCT FROM NEW.visit_area THEN ${follow}; END IF;
                RETURN NULL;
              END $$`,
            )
            .execute(db);
          await sql.raw(`CREATE TRIGGER ${name} AFTER UPDATE OF visit_area ON ${s.table} FOR EACH ROW EXECUTE FUNCTION ${name}()`).execute(db);
        } else {
          await sql.raw(`CREATE TRIGGER ${name} AFTER UPDATE OF visit_area ON ${s.table} WHEN OLD.visit_area IS NOT NEW.visit_area BEGIN ${follow}; END`).execute(db);
        }
        // Instances that drifted before this migration (only those, not every row): 023's triggers move their shares.
        const area = `(SELECT a.visit_area FROM ${s.table} a WHERE a.${s.key} = process_instance.ref_id)`;
        const differs = dialect === 'postgres' ? 'IS DISTINCT FROM' : 'IS NOT';
        await sql
          .raw(
            `UPDATE process_instance SET visit_area = ${area}
             WHERE ${s.types} AND EXISTS (SELECT 1 FROM ${s.table} a WHERE a.${s.key} = process_instance.ref_id) AND visit_area ${differs} ${area}`,
          )
          .execute(db);
      }
    },
  };
}
