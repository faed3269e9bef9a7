import { ErrorCode } from '../../domain/errors';
import { AppError } from './errors';

/**
 * Fixed-window counters kept in memory. Enough for one server; several servers
 * behind a balancer each count on their own (docs/decisions.md).
 */
export class RateLimiter {
  private hits = new Map<string, { count: number; resetAt: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one hit; throws 429 with the wait in minutes when over the limit. */
  hit(key: string, what: string): void {
    const t = this.now();
    const cur = this.hits.get(key);
    if (!cur || cur.resetAt <= t) {
      this.hits.set(key, { count: 1, resetAt: t + this.windowMs });
      if (this.hits.size > 50_000) this.sweep(t);
      return;
    }
    cur.count += 1;
    if (cur.count > this.limit) {
      const minutes = Math.max(1, Math.ceil((cur.resetAt - t) / 60_000));
      throw new AppError(ErrorCode.RATE_LIMITED, `${what}过于频繁，请${minutes}分钟后再试`);
    }
  }

  reset(key: string) {
    this.hits.delete(key);
  }

  private sweep(t: number) {
    for (const [k, v] of this.hits) if (v.resetAt <= t) this.hits.delete(k);
  }
}
