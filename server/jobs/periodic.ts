import type { FastifyInstance } from 'fastify';

/**
 * Runs `work` now and then every `everyMs` in this server, never two runs at
 * once (a slow run makes the next tick skip), with failures logged rather
 * than thrown. Returns the stop function for shutdown. Every server runs its
 * jobs; each job's own conditional writes make overlapping servers safe.
 */
export function startPeriodic(app: FastifyInstance, what: string, everyMs: number, work: () => Promise<void>): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await work();
    } catch (err) {
      app.log.error({ err }, `${what} failed`);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
