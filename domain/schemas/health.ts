import { z } from 'zod';
import { col, defineCall } from '../contract';

/**
 * Health probes for operators and load balancers (docs/operations.md). Both
 * are open to anyone: a balancer holds no session. They answer nothing
 * personal and write nothing to the database.
 */

/** What the readiness probe checks, in the order it lists them. */
export const READY_CHECKS = ['database', 'migrations', 'file_store', 'disk'] as const;
export type ReadyCheckName = (typeof READY_CHECKS)[number];

/** One check's outcome; `detail` is a Chinese sentence for the operator. */
export const readyCheck = z.object({
  name: z.enum(READY_CHECKS),
  ok: z.boolean(),
  detail: col.text,
});
export type ReadyCheck = z.infer<typeof readyCheck>;

/** The readiness answer: the 200's data, and also the data of the 503 envelope when a check failed. */
export const readiness = z.object({ ready: z.boolean(), checks: z.array(readyCheck) });
export type Readiness = z.infer<typeof readiness>;

export const healthApi = {
  // Answers while the process runs: a restart is the cure only when this stops answering.
  live: defineCall({
    method: 'GET',
    path: '/health/live',
    permission: 'public',
    summary: '存活探针：进程运行中即返回 200',
    input: z.object({}),
    answer: z.object({ live: z.literal(true) }),
  }),
  // 200 only when this process can serve calls; 503 names each failed check (the balancer stops sending traffic here).
  ready: defineCall({
    method: 'GET',
    path: '/health/ready',
    permission: 'public',
    summary: '就绪探针：数据库、迁移级别、文件存储与磁盘空间均正常时返回 200，否则返回 503 并列出未通过的检查',
    input: z.object({}),
    answer: readiness,
  }),
};
