/**
 * First-load JavaScript budgets per screen, measured on a finished build
 * (`npx vite build`, or pass another dist folder: `npx tsx scripts/size.ts .tmp/dist-shell`).
 * Builds nothing. A screen's first load = the entry script and modulepreloads of
 * index.html, the route's lazy chunks from the Vite manifest, and every chunk
 * those import statically, each counted once, gzipped. Exits 1 over budget.
 * Unless --no-lighthouse, scripts/performance.ts then serves the build and adds
 * what only a browser can tell: Lighthouse scores of first and returning visits,
 * and the scripts a first visit to /login and to '/' (signed out, where the entry
 * decides at run time) really requests, both held to the login budget.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

export interface ScreenBudget {
  screen: string;
  /** Manifest keys (source paths) of the route's lazily loaded modules, in load order. */
  routeModules: string[];
  budgetKb: number;
}

export interface ScreenReport {
  screen: string;
  files: Array<{ file: string; gzipKb: number }>;
  totalKb: number;
  budgetKb: number;
  ok: boolean;
}

/** The budgets the brief fixes. The signed-in home also loads the shell route (layout, react-query). */
export const budgets: ScreenBudget[] = [
  { screen: '登录 /login', routeModules: [], budgetKb: 120 },
  { screen: '首页 / (已登录)', routeModules: ['src/app/app-shell.tsx', 'src/features/home/home-page.tsx'], budgetKb: 250 },
];

const KB = 1024;

/** Static imports in built ES modules: `import x from"./a.js"`, `import"./b.js"`, `export{y}from"./c.js"`; never `import("./d.js")`. */
export function staticImports(code: string): string[] {
  const out: string[] = [];
  const re = /(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{},\s]+?\s*from\s*)?["']([^"']+\.m?js)["']/g;
  for (const m of code.matchAll(re)) out.push(m[1]);
  return out;
}

function entryFiles(dist: string): string[] {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const files: string[] = [];
  for (const m of html.matchAll(/<script\b[^>]*\btype=["']module["'][^>]*\bsrc=["']([^"']+)["']/g)) files.push(m[1]);
  for (const m of html.matchAll(/<link\b[^>]*\brel=["']modulepreload["'][^>]*\bhref=["']([^"']+)["']/g)) files.push(m[1]);
  return files.map((f) => f.replace(/^\//, ''));
}

/** Adds `file` and everything it imports statically (from the built code itself, so nothing Vite hoists is missed). */
function closure(dist: string, start: string[], seen: Set<string>): void {
  const stack = [...start];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(join(dist, file), 'utf8');
    for (const spec of staticImports(code)) {
      if (/^[a-z]+:/i.test(spec)) continue;
      const next = spec.startsWith('/') ? spec.slice(1) : posix.normalize(posix.join(posix.dirname(file), spec));
      if (!seen.has(next)) stack.push(next);
    }
  }
}

function gzipKb(dist: string, file: string): number {
  return gzipSync(readFileSync(join(dist, file)), { level: 9 }).length / KB;
}

export function measureScreens(dist: string, list: ScreenBudget[] = budgets): ScreenReport[] {
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8')) as Manifest;
  const entry = entryFiles(dist);
  return list.map((b) => {
    const files = new Set<string>();
    closure(dist, entry, files);
    for (const key of b.routeModules) {
      const chunk = manifest[key];
      if (!chunk) throw new Error(`${key} is not in the Vite manifest: is it still lazily imported?`);
      closure(dist, [chunk.file], files);
    }
    const rows = [...files].filter((f) => f.endsWith('.js')).map((file) => ({ file, gzipKb: gzipKb(dist, file) }));
    rows.sort((a, b) => b.gzipKb - a.gzipKb);
    const totalKb = rows.reduce((s, r) => s + r.gzipKb, 0);
    return { screen: b.screen, files: rows, totalKb, budgetKb: b.budgetKb, ok: totalKb <= b.budgetKb };
  });
}

/**
 * Lighthouse (to be added) plugs in here: it runs against a served build and
 * returns its own rows; main() prints and gates them like the JS budgets.
 */
export type Collector = (dist: string) => Promise<ScreenReport[]> | ScreenReport[];
export const collectors: Collector[] = [(dist) => measureScreens(dist)];

function print(reports: ScreenReport[], verbose: boolean): void {
  const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - [...s].reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 ? 2 : 1), 0)));
  console.log(`${pad('screen', 24)}${pad('first-load JS (KB gzip)', 26)}${pad('budget', 10)}result`);
  for (const r of reports) {
    console.log(`${pad(r.screen, 24)}${pad(r.totalKb.toFixed(1), 26)}${pad(String(r.budgetKb), 10)}${r.ok ? 'ok' : 'OVER'}`);
    if (verbose || !r.ok) for (const f of r.files) console.log(`    ${f.gzipKb.toFixed(1).padStart(7)}  ${f.file}`);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const verbose = args.includes('--verbose') || args.includes('-v');
  const dist = resolve(args.find((a) => !a.startsWith('-')) ?? 'dist');
  if (!existsSync(join(dist, '.vite', 'manifest.json'))) {
    console.error(`${dist}/.vite/manifest.json not found: build first (npx vite build) with build.manifest enabled.`);
    process.exit(2);
  }
  const reports = (await Promise.all(collectors.map((c) => c(dist)))).flat();
  print(reports, verbose);
  let ok = reports.every((r) => r.ok);
  if (!args.includes('--no-lighthouse')) {
    const { measurePerformance, printPerformance } = await import('./performance');
    const perf = await measurePerformance(dist);
    printPerformance(perf, verbose);
    ok &&= perf.ok;
  }
  process.exit(ok ? 0 : 1);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('size.ts')) void main();
