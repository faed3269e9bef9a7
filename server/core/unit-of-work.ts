import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Transaction } from 'kysely';
import type { Call } from '../../domain/contract';
import type { Envelope } from '../../domain/envelope';
import type { DB } from '../db/schema';
import { writeOperationLog } from './auth';
import { type AppError, failure } from './errors';
import { claimInTransaction, finishInTransaction, keyTaken, REPLAYED_HEADER } from './idempotency';
import { route, type CallHandler, type CallRequest, type RouteExtras } from './route';
import { currentRequestScope, requestScope, type RequestScope } from './transactions';

/**
 * One call, one durable commit (issue 28). A route declared here runs its
 * work in one transaction that also holds what used to be written around
 * it, each in a commit of its own: the Idempotency-Key's claim and its stored
 * answer (core/idempotency.ts) and the operation log's entry (core/auth.ts).
 * On PostgreSQL that is one write transaction and one WAL sync where a
 * decision took five and three and a half; on SQLite one WAL write and one
 * shared sync. The answer leaves only after the commit is durable.
 *
 * The work gets the transaction; a step that must fail alone (one task of a
 * batch) runs in `inSavepoint`. A failure the work throws rolls everything
 * back and is answered as any route's; a failure it returns (`committedFailure`)
 * keeps what the other steps did.
 */
export function unitOfWorkRoute<C extends Call>(
  app: FastifyInstance,
  call: C,
  work: (req: CallRequest<C>, trx: Transaction<DB>, reply: FastifyReply) => ReturnType<CallHandler<C>>,
  extras: RouteExtras = {},
) {
  type Answer = Awaited<ReturnType<CallHandler<C>>>;
  const handler = async (req: CallRequest<C>, reply: FastifyReply): Promise<Answer> => {
    const { db } = app.ctx;
    const claim = req.idempotency;
    const scope: RequestScope = currentRequestScope() ?? { beforeCommit: [] };
    const run = () =>
      db.transaction().execute(async (trx): Promise<Answer> => {
        if (claim && !(await claimInTransaction(trx, app.ctx.dialect, claim, app.ctx.now()))) throw new KeyTaken();
        scope.unitOfWork = trx;
        let answer: Answer;
        try {
          answer = await work(req, trx, reply);
        } finally {
          scope.unitOfWork = undefined;
        }
        const status = reply.statusCode;
        if (claim) await finishInTransaction(trx, app.ctx.dialect, claim, status, JSON.stringify(answer), app.ctx.now(), req.routeOptions.config?.secretAnswer);
        if (req.routeOptions.config?.operation) await writeOperationLog(trx, app, req, status);
        return answer;
      });
    // A second pass only when the key was a dead request's claim, taken over since.
    for (let pass = 0; ; pass++) {
      try {
        const answer = await (currentRequestScope() ? run() : requestScope(scope, run));
        if (claim) {
          claim.pending = undefined;
          claim.finished = true;
        }
        req.operationLogged = true;
        return answer;
      } catch (err) {
        if (!(err instanceof KeyTaken) || pass > 0) throw err;
        const taken = await keyTaken(db, claim!, app.ctx.now());
        if (!taken) continue;
        // The same key was sent before, or reached this server or another one first: its answer is this one's too.
        claim!.finished = true;
        req.operationLogged = true;
        return reply.code(taken.status).header(REPLAYED_HEADER, 'true').type('application/json; charset=utf-8').send(taken.payload);
      }
    }
  };
  route(app, call, handler as CallHandler<C>, { ...extras, config: { ...extras.config, unitOfWork: true } });
}

/** A failure answered after the work's other steps commit: a batch where some rows failed. */
export function committedFailure(reply: FastifyReply, err: AppError): Envelope<never> {
  reply.code(err.status);
  return failure(err.code, err.message, err.data) as Envelope<never>;
}

class KeyTaken extends Error {}
