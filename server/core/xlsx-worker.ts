import { parentPort, workerData } from 'node:worker_threads';
import { readSheet, type ReadOptions } from './xlsx-reader';

/** The worker's body (started by xlsx-off-thread.ts): one workbook read, its answer posted, then the thread ends. */
const { data, options } = workerData as { data: Uint8Array; options: ReadOptions };
parentPort!.postMessage(await readSheet(Buffer.from(data.buffer, data.byteOffset, data.byteLength), options));
