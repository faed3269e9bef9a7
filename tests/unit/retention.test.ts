import { describe, expect, it } from 'vitest';
import { daysInWords, daysProblem, MAX_RETENTION_DAYS, minimumDays, RETENTION_CLASSES, retentionClasses, retentionCutoff } from '../../domain/retention';
import { retentionPolicyInput, retentionPreviewInput } from '../../domain/schemas/retention';
import { dueNight } from '../../server/jobs/nightly';

describe('retention rules', () => {
  it('keeps the defaults and the minimums the law sets, each default at or above its minimum', () => {
    expect(Object.fromEntries(RETENTION_CLASSES.map((k) => [k, [retentionClasses[k].defaultDays, minimumDays(retentionClasses[k])]]))).toEqual({
      photos: [30, 1],
      visitor_fields: [180, 1],
      gate_images: [90, 1],
      gate_rows: [365, 180],
      waybills: [366, 366],
      logs: [1096, 184],
    });
    for (const k of RETENTION_CLASSES) expect(daysProblem(retentionClasses[k], retentionClasses[k].defaultDays), k).toBeNull();
  });

  it('names the field and the rule when a value cannot be kept', () => {
    expect(daysProblem(retentionClasses.gate_rows, 179)).toBe('过闸记录保留期限不能少于 180 天（GB 50396）');
    expect(daysProblem(retentionClasses.logs, 183)).toBe('日志保留期限不能少于 184 天（网络安全法第二十一条：不少于六个月）');
    expect(daysProblem(retentionClasses.gate_rows, 180)).toBeNull();
    expect(daysProblem(retentionClasses.waybills, 365)).toBe('运单保留期限不能少于 366 天（交通运输部令 2019 年第 29 号：不少于 12 个月）');
    expect(daysProblem(retentionClasses.photos, 0)).toBe('证件与人脸照片保留期限至少为 1 天');
    expect(daysProblem(retentionClasses.logs, MAX_RETENTION_DAYS + 1)).toBe('日志保留期限不能超过 3650 天（10 年）');
    expect(daysProblem(retentionClasses.logs, 2.5)).toBe('日志保留期限必须是整数天数');
    expect(daysProblem(retentionClasses.logs, '30')).toBe('日志保留期限必须是整数天数');
  });

  it('checks the same rules in the shared schema, all values before any is taken', () => {
    const refused = retentionPolicyInput.safeParse({ photos: 20, gate_rows: 100, waybills: 12 });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues.map((i) => [i.path[0], i.message])).toEqual([
      ['gate_rows', '过闸记录保留期限不能少于 180 天（GB 50396）'],
      ['waybills', '运单保留期限不能少于 366 天（交通运输部令 2019 年第 29 号：不少于 12 个月）'],
    ]);
    expect(retentionPolicyInput.parse({ gate_rows: '200', photos: 45 })).toEqual({ gate_rows: 200, photos: 45 });
    expect(retentionPolicyInput.safeParse({}).error!.issues[0]!.message).toBe('请至少填写一类数据的保留期限');
    // The preview takes nothing (the saved days) as well as days being edited.
    expect(retentionPreviewInput.parse({})).toEqual({});
    expect(retentionPreviewInput.safeParse({ gate_images: -1 }).error!.issues[0]!.message).toBe('过闸图片保留期限至少为 1 天');
  });

  it('cuts off at the same park clock time the given calendar days earlier', () => {
    expect(retentionCutoff('2026-03-31 03:30:00', 30)).toBe('2026-03-01 03:30:00');
    // Across a leap day: 366 days before 2025-02-28 is 2024-02-28.
    expect(retentionCutoff('2025-02-28 03:30:00', 366)).toBe('2024-02-28 03:30:00');
    expect(retentionCutoff('2026-01-01 00:00:00', 1)).toBe('2025-12-31 00:00:00');
  });

  it('says a period in the words a person reads beside the field', () => {
    expect(daysInWords(30)).toBe('30 天');
    expect(daysInWords(90)).toBe('约 3 个月');
    expect(daysInWords(180)).toBe('约 6 个月');
    expect(daysInWords(366)).toBe('约 1 年');
    expect(daysInWords(1096)).toBe('约 3 年');
  });

  it('finds the night a nightly job is due for, within its catch-up window', () => {
    const at = (t: string) => Date.parse(`${t}+08:00`);
    expect(dueNight('03:30', at('2026-05-06T03:29:00'), 'Asia/Shanghai')).toBeNull();
    expect(dueNight('03:30', at('2026-05-06T03:30:00'), 'Asia/Shanghai')).toBe('2026-05-06');
    expect(dueNight('03:30', at('2026-05-06T05:29:00'), 'Asia/Shanghai')).toBe('2026-05-06');
    expect(dueNight('03:30', at('2026-05-06T05:30:00'), 'Asia/Shanghai')).toBeNull();
    // An evening hour caught up after midnight is still the evening's night.
    expect(dueNight('23:30', at('2026-05-07T00:10:00'), 'Asia/Shanghai')).toBe('2026-05-06');
  });
});
