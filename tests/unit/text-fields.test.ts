import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { optionalText, requiredText, TEXT_TYPE_MSG } from '../../domain/schemas/common';
import { departCreate } from '../../domain/schemas/department';
import { equipmentKinds, equipmentSchemas } from '../../domain/schemas/equipment';
import { userCreate, userUpdate } from '../../domain/schemas/user';

/** Issue 23 item 11: a value of the wrong type is "必须是文本", never the missing message. */
describe('text fields', () => {
  const message = (schema: z.ZodType, input: unknown) => {
    const r = schema.safeParse(input);
    return r.success ? null : r.error.issues[0]!.message;
  };

  it('answers 必须是文本 for a number, a boolean or an object, and the required message only when nothing was sent', () => {
    const required = requiredText('请输入通道编号', 30, '不能超过30个字符');
    for (const wrong of [1, 0, -2.5, true, {}, []]) expect(message(required, wrong), JSON.stringify(wrong)).toBe(TEXT_TYPE_MSG);
    for (const missing of [undefined, null, '', '  ']) expect(message(required, missing), JSON.stringify(missing)).toBe('请输入通道编号');
    expect(required.parse(' A1 ')).toBe('A1');

    const optional = optionalText(80, '备注不能超过80个字符');
    for (const wrong of [1, false, {}]) expect(message(optional, wrong), JSON.stringify(wrong)).toBe(TEXT_TYPE_MSG);
    expect(optional.parse(undefined)).toBe('');
    expect(optional.parse(null)).toBe('');
  });

  it('says 必须是文本 for a user password sent as a number, on create and on edit', () => {
    const user = { userName: '测试', account: 'tester', gender: 0, phone: '13800000000', departId: 1 };
    expect(message(userCreate, { ...user, password: 12345678 })).toBe(TEXT_TYPE_MSG);
    expect(message(userUpdate, { ...user, userId: 1, password: 12345678 })).toBe(TEXT_TYPE_MSG);
    expect(userUpdate.parse({ ...user, userId: 1 }).password).toBe('');
  });

  it('takes a department under the names its rows answer with', () => {
    expect(departCreate.parse({ name: '部门', code: 'D1', visit_area: 2 })).toMatchObject({ visit_area: 2 });
    expect(message(departCreate, { name: '部门', code: 'D1' })).toBe('请选择所属区域');
  });

  it('says 必须是文本 for an equipment lane number sent as a number', () => {
    const { create } = equipmentSchemas(equipmentKinds.securityLaneIdentification);
    const r = create.safeParse({ name: '安检一道', number: 'L1', lane_number: 1, longitude: 114.5, latitude: 22.7 });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['lane_number', TEXT_TYPE_MSG]]);
  });
});
