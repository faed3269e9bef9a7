import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../server/core/rate-limit';
import { auditJson, redact } from '../../server/core/redact';
import { hashPassword, verifyPassword } from '../../server/core/crypto';

describe('rate limiter', () => {
  it('allows the limit per window, then answers 429 with the wait', () => {
    let t = 0;
    const rl = new RateLimiter(2, 60_000, () => t);
    rl.hit('k', '登录尝试');
    rl.hit('k', '登录尝试');
    expect(() => rl.hit('k', '登录尝试')).toThrow('登录尝试过于频繁，请1分钟后再试');
    t = 60_001;
    expect(() => rl.hit('k', '登录尝试')).not.toThrow();
  });
});

describe('redaction', () => {
  it('removes secrets at any depth before a body reaches a log', () => {
    expect(redact({ password: 'p', nested: { captcha: '123456', token: 't', ok: 1 }, content: 'eyJ' })).toEqual({ password: '***', nested: { captcha: '***', token: '***', ok: 1 }, content: '***' });
    expect(auditJson({ a: 'x'.repeat(5000) }).length).toBeLessThan(600);
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
