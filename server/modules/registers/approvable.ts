import { defineResourceContract, undeclared } from '../../../domain/contract';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { AppState } from '../../../domain/appointments';
import type { PermissionCode } from '../../../domain/permissions';
import { registerQueues, stateAfterEdit, type ApprovablePaths, type RegisterQueueName } from '../../../domain/registers';
import { idBody, revokeBody } from '../../../domain/schemas/car-application';
import { labelled, optionalFilterText, pageQuery } from '../../../domain/schemas/common';
import { filterTimeField } from '../../../domain/schemas/car-application';
import type { FieldError } from '../../../domain/visit-rules';
import type { AppContext, AuthContext } from '../../core/context';
import { notFound, ok } from '../../core/errors';
import { defineResource, registerResource, type ResourceDef } from '../../core/resource';
import type { AnySelect, Db, RowValues } from '../../core/repository';
import type { ZodTypeProvider } from '../../core/route-schema';
import type { DB } from '../../db/schema';
import { queueRoutes, textFilterConditions } from '../../workflow/queue-routes';
import { ruleFailure } from '../../core/validate';
import type { SubjectTable } from '../../workflow/engine';
import { applicationNumber, approvalProcess, assertAllows, lockLive, revokeApproval, submitForApproval, type SubjectRow, type UnderApproval } from '../../workflow/subject-actions';
import { subjectByTable } from '../../workflow/subjects';
import { anyReadable, approvableReadCodes, assertFilesUsable, holds, readRule } from '../access';
import { fileColumns, fileNamesOfRow, recordFileRefs, type FileRecordKind } from '../../core/file-refs';

/**
 * A register under approval (DESIGN.md §7), declared once per kind: the plain
 * register of core/resource.ts (list, get, detail, save, edit, delete) with
 * the spec 001 §4 state table, plus submit, revoke, the process view and its
 * approval queue (task page and check). Kinds differ only in their declaration.
 */
export interface ApprovableDef extends UnderApproval {
  /** A subject table of the engine that the database has (db/schema.ts). */
  table: Extract<Exclude<SubjectTable, 'car_application' | 'person_application'>, keyof DB>;
  processType: number;
  queue: RegisterQueueName;
  paths: ApprovablePaths;
  /**
   * Rows are their filer's (registrations, waybills): the main list shows the
   * caller's own, and only the filer edits, submits, revokes or deletes there.
   * Without it the register is the park's (the lists): every holder of the codes.
   */
  own?: boolean;
  /** Lists over every row (history screens), each with its code; a revoke from there has its own path and code. */
  histories?: Array<{ list: string; detail?: string; permission: PermissionCode; summary: string; revoke?: { path: string; permission: PermissionCode } }>;
  codes: { list: PermissionCode; add: PermissionCode; edit: PermissionCode; delete: PermissionCode; commit: PermissionCode; revoke: PermissionCode };
  schemas: { list: z.ZodType; create: z.ZodType; update: z.ZodType };
  columns: readonly string[];
  filters: ResourceDef['filters'];
  /** Text filters of the approval queue, matched as "contains". */
  taskFilters: string[];
  /** Other filters of the queue (a registration's park): their schemas, and how they narrow the tasks (the row is `a`). */
  taskWhere?: { shape: Record<string, z.ZodType>; apply: (q: AnySelect, values: RowValues) => AnySelect };
  /** Rules of the form that need today or the database; errors name their field. */
  rules?: (values: RowValues, today: string, db: Db) => Promise<FieldError[]> | FieldError[];
  /** Rows as answered (names beside ids). */
  decorate?: ResourceDef['decorate'];
  /** The register holds uploaded files (fileColumns of core/file-refs.ts): whoever reads a row reads its photos. */
  holdsFiles?: boolean;
}

export { applicationNumber };

/** Submit (spec 001 §4) once the state allows it: the row's process starts. The push route and the demo seed both file through this. */
export async function startApproval(trx: Db, ctx: AppContext, def: Pick<ApprovableDef, 'table' | 'processType'>, id: number, applicantUserId: number, byUserId: number): Promise<void> {
  await submitForApproval(trx, ctx, def.table, id, { processType: def.processType, applicantUserId, intervieweeDepartId: null }, { update_user_id: byUserId });
}

