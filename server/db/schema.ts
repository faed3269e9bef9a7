import type { ColumnType, Generated } from 'kysely';

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
export interface RateCounterTable {
  bucket: string;
  count: number;
  /** ms since the epoch when the bucket's window ends. */
  reset_at: number;
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
  /** The user's name when the row was written (migration 018): a later rename leaves it. */
  user_name: Generated<string>;
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
  /** The longest a vehicle of the model may stay in one visit (migration 013); null: the visit's end. */
  dwell_limit_minutes: D<number | null>;
  create_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
/** One Idempotency-Key of one user (migration 004, server/core/idempotency.ts). */
export interface IdempotencyKeyTable {
  user_id: number;
  idem_key: string;
  /** Method and path, e.g. 'POST /api/label/vehicle/label'. */
  route: string;
  body_hash: string;
  /** 'claimed' | 'committed' | 'done' */
  state: string;
  /** Random token of the request holding the claim. */
  owner: string;
  http_status: number | null;
  /** The JSON answer replayed for the same key. */
  response: string | null;
  /** Epoch ms of the claim; the key is kept 7 days from here. */
  created_at: number;
  /** Epoch ms of the last state change; the lease of a claim runs from here. */
  updated_at: number;
}
export interface SettingTable {
  key: string;
  value: string;
}

/** A column with a database default: optional on insert. */
type D<T> = ColumnType<T, T | undefined, T>;

export interface ProcessNodeTable {
  process_node_id: Generated<number>;
  name: string;
  countersign: D<number>;
  company_check: D<number>;
  overtime_auto_check: D<number>;
  overtime_hours: D<number>;
  /** The deadline rule (migration 041, domain/approval-deadline.ts); the overtime pair is its spec view. */
  deadline_value: D<number>;
  deadline_unit: D<number>;
  remind_times: D<number>;
  remind_interval: D<number>;
  escalate_role_id: number | null;
  auto_action: D<number>;
  role_id: number;
  remark: D<string>;
  create_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface ProcessNodeDepartTable {
  process_node_id: number;
  depart_id: number;
}
export interface ProcessDefinitionTable {
  process_definition_id: Generated<number>;
  name: string;
  remark: D<string>;
  /** 相同审核人自动通过 (migration 043): 1 on. */
  skip_repeat: D<number>;
  create_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface ProcessDefinitionNodeTable {
  definition_node_id: Generated<number>;
  process_definition_id: number;
  process_node_id: number;
  sort: number;
  name: string;
}
export interface ProcessTable {
  process_id: Generated<number>;
  uuid: string;
  name: string;
  type: number;
  process_definition_id: number;
  create_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface ProcessInstanceTable {
  process_instance_id: Generated<number>;
  process_id: number;
  process_definition_id: number;
  process_type: number;
  ref_id: number;
  state: number;
  current_sort: number;
  applicant_user_id: number;
  interviewee_depart_id: number | null;
  /** The application's park (migration 023 at submit; 025 keeps it following an edit): what the reports count it under. */
  visit_area: number | null;
  /** Where it stands or stopped (migration 023): 1 at a 企业 (company_check) node, 2 at the last node, 0 elsewhere. */
  stage: D<number>;
  /** 1 once a company_check node of its chain approved it. */
  company_passed: D<number>;
  /** The definition's 相同审核人自动通过 when submitted (migration 043). */
  skip_repeat: D<number>;
  create_time: string;
  update_time: string;
}
export interface ProcessTaskTable {
  process_task_id: Generated<number>;
  process_instance_id: number;
  definition_node_id: number;
  sort: number;
  process_type: number;
  queue: string | null;
  ref_id: number;
  user_id: number;
  depart_id: number;
  state: number;
  result: number | null;
  remark: D<string>;
  auto: D<number>;
  /** When the filer submitted the application (its instance's create_time, migration 021), not when this node was reached. */
  submit_time: string;
  approve_time: string | null;
  /** The node's deadline (ms): pending past it, the task is overdue. */
  due_at: number | null;
  /** When the deadline job next acts on it (ms, migration 041); null: never. */
  next_at: D<number | null>;
  deadline_step: D<number>;
  urged: D<number>;
  /** TaskOrigin (domain/approval-events.ts). */
  origin: D<number>;
  origin_task_id: D<number | null>;
  /** 1: the node waits for this task's approval (migration 042). */
  required: D<number>;
}
/** What happened to an instance besides decisions (migration 041): shown in the process view. */
export interface ProcessEventTable {
  event_id: Generated<number>;
  process_instance_id: number;
  process_task_id: number | null;
  sort: number;
  kind: string;
  /** Who did it; null: the system. */
  user_id: number | null;
  text: D<string>;
  create_time: string;
  created_at: number;
}
export interface CarApplicationTable {
  car_application_id: Generated<number>;
  application_number: string;
  state: D<number>;
  process_type: number;
  process_instance_id: number | null;
  license_plate: string;
  license_plate_color: number;
  vehicle_type_id: number;
  applicant_name: string;
  applicant_idcard: string;
  applicant_gender: number;
  applicant_phone: string;
  applicant_face_photo: D<string>;
  visitor_idcard_type: number;
  visit_area: number;
  visitor_type: number;
  visitor_company: string;
  visitor_content: string;
  visitor_begin_time: string;
  visitor_end_time: string;
  interviewee_name: string;
  interviewee_phone: string;
  interviewee_depart_id: number;
  label_status: D<number>;
  label_remark: D<string>;
  in_black_list: D<number>;
  revoke_reason: D<string>;
  is_delayed: D<number>;
  delay_reason: D<string>;
  color_id: number | null;
  vehicle_license_number: D<string>;
  engine_number: D<string>;
  trailer_license: D<string>;
  cargo_type: number | null;
  cargo_name: D<string>;
  car_load: number | null;
  remark: D<string>;
  vehicle_img: D<string>;
  img12123: D<string>;
  blind_video_photo: D<string>;
  register_record_photo: D<string>;
  dump_truck_file: string | null;
  cargo_info: string | null;
  car_info_id: number | null;
  /** When retention took its photos, and anonymised its personal fields (migration 034); null until then. */
  photos_removed_at: D<string | null>;
  anonymised_at: D<string | null>;
  is_deleted: D<number>;
  create_user_id: number;
  update_user_name: D<string>;
  create_time: string;
  update_time: string;
}
export interface CarPersonTable {
  car_person_id: Generated<number>;
  car_application_id: number;
  name: D<string>;
  idcard_type: number | null;
  id_card: D<string>;
  gender: number | null;
  phone: D<string>;
  type: number | null;
  face_photo: D<string>;
  pqc_number: D<string>;
}
export interface PersonApplicationTable {
  person_application_id: Generated<number>;
  application_number: string;
  state: D<number>;
  process_instance_id: number | null;
  visitor_name: string;
  visitor_gender: number;
  visitor_nation: D<string>;
  visitor_phone: string;
  visitor_company: string;
  visitor_address: D<string>;
  visitor_type: number;
  visitor_idcard_type: number;
  visitor_idcard: string;
  visitor_face_photo: D<string>;
  visitor_idcard_photo1: D<string>;
  visitor_idcard_photo2: D<string>;
  visit_content: string;
  visit_begin_time: string;
  visit_end_time: string;
  visit_area: number;
  interviewee_name: string;
  interviewee_phone: string;
  interviewee_depart_id: number;
  revoke_reason: D<string>;
  in_black_list: D<number>;
  is_delayed: D<number>;
  delay_reason: D<string>;
  /** When retention took its photos, and anonymised its personal fields (migration 034); null until then. */
  photos_removed_at: D<string | null>;
  anonymised_at: D<string | null>;
  is_deleted: D<number>;
  create_user_id: number;
  update_user_name: D<string>;
  create_time: string;
  update_time: string;
}
export interface CarBlackWhiteListTable {
  id: Generated<number>;
  license_plate: string;
  vehicle_type_id: number | null;
  type: number;
  start_time: string | null;
  end_time: string | null;
  status: D<number>;
  in_reason: D<string>;
  revoke_reason: D<string>;
  process_instance_id: number | null;
  create_user_id: number | null;
  update_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface PersonBlackWhiteListTable {
  id: Generated<number>;
  name: string;
  gender: number | null;
  idcard_type: number | null;
  idcard: string;
  type: number;
  start_time: string | null;
  end_time: string | null;
  status: D<number>;
  in_reason: D<string>;
  revoke_reason: D<string>;
  face_photo: D<string>;
  process_instance_id: number | null;
  /** When retention took its photo, and anonymised its name and ID number (migration 034); null until then. */
  photos_removed_at: D<string | null>;
  anonymised_at: D<string | null>;
  create_user_id: number | null;
  update_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface VehicleMarkTable {
  id: Generated<number>;
  car_application_id: number | null;
  license_plate: string;
  vehicle_type_id: number | null;
  visitor_company: D<string>;
  remark: string;
  color_id: number;
  label_type_id: number;
  alarm_id: number;
  status: D<number>;
  photo: D<string>;
  cancel_reason: D<string>;
  cancel_photo: D<string>;
  create_user_id: number | null;
  update_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}

export interface NotificationTable {
  notification_id: Generated<number>;
  user_id: number;
  kind: string;
  title: string;
  body: string;
  url: string;
  tag: string;
  create_time: string;
  created_at: number;
  read_at: string | null;
  push_state: D<number>;
  push_lease: D<number>;
  push_attempts: D<number>;
}
/** What leaves the process besides Web Push (migration 022, server/core/sms-outbox.ts). */
export interface OutboxMessageTable {
  message_id: Generated<number>;
  channel: string;
  origin: string;
  origin_id: number | null;
  payload: string;
  /** 0 waiting, 1 claimed by a server sending it, 2 sent, 3 failed. */
  state: D<number>;
  created_at: number;
  settled_at: number | null;
  error: string | null;
}
export interface PushSubscriptionTable {
  push_subscription_id: Generated<number>;
  user_id: number;
  session_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  device_label: string;
  user_agent: D<string>;
  create_time: string;
  update_time: string;
  last_push_time: string | null;
  last_push_error: string | null;
}

export interface EquipmentTable {
  id: Generated<number>;
  kind: string;
  name: string;
  number: string;
  type: number | null;
  entrances_type: number | null;
  is_security_check: number | null;
  temporary_reservation: number | null;
  lane_number: string | null;
  plate: string | null;
  longitude: number | null;
  latitude: number | null;
  state: Generated<number>;
  state_update_time: string | null;
  /** SHA-256 hex of the device key (DESIGN.md §8); null until one is issued. */
  key_hash: string | null;
  key_issued_time: string | null;
  /** Epoch ms of the device's last call: the online timer's clock. */
  last_seen_at: number | null;
  /** The offline allow-list the gate's heartbeat last reported (migration 037): its version, and the park time it was built. */
  allowlist_version: D<number | null>;
  allowlist_time: D<string | null>;
  create_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
/** One event a device sent, once: the replay ledger (migration 012). */
export interface DeviceEventTable {
  device_id: number;
  event_id: string;
  type: string;
  capture_time: string;
  received_at: number;
}
export interface GateRecordCarTable {
  id: Generated<number>;
  device_id: number;
  event_id: string;
  license_plate: string;
  license_plate_color: number | null;
  direction: number;
  open_result: number;
  plate_image: D<string>;
  vehicle_image: D<string>;
  vehicle_brand: D<string>;
  vehicle_type: D<string>;
  vehicle_color: number | null;
  vehicle_compare_result: number | null;
  face_compare_result: number | null;
  capture_time: string;
  create_time: string;
  /** 1: at a gate off the published route of the visit's department (migration 029, 偏离路线). */
  deviated: D<number>;
  /** 1: the visit's vehicle model is hazardous (migration 038, stamped at ingest). */
  hazmat: D<number>;
  /** The covering waybill's 全国运单编号 when hazmat, else '' (migration 038). */
  waybill_number: D<string>;
}
export interface GateRecordPersonTable {
  id: Generated<number>;
  device_id: number;
  event_id: string;
  idcard: D<string>;
  person_name: D<string>;
  card_number: D<string>;
  card_status: number | null;
  image_type: number | null;
  direction: number;
  open_result: number;
  snapshot: D<string>;
  capture_time: string;
  create_time: string;
}
export interface DeviceAlarmTable {
  id: Generated<number>;
  device_id: number;
  event_id: string;
  alarm_type: string;
  remark: D<string>;
  capture_time: string;
  create_time: string;
}
/** One stay inside the park (migration 013): an 'in' crossing to the next 'out'. */
export interface PresenceTable {
  id: Generated<number>;
  kind: string;
  subject: string;
  application_id: number | null;
  visit_area: number | null;
  deadline: string | null;
  entry_time: string;
  entry_device_id: number;
  exit_time: string | null;
  exit_device_id: number | null;
  black: D<number>;
  alarmed: D<number>;
}
export interface StrandedAlarmTable {
  id: Generated<number>;
  kind: string;
  /** The stay the alarm is about; null for a route deviation whose crossing opened no stay (migration 031). */
  presence_id: number | null;
  application_id: number | null;
  application_info: D<string>;
  license_plate: D<string>;
  idcard: D<string>;
  person_name: D<string>;
  visit_area: number | null;
  level_type: number;
  is_black: D<number>;
  entry_time: string;
  alarm_time: string;
  exit_time: string | null;
  handle_user_id: number | null;
  handled_remark: D<string>;
  false_alarm: number | null;
  handle_time: string | null;
  phones: D<string>;
  sms_send: D<number>;
  sms_content: D<string>;
  sms_error_response: string | null;
  /** 1 while its SMS waits in the outbox (outbox_message, migration 022) or is being sent, 0 settled or nothing to send (migration 020); 2 only on rows claimed before 022. */
  sms_state: D<number>;
  create_time: string;
  /** A route deviation's crossings off the route: JSON objects joined by commas (migration 031); '' for every other alarm. */
  crossings: D<string>;
  /** Unique where set: an alarm raised at most once per key (危化品无运单: plate and park day, migration 038). */
  dedupe_key: D<string | null>;
}
export interface DB {
  equipment: EquipmentTable;
  presence: PresenceTable;
  stranded_alarm: StrandedAlarmTable;
  device_event: DeviceEventTable;
  gate_record_car: GateRecordCarTable;
  gate_record_person: GateRecordPersonTable;
  device_alarm: DeviceAlarmTable;
  sys_department: DepartmentTable;
  sys_role: RoleTable;
  sys_permission: PermissionTable;
  sys_user: UserTable;
  sys_user_role: UserRoleTable;
  sys_role_permission: RolePermissionTable;
  sys_session: SessionTable;
  sys_captcha: CaptchaTable;
  rate_counter: RateCounterTable;
  sys_login_log: LoginLogTable;
  sys_operation_log: OperationLogTable;
  vehicle_type: VehicleTypeTable;
  idempotency_key: IdempotencyKeyTable;
  sys_setting: SettingTable;
  process_node: ProcessNodeTable;
  process_node_depart: ProcessNodeDepartTable;
  process_definition: ProcessDefinitionTable;
  process_definition_node: ProcessDefinitionNodeTable;
  process: ProcessTable;
  process_instance: ProcessInstanceTable;
  process_task: ProcessTaskTable;
  process_event: ProcessEventTable;
  car_application: CarApplicationTable;
  car_person: CarPersonTable;
  person_application: PersonApplicationTable;
  car_black_white_list: CarBlackWhiteListTable;
  person_black_white_list: PersonBlackWhiteListTable;
  vehicle_mark: VehicleMarkTable;
  notification: NotificationTable;
  push_subscription: PushSubscriptionTable;
  outbox_message: OutboxMessageTable;
}

// ---------------------------------------------------------------- file access (migration 007)

/** Who uploaded a stored file (server/modules/files.ts); the uploader may read it before any record holds it. */
export interface FileObjectTable {
  name: string;
  /** 0 for a device's file (devices/routes.ts DEVICE_UPLOADER). */
  uploader_user_id: number;
  /** The device that uploaded the file (migration 017); null for a user's file and for device files from before it. */
  uploader_device_id: number | null;
  /** Epoch ms. */
  created_at: number;
}
/** One record holding one stored file (server/core/file-refs.ts); reading the file follows the record's read rule. */
export interface FileRefTable {
  file_name: string;
  record_kind: string;
  record_id: number;
}
// Merged into DB above, so this block stays in one place.
export interface DB {
  file_object: FileObjectTable;
  file_ref: FileRefTable;
}

// ---------------------------------------------------------------- transport waybills (migration 011)

export interface TransportListTable {
  id: Generated<number>;
  /** Written right after the insert (approvable.ts numberPrefix). */
  application_number: string | null;
  transport_type: number;
  list_number: D<string>;
  cargo_name: D<string>;
  cargo_quantity: number;
  cargo_unit: D<string>;
  enterprise: D<string>;
  unified_social_credit_code: D<string>;
  business_license_number: D<string>;
  contact_phone: D<string>;
  license_plate: string;
  license_plate_color: number;
  vehicle_transport_license: D<string>;
  trailer_license: D<string>;
  trailer_transport_license: D<string>;
  tank_volume: number | null;
  driver: D<string>;
  driver_qualification_certificate: D<string>;
  driver_phone: D<string>;
  supercargo: D<string>;
  supercargo_qualification_certificate: D<string>;
  supercargo_phone: D<string>;
  shipper: D<string>;
  shipper_phone: D<string>;
  recipient: D<string>;
  recipient_phone: D<string>;
  carrier: D<string>;
  carrier_phone: D<string>;
  loader: D<string>;
  loader_phone: D<string>;
  /** 'YYYY-MM-DD'. */
  shipment_date: D<string>;
  shipment_addr: D<string>;
  destination: D<string>;
  annex: D<string>;
  state: D<number>;
  revoke_reason: D<string>;
  process_instance_id: number | null;
  create_user_id: number | null;
  update_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
// Merged into DB above, like the file-access block.
export interface DB {
  transport_list: TransportListTable;
}

// ---------------------------------------------------------------- vehicle registrations (migration 010)

export interface VehicleRegistrationTable {
  id: Generated<number>;
  /** Written right after the insert (approvable.ts numberPrefix). */
  application_number: string | null;
  visit_area: number;
  visitor_company: string;
  license_plate: string;
  license_plate_color: number | null;
  total_mass: number | null;
  phone: string;
  /** The registration is valid from begin_time to end_time ('YYYY-MM-DD HH:mm:ss'). */
  begin_time: string;
  end_time: string;
  /** Document images: ';'-joined stored names. */
  registry_img: D<string>;
  business_license_img: D<string>;
  company_road_transport_img: D<string>;
  legal_person_idcard_img: D<string>;
  driver_info_img: D<string>;
  supercargo_info_img: D<string>;
  driving_permit_img: D<string>;
  road_transport_img: D<string>;
  compulsory_insurance_img: D<string>;
  commercial_insurance_img: D<string>;
  carrier_liability_insurance_img: D<string>;
  report_instruction_img: D<string>;
  commitment_letter_img: D<string>;
  gps_instruction_img: D<string>;
  company_road_transport_number: D<string>;
  /** Validity dates 'YYYY-MM-DD'. */
  company_road_transport_begin: string | null;
  company_road_transport_end: string | null;
  road_transport_number: D<string>;
  road_transport_begin: string | null;
  road_transport_end: string | null;
  tank_number: D<string>;
  tank_volume: number | null;
  tank_medium_range: D<string>;
  tank_report_begin: string | null;
  tank_report_end: string | null;
  state: D<number>;
  revoke_reason: D<string>;
  process_instance_id: number | null;
  create_user_id: number | null;
  update_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
// Merged into DB above, like the file-access block.
export interface DB {
  vehicle_registration: VehicleRegistrationTable;
}

// ---------------------------------------------------------------- an instance's own chain (migration 015)

/** One node of the chain an approval instance follows, copied at submit (server/workflow/chain.ts). */
export interface ProcessInstanceNodeTable {
  instance_node_id: Generated<number>;
  process_instance_id: number;
  sort: number;
  /** Where the copy came from (process_task.definition_node_id keeps pointing there). */
  definition_node_id: number;
  process_node_id: number;
  name: string;
  role_id: number;
  /** JSON array of department ids; empty for a visited-enterprise node. */
  depart_ids: D<string>;
  countersign: D<number>;
  company_check: D<number>;
  overtime_auto_check: D<number>;
  overtime_hours: D<number>;
  /** The deadline rule (migration 041, domain/approval-deadline.ts); the overtime pair is its spec view. */
  deadline_value: D<number>;
  deadline_unit: D<number>;
  remind_times: D<number>;
  remind_interval: D<number>;
  escalate_role_id: number | null;
  auto_action: D<number>;
}
// Merged into DB above.
export interface DB {
  process_instance_node: ProcessInstanceNodeTable;
}

/** One row (id 1): bumped by triggers whenever a cached identity could be stale (migration 016). */
export interface AuthEpochTable {
  id: number;
  epoch: number;
}
// Merged into DB above.
export interface DB {
  auth_epoch: AuthEpochTable;
}

// ---------------------------------------------------------------- the reports' rollups (migration 023), kept by triggers

export interface StatSubmissionDayTable {
  kind: string;
  day: string;
  visit_area: number;
  added: number;
  company_pending: number;
  company_rejected: number;
  company_passed: number;
  squad_pending: number;
  squad_rejected: number;
  squad_approved: number;
}
export interface StatOutcomeDayTable {
  kind: string;
  day: string;
  visit_area: number;
  passed: number;
  failed: number;
}
export interface StatApprovalDayTable {
  day: string;
  depart_id: number;
  user_id: number;
  decisions: number;
}
export interface StatDepartApplicationTable {
  kind: string;
  depart_id: number;
  visitor_type: number;
  hazardous: number;
  applications: number;
}
export interface StatCrossingDayTable {
  day: string;
  device_id: number;
  visit_area: number;
  kind: string;
  direction: number;
  opened: number;
  vehicle_type: string;
  crossings: number;
}
export interface StatVehicleTypeDayTable {
  day: string;
  visit_area: number;
  vehicle_type: string;
  vehicles: number;
  new_vehicles: number;
}
export interface StatVehicleDayTable {
  day: string;
  visit_area: number;
  license_plate: string;
  vehicle_type: string;
}
export interface StatVehicleFirstTable {
  visit_area: number;
  license_plate: string;
  vehicle_type: string;
  first_day: string;
}
/** Crossings per park hour (migration 024): the dashboard's entering/leaving chart. */
export interface StatCrossingHourTable {
  day: string;
  hour: number;
  kind: string;
  direction: number;
  opened: number;
  crossings: number;
}
// Merged into DB above.
export interface DB {
  stat_crossing_hour: StatCrossingHourTable;
  stat_submission_day: StatSubmissionDayTable;
  stat_outcome_day: StatOutcomeDayTable;
  stat_approval_day: StatApprovalDayTable;
  stat_depart_application: StatDepartApplicationTable;
  stat_crossing_day: StatCrossingDayTable;
  stat_vehicle_type_day: StatVehicleTypeDayTable;
  stat_vehicle_day: StatVehicleDayTable;
  stat_vehicle_first: StatVehicleFirstTable;
}

/** 通知公告 (migration 026). */
export interface NoticeTable {
  notice_id: Generated<number>;
  title: string;
  type: number;
  status: Generated<number>;
  content: string;
  publish_time: string | null;
  version: Generated<number>;
  create_user_id: number | null;
  update_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
export interface NoticeDepartTable {
  notice_id: number;
  depart_id: number;
}
export interface NoticeAttachmentTable {
  id: Generated<number>;
  notice_id: number;
  file_name: string;
  file_type: string;
  file_size: number;
  file_url: string;
  create_user_id: number | null;
  create_time: string;
}
export interface NoticeDeliveryTable {
  notice_id: number;
  user_id: number;
  depart_id: number;
  version: number;
  delivered_time: string;
  read_time: string | null;
}
// Merged into DB above.
export interface DB {
  notice: NoticeTable;
  notice_depart: NoticeDepartTable;
  notice_attachment: NoticeAttachmentTable;
  notice_delivery: NoticeDeliveryTable;
}
/** Person batch import (migration 028). */
export interface PersonImportTaskTable {
  id: Generated<number>;
  name: string;
  file_name: string;
  file_size: ColumnType<number, number, number>;
  file_path: string;
  status: Generated<number>;
  reason: Generated<string>;
  total: Generated<number>;
  done_count: Generated<number>;
  failed_count: Generated<number>;
  claimed_by: string | null;
  heartbeat_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** When retention removed its zip (migration 034); null while it is kept. */
  zip_removed_at: D<string | null>;
  create_user_id: number;
  create_time: string;
  update_time: string;
}
export interface PersonImportRowTable {
  id: Generated<number>;
  task_id: number;
  row_no: number;
  idcard: string;
  name: string;
  status: number;
  person_application_id: number | null;
  application_number: string | null;
  error: Generated<string>;
  create_time: string;
}
// Merged into DB above.
export interface DB {
  person_import_task: PersonImportTaskTable;
  person_import_row: PersonImportRowTable;
}

/** The park's named points, WGS-84 (migration 029): a vehicle gate's, or one of their own. */
export interface LocationTable {
  id: Generated<number>;
  name: string;
  longitude: number | null;
  latitude: number | null;
  equipment_id: number | null;
  create_time: string;
  update_time: string;
}
/** 行车路线 (migration 029): path is JSON text of [lat, lng] WGS-84 vertices, location_id the points' ids joined by commas. */
export interface DrivingRouteTable {
  id: Generated<number>;
  name: string;
  publish: D<number>;
  path: string;
  location_id: D<string>;
  create_user_id: number | null;
  update_user_id: number | null;
  create_time: string;
  update_time: string;
  deleted: Generated<number>;
}
/** A department's route: one at most (the department is the key). */
export interface DrivingRouteDepartTable {
  depart_id: number;
  route_id: number;
  create_time: string;
}
// Merged into DB above.
export interface DB {
  location: LocationTable;
  driving_route: DrivingRouteTable;
  driving_route_depart: DrivingRouteDepartTable;
}

/** A backup taken (migration 032, server/ops/backup.ts); written once the run has ended. */
export interface BackupRunTable {
  id: Generated<number>;
  started_at: string;
  finished_at: string;
  finished_ms: number;
  duration_ms: number;
  file_name: D<string>;
  size_bytes: D<number>;
  verified: D<number>;
  error: string | null;
  reason: string;
  host: string;
  pid: number;
}
/**
 * Claims by key (migration 032): 'night:YYYY-MM-DD' for the night's backup, 'running' for the lease of the backup in progress;
 * 'retention-night:YYYY-MM-DD' and 'retention-running' the same for the retention run (modules/retention/run.ts).
 */
export interface BackupClaimTable {
  claim_key: string;
  holder: string;
  claimed_at: number;
  expires_at: number | null;
}
// Merged into DB above.
export interface DB {
  backup_run: BackupRunTable;
  backup_claim: BackupClaimTable;
}

/** A stored file's header (migration 033, FILE_STORE=postgres in core/storage.ts); read only once complete is 1. */
export interface StoredFileTable {
  name: string;
  size: D<number>;
  created_at: number;
  complete: D<number>;
}
/** A stored file's bytes, in pieces numbered from 0 (migration 033). */
export interface StoredFileChunkTable {
  name: string;
  seq: number;
  bytes: Buffer;
}
// Merged into DB above.
export interface DB {
  stored_file: StoredFileTable;
  stored_file_chunk: StoredFileChunkTable;
}

/** The days a class of personal data is kept, as someone set them (migration 034); a class without a row keeps its default. */
export interface RetentionPolicyTable {
  class_key: string;
  days: number;
  updated_by: number | null;
  updated_by_name: D<string>;
  updated_at: string;
}
/** One retention run (migration 034): written when it starts, finished_at when it ends. */
export interface RetentionRunTable {
  id: Generated<number>;
  /** 'nightly' | 'manual' */
  kind: string;
  started_at: string;
  finished_at: string | null;
  finished_ms: number | null;
  user_id: number | null;
  user_name: D<string>;
  host: string;
  pid: number;
  error: string | null;
}
/** What one run did to one class (migration 034); the counts move in each batch's transaction. */
export interface RetentionRunClassTable {
  run_id: number;
  class_key: string;
  days: number;
  cutoff: string;
  row_count: D<number>;
  file_count: D<number>;
  oldest_kept: string | null;
}
/** Present only inside a run's transaction: deleting crossings then leaves the rollups as they are (migration 034). */
export interface RetentionPurgeMarkTable {
  run_id: number;
}
// Merged into DB above.
export interface DB {
  retention_policy: RetentionPolicyTable;
  retention_run: RetentionRunTable;
  retention_run_class: RetentionRunClassTable;
  retention_purge_mark: RetentionPurgeMarkTable;
}

/** 应急清点 (migration 036, docs/muster.md). */
export interface MusterTable {
  id: Generated<number>;
  visit_area: number;
  drill: D<number>;
  message: D<string>;
  sms_count: D<number>;
  /** 1 while it runs, null once ended: its unique index lets one run at a time. */
  running: number | null;
  started_at: string;
  started_by: number;
  started_by_name: D<string>;
  ended_at: string | null;
  ended_by: number | null;
  ended_by_name: string | null;
}
export interface MusterSubjectTable {
  id: Generated<number>;
  muster_id: number;
  kind: string;
  subject: string;
  name: D<string>;
  phone: D<string>;
  enterprise: D<string>;
  gate: D<string>;
  entry_time: string | null;
  source: string;
  application_number: D<string>;
  marked_at: D<string | null>;
  marked_by: D<number | null>;
  marked_by_name: D<string | null>;
  mark_place: D<string | null>;
  mark_method: D<string | null>;
  /** When retention (or a person's request) anonymised name, phone and a person's ID number (migration 039); null until then. */
  anonymised_at: D<string | null>;
}
export interface MusterEventTable {
  id: Generated<number>;
  muster_id: number;
  type: string;
  at: string;
  user_id: number;
  user_name: D<string>;
  place: D<string>;
  subject_id: number | null;
  client_id: string | null;
  text: D<string>;
}
export interface DB {
  muster: MusterTable;
  muster_subject: MusterSubjectTable;
  muster_event: MusterEventTable;
}

/** The offline allow-list's change log (migration 037): its largest id is the list's version; kind 'car', 'person' or '*' (every entry). */
export interface AllowlistChangeTable {
  id: Generated<number>;
  kind: string;
  subject: string;
  at_ms: number;
}
/** One row (id 1): the park time and 24 h horizon the change log has caught up to (server/modules/devices/allowlist.ts). */
export interface AllowlistClockTable {
  id: number;
  now_time: string;
  horizon: string;
}
// Merged into DB above.
export interface DB {
  allowlist_change: AllowlistChangeTable;
  allowlist_clock: AllowlistClockTable;
}

// ---------------------------------------------------------------- 工作日历 (migration 040)

/** A date that differs from the week: kind 1 节假日, 2 调休上班 (domain/work-calendar.ts). */
export interface WorkCalendarDayTable {
  day: string;
  kind: number;
  name: D<string>;
  update_user_name: D<string>;
  update_time: string;
}
export interface DB {
  work_calendar_day: WorkCalendarDayTable;
}
