import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../../domain/errors';
import type { PermissionCode } from '../../../domain/permissions';
import { idBody, revokeBody } from '../../../domain/schemas/car-application';
import { fail, ok } from '../../core/errors';
import type { ZodTypeProvider } from '../../core/route-schema';
import { kindList } from './kinds';
import { assertFilesUsable } from '../access';
import {
  applicationProcess,
  applyDelay,
  deleteApplication,
  editBody,
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
export async function applicationRoutes(appInstance: FastifyInstance) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;
  const { db } = ctx;

  for (const k of kindList) {
    const p = k.path;
    const c = k.codes;
    const auth = (req: FastifyRequest) => req.auth!;
    /** Commits first, then refuses: the refreshed in_black_list flag is kept. */
    const unlessBlackListed = <T>(r: GuardedOutcome<T>): T => ('blackListed' in r ? fail(ErrorCode.STATE_CONFLICT, r.blackListed) : r.ok);

    // ------------------------------------------------------------ lists and details
    const lists: Array<[url: string, permission: PermissionCode, scope: ListScope, summary: string]> = [
      [`${p}/list`, c.list, 'own', `我的${k.noun}（分页）`],
      [`${p}/history/list`, c.historyList, 'history', `${k.noun}记录：来访本部门及下级部门的（分页）`],
      [`${p}/all/history/list`, c.allList, 'all', `${k.noun}总记录（分页）`],
    ];
    for (const [url, permission, scope, summary] of lists) {
      app.post(url, { config: { permission }, schema: { summary, body: k.listQuery } }, async (req) =>
        ok(await listApplications(db, auth(req), k.kind, scope, req.body as Record<string, unknown> & { size: number; pn: number })),
      );
    }

    const details: Array<[url: string, permission: PermissionCode, summary: string]> = [
      [`${p}/detail`, c.list, `${k.noun}详情`],
      [`${p}/history/detail`, c.historyList, `${k.noun}详情（预约记录）`],
      [`${p}/all/history/detail`, c.allList, `${k.noun}详情（预约总记录）`],
    ];
    for (const [url, permission, summary] of details) {
      app.get(url, { config: { permission }, schema: { summary, querystring: idBody } }, async (req) => ok(await loadReadable(db, auth(req), k.kind, req.query.id)));
    }

    // Fetch for edit: only the applicant edits.
    app.post(`${p}/get`, { config: { permission: c.edit }, schema: { summary: `${k.noun}（编辑用）`, body: idBody } }, async (req) => {
      const row = await loadApplication(db, k.kind, req.body.id);
      if (row.create_user_id !== auth(req).userId) fail(ErrorCode.NOT_FOUND, `${k.noun}不存在或已被删除`);
      return ok(row);
    });

    // ------------------------------------------------------------ create and edit
    // The routes check the form (save) or the id (edit); saveApplication parses the form itself, as the imports
    // and the seed call it too, and for an edit only after the state check (a forbidden edit answers 409).
    const editWire = editBody(k.kind);
    for (const base of [`/v2${p}`, p]) {
      app.post(`${base}/save`, { config: { permission: c.add, operation: `新增${k.noun}` }, schema: { summary: `新增${k.noun}（草稿）`, body: k.save } }, async (req) => {
        await assertFilesUsable(db, auth(req), req.body);
        const newId = await db.transaction().execute((trx) => saveApplication(trx, ctx, auth(req), k.kind, req.body));
        return ok({ id: newId }, '创建成功！');
      });
      app.post(`${base}/edit`, { config: { permission: c.edit, operation: `编辑${k.noun}` }, schema: { summary: `编辑${k.noun}`, body: editWire } }, async (req) => {
        const appId = (req.body as Record<string, number>)[k.key]!;
        await assertFilesUsable(db, auth(req), req.body);
        await db.transaction().execute((trx) => saveApplication(trx, ctx, auth(req), k.kind, req.body, appId));
        return ok({ id: appId }, '编辑成功！');
      });
    }

    // ------------------------------------------------------------ actions
    app.post(`${p}/delete`, { config: { permission: c.delete, operation: `删除${k.noun}` }, schema: { summary: `删除${k.noun}`, body: idBody } }, async (req) => {
      const appId = req.body.id;
      await db.transaction().execute((trx) => deleteApplication(trx, ctx, auth(req), k.kind, appId));
      return ok(null, '删除成功！');
    });

    app.post(`${p}/push`, { config: { permission: c.commit, operation: `提交${k.noun}` }, schema: { summary: `提交${k.noun}审核`, body: idBody } }, async (req) => {
      const appId = req.body.id;
      unlessBlackListed(await db.transaction().execute((trx) => submitApplication(trx, ctx, auth(req), k.kind, appId)));
      return ok(null, '提交成功！');
    });

    const revokes: Array<[url: string, permission: PermissionCode, scope: RevokeScope, where: string]> = [
      [`${p}/revoke`, c.revoke, 'own', ''],
      [`${p}/revokeForHis`, c.historyRevoke, 'history', '（预约记录）'],
      [`${p}/revokeForAllHis`, c.allRevoke, 'all', '（预约总记录）'],
    ];
    for (const [url, permission, scope, where] of revokes) {
      app.post(url, { config: { permission, operation: `撤销${k.noun}${where}` }, schema: { summary: `撤销${k.noun}${where}`, body: revokeBody } }, async (req) => {
        const b = req.body;
        await db.transaction().execute((trx) => revokeApplication(trx, ctx, auth(req), k.kind, b.id, b.reason, scope));
        return ok(null, '撤销审核成功！');
      });
    }

    app.post(`/v2${p}/check/process/info`, { config: { permission: 'role' }, schema: { summary: `${k.noun}的审批流程`, body: idBody } }, async (req) =>
      ok(await applicationProcess(db, auth(req), k.kind, req.body.id)),
    );

    app.post(`${p}/delay`, { config: { permission: c.edit, operation: `${k.noun}延期申请` }, schema: { summary: `${k.noun}延期申请`, body: k.delayBody } }, async (req) => {
      await db.transaction().execute((trx) => applyDelay(trx, ctx, auth(req), k.kind, req.body as Record<string, any>));
      return ok(null, '延期申请成功！');
    });

    app.post(`${p}/return`, { config: { permission: c.allRevoke, operation: `驳回${k.noun}` }, schema: { summary: `驳回${k.noun}（预约总记录）`, body: k.returnBody } }, async (req) => {
      const b = req.body as Record<string, any>;
      await db.transaction().execute((trx) => rejectApplication(trx, ctx, auth(req), k.kind, b[k.returnKey], b.remark));
      return ok(null, '驳回成功');
    });

    app.post(
      `${p}/returnSubmit`,
      { config: { permission: c.allRevoke, operation: `继续审批${k.noun}` }, schema: { summary: `继续审批${k.noun}（预约总记录）`, body: k.returnSubmitBody } },
      async (req) => {
        const b = req.body as Record<string, any>;
        unlessBlackListed(await db.transaction().execute((trx) => resumeApplication(trx, ctx, auth(req), k.kind, b[k.returnKey])));
        return ok(null, '操作成功');
      },
    );
  }
}
