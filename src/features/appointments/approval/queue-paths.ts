import { queues, type QueueName } from '../../../../domain/appointments';

export interface QueuePaths {
  /** Module prefix of the application calls (canAmend, amend). */
  prefix: '/carApplications' | '/personApplications';
  /** POST, answers { list, total } of task rows. */
  listPath: string;
  /** POST { taskIds, result, remark }. */
  checkPath: string;
}

/** Spec 000 §7: each queue's list and decision calls. The final queues spell theirs differently. */
export const queuePaths: Record<QueueName, QueuePaths> = {
  car_task: { prefix: '/carApplications', listPath: '/carApplications/task/page', checkPath: '/carApplications/task/check' },
  car_zxzxc: { prefix: '/carApplications', listPath: '/carApplications/zxzxc_task/page', checkPath: '/carApplications/zxzxc_task/check' },
  car_bus: { prefix: '/carApplications', listPath: '/carApplications/bus_task/page', checkPath: '/carApplications/bus_task/check' },
  car_chemicals: { prefix: '/carApplications', listPath: '/carApplications/chemicals_task/page', checkPath: '/carApplications/chemicals_task/check' },
  car_final: { prefix: '/carApplications', listPath: '/carApplications/shdd_final/taskPage', checkPath: '/carApplications/shdd_final/taskCheck' },
  person_task: { prefix: '/personApplications', listPath: '/personApplications/task/page', checkPath: '/personApplications/task/check' },
  person_final: { prefix: '/personApplications', listPath: '/personApplications/shdd_final/taskPage', checkPath: '/personApplications/shdd_final/taskCheck' },
};

/** A queue's codes, route and calls together. */
export type Queue = (typeof queues)[QueueName] & QueuePaths & { name: QueueName };

export const queueOf = (name: QueueName): Queue => ({ ...queues[name], ...queuePaths[name], name });