export function approvableRoutes(def: ApprovableDef) {
  const subject = subjectByTable[def.table];
  const queue = registerQueues[def.queue];
  const taskQuery = labelled(
    pageQuery.extend({ ...Object.fromEntries(def.taskFilters.map((f) => [f, optionalFilterText])), ...def.taskWhere?.shape, begin_time: filterTimeField('begin'), end_time: filterTimeField('end') }),
    def.labels,
  );

  return async function routes(appInstance: FastifyInstance) {
    const app = appInstance.withTypeProvider<ZodTypeProvider>();
    const { ctx } = app;
    const { db } = ctx;
    const anyDb = db as unknown as Kysely<any>;
    /** The row under its lock; on a filed register only the filer's (anyone else's reads as absent). */
    const lockMine = (trx: Db, id: number, auth: AuthContext) => lockLive(trx, ctx, def.table, id, def.own ? auth : undefined);
    const runRules = async (values: RowValues) => {
      const errors = (await def.rules?.(values, ctx.time(), db)) ?? [];
      if (errors.length) throw ruleFailure(errors, def.labels);
    };

    const repo = await registerResource(
      app,
      defineResource({
        contract: defineResourceContract({
          noun: def.noun,
          key: 'id',
          labels: def.labels,
          paths: { list: def.paths.list, get: def.paths.get, detail: { url: def.paths.detail, method: 'GET' }, save: def.paths.save, edit: def.paths.edit, delete: def.paths.delete },
          permissions: { list: def.codes.list, get: def.codes.edit, detail: 'role', save: def.codes.add, edit: def.codes.edit, delete: def.codes.delete },
          schemas: def.schemas,
          row: undeclared,
        }),
        table: def.table,
        softDelete: 'deleted',
        columns: def.columns,
        readable: readRule(def.table),
        // Filed registers list the filer's rows; the park's lists show drafts only to their keepers (modules/access.ts).
        listScope: def.own
          ? (q: AnySelect, auth: AuthContext) => q.where('create_user_id', '=', auth.userId)
          : (q: AnySelect, auth: AuthContext) => {
              const drafts = (approvableReadCodes as Record<string, { drafts: readonly PermissionCode[] }>)[def.table]?.drafts ?? [];
              return drafts.some((code) => holds(auth, code)) ? q : q.where(subject.stateColumn, '!=', AppState.DRAFT);
            },
        // Detail is read by the list's keepers and its approvers alike: the access switch decides per row.
        filters: def.filters,
        ...(def.decorate ? { decorate: def.decorate } : {}),
        toRow: (values, w) => (w.mode === 'create' ? { ...values, [subject.stateColumn]: AppState.DRAFT } : values),
        check: async (values, w) => {
          // Only files the caller may use already (their own uploads) can be put on a row.
          if (def.holdsFiles) await assertFilesUsable(db, w.auth, ...fileColumns[def.table as FileRecordKind].map((c) => values[c]));
          await runRules(values);
        },
        afterWrite: async (trx, values, w) => {
          if (def.holdsFiles) await recordFileRefs(trx, def.table as FileRecordKind, w.id, fileNamesOfRow(def.table as FileRecordKind, values));
          if (def.numberPrefix && w.mode === 'create') {
            await (trx as unknown as Kysely<any>)
              .updateTable(def.table)
              .set({ application_number: applicationNumber(def.numberPrefix, w.now, w.id) })
              .where('id', '=', w.id)
              .execute();
          }
        },
        beforeUpdate: async (trx, id, w) => {
          const row = await lockMine(trx, id, w.auth);
          assertAllows('edit', row.status);
          const next = stateAfterEdit(row.status);
          return next === row.status ? {} : { [subject.stateColumn]: next, process_instance_id: null };
        },
        beforeDelete: async (trx, id, auth) => {
          const row = await lockMine(trx, id, auth);
          assertAllows('delete', row.status);
        },
        stamps: { createUser: 'create_user_id', updateUser: 'update_user_id' },
      }),
    );

    /** The caller may read the row (the access switch) and it is live; 404 otherwise, the same answer for both. */
    const readable = async (auth: AuthContext, id: number): Promise<SubjectRow> => {
      const row = (await anyDb.selectFrom(def.table).selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst()) as RowValues | undefined;
      if (!row || !(await anyReadable(db, auth, def.table, [id]))) notFound(def.noun);
      return { ...row!, status: row![subject.stateColumn] } as SubjectRow;
    };

    app.post(def.paths.push, { config: { permission: def.codes.commit, operation: `提交${def.noun}` }, schema: { summary: `提交${def.noun}审批`, body: idBody } }, async (req) => {
      const { id } = req.body;
      await db.transaction().execute(async (trx) => {
        const row = await lockMine(trx, id, req.auth!);
        assertAllows('submit', row.status);
        await startApproval(trx, ctx, def, id, row.create_user_id ?? req.auth!.userId, req.auth!.userId);
      });
      return ok(null, '提交成功！');
    });

    /** Revoke with a reason (spec 001 §4): from the filer's list, or from a history screen with that screen's code. */
    const revoke = (path: string, permission: PermissionCode, mine: boolean, where: string) =>
      app.post(path, { config: { permission, operation: `撤销${def.noun}${where}` }, schema: { summary: `撤销${def.noun}${where}`, body: revokeBody } }, async (req) => {
        const { id, reason } = req.body;
        await db.transaction().execute(async (trx) => {
          const row = mine ? await lockMine(trx, id, req.auth!) : await lockLive(trx, ctx, def.table, id);
          // Outside the filer a draft reads as absent (modules/access.ts); a 409 here would say it exists.
          if (!mine && row.status === AppState.DRAFT) notFound(def.noun);
          await revokeApproval(trx, ctx, def.table, row, 'revoke', reason, { update_user_id: req.auth!.userId, update_time: ctx.time() });
        });
        return ok(null, '撤销审核成功！');
      });
    revoke(def.paths.revoke, def.codes.revoke, true, '');

    for (const h of def.histories ?? []) {
      app.post(h.list, { config: { permission: h.permission }, schema: { summary: h.summary, body: def.schemas.list } }, async (req) => {
        const q = req.body as RowValues & { size: number; pn: number };
        // A draft is its filer's until submitted: history screens show what entered approval.
        const filtered = await repo.applyFilters(repo.live().where(subject.stateColumn, '!=', AppState.DRAFT), def.filters ?? {}, q);
        const [total, rows] = await Promise.all([repo.count(filtered), repo.page(filtered, q.size, (q.pn - 1) * q.size)]);
        return ok({ list: def.decorate ? await def.decorate(rows, db) : rows, total });
      });
      if (h.detail) {
        app.get(h.detail, { config: { permission: h.permission }, schema: { summary: `${def.noun}详情（${h.summary}）`, querystring: idBody } }, async (req) => {
          await readable(req.auth!, req.query.id);
          const row = await repo.get(req.query.id);
          return ok(def.decorate ? (await def.decorate([row!], db))[0] : row);
        });
      }
      if (h.revoke) revoke(h.revoke.path, h.revoke.permission, false, `（${h.summary}）`);
    }

    app.post(def.paths.processInfo, { config: { permission: 'role' }, schema: { summary: `${def.noun}审批流程`, body: idBody } }, async (req) =>
      ok(await approvalProcess(db, await readable(req.auth!, req.body.id))),
    );

    queueRoutes(app, {
      name: def.queue,
      title: queue.title,
      table: def.table,
      paths: { page: def.paths.taskPage, check: def.paths.taskCheck },
      codes: queue,
      query: taskQuery,
      wrapper: def.wrapper,
      rowFilters: (q) => [
        ...textFilterConditions(
          def.taskFilters.map((field) => ({ field })),
          q,
        ),
        ...(def.taskWhere ? [(s: AnySelect) => def.taskWhere!.apply(s, q)] : []),
      ],
      rowsById: async (rowDb, ids) => {
        const rows: RowValues[] = await (rowDb as unknown as Kysely<any>)
          .selectFrom(def.table)
          .select([...def.columns])
          .where('id', 'in', ids)
          .execute();
        return new Map((def.decorate ? await def.decorate(rows, db) : rows).map((r) => [r.id as number, r]));
      },
    });
  };
}
