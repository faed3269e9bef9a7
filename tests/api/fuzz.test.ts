import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreAdmin } from '../../scripts/reliability/common';
import { apiRoutes, firstExamples, runFuzz, type FuzzFailure } from '../../scripts/reliability/fuzz-probe';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * A small pass of the reliability fuzzer (scripts/reliability/fuzz.ts, same
 * bodies) over every registered route, so that a new route cannot land with
 * a 500 or a non-envelope answer on bad input. FUZZ_TEST_BODIES changes the
 * number of bodies per route.
 */
const BODIES = Number(process.env.FUZZ_TEST_BODIES) || 20;
// The suite shares two cores with the other API files: "slow" here means stuck, not merely loaded.
const SLOW_MS = 15_000;

const describeFailure = (f: FuzzFailure) =>
  `[${f.kind}] ${f.route} case ${f.index} (${f.family}, ${f.auth}${f.idempotencyKey ? ', Idempotency-Key' : ''}): sent ${f.summary.slice(0, 200)} → ${f.status} ${f.answer.slice(0, 300)}`;

for (const dialect of await dialects()) {
  describe(`fuzz every route (${dialect})`, () => {
    let server: TestServer;
    let token = '';

    beforeAll(async () => {
      server = await startServer(dialect, { rateLimits: { captchaPerAccount: 100_000, captchaPerIp: 100_000, loginPerAccount: 100_000, loginPerIp: 100_000 } });
      token = (await new Client(server).as('admin')).token!;
    });
    afterAll(async () => server?.close());

    it(`answers ${BODIES} malformed requests per route with an envelope, never 5xx`, { timeout: 240_000 }, async () => {
      const routes = apiRoutes(server.app.ctx.routes);
      expect(routes.length).toBeGreaterThan(50);
      const result = await runFuzz({
        origin: server.base,
        routes,
        count: BODIES,
        concurrency: 4,
        slowMs: SLOW_MS,
        tokens: {
          admin: () => token,
          renew: async () => (token = (await new Client(server).as('admin')).token!),
          repair: () => restoreAdmin(server.app.ctx.db),
        },
      });
      expect(result.sent).toBe(routes.length * BODIES);
      expect(firstExamples(result.failures, 5).map(describeFailure)).toEqual([]);
    });
  });
}
