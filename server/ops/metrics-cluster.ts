import cluster, { type Worker } from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { AggregatorRegistry } from 'prom-client';
import { metricsRegistryOf, setProcessMetricsSource } from './metrics';

/**
 * /metrics with WEB_CONCURRENCY (server/main.ts): node:cluster hands a scrape
 * to any one worker, which alone knows only its own calls. That worker asks
 * the primary over IPC; the primary gathers every worker's registry through
 * prom-client's AggregatorRegistry (it sends each worker a request that
 * prom-client answers in the worker) and sends back the aggregated text.
 * Counters and histograms are summed; each metric's `aggregator` says
 * otherwise ('min' for the readiness checks). The figures read from the
 * database are not in it: the answering worker reads them itself (ops/metrics.ts).
 *
 * These messages never look like main.ts's Relay messages, so its relay
 * ignores them, and these listeners ignore its.
 */

const ASK = 'park:metrics-ask';
const ANSWER = 'park:metrics-answer';
type Ask = { type: typeof ASK; id: number };
type Answer = { type: typeof ANSWER; id: number; text?: string; error?: string };

const isAsk = (m: unknown): m is Ask => (m as Ask | null)?.type === ASK && typeof (m as Ask).id === 'number';
const isAnswer = (m: unknown): m is Answer => (m as Answer | null)?.type === ANSWER && typeof (m as Answer).id === 'number';

/** Longer than prom-client's own 5 s wait for the workers, so its error (not ours) is what a slow worker causes. */
const ASK_TIMEOUT_MS = 8_000;

/** In the primary: answers each worker's ask with every worker's metrics, aggregated. */
export function answerMetricsInPrimary(): void {
  const aggregator = new AggregatorRegistry();
  const reply = (worker: Worker, answer: Answer) => {
    if (worker.isConnected()) worker.send(answer);
  };
  cluster.on('message', (worker, message: unknown) => {
    if (!isAsk(message)) return;
    aggregator.clusterMetrics().then(
      (text) => reply(worker, { type: ANSWER, id: message.id, text }),
      (err: unknown) => reply(worker, { type: ANSWER, id: message.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

/** In a worker: hands its registry to the primary's aggregation, and has its /metrics answer the primary's aggregate beside the figures. */
export function askPrimaryForMetrics(app: FastifyInstance): void {
  // Making one installs prom-client's answer to the primary's requests in this process; setRegistries says what it sends.
  void new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metricsRegistryOf(app)]);

  const pending = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();
  let seq = 0;
  process.on('message', (message: unknown) => {
    if (!isAnswer(message)) return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (typeof message.text === 'string') waiting.resolve(message.text);
    else waiting.reject(new Error(`the primary could not aggregate the metrics: ${message.error ?? 'no answer'}`));
  });

  setProcessMetricsSource(
    app,
    () =>
      new Promise<string>((resolve, reject) => {
        if (!process.send || !process.connected) return reject(new Error('the primary is gone: no metrics to aggregate'));
        const id = ++seq;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`the primary did not answer for the metrics within ${ASK_TIMEOUT_MS} ms`));
        }, ASK_TIMEOUT_MS);
        pending.set(id, { resolve, reject, timer });
        process.send({ type: ASK, id } satisfies Ask);
      }),
  );
}
