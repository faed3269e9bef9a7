/**
 * The approval queues' row, which wraps either kind of application. It has its
 * own module because it names both: person-application.ts builds on
 * car-application.ts, so the vehicle schema cannot import the person one back.
 */
import type { CarApplicationRow } from './car-application';
import type { PersonApplicationRow } from './person-application';

/** An approval-queue entry (spec 000 §3 "approval task wrapper"). */
export interface TaskRow {
  ref_id: number;
  process_task_id: number;
  process_instance_id: number;
  submit_time: string;
  state: number;
  approval_status: number | null;
  result: number | null;
  remark: string | null;
  approve_time: string | null;
  node_name: string | null;
  carApplication?: CarApplicationRow & { carInfo?: Record<string, unknown> | null };
  personApplication?: PersonApplicationRow;
}
