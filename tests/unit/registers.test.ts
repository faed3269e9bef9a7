import { describe, expect, it } from 'vitest';
import { ProcessType } from '../../domain/appointments';
import { approvalQueueFor, inForce, listableApprovalQueues, registerAllows, registerConflictMessage, stateAfterEdit } from '../../domain/registers';
import { listDateErrors } from '../../domain/schemas/black-white-list';

describe('registers under approval (spec 001 §4)', () => {
  it('follows the state table: edit 0/3/4, submit 0, revoke 1/2, delete not 1/2, process not 0', () => {
    const allowed = (a: Parameters<typeof registerAllows>[0]) => [0, 1, 2, 3, 4].filter((s) => registerAllows(a, s));
    expect(allowed('edit')).toEqual([0, 3, 4]);
    expect(allowed('submit')).toEqual([0]);
    expect(allowed('revoke')).toEqual([1, 2]);
    expect(allowed('delete')).toEqual([0, 3, 4]);
    expect(allowed('process')).toEqual([1, 2, 3, 4]);
    expect(registerConflictMessage('submit', 2)).toBe('当前状态为“审核通过”，不能提交（仅“草稿”状态可以）');
  });

  it('makes an edited rejected or revoked entry a draft again', () => {
    expect([0, 3, 4].map(stateAfterEdit)).toEqual([0, 0, 0]);
  });

  it('routes each register type to its own queue, listed by its code', () => {
    expect(approvalQueueFor(ProcessType.CAR_LIST, true)).toBe('car_list');
    expect(approvalQueueFor(ProcessType.PERSON_LIST, false)).toBe('person_list');
    expect(approvalQueueFor(ProcessType.REGISTRATION, false)).toBe('registration');
    expect(approvalQueueFor(ProcessType.WAYBILL, true)).toBe('transport');
    expect(listableApprovalQueues(new Set(['carListApproval:list', 'transportListApproval:check']))).toEqual(['car_list', 'transport']);
  });

  it('holds an entry in force only when approved, live and within its days (open ends allowed)', () => {
    const e = { status: 2, deleted: 0, start_time: '2026-11-20 00:00:00', end_time: '2026-11-30 23:59:59' };
    expect(inForce(e, '2026-11-25')).toBe(true);
    expect(inForce(e, '2026-11-30')).toBe(true);
    expect(inForce(e, '2026-12-01')).toBe(false);
    expect(inForce(e, '2026-11-19')).toBe(false);
    expect(inForce({ ...e, status: 1 }, '2026-11-25')).toBe(false);
    expect(inForce({ ...e, deleted: 1 }, '2026-11-25')).toBe(false);
    expect(inForce({ ...e, start_time: null, end_time: null }, '2030-01-01')).toBe(true);
  });

  it('keeps list dates from today on, the end after the start', () => {
    const today = '2026-11-25 10:00:00';
    expect(listDateErrors({ start_time: '2026-11-25 00:00:00', end_time: '2026-11-25 23:59:59' }, today)).toEqual([]);
    expect(listDateErrors({ start_time: '2026-11-24 00:00:00', end_time: '2026-11-26 23:59:59' }, today)).toEqual([{ field: 'start_time', message: '开始时间不能早于今天' }]);
    expect(listDateErrors({ start_time: '2026-11-28 00:00:00', end_time: '2026-11-26 23:59:59' }, today)).toEqual([{ field: 'end_time', message: '结束时间不能早于开始时间' }]);
    // A past end before the start names both rules at once (issue 24), and a missing date is left to the schema.
    expect(listDateErrors({ start_time: '2026-11-20 00:00:00', end_time: '2026-11-18 23:59:59' }, today)).toEqual([
      { field: 'start_time', message: '开始时间不能早于今天' },
      { field: 'end_time', message: '结束时间不能早于今天' },
      { field: 'end_time', message: '结束时间不能早于开始时间' },
    ]);
    expect(listDateErrors({ end_time: '2026-11-18 23:59:59' }, today)).toEqual([{ field: 'end_time', message: '结束时间不能早于今天' }]);
  });
});
