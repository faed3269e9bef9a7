import type { FastifyInstance, FastifyRequest } from 'fastify';
import { kindCalls } from '../../../domain/appointment-kinds';
import { ErrorCode } from '../../../domain/errors';
import { stateAllows } from '../../../domain/appointments';
import { answerInClear } from '../../core/personal-data';
import { fail, ok } from '../../core/errors';
import { urgeApproval } from '../../workflow/urge';
import { route } from '../../core/route';
import { kindList } from './kinds';
import { assertFilesUsable } from '../access';
import {
  applicationProcess,
  applyDelay,
  deleteApplication,
  listApplications,
  loadApplication,
  loadReadable,
  rejectApplication,
  resumeApplication,
  revokeApplication,
  saveApplication,
  submitApplication,
  type GuardedOutcome,
} from './service';

/**
 * The routes of spec 000 §7 for person and vehicle applications, registered
 * once per kind from the kind's calls (domain/appointment-kinds.ts). Every
 * action's state rule is the §4 table (409 with stateConflictMessage); rows
 * of others read as 404.
 */
export async function applicationRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;

  for (const k of kindList) {
    const calls = kindCalls[k.kind];
    const auth = (req: FastifyRequest) => req.auth!;
    /** Commits first, then refuses: the refreshed in_black_list flag is kept. */
    const unlessBlackListed = <T>(r: GuardedOutcome<T>): T => ('blackListed' in r ? fail(ErrorCode.STATE_CONFLICT, r.blackListed) : r.ok);
    // The two kinds' rows are one union on this side: each route answers its own kind's row.
    const rowOf = (r: unknown) => r as never;

    // ------------------------------------------------------------ lists and details
    for (const [call, scope] of [
      [calls.list, 'own'],
      [calls.historyList, 'history'],
      [calls.allList, 'all'],
    ] as const) {
      route(app, call, async (req) => ok(rowOf(await listApplications(ctx, auth(req), k.kind, scope, req.body as Record<string, unknown> & { size: number; pn: number }))));
    }

    // The filer sees as typed what they may still edit (a draft, or one rejected or revoked), to correct it; under review or approved it is masked like everywhere else (core/personal-data.ts).
    const clearIfOwnDraft = (req: FastifyRequest, row: { create_user_id: number | null; state: number }) => {
      if (row.create_user_id === auth(req).userId && stateAllows('edit', row.state)) answerInClear(req);
    };

    for (const call of [calls.detail, calls.historyDetail, calls.allDetail]) {
      route(app, call, async (req) => {
        const row = await loadReadable(db, auth(req), k.kind, req.query.id);
        clearIfOwnDraft(req, row);
        return ok(rowOf(row));
      });
    }

    // Fetch for edit: only the applicant edits.
    route(app, calls.get, async (req) => {
      const row = await loadApplication(db, k.kind, req.body.id);
      if (row.create_user_id !== auth(req).userId) fail(ErrorCode.NOT_FOUND, `${k.noun}不存在或已被删除`);
      clearIfOwnDraft(req, row);
      return ok(rowOf(row));
    });

    // ------------------------------------------------------------ create and edit
    // The routes check the form (save) or the id (edit); saveApplication parses the form itself, as the imports
    // and the seed call it too, and for an edit only after the state check (a forbidden edit answers 409).
    for (const save of [calls.v2Save, calls.save]) {
      route(app, save, async (req) => {
        await assertFilesUsable(db, auth(req), req.body);
        const newId = await db.transaction().execute((trx) => saveApplication(trx, ctx, auth(req), k.kind, req.body));
        return ok({ id: newId }, '创建成功！');
      });
    }
    for (const edit of [calls.v2Edit, calls.edit]) {
      route(app, edit, async (req) => {
        const appId = (req.body as Record<string, number>)[k.key]!;
        await assertFilesUsable(db, auth(req), req.body);
        await db.transaction().execute((trx) => saveApplication(trx, ctx, auth(req), k.kind, req.body, appId));
        return ok({ id: appId }, '编辑成功！');
      });
    }

    // ------------------------------------------------------------ actions
    route(app, calls.delete, async (req) => {
      const appId = req.body.id;
      await db.transaction().execute((trx) => deleteApplication(trx, ctx, auth(req), k.kind, appId));
      return ok(null, '删除成功！');
    });

    route(app, calls.push, async (req) => {
      const appId = req.body.id;
      unlessBlackListed(await db.transaction().execute((trx) => submitApplication(trx, ctx, auth(req), k.kind, appId)));
      return ok(null, '提交成功！');
    });

    for (const [call, scope] of [
      [calls.revoke, 'own'],
      [calls.historyRevoke, 'history'],
      [calls.allRevoke, 'all'],
    ] as const) {
      route(app, call, async (req) => {
        const b = req.body;
        await db.transaction().execute((trx) => revokeApplication(trx, ctx, auth(req), k.kind, b.id, b.reason, scope));
        return ok(null, '撤销审核成功！');
      });
    }

    route(app, calls.urge, async (req) => ok(await db.transaction().execute((trx) => urgeApproval(trx, ctx, k.table, req.body.id, auth(req))), '催办成功，已通知审核人'));

    route(app, calls.process, async (req) => ok(await applicationProcess(db, auth(req), k.kind, req.body.id)));

    route(app, calls.delay, async (req) => {
      await db.transaction().execute((trx) => applyDelay(trx, ctx, auth(req), k.kind, req.body as Record<string, any>));
      return ok(null, '延期申请成功！');
    });

    route(app, calls.return, async (req) => {
      const b = req.body as Record<string, any>;
      await db.transaction().execute((trx) => rejectApplication(trx, ctx, auth(req), k.kind, b[k.returnKey], b.remark));
      return ok(null, '驳回成功');
    });

    route(app, calls.returnSubmit, async (req) => {
      const b = req.body as Record<string, any>;
      unlessBlackListed(await db.transaction().execute((trx) => resumeApplication(trx, ctx, auth(req), k.kind, b[k.returnKey])));
      return ok(null, '操作成功');
    });
  }
}
