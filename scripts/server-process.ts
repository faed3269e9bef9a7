import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/**
 * The real entry point (server/main.ts) in a child process, as `npm run serve`
 * starts it: what the bench measures with one process and with every core
 * (WEB_CONCURRENCY), and what the several-process suite drives from outside.
 */
export interface ServerProcess {
  base: string;
  primary: ChildProcess;
  /** Server processes under the primary (empty with WEB_CONCURRENCY=1: the primary serves). */
  workers(): number[];
  /** Everything the processes printed. */
  output(): string;
  /** SIGTERM, then the primary's exit code. */
  stop(): Promise<number | null>;
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/**
 * The server processes a primary forked: its children running server/main.ts. It has others: tsx's esbuild
 * service, when no transform is cached yet (a fresh clone).
 */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('server/main.ts'))
      .map((l) => Number(l.trim().split(/\s+/)[0]))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts server/main.ts on a free loopback port with `env` over this
 * process's environment (DATA_DIR at least), and resolves once it answers
 * and, with WEB_CONCURRENCY above one, once every process has started.
 */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const processes = Number(env.WEB_CONCURRENCY ?? 1);
  const primary = spawn(process.execPath, ['--import', 'tsx', path.resolve('server/main.ts')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  primary.stdout!.on('data', (d) => (out += d));
  primary.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => primary.once('exit', (code) => resolve(code)));
  // A bench or suite that dies must not leave its servers running.
  const orphanGuard = () => primary.kill('SIGTERM');
  process.once('exit', orphanGuard);
  void exited.then(() => process.off('exit', orphanGuard));
  await waitFor(`the server answering on ${base}`, async () => {
    if (primary.exitCode !== null) throw new Error(`the server exited with ${primary.exitCode}: ${out}`);
    return fetch(`${base}/api/system/version`).then(
      (r) => r.ok,
      () => false,
    );
  });
  // node:cluster hands out connections as soon as the first process listens; measure only with all of them up.
  if (processes > 1)
    await waitFor(`${processes} server processes`, () => childrenOf(primary.pid!).length === processes).catch((err: Error) => {
      primary.kill('SIGTERM');
      throw new Error(`${err.message} (processes: ${childrenOf(primary.pid!).join(', ') || 'none'}; output: ${out.slice(-2000)})`);
    });
  return {
    base,
    primary,
    workers: () => childrenOf(primary.pid!),
    output: () => out,
    async stop() {
      if (primary.exitCode === null) primary.kill('SIGTERM');
      return exited;
    },
  };
}
