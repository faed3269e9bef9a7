// A worker thread does not inherit the loader that lets the server run TypeScript
// (tsx, under `tsx server/main.ts` and under vitest alike), so it registers its own
// before loading the worker's TypeScript body.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
