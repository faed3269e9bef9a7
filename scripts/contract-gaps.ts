import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../server/app';
import { loadConfig } from '../server/config';
import { gapsFile, repoRoot } from '../tests/api/contract-scan';

/** Rewrites tests/api/contract-gaps.ts from the routes as registered and the files as they are (see contract.test.ts). */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'park-gaps-'));
const app = await buildApp(loadConfig({ DATA_DIR: dataDir, SEED_DEMO: '0', SEED_GATE_HISTORY: '0', LOG_LEVEL: 'warn' }, { staticDir: undefined }));
await app.ready();
const routes = app.ctx.routes.filter((r) => r.url.startsWith('/api'));
fs.writeFileSync(path.join(repoRoot, 'tests/api/contract-gaps.ts'), gapsFile(routes));
await app.close();
fs.rmSync(dataDir, { recursive: true, force: true });
console.log('tests/api/contract-gaps.ts rewritten');
