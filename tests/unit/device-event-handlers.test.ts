import { describe, expect, it } from 'vitest';
import { deviceEvent, eventProblem } from '../../domain/schemas/device-event';
import { eventHandlers, handlerOf } from '../../server/modules/devices/event-handlers';

/** Device ingestion dispatches on the event's type through one table (issue 25 item 5). */
describe('device event handlers', () => {
  const types = deviceEvent.options.map((s) => s.shape.type.value);

  it('has one handler for each type the schema admits, and the refusal names every type', () => {
    expect(Object.keys(eventHandlers).sort()).toEqual([...types].sort());
    expect(eventProblem({ event_id: 'e1', type: 'teleport', capture_time: '2026-11-27 08:00:00' })).toBe(`事件类型只能是 ${types.slice(0, -1).join('、')} 或 ${types.at(-1)}`);
  });

  it('reads a crossing from the gate events only, each by its own subject', () => {
    const base = { event_id: 'e1', capture_time: '2026-11-27 08:00:00', direction: 1, open_result: 1 };
    const car = deviceEvent.parse({ ...base, type: 'vehicle', license_plate: '粤l12345' });
    const person = deviceEvent.parse({ ...base, type: 'person', idcard: '11010519491231002x' });
    const alarm = deviceEvent.parse({ event_id: 'e2', type: 'alarm', capture_time: base.capture_time, alarm_type: '断电' });
    expect(handlerOf(car).crossing?.(car)).toEqual({ kind: 'car', subject: '粤L12345', direction: 1, open_result: 1, capture_time: base.capture_time });
    expect(handlerOf(person).crossing?.(person)).toMatchObject({ kind: 'person', subject: '11010519491231002X' });
    expect(handlerOf(alarm).crossing).toBeUndefined();
    expect(handlerOf(car).files).toEqual(['plate_image', 'vehicle_image']);
  });
});
