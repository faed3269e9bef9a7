import fs from 'node:fs';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RouteInfo } from '../../server/core/context';

/**
 * What the wire-contract test measures (contract.test.ts): routes without a
 * declared answer, and API path literals outside domain/.
 */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const routeLabel = (r: RouteInfo) => `${r.method} ${r.url}`;

export const unansweredOf = (routes: RouteInfo[]) =>
  routes
    .filter((r) => !r.schema?.answer)
    .map(routeLabel)
    .sort();

/** Every string or template literal of each file in src/ and server/modules that is exactly one of the API's paths (with or without /api). */
export function pathLiteralsOf(routes: RouteInfo[]): Record<string, string[]> {
  const apiPaths = new Set(routes.map((r) => r.url.replace(/^\/api/, '')).filter((p) => p.split('/').length > 2));
  const files = execSync('git ls-files src server/modules', { cwd: repoRoot })
    .toString()
    .trim()
    .split('\n')
    .filter((f) => /\.(ts|tsx)$/.test(f) && fs.existsSync(path.join(repoRoot, f)));
  const found: Record<string, string[]> = {};
  for (const f of files) {
    const text = fs.readFileSync(path.join(repoRoot, f), 'utf8');
    const hits = [...text.matchAll(/['"`](\/[A-Za-z][\w/:.-]*)['"`]/g)].map((m) => m[1]!).filter((p) => apiPaths.has(p.replace(/^\/api(?=\/)/, '')));
    if (hits.length) found[f] = hits;
  }
  return found;
}
