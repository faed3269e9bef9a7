import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SUBJECT_HASH_BYTES, normaliseSubject } from '../../domain/offline-gate';
import { hashInBatches } from '../../server/modules/devices/allowlist';

describe("a full allow-list's subject hashes", () => {
  it('come out of the threads in batches as HMAC-SHA-256 of each subject, each once', async () => {
    const key = randomBytes(32);
    // Past the threads' threshold, with a share that does not divide evenly and subjects of both kinds and lengths.
    const records = Array.from({ length: 12_345 }, (_, i) =>
      i % 3
        ? { kind: 'car' as const, subject: `粤${String.fromCharCode(65 + (i % 26))}${i.toString(36).toUpperCase().padStart(5, '0')}` }
        : { kind: 'person' as const, subject: `4401${String(i).padStart(13, '0')}x` },
    );
    const hashes: string[] = [];
    await hashInBatches(records, createSecretKey(key), (start, batch) => {
      batch.forEach((h, i) => {
        expect(hashes[start + i], `record ${start + i} hashed once`).toBeUndefined();
        hashes[start + i] = h;
      });
    });
    expect(hashes.filter((h) => h !== undefined)).toHaveLength(records.length);
    for (const i of [0, 1, 2, 6_172, 6_173, 12_344, ...Array.from({ length: 127 }, (_, k) => k * 97)]) {
      const r = records[i]!;
      expect(hashes[i], `record ${i}`).toBe(createHmac('sha256', key).update(normaliseSubject(r.kind, r.subject)).digest().subarray(0, SUBJECT_HASH_BYTES).toString('base64url'));
    }
  });
});
