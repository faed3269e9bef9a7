import { sql, type Kysely } from 'kysely';

/**
 * A task's submit_time is when the filer submitted the application (the
 * instance's create_time), the time every queue shows as 提交时间 and the
 * review header as 提交于 (issue 24). Tasks written before held the time
 * their node was reached, so a second node's reviewer saw when the first
 * node approved; they get their instance's time.
 */
export function taskSubmitTime() {
  return {
    async up(db: Kysely<any>) {
      await sql`UPDATE process_task SET submit_time = (SELECT i.create_time FROM process_instance i WHERE i.process_instance_id = process_task.process_instance_id)
        WHERE EXISTS (SELECT 1 FROM process_instance i WHERE i.process_instance_id = process_task.process_instance_id AND i.create_time <> process_task.submit_time)`.execute(db);
    },
  };
}
