import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envelopeOf, pageOf } from '../../domain/contract';
import { answerMismatch } from '../../server/core/route-schema';

/** Test servers hold each answer to its declaration (CHECK_ANSWERS): what counts as a mismatch. */
describe('answerMismatch', () => {
  const row = z.object({ id: z.number().int(), name: z.string(), note: z.string().nullable() });
  const schema = envelopeOf(pageOf(row));
  const ok = (list: unknown[]) => ({ success: true, code: 1000, msg: 'ok', message: 'ok', data: { list, total: list.length } });

  it('passes an answer that is what the declaration says', () => {
    expect(answerMismatch(schema, ok([{ id: 1, name: 'a', note: null }]))).toBeNull();
  });
  it('names a field of the wrong type, with its path', () => {
    expect(answerMismatch(schema, ok([{ id: 1, name: 2, note: null }]))).toMatch(/^data\.list\.0\.name: /);
  });
  it('names a field the declaration does not have, though zod would drop it silently', () => {
    expect(answerMismatch(schema, ok([{ id: 1, name: 'a', note: null, secret: 'x' }]))).toBe('data.list[0].secret: not in the declared answer');
  });
  it('compares the wire form: an undefined field is not sent, a Date is its ISO text', () => {
    expect(answerMismatch(schema, ok([{ id: 1, name: 'a', note: null, later: undefined }]))).toBeNull();
    expect(answerMismatch(envelopeOf(z.object({ at: z.string() })), { ...ok([]), data: { at: new Date(0) } })).toBeNull();
  });
  it('refuses a failure body under a success declaration', () => {
    expect(answerMismatch(schema, { success: false, code: 1001, msg: 'x', message: 'x', data: null })).not.toBeNull();
  });
});
