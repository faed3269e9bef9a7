import fs from 'node:fs';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../server/core/context';
import { pathLiteralGaps, unansweredRoutes } from './contract-gaps';
import { Client, startServer, type TestServer } from './harness';

/**
 * The wire contract is declared once, in domain/ (domain/contract.ts): every
 * route says its answer, and neither the client nor a server module writes an
 * API path of its own. Routes and files not yet moved are listed in
 * contract-gaps.ts, a list that may only shrink: a new route without an
 * answer, a new path literal, or a listed gap that has been closed all fail.
 */

const label = (r: RouteInfo) => `${r.method} ${r.url}`;
const repoRoot = path.resolve(__dirname, '../..');

/** Every string or template literal in a source file that is exactly one of the API's paths (with or without /api). */
function pathLiterals(file: string, apiPaths: Set<string>): string[] {
  const text = fs.readFileSync(path.join(repoRoot, file), 'utf8');
  return [...text.matchAll(/['"`](\/[A-Za-z][\w/:.-]*)['"`]/g)].map((m) => m[1]!).filter((p) => apiPaths.has(p.replace(/^\/api(?=\/)/, '')));
}

describe('the wire contract', () => {
  let server: TestServer;
  let routes: RouteInfo[];

  beforeAll(async () => {
    server = await startServer('sqlite');
    routes = server.app.ctx.routes.filter((r) => r.url.startsWith('/api'));
  });
  afterAll(async () => server?.close());

  it('has every route declare its answer (a JSON answer or a file)', () => {
    const unanswered = routes
      .filter((r) => !r.schema?.answer)
      .map(label)
      .sort();
    const gaps = new Set(unansweredRoutes);
    expect(
      unanswered.filter((r) => !gaps.has(r)),
      'routes without a declared answer (declare it in domain/; contract-gaps.ts lists only routes older than the contract)',
    ).toEqual([]);
    expect(
      unansweredRoutes.filter((r) => !unanswered.includes(r)),
      'routes that now declare their answer: take them off unansweredRoutes in contract-gaps.ts',
    ).toEqual([]);
  });

  it('keeps API paths out of src/ and out of server/modules routes: they are read from the declarations', () => {
    const apiPaths = new Set(routes.map((r) => r.url.replace(/^\/api/, '')).filter((p) => p.split('/').length > 2));
    const files = execSync('git ls-files src server/modules', { cwd: repoRoot })
      .toString()
      .trim()
      .split('\n')
      .filter((f) => /\.(ts|tsx)$/.test(f));
    const found: Record<string, number> = {};
    for (const f of files) {
      const n = pathLiterals(f, apiPaths).length;
      if (n) found[f] = n;
    }
    const over = Object.entries(found)
      .filter(([f, n]) => n > (pathLiteralGaps[f] ?? 0))
      .map(([f, n]) => `${f}: ${n} (allowed ${pathLiteralGaps[f] ?? 0}): ${pathLiterals(f, apiPaths).join(', ')}`);
    expect(over, 'API path literals outside domain/: call the declared call instead').toEqual([]);
    const closed = Object.entries(pathLiteralGaps)
      .filter(([f, n]) => (found[f] ?? 0) < n)
      .map(([f, n]) => `${f}: ${found[f] ?? 0} < ${n}`);
    expect(closed, 'files with fewer path literals than contract-gaps.ts allows: lower pathLiteralGaps').toEqual([]);
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
