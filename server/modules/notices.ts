import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { ErrorCode } from '../../domain/errors';
import { NotificationKind, recordLink } from '../../domain/notifications';
import { branchOf } from '../../domain/schemas/department';
import {
  NOTICE_ATTACHMENTS_FULL,
  NOTICE_MAX_ATTACHMENTS,
  NOTICE_READER_ROUTE,
  NoticeStatus,
  noticeAllows,
  noticeApi,
  noticeConflictMessage,
  noticeIdInput,
  noticeLabels,
  type NoticeAction,
  type NoticeCreate,
} from '../../domain/schemas/notice';
import type { AppContext } from '../core/context';
import { fail, notFound, ok } from '../core/errors';
import { recordFileRefs } from '../core/file-refs';
import { notify, signalNotified } from '../core/notify';
import type { Db, RowValues } from '../core/repository';
import { defineResource, registerResource, type WriteContext } from '../core/resource';
import { route } from '../core/route';
import { afterCommit } from '../core/transactions';
import { fileStoreOf } from '../core/storage';
import { parse, ruleFailure } from '../core/validate';
import { mayReadFile, readRule } from './access';
import { multipartLimits, receiveUpload } from './files';

/**
 * 通知公告 (spec 001 §2 Notices, issue 27 part 1): a declared register plus
 * enabling, attachments and, beyond the spec, delivery. Enabling a notice
 * writes, in its transaction, one delivery row and one notification per
 * user of the departments it names (each standing for its branch of the
 * tree); the notification reaches the centre, the live stream and Web Push
 * after commit (core/notify.ts). Readers see only enabled notices that
 * reached them, and read their attachments by the same rule (access.ts).
 */

const NOUN = noticeApi.noun;
const columns = ['notice_id', 'title', 'type', 'status', 'content', 'publish_time', 'create_user_id', 'update_user_id', 'create_time', 'update_time'] as const;
/** Users per statement when a notice reaches a large department. */
const CHUNK = 300;

const chunks = <T>(list: T[], size: number): T[][] => Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

