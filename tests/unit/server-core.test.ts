import { describe, expect, it } from 'vitest';
import { frameworkFailure } from '../../server/core/framework-errors';
import { jsonDepth, MAX_JSON_DEPTH, nulInQuery, parseJsonBody } from '../../server/core/json-body';
import { auditJson, redact } from '../../server/core/redact';
import { hashPassword, verifyPassword } from '../../server/core/crypto';

describe('JSON bodies', () => {
  it('measures nesting without parsing, ignoring brackets inside strings', () => {
    expect(jsonDepth('{}')).toBe(1);
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonDepth('{"a":"[[[{{{\\"[["}')).toBe(1);
    expect(jsonDepth('[]'.repeat(3))).toBe(1);
    expect(jsonDepth('1')).toBe(0);
  });

  it('refuses a body nested past the limit before anything recursive walks it', () => {
    const deepObjects = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const deepArrays = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const body of [deepObjects, deepArrays]) {
      expect(() => parseJsonBody(body)).toThrow(`请求体嵌套层数过深：最多${MAX_JSON_DEPTH}层`);
    }
    const atLimit = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(parseJsonBody(atLimit)).toBeInstanceOf(Array);
  });

  it('refuses U+0000 in any string, naming its field, because PostgreSQL cannot store it', () => {
    expect(() => parseJsonBody('{"name":"x\\u0000y","speed":1}')).toThrow('name：不能包含空字符（U+0000）');
    expect(nulInQuery({ id: '1', plate: ['a', 'b\u0000'] })).toBe('plate');
    expect(nulInQuery({ id: '1' })).toBeNull();
  });

  it('reads an empty body as {} and malformed JSON as a 400 in Chinese', () => {
    expect(parseJsonBody('  ')).toEqual({});
    expect(() => parseJsonBody('{"a":')).toThrow('请求体不是有效的JSON');
  });
});

describe('framework errors', () => {
  it('keeps the status of what Fastify refused and answers in Chinese', () => {
    expect(frameworkFailure({ code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414 })).toMatchObject({ status: 414, code: 1018, message: '请求地址中的参数过长' });
    expect(frameworkFailure({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 })).toMatchObject({ status: 415, code: 1011 });
    expect(frameworkFailure({ code: 'FST_SOMETHING_NEW', statusCode: 418 })).toMatchObject({ status: 400, code: 1001, message: '请求格式不正确，请检查后重试' });
    expect(frameworkFailure({ statusCode: 500 })).toBeNull();
    expect(frameworkFailure({})).toBeNull();
  });
});

describe('redaction', () => {
  it('removes secrets at any depth before a body reaches a log', () => {
    expect(redact({ password: 'p', nested: { captcha: '123456', token: 't', ok: 1 }, content: 'eyJ' })).toEqual({ password: '***', nested: { captcha: '***', token: '***', ok: 1 }, content: '***' });
    expect(auditJson({ a: 'x'.repeat(5000) }).length).toBeLessThan(600);
  });

  it('keeps ID numbers and phones masked in a log, at any depth, and leaves other numbers alone', () => {
    expect(redact({ idcard: '44130219900101123X', persons: [{ phone: '13812345678', id_card: '44130219900101123X' }], license_plate: '粤A12345', waybill: '13812345678' })).toEqual({
      idcard: '4413**********123X',
      persons: [{ phone: '138****5678', id_card: '4413**********123X' }],
      license_plate: '粤A12345',
      waybill: '13812345678',
    });
  });
});

describe('password hashing', () => {
  it('salts each hash and verifies only the right password', async () => {
    const a = await hashPassword('Passw0rd!');
    const b = await hashPassword('Passw0rd!');
    expect(a).not.toBe(b);
    expect(a.startsWith('scrypt$')).toBe(true);
    expect(await verifyPassword('Passw0rd!', a)).toBe(true);
    expect(await verifyPassword('passw0rd!', a)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
  });
});

describe('list parameters', () => {
  it('refuses objects where numbers belong instead of converting them (Number() of an object can throw)', async () => {
    const { pageQuery, optionalFilterInt } = await import('../../domain/schemas/common');
    expect(pageQuery.safeParse({ size: { toString: 'x' } }).success).toBe(false);
    expect(pageQuery.safeParse({ pn: { valueOf: 1, toString: 1 } }).success).toBe(false);
    expect(optionalFilterInt.safeParse({ toString: 'x' }).success).toBe(false);
    expect(pageQuery.parse({ size: '1000000000', pn: '2' })).toEqual({ size: 100, pn: 2 });
    expect(pageQuery.safeParse({ pn: 1e300 }).success).toBe(false);
  });
});
