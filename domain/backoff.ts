/** The spec's retry helper: exponential backoff, 6 steps, first delay 1000 ms, multiplier 2. */
export const BACKOFF = { steps: 6, initialMs: 1000, factor: 2 } as const;

/** Delay before retry number `attempt` (0-based); undefined once the steps are used up. */
export function backoffDelay(attempt: number, opts: { steps: number; initialMs: number; factor: number } = BACKOFF): number | undefined {
  if (attempt < 0 || attempt >= opts.steps) return undefined;
  return opts.initialMs * opts.factor ** attempt;
}
