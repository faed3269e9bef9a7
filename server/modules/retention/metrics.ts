import type { FastifyInstance } from 'fastify';
import { Counter, Gauge } from 'prom-client';
import { RETENTION_CLASSES, type RetentionClass } from '../../../domain/retention';
import type { AppContext } from '../../core/context';
import { within } from '../../ops/health';
import { metricsRegistryOf } from '../../ops/metrics';

/**
 * The retention run's metrics, in the app's own registry (ops/metrics.ts):
 * rows this process removed or anonymised, by class (a counter, summed over
 * the processes of a cluster), and when the last run over the database ended
 * without error (read from retention_run; every process reads the same, so
 * the cluster's figure is their maximum).
 */

const removedBy = new WeakMap<AppContext, Counter<'class'>>();

/** Past this the gauge is left out of the scrape rather than holding it. */
const READ_TIMEOUT_MS = 5_000;

/**
 * The app's registry, from inside an area: areas register as encapsulated plugins, whose instance is made with
 * Object.create of the app's, so the app the metrics were registered on is up the prototype chain.
 */
function registryOf(app: FastifyInstance) {
  for (let at: object | null = app; at; at = Object.getPrototypeOf(at) as object | null) {
    try {
      return metricsRegistryOf(at as FastifyInstance);
    } catch {
      // Not this one: look further up.
    }
  }
  return null;
}

export function registerRetentionMetrics(app: FastifyInstance): void {
  const registry = registryOf(app);
  // An app built without the operators' routes (a script) has no metrics to add to.
  if (!registry) return;
  const removed = new Counter({
    name: 'park_retention_rows_total',
    help: '数据保留清理删除或匿名化的行数（本进程），按数据类别',
    labelNames: ['class'] as const,
    registers: [registry],
  });
  // Every class from the start, so a rate over a class that has nothing to take yet is 0, not absent.
  for (const c of RETENTION_CLASSES) removed.inc({ class: c }, 0);
  removedBy.set(app.ctx, removed);

  const { db } = app.ctx;
  new Gauge({
    name: 'park_retention_last_run_timestamp_seconds',
    help: '最近一次无错误完成的数据保留清理的结束时间（Unix 秒）',
    registers: [registry],
    aggregator: 'max',
    // No sample before the first run: an alert on its age then fires on `absent`, not on a made-up zero.
    async collect() {
      this.reset();
      this.remove({});
      const last = await within(
        db
          .selectFrom('retention_run')
          .select((eb) => eb.fn.max('finished_ms').as('at'))
          .where('error', 'is', null)
          .where('finished_ms', 'is not', null)
          .executeTakeFirst(),
        READ_TIMEOUT_MS,
      ).catch((err: unknown) => {
        app.log.warn({ err }, 'metrics: reading the last retention run failed');
        return undefined;
      });
      if (last?.at !== null && last?.at !== undefined) this.set(Number(last.at) / 1000);
    },
  });
}

/** Counts rows a run of this process took. */
export function countRemoved(ctx: AppContext, key: RetentionClass, rows: number): void {
  removedBy.get(ctx)?.inc({ class: key }, rows);
}
