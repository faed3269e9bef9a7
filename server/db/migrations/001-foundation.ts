import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../index';

/** Portable primary key: SQLite's rowid alias or PostgreSQL's serial. */
export function withId<T extends string>(t: CreateTableBuilder<T, never>, name: string, dialect: Dialect) {
  return dialect === 'postgres' ? t.addColumn(name, 'serial', (c) => c.primaryKey()) : t.addColumn(name, 'integer', (c) => c.primaryKey().autoIncrement());
}

const time = 'varchar(19)';

export function foundation(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('sys_department'), 'depart_id', dialect)
        .addColumn('pid', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('code', 'varchar(30)', (c) => c.notNull())
        .addColumn('visit_area', 'integer', (c) => c.notNull())
        .addColumn('remark', 'varchar(80)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('sys_department_pid').on('sys_department').column('pid').execute();
      await db.schema.createIndex('sys_department_code_live').on('sys_department').column('code').unique().where(sql.ref('deleted'), '=', 0).execute();

      await withId(db.schema.createTable('sys_role'), 'role_id', dialect)
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('code', 'varchar(30)', (c) => c.notNull())
        .addColumn('remark', 'varchar(80)', (c) => c.notNull().defaultTo(''))
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('sys_role_code_live').on('sys_role').column('code').unique().where(sql.ref('deleted'), '=', 0).execute();

      await withId(db.schema.createTable('sys_permission'), 'permission_id', dialect)
        .addColumn('pid', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('code', 'varchar(60)', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('route', 'varchar(200)')
        .addColumn('icon', 'varchar(60)')
        .addColumn('open', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sort', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('remark', 'varchar(80)', (c) => c.notNull().defaultTo(''))
        .addColumn('create_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('sys_permission_code_live').on('sys_permission').column('code').unique().where(sql.ref('deleted'), '=', 0).execute();
      await db.schema.createIndex('sys_permission_pid').on('sys_permission').column('pid').execute();

      await withId(db.schema.createTable('sys_user'), 'user_id', dialect)
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('account', 'varchar(50)', (c) => c.notNull())
        .addColumn('password_hash', 'varchar(200)', (c) => c.notNull())
        .addColumn('gender', 'integer', (c) => c.notNull())
        .addColumn('phone', 'varchar(20)', (c) => c.notNull())
        .addColumn('depart_id', 'integer', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('uuid', 'varchar(36)', (c) => c.notNull())
        .addColumn('create_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('sys_user_account_live').on('sys_user').column('account').unique().where(sql.ref('deleted'), '=', 0).execute();
      await db.schema.createIndex('sys_user_depart').on('sys_user').columns(['depart_id', 'user_id']).execute();
      await db.schema.createIndex('sys_user_phone').on('sys_user').column('phone').execute();

      await db.schema
        .createTable('sys_user_role')
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('role_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('sys_user_role_pk', ['user_id', 'role_id'])
        .execute();
      await db.schema.createIndex('sys_user_role_role').on('sys_user_role').column('role_id').execute();
      await db.schema
        .createTable('sys_role_permission')
        .addColumn('role_id', 'integer', (c) => c.notNull())
        .addColumn('permission_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('sys_role_permission_pk', ['role_id', 'permission_id'])
        .execute();

      await withId(db.schema.createTable('sys_session'), 'session_id', dialect)
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('ip', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_agent', 'varchar(300)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sys_session_user').on('sys_session').column('user_id').execute();
      await db.schema.createIndex('sys_session_expires').on('sys_session').column('expires_at').execute();

      await withId(db.schema.createTable('sys_captcha'), 'captcha_id', dialect)
        .addColumn('account', 'varchar(50)', (c) => c.notNull())
        .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('used', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('sys_captcha_account').on('sys_captcha').columns(['account', 'created_at']).execute();

      await withId(db.schema.createTable('sys_login_log'), 'id', dialect)
        .addColumn('user_id', 'integer')
        .addColumn('user_name', 'varchar(30)', (c) => c.notNull())
        .addColumn('account', 'varchar(50)', (c) => c.notNull())
        .addColumn('depart_id', 'integer')
        .addColumn('ip', 'varchar(64)', (c) => c.notNull())
        .addColumn('result', 'integer', (c) => c.notNull())
        .addColumn('login_time', time, (c) => c.notNull())
        .addColumn('remark', 'varchar(200)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sys_login_log_time').on('sys_login_log').columns(['login_time', 'result']).execute();

      await withId(db.schema.createTable('sys_operation_log'), 'id', dialect)
        .addColumn('user_id', 'integer')
        .addColumn('account', 'varchar(50)', (c) => c.notNull())
        .addColumn('depart_id', 'integer')
        .addColumn('operation', 'varchar(60)', (c) => c.notNull())
        .addColumn('result', 'integer', (c) => c.notNull())
        .addColumn('operate_time', time, (c) => c.notNull())
        .addColumn('api', 'varchar(200)', (c) => c.notNull())
        .addColumn('method', 'varchar(10)', (c) => c.notNull())
        .addColumn('params', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sys_operation_log_time').on('sys_operation_log').column('operate_time').execute();
      await db.schema.createIndex('sys_operation_log_account').on('sys_operation_log').columns(['account', 'operate_time']).execute();

      await withId(db.schema.createTable('vehicle_type'), 'id', dialect)
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('speed', 'integer', (c) => c.notNull())
        .addColumn('need_record', 'integer', (c) => c.notNull())
        .addColumn('show_cargo_type', 'integer', (c) => c.notNull())
        .addColumn('check_overweight', 'integer', (c) => c.notNull())
        .addColumn('need_blind_video', 'integer', (c) => c.notNull())
        .addColumn('create_user_id', 'integer')
        .addColumn('create_time', time, (c) => c.notNull())
        .addColumn('update_time', time, (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('vehicle_type_name_live').on('vehicle_type').column('name').unique().where(sql.ref('deleted'), '=', 0).execute();

      await db.schema
        .createTable('idempotency_key')
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('idem_key', 'varchar(100)', (c) => c.notNull())
        .addColumn('route', 'varchar(200)', (c) => c.notNull())
        .addColumn('body_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('status', 'varchar(10)', (c) => c.notNull())
        .addColumn('http_status', 'integer')
        .addColumn('response', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_key_pk', ['user_id', 'idem_key'])
        .execute();
      await db.schema.createIndex('idempotency_key_expires').on('idempotency_key').column('expires_at').execute();

      await db.schema
        .createTable('sys_setting')
        .addColumn('key', 'varchar(60)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
