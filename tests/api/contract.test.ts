import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../server/core/context';
import { pathLiteralGaps, unansweredRoutes } from './contract-gaps';
import { pathLiteralsOf, unansweredOf } from './contract-scan';
import { Client, startServer, type TestServer } from './harness';

/**
 * The wire contract is declared once, in domain/ (domain/contract.ts): every
 * route says its answer, and neither the client nor a server module writes an
 * API path of its own. Routes and files not yet moved are listed in
 * contract-gaps.ts, a list that may only shrink: a new route without an
 * answer, a new path literal, or a listed gap that has been closed all fail.
 */

describe('the wire contract', () => {
  let server: TestServer;
  let routes: RouteInfo[];

  beforeAll(async () => {
    server = await startServer('sqlite');
    routes = server.app.ctx.routes.filter((r) => r.url.startsWith('/api'));
  });
  afterAll(async () => server?.close());

  it('has every route declare its answer (a JSON answer or a file)', () => {
    const unanswered = unansweredOf(routes);
    const gaps = new Set(unansweredRoutes);
    expect(
      unanswered.filter((r) => !gaps.has(r)),
      'routes without a declared answer (declare it in domain/; contract-gaps.ts lists only routes older than the contract)',
    ).toEqual([]);
    expect(
      unansweredRoutes.filter((r) => !unanswered.includes(r)),
      'routes that now declare their answer: run `npx tsx scripts/contract-gaps.ts`',
    ).toEqual([]);
  });

  it('keeps API paths out of src/ and out of server/modules routes: they are read from the declarations', () => {
    const found = pathLiteralsOf(routes);
    const over = Object.entries(found)
      .filter(([f, hits]) => hits.length > (pathLiteralGaps[f] ?? 0))
      .map(([f, hits]) => `${f}: ${hits.length} (allowed ${pathLiteralGaps[f] ?? 0}): ${hits.join(', ')}`);
    expect(over, 'API path literals outside domain/: call the declared call instead').toEqual([]);
    const closed = Object.entries(pathLiteralGaps)
      .filter(([f, n]) => (found[f]?.length ?? 0) < n)
      .map(([f, n]) => `${f}: ${found[f]?.length ?? 0} < ${n}`);
    expect(closed, 'files with fewer path literals than contract-gaps.ts allows: run `npx tsx scripts/contract-gaps.ts`').toEqual([]);
  });

  it('holds an answer to its declaration: a field the declaration does not name is a 500 on a test server', async () => {
    const admin = await new Client(server).as('admin');
    const page = await admin.post('/vehicleType/page', { size: 10, pn: 1 });
    expect(page.status).toBe(200);
    const json = (await (await fetch(`${server.base}/api/openapi.json`)).json()) as { data?: unknown };
    const doc = (json.data ?? json) as { paths: Record<string, Record<string, any>> };
    const answer = doc.paths['/api/vehicleType/page']!.post.responses['200'].content['application/json'].schema.properties.data;
    expect(answer.properties.list.items.properties.dwell_limit_minutes).toBeTruthy();
    expect(answer.properties.total).toBeTruthy();
  });
});