/** The live notice under its lock (PostgreSQL), or 404. */
async function lockNotice(trx: Db, ctx: AppContext, id: number) {
  const q = trx.selectFrom('notice').selectAll().where('notice_id', '=', id).where('deleted', '=', 0);
  const row = await (ctx.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
  return row ?? notFound(NOUN);
}

const assertAllows = (action: NoticeAction, status: number) => {
  if (!noticeAllows(action, status)) fail(ErrorCode.STATE_CONFLICT, noticeConflictMessage[action]);
};

/** Departments, creator, attachment count and per-department delivery for a page of notices: one query each, not one per row. */
async function decorate(rows: RowValues[], db: Db): Promise<RowValues[]> {
  const ids = rows.map((r) => r.notice_id as number);
  if (ids.length === 0) return rows;
  const [departs, attachments, delivery, users] = await Promise.all([
    db
      .selectFrom('notice_depart as nd')
      .leftJoin('sys_department as d', 'd.depart_id', 'nd.depart_id')
      .select(['nd.notice_id', 'nd.depart_id', 'd.name'])
      .where('nd.notice_id', 'in', ids)
      .orderBy('nd.depart_id')
      .execute(),
    db
      .selectFrom('notice_attachment')
      .select(['notice_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('notice_id', 'in', ids)
      .groupBy('notice_id')
      .execute(),
    db
      .selectFrom('notice_delivery')
      .select(['notice_id', 'depart_id', (eb) => eb.fn.countAll<number>().as('delivered'), (eb) => eb.fn.count<number>('read_time').as('read')])
      .where('notice_id', 'in', ids)
      .groupBy(['notice_id', 'depart_id'])
      .execute(),
    db
      .selectFrom('sys_user')
      .select(['user_id', 'user_name'])
      .where('user_id', 'in', [...new Set(rows.map((r) => r.create_user_id as number | null).filter((v): v is number => v != null))].concat([0]))
      .execute(),
  ]);
  const userName = new Map(users.map((u) => [u.user_id, u.user_name]));
  return rows.map((r) => {
    const id = r.notice_id as number;
    const own = departs.filter((d) => d.notice_id === id);
    const counts = new Map(delivery.filter((d) => d.notice_id === id).map((d) => [d.depart_id, d]));
    return {
      ...r,
      departList: own.map((d) => d.depart_id),
      depart_names: own.map((d) => d.name ?? `部门${d.depart_id}`),
      attachment_count: Number(attachments.find((a) => a.notice_id === id)?.n ?? 0),
      // Every department the notice names, reached or not (a department without users shows 0).
      delivery: own.map((d) => ({ depart_id: d.depart_id, depart_name: d.name ?? null, delivered: Number(counts.get(d.depart_id)?.delivered ?? 0), read: Number(counts.get(d.depart_id)?.read ?? 0) })),
      create_user_name: r.create_user_id == null ? null : (userName.get(r.create_user_id as number) ?? null),
    };
  });
}

/**
 * Delivers an enabled notice: every active user of the branches it names
 * gets a delivery row and a notification; a user it reached before keeps
 * their row, unread again only if the notice changed since; users no longer
 * in those departments lose theirs, and with it the notice and its files.
 */
async function deliver(trx: Db, ctx: AppContext, notice: { notice_id: number; title: string; content: string; version: number }, now: string): Promise<number> {
  const id = notice.notice_id;
  const named = (await trx.selectFrom('notice_depart').select('depart_id').where('notice_id', '=', id).execute()).map((d) => d.depart_id);
  const tree = await trx.selectFrom('sys_department').select(['depart_id', 'pid']).where('deleted', '=', 0).execute();
  // Each department of a branch counts under the nearest department the notice names (a named child wins over its named parent).
  const countedUnder = new Map<number, number>();
  const byDepth = [...named].sort((a, b) => branchOf(tree, b).length - branchOf(tree, a).length);
  for (const d of byDepth) for (const member of branchOf(tree, d)) if (!countedUnder.has(member)) countedUnder.set(member, d);
  const targets = new Map<number, number>();
  for (const part of chunks([...countedUnder.keys()], CHUNK)) {
    const users = await trx.selectFrom('sys_user').select(['user_id', 'depart_id']).where('deleted', '=', 0).where('status', '=', 1).where('depart_id', 'in', part).execute();
    for (const u of users) targets.set(u.user_id, countedUnder.get(u.depart_id!)!);
  }
  const existing = new Map((await trx.selectFrom('notice_delivery').select(['user_id', 'version']).where('notice_id', '=', id).execute()).map((d) => [d.user_id, d.version] as const));
  const gone = [...existing.keys()].filter((u) => !targets.has(u));
  for (const part of chunks(gone, CHUNK)) await trx.deleteFrom('notice_delivery').where('notice_id', '=', id).where('user_id', 'in', part).execute();
  const fresh = [...targets].filter(([u]) => !existing.has(u));
  const changed = [...targets].filter(([u]) => existing.has(u) && existing.get(u)! < notice.version);
  for (const part of chunks(fresh, CHUNK))
    await trx
      .insertInto('notice_delivery')
      .values(part.map(([user_id, depart_id]) => ({ notice_id: id, user_id, depart_id, version: notice.version, delivered_time: now, read_time: null })))
      .execute();
  for (const [user_id, depart_id] of changed)
    await trx.updateTable('notice_delivery').set({ depart_id, version: notice.version, delivered_time: now, read_time: null }).where('notice_id', '=', id).where('user_id', '=', user_id).execute();
  const reached = [...fresh, ...changed].map(([u]) => u);
  await notify(
    trx,
    ctx,
    reached.map((userId) => ({
      userId,
      kind: NotificationKind.NOTICE,
      title: `通知公告：${notice.title}`,
      body: notice.content.replace(/\s+/g, ' '),
      url: recordLink(NOTICE_READER_ROUTE, id),
      // One notification per notice on a device: a re-sent notice replaces the old one.
      tag: `notice-${id}`,
    })),
  );
  return reached.length;
}

interface NewAttachment {
  file_url: string;
  file_name: string;
  file_size: number;
}

/**
 * The files a create form names (uploaded through /file/upload before the
 * notice existed): each one the caller's own and still stored, with its size
 * read here, outside the transaction that saves them with the notice.
 */
async function checkNewAttachments(ctx: AppContext, values: RowValues, w: WriteContext): Promise<NewAttachment[]> {
  const chosen = (values as NoticeCreate).attachments ?? [];
  const store = fileStoreOf(ctx);
  const out: NewAttachment[] = [];
  for (const [i, a] of chosen.entries()) {
    const file = (await mayReadFile(ctx.db, w.auth, a.file_url)) ? await store.open(a.file_url) : null;
    if (!file) throw ruleFailure([{ field: 'attachments', message: `附件“${a.file_name}”不存在或无权使用，请重新上传（第${i + 1}个）` }], noticeLabels);
    file.stream.destroy();
    out.push({ file_url: a.file_url, file_name: a.file_name, file_size: file.size });
  }
  return out;
}

export const noticesDef = (ctx: AppContext) => {
  // From the create's check to its write: the attachments it named, found and measured.
  const newAttachments = new WeakMap<RowValues, NewAttachment[]>();
  return defineResource({
    contract: noticeApi,
    table: 'notice',
    softDelete: 'deleted',
    columns,
    orderBy: [['notice_id', 'desc']],
    readable: readRule('notice'),
    filters: {
      title: { column: 'title', match: 'contains' },
      type: { column: 'type', match: 'equals' },
      status: { column: 'status', match: 'equals' },
    },
    decorate,
    toRow: (values) => {
      const v = values as Omit<NoticeCreate, 'departList'>;
      return { title: v.title, type: v.type, content: v.content, publish_time: v.publish_time ?? null };
    },
    check: async (values, w, db) => {
      const ids = (values as NoticeCreate).departList;
      const found = await db.selectFrom('sys_department').select('depart_id').where('depart_id', 'in', ids).where('deleted', '=', 0).execute();
      if (found.length !== ids.length) throw ruleFailure([{ field: 'departList', message: '所选通知部门不存在或已被删除' }], noticeLabels);
      if (w.mode === 'create') newAttachments.set(values, await checkNewAttachments(ctx, values, w));
    },
    beforeUpdate: async (trx, id) => {
      const row = await lockNotice(trx, ctx, id);
      assertAllows('edit', row.status);
      return { version: row.version + 1 };
    },
    afterWrite: async (trx, values, w) => {
      await trx.deleteFrom('notice_depart').where('notice_id', '=', w.id).execute();
      await trx
        .insertInto('notice_depart')
        .values((values as NoticeCreate).departList.map((depart_id) => ({ notice_id: w.id, depart_id })))
        .execute();
      const files = w.mode === 'create' ? (newAttachments.get(values) ?? []) : [];
      if (files.length) {
        await trx
          .insertInto('notice_attachment')
          .values(files.map((f) => ({ notice_id: w.id, ...attachmentFields(f.file_url, f.file_name, f.file_size), create_user_id: w.auth.userId, create_time: w.now })))
          .execute();
        await syncAttachmentRefs(trx, w.id);
      }
    },
    beforeDelete: async (trx, id) => {
      const row = await lockNotice(trx, ctx, id);
      assertAllows('delete', row.status);
      // A deleted notice is nobody's to read: its deliveries and its files' grants go with it.
      await trx.deleteFrom('notice_delivery').where('notice_id', '=', id).execute();
      await recordFileRefs(trx, 'notice', id, []);
    },
    stamps: { createUser: 'create_user_id', updateUser: 'update_user_id' },
  });
};

/** A notice_attachment row's file columns, from the stored name, the name it was uploaded under and its size. */
const attachmentFields = (stored: string, fileName: string, size: number) => ({
  file_name: fileName.slice(0, 255) || stored,
  file_type: stored.slice(stored.lastIndexOf('.') + 1),
  file_size: size,
  file_url: stored,
});

const attachmentColumns = ['id', 'notice_id', 'file_name', 'file_type', 'file_size', 'file_url', 'create_time'] as const;

/** The files a notice holds, as access.ts reads them: its attachments. */
async function syncAttachmentRefs(trx: Db, noticeId: number): Promise<void> {
  const names = (await trx.selectFrom('notice_attachment').select('file_url').where('notice_id', '=', noticeId).execute()).map((a) => a.file_url);
  await recordFileRefs(trx, 'notice', noticeId, names);
}

export async function noticeRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const { db } = ctx;
  // Scoped to this plugin: the attachment upload's multipart body.
  await app.register(multipart, { limits: multipartLimits });
  await registerResource(app, noticesDef(ctx));

  route(app, noticeApi.updateStatus, async (req) => {
    const { noticeId, status } = req.body;
    const action: NoticeAction = status === NoticeStatus.ENABLED ? 'enable' : 'disable';
    await db.transaction().execute(async (trx) => {
      const row = await lockNotice(trx, ctx, noticeId);
      assertAllows(action, row.status);
      const now = ctx.time();
      const publishTime = action === 'enable' ? (row.publish_time ?? now) : row.publish_time;
      // Conditional on the status read: on SQLite, where nothing was locked, a concurrent change makes this one lose, not both win.
      const changed = await trx
        .updateTable('notice')
        .set({ status, publish_time: publishTime, update_user_id: req.auth!.userId, update_time: now })
        .where('notice_id', '=', noticeId)
        .where('status', '=', row.status)
        .where('deleted', '=', 0)
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows) === 0) fail(ErrorCode.STATE_CONFLICT, noticeConflictMessage[action]);
      if (action === 'enable') req.auditParams = { noticeId, status, delivered: await deliver(trx, ctx, row, now) };
    });
    return ok(null, '修改状态成功');
  });

  route(app, noticeApi.upload, async (req) => {
    let noticeId = 0;
    const file = await receiveUpload(req, {
      uploaderUserId: req.auth!.userId,
      // Refused before the file is stored: a notice that takes no attachment now leaves nothing behind.
      accept: async (fields) => {
        noticeId = parse(noticeIdInput, { noticeId: fields.noticeId }).noticeId;
        const row = await db.selectFrom('notice').select('status').where('notice_id', '=', noticeId).where('deleted', '=', 0).executeTakeFirst();
        if (!row) notFound(NOUN);
        assertAllows('attach', row!.status);
        await assertRoom(db, noticeId);
      },
    });
    const attachment = await db.transaction().execute(async (trx) => {
      // Again under the lock: two uploads at once may not make six.
      const row = await lockNotice(trx, ctx, noticeId);
      assertAllows('attach', row.status);
      await assertRoom(trx, noticeId);
      const now = ctx.time();
      const { id } = await trx
        .insertInto('notice_attachment')
        .values({ notice_id: noticeId, ...attachmentFields(file.name, file.fileName, file.size), create_user_id: req.auth!.userId, create_time: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await syncAttachmentRefs(trx, noticeId);
      return trx.selectFrom('notice_attachment').select(attachmentColumns).where('id', '=', id).executeTakeFirstOrThrow();
    });
    return ok(attachment, '上传成功');
  });

  route(app, noticeApi.attachments, async (req) => {
    const { noticeId } = req.body;
    if (!(await db.selectFrom('notice').select('notice_id').where('notice_id', '=', noticeId).where('deleted', '=', 0).executeTakeFirst())) notFound(NOUN);
    return ok(await db.selectFrom('notice_attachment').select(attachmentColumns).where('notice_id', '=', noticeId).orderBy('id').execute());
  });

  route(app, noticeApi.deleteAttachment, async (req) => {
    const { id } = req.body;
    await db.transaction().execute(async (trx) => {
      const att = await trx.selectFrom('notice_attachment').select('notice_id').where('id', '=', id).executeTakeFirst();
      if (!att) notFound('附件');
      const row = await lockNotice(trx, ctx, att!.notice_id);
      assertAllows('attach', row.status);
      await trx.deleteFrom('notice_attachment').where('id', '=', id).execute();
      await syncAttachmentRefs(trx, att!.notice_id);
    });
    return ok(null, '删除成功！');
  });

  // ---------- the reader's side: what reached the caller ----------

  const received = (userId: number) =>
    db
      .selectFrom('notice_delivery as d')
      .innerJoin('notice as n', 'n.notice_id', 'd.notice_id')
      .where('d.user_id', '=', userId)
      .where('n.status', '=', NoticeStatus.ENABLED)
      .where('n.deleted', '=', 0);
  const receivedColumns = [
    'n.notice_id',
    'n.title',
    'n.type',
    'n.content',
    'n.publish_time',
    'd.delivered_time',
    'd.read_time',
    sql<number>`(select count(*) from notice_attachment a where a.notice_id = n.notice_id)`.as('attachment_count'),
  ] as const;

  route(app, noticeApi.received, async (req) => {
    const { size, pn, unread } = req.body;
    const userId = req.auth!.userId;
    const base = unread ? received(userId).where('d.read_time', 'is', null) : received(userId);
    const [rows, total, unreadCount] = await Promise.all([
      base
        .select(receivedColumns)
        .orderBy('d.delivered_time', 'desc')
        .orderBy('n.notice_id', 'desc')
        .limit(size)
        .offset((pn - 1) * size)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      received(userId)
        .where('d.read_time', 'is', null)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return ok({ list: rows.map((r) => ({ ...r, attachment_count: Number(r.attachment_count) })), total: Number(total.n), unread: Number(unreadCount.n) });
  });

  route(app, noticeApi.receivedDetail, async (req) => {
    const { noticeId } = req.query;
    const row = await received(req.auth!.userId).select(receivedColumns).where('n.notice_id', '=', noticeId).executeTakeFirst();
    // One answer for absent, taken back and never sent to the caller.
    if (!row) fail(ErrorCode.NOT_FOUND, '通知不存在或已停用');
    const attachments = await db.selectFrom('notice_attachment').select(attachmentColumns).where('notice_id', '=', noticeId).orderBy('id').execute();
    return ok({ ...row!, attachment_count: Number(row!.attachment_count), attachments });
  });

  route(app, noticeApi.markRead, async (req) => {
    const { noticeId } = req.body;
    const userId = req.auth!.userId;
    await db.transaction().execute(async (trx) => {
      const done = await trx
        .updateTable('notice_delivery')
        .set({ read_time: ctx.time() })
        .where('notice_id', '=', noticeId)
        .where('user_id', '=', userId)
        .where('read_time', 'is', null)
        .executeTakeFirst();
      if (Number(done.numUpdatedRows) === 0) return;
      // Its notification is read with it, so the bell does not count what was just read.
      const read = await trx
        .updateTable('notification')
        .set({ read_at: ctx.time() })
        .where('user_id', '=', userId)
        .where('tag', '=', `notice-${noticeId}`)
        .where('read_at', 'is', null)
        .executeTakeFirst();
      if (Number(read.numUpdatedRows) > 0) afterCommit(trx, () => signalNotified(db, [userId]));
    });
    return ok(null);
  });
}

/** Spec 001 §5: up to five attachments a notice. */
async function assertRoom(db: Db, noticeId: number): Promise<void> {
  const { n } = await db
    .selectFrom('notice_attachment')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('notice_id', '=', noticeId)
    .executeTakeFirstOrThrow();
  if (Number(n) >= NOTICE_MAX_ATTACHMENTS) fail(ErrorCode.VALIDATION, NOTICE_ATTACHMENTS_FULL);
}
