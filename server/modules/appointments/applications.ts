import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../../domain/errors';
import { idBody, revokeBody } from '../../../domain/schemas/car-application';
import { fail, ok } from '../../core/errors';
import { parse } from '../../core/validate';
import { kindList } from './kinds';
import { assertFilesUsable } from '../access';
import {
  applicationProcess,
  deleteApplication,
  delayApplication,
  editId,
  listApplications,
  loadApplication,
  loadReadable,
  rejectApplication,
  resumeApplication,
  revokeApplication,
  saveApplication,
  submitApplication,
  type GuardedOutcome,
  type ListScope,
  type RevokeScope,
} from './service';

/**
 * The routes of spec 000 §7 for person and vehicle applications, registered
 * once per kind from kinds.ts. Every action's state rule is the §4 table
 * (409 with stateConflictMessage); rows of others read as 404.
 */
export async function applicationRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;

  for (const k of kindList) {
    const p = k.path;
    const c = k.codes;
    const auth = (req: FastifyRequest) => req.auth!;
    const id = (input: unknown) => parse(idBody, input, k.labels).id;
    /** Commits first, then refuses: the refreshed in_black_list flag is kept. */
    const unlessBlackListed = <T>(r: GuardedOutcome<T>): T => ('blackListed' in r ? fail(ErrorCode.STATE_CONFLICT, r.blackListed) : r.ok);

    // ------------------------------------------------------------ lists and details
    const lists: Array<[url: string, permission: string, scope: ListScope]> = [
      [`${p}/list`, c.list, 'own'],
      [`${p}/history/list`, c.historyList, 'history'],
      [`${p}/all/history/list`, c.allList, 'all'],
    ];
    for (const [url, permission, scope] of lists) {
      app.post(url, { config: { permission } }, async (req) => ok(await listApplications(db, auth(req), k.kind, scope, req.body)));
    }

    const details: Array<[url: string, permission: string]> = [
      [`${p}/detail`, c.list],
      [`${p}/history/detail`, c.historyList],
      [`${p}/all/history/detail`, c.allList],
    ];
    for (const [url, permission] of details) {
      app.get(url, { config: { permission } }, async (req) => ok(await loadReadable(db, auth(req), k.kind, id(req.query))));
    }

    // Fetch for edit: only the applicant edits.
    app.post(`${p}/get`, { config: { permission: c.edit } }, async (req) => {
      const row = await loadApplication(db, k.kind, id(req.body));
      if (row.create_user_id !== auth(req).userId) fail(ErrorCode.NOT_FOUND, `${k.noun}不存在或已被删除`);
      return ok(row);
    });

    // ------------------------------------------------------------ create and edit
    for (const base of [`/v2${p}`, p]) {
      app.post(`${base}/save`, { config: { permission: c.add, operation: `新增${k.noun}` } }, async (req) => {
        await assertFilesUsable(db, auth(req), req.body);
        const newId = await db.transaction().execute((trx) => saveApplication(trx, ctx, auth(req), k.kind, req.body));
        return ok({ id: newId }, '创建成功！');
      });
      app.post(`${base}/edit`, { config: { permission: c.edit, operation: `编辑${k.noun}` } }, async (req) => {
        const appId = editId(k.kind, req.body);
        await assertFilesUsable(db, auth(req), req.body);
        await db.transaction().execute((trx) => saveApplication(trx, ctx, auth(req), k.kind, req.body, appId));
        return ok({ id: appId }, '编辑成功！');
      });
    }

    // ------------------------------------------------------------ actions
    app.post(`${p}/delete`, { config: { permission: c.delete, operation: `删除${k.noun}` } }, async (req) => {
      const appId = id(req.body);
      await db.transaction().execute((trx) => deleteApplication(trx, ctx, auth(req), k.kind, appId));
      return ok(null, '删除成功！');
    });

    app.post(`${p}/push`, { config: { permission: c.commit, operation: `提交${k.noun}` } }, async (req) => {
      const appId = id(req.body);
      unlessBlackListed(await db.transaction().execute((trx) => submitApplication(trx, ctx, auth(req), k.kind, appId)));
      return ok(null, '提交成功！');
    });

    const revokes: Array<[url: string, permission: string, scope: RevokeScope, where: string]> = [
      [`${p}/revoke`, c.revoke, 'own', ''],
      [`${p}/revokeForHis`, c.historyRevoke, 'history', '（预约记录）'],
      [`${p}/revokeForAllHis`, c.allRevoke, 'all', '（预约总记录）'],
    ];
    for (const [url, permission, scope, where] of revokes) {
      app.post(url, { config: { permission, operation: `撤销${k.noun}${where}` } }, async (req) => {
        const b = parse(revokeBody, req.body, k.labels);
        await db.transaction().execute((trx) => revokeApplication(trx, ctx, auth(req), k.kind, b.id, b.reason, scope));
        return ok(null, '撤销审核成功！');
      });
    }

    app.post(`/v2${p}/check/process/info`, { config: { permission: 'role' } }, async (req) => ok(await applicationProcess(db, auth(req), k.kind, id(req.body))));

    app.post(`${p}/delay`, { config: { permission: c.edit, operation: `${k.noun}延期申请` } }, async (req) => {
      await db.transaction().execute((trx) => delayApplication(trx, ctx, auth(req), k.kind, req.body));
      return ok(null, '延期申请成功！');
    });

    app.post(`${p}/return`, { config: { permission: c.allRevoke, operation: `驳回${k.noun}` } }, async (req) => {
      const b = parse(k.returnBody, req.body, k.approvalLabels) as Record<string, any>;
      await db.transaction().execute((trx) => rejectApplication(trx, ctx, auth(req), k.kind, b[k.returnKey], b.remark));
      return ok(null, '驳回成功');
    });

    app.post(`${p}/returnSubmit`, { config: { permission: c.allRevoke, operation: `继续审批${k.noun}` } }, async (req) => {
      const b = parse(k.returnSubmitBody, req.body, k.approvalLabels) as Record<string, any>;
      unlessBlackListed(await db.transaction().execute((trx) => resumeApplication(trx, ctx, auth(req), k.kind, b[k.returnKey])));
      return ok(null, '操作成功');
    });
  }
}
