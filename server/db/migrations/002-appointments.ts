import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

const time = 'varchar(19)';

/**
 * The approval engine (DESIGN.md §4), person and vehicle appointments, and the
 * black lists and vehicle marks that saving and flagging an appointment read
 * and write. Indexes follow the lists: own list by creator, department
 * history by visited department, all-history by id, queues by assignee.
 */
export function appointments(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('process_node'), 'process_node_id', dialect)
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('countersign', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('company_check', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('overtime_auto_check', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('overtime_hours', 'integer', (c) => c.notNull().defaultTo(24))
        .addColumn('role_id', 'integer', (c) => c.notNull())
        .addColumn('remark', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('process_node_depart')
        .addColumn('process_node_id', 'integer', (c) => c.notNull())
        .addColumn('depart_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('process_node_depart_pk', ['process_node_id', 'depart_id'])
        .execute();

      await withId(db.schema.createTable('process_definition'), 'process_definition_id', dialect)
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('remark', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // A definition's chain; rows are never edited once instances point at them (spec 002: node choice is locked on edit).
      await withId(db.schema.createTable('process_definition_node'), 'definition_node_id', dialect)
        .addColumn('process_definition_id', 'integer', (c) => c.notNull())
        .addColumn('process_node_id', 'integer', (c) => c.notNull())
        .addColumn('sort', 'integer', (c) => c.notNull())
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('process_definition_node_chain').on('process_definition_node').columns(['process_definition_id', 'sort']).unique().execute();

      await withId(db.schema.createTable('process'), 'process_id', dialect)
        .addColumn('uuid', 'varchar(36)', (c) => c.notNull())
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('process_definition_id', 'integer', (c) => c.notNull())
        .addColumn('create_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('process_type_live').on('process').column('type').unique().where(sql.ref('deleted'), '=', 0).execute();

      await withId(db.schema.createTable('process_instance'), 'process_instance_id', dialect)
        .addColumn('process_id', 'integer', (c) => c.notNull())
        .addColumn('process_definition_id', 'integer', (c) => c.notNull())
        .addColumn('process_type', 'integer', (c) => c.notNull())
        .addColumn('ref_id', 'integer', (c) => c.notNull())
        // 0 running, 1 approved, 2 rejected, 3 revoked
        .addColumn('state', 'integer', (c) => c.notNull())
        // The node that is active, or where the instance stopped (resume restarts there).
        .addColumn('current_sort', 'integer', (c) => c.notNull())
        .addColumn('applicant_user_id', 'integer', (c) => c.notNull())
        .addColumn('interviewee_depart_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('process_instance_ref').on('process_instance').columns(['process_type', 'ref_id']).execute();

      await withId(db.schema.createTable('process_task'), 'process_task_id', dialect)
        .addColumn('process_instance_id', 'integer', (c) => c.notNull())
        .addColumn('definition_node_id', 'integer', (c) => c.notNull())
        .addColumn('sort', 'integer', (c) => c.notNull())
        .addColumn('process_type', 'integer', (c) => c.notNull())
        .addColumn('queue', 'varchar(20)')
        .addColumn('ref_id', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('depart_id', 'integer', (c) => c.notNull())
        // 0 pending, 1 decided, 2 closed without a decision
        .addColumn('state', 'integer', (c) => c.notNull())
        .addColumn('result', 'integer')
        .addColumn('remark', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('auto', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('submit_time', time, (c) => c.notNull())
        .addColumn('approve_time', time)
        // epoch ms after which an overtime node decides by itself; null when the node has no overtime.
        .addColumn('due_at', 'bigint')
        .execute();
      await db.schema.createIndex('process_task_queue').on('process_task').columns(['user_id', 'queue', 'state', 'process_task_id']).execute();
      await db.schema.createIndex('process_task_instance').on('process_task').columns(['process_instance_id', 'state']).execute();
      await db.schema.createIndex('process_task_due').on('process_task').columns(['due_at']).where(sql.ref('state'), '=', 0).execute();

      await withId(db.schema.createTable('car_application'), 'car_application_id', dialect)
        .addColumn('application_number', 'varchar(32)', (c) => c.notNull())
        .addColumn('state', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('process_type', 'integer', (c) => c.notNull())
        .addColumn('process_instance_id', 'integer')
        .addColumn('license_plate', 'varchar(16)', (c) => c.notNull())
        .addColumn('license_plate_color', 'integer', (c) => c.notNull())
        .addColumn('vehicle_type_id', 'integer', (c) => c.notNull())
        .addColumn('applicant_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('applicant_idcard', 'varchar(30)', (c) => c.notNull())
        .addColumn('applicant_gender', 'integer', (c) => c.notNull())
        .addColumn('applicant_phone', 'varchar(20)', (c) => c.notNull())
        .addColumn('applicant_face_photo', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('visitor_idcard_type', 'integer', (c) => c.notNull())
        .addColumn('visit_area', 'integer', (c) => c.notNull())
        .addColumn('visitor_type', 'integer', (c) => c.notNull())
        .addColumn('visitor_company', 'varchar(60)', (c) => c.notNull())
        .addColumn('visitor_content', 'varchar(200)', (c) => c.notNull())
        .addColumn('visitor_begin_time', time, (c) => c.notNull())
        .addColumn('visitor_end_time', time, (c) => c.notNull())
        .addColumn('interviewee_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('interviewee_phone', 'varchar(20)', (c) => c.notNull())
        .addColumn('interviewee_depart_id', 'integer', (c) => c.notNull())
        .addColumn('label_status', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('label_remark', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('in_black_list', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('revoke_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('is_delayed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('delay_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('color_id', 'integer')
        .addColumn('vehicle_license_number', 'varchar(40)', (c) => c.notNull().defaultTo(''))
        .addColumn('engine_number', 'varchar(40)', (c) => c.notNull().defaultTo(''))
        .addColumn('trailer_license', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('cargo_type', 'integer')
        .addColumn('cargo_name', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('car_load', 'real')
        .addColumn('remark', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('vehicle_img', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('img12123', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('blind_video_photo', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('register_record_photo', 'text', (c) => c.notNull().defaultTo(''))
        // JSON objects (one per application): the dump-truck documents and the hazardous cargo_info of spec 000 §3.
        .addColumn('dump_truck_file', 'text')
        .addColumn('cargo_info', 'text')
        .addColumn('car_info_id', 'integer')
        .addColumn('is_deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('create_user_id', 'integer', (c) => c.notNull())
        .addColumn('update_user_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('car_application_number').on('car_application').column('application_number').unique().execute();
      await db.schema.createIndex('car_application_own').on('car_application').columns(['create_user_id', 'is_deleted', 'car_application_id']).execute();
      await db.schema.createIndex('car_application_depart').on('car_application').columns(['interviewee_depart_id', 'is_deleted', 'car_application_id']).execute();
      await db.schema.createIndex('car_application_live').on('car_application').columns(['is_deleted', 'car_application_id']).execute();
      await db.schema.createIndex('car_application_plate').on('car_application').columns(['license_plate', 'car_application_id']).execute();
      await db.schema.createIndex('car_application_state').on('car_application').columns(['state', 'car_application_id']).execute();

      await withId(db.schema.createTable('car_person'), 'car_person_id', dialect)
        .addColumn('car_application_id', 'integer', (c) => c.notNull())
        .addColumn('name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('idcard_type', 'integer')
        .addColumn('id_card', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('gender', 'integer')
        .addColumn('phone', 'varchar(20)', (c) => c.notNull().defaultTo(''))
        .addColumn('type', 'integer')
        .addColumn('face_photo', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('pqc_number', 'varchar(40)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('car_person_application').on('car_person').column('car_application_id').execute();

      await withId(db.schema.createTable('person_application'), 'person_application_id', dialect)
        .addColumn('application_number', 'varchar(32)', (c) => c.notNull())
        .addColumn('state', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('process_instance_id', 'integer')
        .addColumn('visitor_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('visitor_gender', 'integer', (c) => c.notNull())
        .addColumn('visitor_nation', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('visitor_phone', 'varchar(20)', (c) => c.notNull())
        .addColumn('visitor_company', 'varchar(60)', (c) => c.notNull())
        .addColumn('visitor_address', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('visitor_type', 'integer', (c) => c.notNull())
        .addColumn('visitor_idcard_type', 'integer', (c) => c.notNull())
        .addColumn('visitor_idcard', 'varchar(30)', (c) => c.notNull())
        .addColumn('visitor_face_photo', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('visitor_idcard_photo1', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('visitor_idcard_photo2', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('visit_content', 'varchar(200)', (c) => c.notNull())
        .addColumn('visit_begin_time', time, (c) => c.notNull())
        .addColumn('visit_end_time', time, (c) => c.notNull())
        .addColumn('visit_area', 'integer', (c) => c.notNull())
        .addColumn('interviewee_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('interviewee_phone', 'varchar(20)', (c) => c.notNull())
        .addColumn('interviewee_depart_id', 'integer', (c) => c.notNull())
        .addColumn('revoke_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('in_black_list', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('is_delayed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('delay_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('is_deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('create_user_id', 'integer', (c) => c.notNull())
        .addColumn('update_user_name', 'varchar(30)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('person_application_number').on('person_application').column('application_number').unique().execute();
      await db.schema.createIndex('person_application_own').on('person_application').columns(['create_user_id', 'is_deleted', 'person_application_id']).execute();
      await db.schema.createIndex('person_application_depart').on('person_application').columns(['interviewee_depart_id', 'is_deleted', 'person_application_id']).execute();
      await db.schema.createIndex('person_application_live').on('person_application').columns(['is_deleted', 'person_application_id']).execute();
      await db.schema.createIndex('person_application_idcard').on('person_application').columns(['visitor_idcard', 'person_application_id']).execute();
      await db.schema.createIndex('person_application_state').on('person_application').columns(['state', 'person_application_id']).execute();

      // Spec 001's black/white lists; their screens come with that spec, saving an appointment reads them now.
      await withId(db.schema.createTable('car_black_white_list'), 'id', dialect)
        .addColumn('license_plate', 'varchar(16)', (c) => c.notNull())
        .addColumn('vehicle_type_id', 'integer')
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('start_time', time)
        .addColumn('end_time', time)
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('in_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('revoke_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('process_instance_id', 'integer')
        .addColumn('create_user_id', 'integer')
        .addColumn('update_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('car_black_white_plate').on('car_black_white_list').columns(['license_plate', 'type', 'status']).execute();
      await withId(db.schema.createTable('person_black_white_list'), 'id', dialect)
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('gender', 'integer')
        .addColumn('idcard_type', 'integer')
        .addColumn('idcard', 'varchar(30)', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('start_time', time)
        .addColumn('end_time', time)
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('in_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('revoke_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('face_photo', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('process_instance_id', 'integer')
        .addColumn('create_user_id', 'integer')
        .addColumn('update_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('person_black_white_idcard').on('person_black_white_list').columns(['idcard', 'type', 'status']).execute();

      // Spec 001's vehicle marks; flagging from the all-history screen writes them.
      await withId(db.schema.createTable('vehicle_mark'), 'id', dialect)
        .addColumn('car_application_id', 'integer')
        .addColumn('license_plate', 'varchar(16)', (c) => c.notNull())
        .addColumn('vehicle_type_id', 'integer')
        .addColumn('visitor_company', 'varchar(60)', (c) => c.notNull().defaultTo(''))
        .addColumn('remark', 'varchar(200)', (c) => c.notNull())
        .addColumn('color_id', 'integer', (c) => c.notNull())
        .addColumn('label_type_id', 'integer', (c) => c.notNull())
        .addColumn('alarm_id', 'integer', (c) => c.notNull())
        // 1 active, 2 cancelled
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('photo', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('cancel_reason', 'varchar(200)', (c) => c.notNull().defaultTo(''))
        .addColumn('cancel_photo', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('create_user_id', 'integer')
        .addColumn('update_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('vehicle_mark_plate').on('vehicle_mark').columns(['license_plate', 'id']).execute();
      await db.schema.createIndex('vehicle_mark_application').on('vehicle_mark').columns(['car_application_id']).execute();
    },
  };
}
