// Subject hashes for a full allow-list (started by allowlist.ts hashInBatches): HMAC-SHA-256 under the gate's key of
// each newline-separated subject text, the first `bytes` bytes of each, posted end to end `batch` subjects at a time
// so the list is written while the rest is hashed. In a thread, so that 100,000 HMACs hold no request up and share
// the machine's cores; plain JavaScript, so that it starts without a TypeScript loader.
import { createHmac, createSecretKey } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';

/** @type {{ key: Uint8Array, text: string, bytes: number, batch: number }} */
const { key, text, bytes, batch } = workerData;
const hmacKey = createSecretKey(Buffer.from(key));
const subjects = text.split('\n');
for (let start = 0; start < subjects.length; start += batch) {
  const n = Math.min(batch, subjects.length - start);
  const out = new Uint8Array(n * bytes);
  for (let i = 0; i < n; i++)
    createHmac('sha256', hmacKey)
      .update(subjects[start + i])
      .digest()
      .copy(out, i * bytes, 0, bytes);
  parentPort?.postMessage({ start, out }, [out.buffer]);
}
parentPort?.postMessage(null);
