import type { Generated } from 'kysely';

/** Table types. Times are 'YYYY-MM-DD HH:mm:ss' park-time text (sortable, portable); expiries are epoch ms. */
export interface DepartmentTable {
  depart_id: Generated<number>;
  pid: number;
  name: string;
  code: string;
  visit_area: number;
  remark: string;
  create_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface RoleTable {
  role_id: Generated<number>;
  name: string;
  code: string;
  remark: string;
  status: number;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface PermissionTable {
  permission_id: Generated<number>;
  pid: number;
  name: string;
  code: string;
  type: number;
  route: string | null;
  icon: string | null;
  open: Generated<number>;
  sort: number;
  status: number;
  remark: string;
  create_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface UserTable {
  user_id: Generated<number>;
  user_name: string;
  account: string;
  password_hash: string;
  gender: number;
  phone: string;
  depart_id: number;
  status: number;
  uuid: string;
  create_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface UserRoleTable {
  user_id: number;
  role_id: number;
}
export interface RolePermissionTable {
  role_id: number;
  permission_id: number;
}
export interface SessionTable {
  session_id: Generated<number>;
  token_hash: string;
  user_id: number;
  ip: string;
  user_agent: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}
export interface CaptchaTable {
  captcha_id: Generated<number>;
  account: string;
  code_hash: string;
  created_at: number;
  expires_at: number;
  attempts: Generated<number>;
  used: Generated<number>;
}
export interface LoginLogTable {
  id: Generated<number>;
  user_id: number | null;
  user_name: string;
  account: string;
  depart_id: number | null;
  ip: string;
  result: number;
  login_time: string;
  remark: string;
}
export interface OperationLogTable {
  id: Generated<number>;
  user_id: number | null;
  account: string;
  depart_id: number | null;
  operation: string;
  result: number;
  operate_time: string;
  api: string;
  method: string;
  params: string;
}
export interface VehicleTypeTable {
  id: Generated<number>;
  name: string;
  speed: number;
  need_record: number;
  show_cargo_type: number;
  check_overweight: number;
  need_blind_video: number;
  create_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface IdempotencyKeyTable {
  user_id: number;
  idem_key: string;
  route: string;
  body_hash: string;
  status: string;
  http_status: number | null;
  response: string | null;
  created_at: number;
  expires_at: number;
}
export interface SettingTable {
  key: string;
  value: string;
}

export interface DB {
  sys_department: DepartmentTable;
  sys_role: RoleTable;
  sys_permission: PermissionTable;
  sys_user: UserTable;
  sys_user_role: UserRoleTable;
  sys_role_permission: RolePermissionTable;
  sys_session: SessionTable;
  sys_captcha: CaptchaTable;
  sys_login_log: LoginLogTable;
  sys_operation_log: OperationLogTable;
  vehicle_type: VehicleTypeTable;
  idempotency_key: IdempotencyKeyTable;
  sys_setting: SettingTable;
}
