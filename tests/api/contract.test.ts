import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../server/core/context';
import { pathLiteralsOf, unansweredOf } from './contract-scan';
import { Client, startServer, type TestServer } from './harness';

/**
 * The wire contract is declared once, in domain/ (domain/contract.ts): every
 * route says its answer, and neither the client nor a server module writes an
 * API path of its own.
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
    expect(routes.length).toBeGreaterThan(200);
    expect(unansweredOf(routes), 'routes without a declared answer: declare the call in domain/ and register it with route()').toEqual([]);
  });

  it('keeps API paths out of src/ and out of server/modules: they are read from the declarations', () => {
    expect(pathLiteralsOf(routes), 'API path literals outside domain/: call the declared call instead').toEqual({});
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
