import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../domain/errors';
import { deviceEvent } from '../../domain/schemas/device-event';
import { ok } from '../../server/core/errors';
import { SECRET_WITHHELD_ANSWER, storableAnswer, withoutUrlQuery } from '../../server/core/idempotency';
import { foreignFileProblem } from '../../server/modules/devices/device-files';

describe('what an Idempotency-Key answer keeps of a secret (issue 23)', () => {
  const issued = JSON.stringify(ok({ key: 'SECRET-KEY' }));

  it("keeps a 'refuse' route's success as the 409 that says it was shown once, with no secret in it", () => {
    const kept = storableAnswer('refuse', 200, issued);
    expect(kept).toEqual({ status: 409, payload: SECRET_WITHHELD_ANSWER });
    expect(JSON.parse(kept.payload)).toMatchObject({ success: false, code: ErrorCode.STATE_CONFLICT });
    expect(kept.payload).not.toContain('SECRET-KEY');
  });

  it('keeps refusals and answers of routes without a secret as they are', () => {
    const notFound = JSON.stringify({ success: false, code: ErrorCode.NOT_FOUND, msg: '不存在', data: null });
    expect(storableAnswer('refuse', 404, notFound)).toEqual({ status: 404, payload: notFound });
    expect(storableAnswer(undefined, 200, issued)).toEqual({ status: 200, payload: issued });
  });

  it("keeps an upload's name and drops the access token of its url; an answer it cannot read is not kept with its secret", () => {
    const upload = JSON.stringify(ok({ name: 'a.png', url: '/api/file/a.png?access=TOKEN', size: 1 }));
    const kept = storableAnswer(withoutUrlQuery, 200, upload);
    expect(kept.status).toBe(200);
    expect(JSON.parse(kept.payload).data).toEqual({ name: 'a.png', url: '/api/file/a.png', size: 1 });
    expect(storableAnswer(withoutUrlQuery, 200, 'not json TOKEN')).toEqual({ status: 409, payload: SECRET_WITHHELD_ANSWER });
  });
});

describe('the files a device event may name', () => {
  const own = `${'a'.repeat(32)}.jpg`;
  const foreign = `${'b'.repeat(32)}.jpg`;
  const event = (o: Record<string, unknown>) =>
    deviceEvent.parse({ event_id: 'e1', type: 'vehicle', capture_time: '2026-11-27 08:00:00', license_plate: '粤L12345', direction: 1, open_result: 1, ...o });

  it('accepts none or its own, and names the first field whose file is not its own', () => {
    expect(foreignFileProblem(event({}), new Set())).toBeNull();
    expect(foreignFileProblem(event({ plate_image: own, vehicle_image: own }), new Set([own]))).toBeNull();
    expect(foreignFileProblem(event({ plate_image: own, vehicle_image: foreign }), new Set([own]))).toBe('车辆图片：文件不存在或不是本设备上传的');
    expect(foreignFileProblem(event({ plate_image: foreign }), new Set([own]))).toBe('车牌图片：文件不存在或不是本设备上传的');
  });
});
