import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

function files(dir: string): string[] {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx)$/.test(e.name))
    .map((e) => path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
}

function imports(file: string): string[] {
  const src = fs.readFileSync(file, 'utf8');
  return [...src.matchAll(/(?:import|export)[^'"`]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]);
}

const resolveIn = (file: string, spec: string) => (spec.startsWith('.') ? path.relative(root, path.resolve(path.dirname(file), spec)) : spec);

describe('module boundaries (bulletproof-react style, DESIGN.md §7)', () => {
  it('features never import another feature', () => {
    const offenders: string[] = [];
    for (const f of files('src/features')) {
      const own = path.relative(path.join(root, 'src/features'), f).split(path.sep)[0];
      for (const spec of imports(f)) {
        const target = resolveIn(f, spec);
        const m = /^src\/features\/([^/]+)/.exec(target.split(path.sep).join('/'));
        if (m && m[1] !== own) offenders.push(`${path.relative(root, f)} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('shared folders never import features (only the app router does)', () => {
    const offenders: string[] = [];
    for (const dir of ['src/lib', 'src/list-screen', 'src/components']) {
      for (const f of files(dir)) {
        for (const spec of imports(f)) if (resolveIn(f, spec).split(path.sep).join('/').startsWith('src/features/')) offenders.push(`${path.relative(root, f)} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('domain/ imports neither DOM, React nor Node, nor the server or the UI', () => {
    const offenders: string[] = [];
    for (const f of files('domain')) {
      for (const spec of imports(f)) {
        const target = resolveIn(f, spec).split(path.sep).join('/');
        const bad = spec.startsWith('node:') || /^(react|react-dom|fastify|kysely|pg|better-sqlite3|axios|antd-mobile)(\/|$)/.test(spec) || /^(src|server|server-push|sw)\//.test(target);
        if (bad) offenders.push(`${path.relative(root, f)} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('server/core and server/db import nothing from server/modules (issue 25)', () => {
    const offenders: string[] = [];
    for (const f of [...files('server/core'), ...files('server/db')])
      for (const s of imports(f)) if (resolveIn(f, s).split(path.sep).join('/').startsWith('server/modules/')) offenders.push(`${path.relative(root, f)} -> ${s}`);
    expect(offenders).toEqual([]);
  });

  it('server-push imports nothing from server/: its storage is the PushStore the server implements (issue 25)', () => {
    const offenders: string[] = [];
    for (const f of files('server-push')) for (const s of imports(f)) if (resolveIn(f, s).split(path.sep).join('/').startsWith('server/')) offenders.push(`${path.relative(root, f)} -> ${s}`);
    expect(offenders).toEqual([]);
  });

  it('the server never imports UI code, and the UI never imports server code', () => {
    const offenders: string[] = [];
    for (const f of [...files('server'), ...files('server-push')])
      for (const s of imports(f)) if (/^(src|sw)\//.test(resolveIn(f, s).split(path.sep).join('/'))) offenders.push(`${path.relative(root, f)} -> ${s}`);
    for (const f of [...files('src'), ...files('sw')])
      for (const s of imports(f)) if (/^(server|server-push)\//.test(resolveIn(f, s).split(path.sep).join('/'))) offenders.push(`${path.relative(root, f)} -> ${s}`);
    expect(offenders).toEqual([]);
  });

  it('the shell in src/app stacks one way: no circle through its files, counting lazy imports and the pages it loads (issue 25)', () => {
    // A node per file of src/ (extension and /index dropped), an edge per import, static or dynamic.
    const norm = (p: string) =>
      p
        .split(path.sep)
        .join('/')
        .replace(/\.(tsx?|ts)$/, '')
        .replace(/\/index$/, '');
    const graph = new Map<string, string[]>();
    for (const f of files('src'))
      graph.set(
        norm(path.relative(root, f)),
        imports(f)
          .filter((s) => s.startsWith('.'))
          .map((s) => norm(resolveIn(f, s))),
      );
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (node: string, trail: string[]) => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'open') {
        const circle = trail.slice(trail.indexOf(node));
        if (circle.some((n) => n.startsWith('src/app/'))) circles.push([...circle, node].join(' -> '));
        return;
      }
      state.set(node, 'open');
      for (const next of graph.get(node) ?? []) if (graph.has(next)) walk(next, [...trail, node]);
      state.set(node, 'done');
    };
    for (const f of graph.keys()) if (f.startsWith('src/app/')) walk(f, []);
    expect(circles).toEqual([]);
  });
});
