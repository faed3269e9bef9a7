import { appointmentQueueCalls, kindCalls } from '../../../../domain/appointment-kinds';
import { queues, type QueueName } from '../../../../domain/appointments';

/** A queue's codes and route (domain `queues`), its page and check calls, and its kind's calls (task detail, canAmend, amend). */
export type Queue = (typeof queues)[QueueName] & {
  name: QueueName;
  calls: (typeof appointmentQueueCalls)[QueueName];
  kindCalls: (typeof kindCalls)[keyof typeof kindCalls];
};

export const queueOf = (name: QueueName): Queue => ({ ...queues[name], name, calls: appointmentQueueCalls[name], kindCalls: kindCalls[queues[name].kind] });
