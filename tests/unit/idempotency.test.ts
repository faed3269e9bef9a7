import { describe, expect, it } from 'vitest';
import { canonicalJson, jsonFingerprint } from '../../server/core/idempotency';

describe('idempotency body hash', () => {
  it('ignores key order at every level but not array order or values', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(jsonFingerprint({ x: 1, y: { p: 'a', q: 'b' } })).toBe(jsonFingerprint({ y: { q: 'b', p: 'a' }, x: 1 }));
    expect(jsonFingerprint({ ids: [1, 2] })).not.toBe(jsonFingerprint({ ids: [2, 1] }));
    expect(jsonFingerprint({ n: 1 })).not.toBe(jsonFingerprint({ n: '1' }));
  });

  it('treats absent and undefined fields alike, as JSON does, and counts the query string', () => {
    expect(jsonFingerprint({ a: 1, b: undefined })).toBe(jsonFingerprint({ a: 1 }));
    expect(jsonFingerprint(undefined)).toBe(jsonFingerprint(null));
    expect(jsonFingerprint({ a: 1 }, { id: '3' })).not.toBe(jsonFingerprint({ a: 1 }, { id: '4' }));
  });
});
