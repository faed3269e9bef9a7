import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { AppState } from '../../../domain/appointments';
import type { Call } from '../../../domain/contract';
import type { PermissionCode } from '../../../domain/permissions';
import { stateAfterEdit, type RegisterContract } from '../../../domain/registers';
import type { FieldError } from '../../../domain/visit-rules';
import type { AppContext, AuthContext } from '../../core/context';
import { notFound, ok } from '../../core/errors';
import { fileColumns, fileNamesOfRow, recordFileRefs, type FileRecordKind } from '../../core/file-refs';
import type { AnySelect, Db, RowValues } from '../../core/repository';
import { defineResource, registerResource, type ResourceDef } from '../../core/resource';
import { route } from '../../core/route';
import { ruleFailure } from '../../core/validate';
import { preparedIn } from '../../db/prepared';
import type { DB } from '../../db/schema';
import type { SubjectTable } from '../../workflow/engine';
import { queueRoutes, textFilterConditions } from '../../workflow/queue-routes';
import { urgeApproval } from '../../workflow/urge';
import { applicationNumber, approvalProcess, assertAllows, lockLive, revokeApproval, submitForApproval, type SubjectRow, type UnderApproval } from '../../workflow/subject-actions';
import { subjectByTable } from '../../workflow/subjects';
import { anyReadable, approvableReadCodes, assertFilesUsable, holds, readRule } from '../access';

/**
 * A register under approval (DESIGN.md §7), declared once per kind: the plain
 * register of core/resource.ts (list, get, detail, save, edit, delete) with
 * the spec 001 §4 state table, plus submit, revoke, the process view and its
 * approval queue (task page and check). Kinds differ only in their declaration.
 */
export interface ApprovableDef extends UnderApproval {
  /** The wire side, declared in domain/ (defineRegister): noun, labels, paths, codes, schemas, row, queue and histories. */
  contract: RegisterContract;
  /** A subject table of the engine that the database has (db/schema.ts). */
  table: Extract<Exclude<SubjectTable, 'car_application' | 'person_application'>, keyof DB>;
  processType: number;
  /**
   * Rows are their filer's (registrations, waybills): the main list shows the
   * caller's own, and only the filer edits, submits, revokes or deletes there.
   * Without it the register is the park's (the lists): every holder of the codes.
   */
  own?: boolean;
  columns: readonly string[];
  filters: ResourceDef['filters'];
  /** How the queue's other filters (the contract's taskShape: a registration's park) narrow the tasks (the row is `a`). */
  taskWhere?: (q: AnySelect, values: RowValues) => AnySelect;
  /** Rules of the form that need today or the database; errors name their field. */
  rules?: (values: RowValues, today: string, db: Db) => Promise<FieldError[]> | FieldError[];
  /** Rows as answered (names beside ids). */
  decorate?: ResourceDef['decorate'];
  /** The register holds uploaded files (fileColumns of core/file-refs.ts): whoever reads a row reads its photos. */
  holdsFiles?: boolean;
}

/** A register's server side; its noun, labels and wrapper are its contract's. */
export const defineApprovable = (def: Omit<ApprovableDef, keyof UnderApproval | 'table'> & Pick<ApprovableDef, 'table' | 'numberPrefix'>): ApprovableDef => ({
  ...def,
  noun: def.contract.noun,
  labels: def.contract.labels,
  wrapper: def.contract.wrapper,
});

export { applicationNumber };

/** A queue page's rows by id, prepared per register and page length. */
const rowsByIds = preparedIn<ApprovableDef, Record<string, never>, RowValues>((def, db, _arg, ids) =>
  (db as unknown as Kysely<any>)
    .selectFrom(def.table)
    .select([...def.columns])
    .where('id', 'in', ids),
);

/** Submit (spec 001 §4) once the state allows it: the row's process starts. The push route and the demo seed both file through this. */
export async function startApproval(trx: Db, ctx: AppContext, def: Pick<ApprovableDef, 'table' | 'processType'>, id: number, applicantUserId: number, byUserId: number): Promise<void> {
  await submitForApproval(trx, ctx, def.table, id, { processType: def.processType, applicantUserId, intervieweeDepartId: null }, { update_user_id: byUserId });
}

export function approvableRoutes(def: ApprovableDef) {
  const subject = subjectByTable[def.table];
  const c = def.contract;

  return async function routes(app: FastifyInstance) {
    const { ctx } = app;
    const { db } = ctx;
    const anyDb = db as unknown as Kysely<any>;
    /** The row under its lock; on a filed register only the filer's (anyone else's reads as absent). */
    const lockMine = (trx: Db, id: number, auth: AuthContext) => lockLive(trx, ctx, def.table, id, def.own ? auth : undefined);
    const runRules = async (values: RowValues) => {
      const errors = (await def.rules?.(values, ctx.time(), db)) ?? [];
      if (errors.length) throw ruleFailure(errors, c.labels);
    };
    const decorated = async (rows: RowValues[]) => (def.decorate ? await def.decorate(rows, db) : rows);

    const repo = await registerResource(
      app,
      defineResource({
        contract: c,
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
          if (def.holdsFiles) await assertFilesUsable(db, w.auth, ...fileColumns[def.table as FileRecordKind].map((col) => values[col]));
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
        shownInClear: (row, auth) => row.create_user_id === auth.userId && row[subject.stateColumn] === AppState.DRAFT,
      }),
    );

    /** The caller may read the row (the access switch) and it is live; 404 otherwise, the same answer for both. */
    const readable = async (auth: AuthContext, id: number): Promise<SubjectRow> => {
      const row = (await anyDb.selectFrom(def.table).selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst()) as RowValues | undefined;
      if (!row || !(await anyReadable(db, auth, def.table, [id]))) notFound(c.noun);
      return { ...row!, status: row![subject.stateColumn] } as SubjectRow;
    };

    route(app, c.push, async (req) => {
      const { id } = req.body;
      await db.transaction().execute(async (trx) => {
        const row = await lockMine(trx, id, req.auth!);
        assertAllows('submit', row.status);
        await startApproval(trx, ctx, def, id, row.create_user_id ?? req.auth!.userId, req.auth!.userId);
      });
      return ok(null, '提交成功！');
    });

    /** Revoke with a reason (spec 001 §4): from the filer's list, or from a history screen with that screen's code. */
    const revoke = (call: typeof c.revoke, mine: boolean) =>
      route(app, call, async (req) => {
        const { id, reason } = req.body;
        await db.transaction().execute(async (trx) => {
          const row = mine ? await lockMine(trx, id, req.auth!) : await lockLive(trx, ctx, def.table, id);
          // Outside the filer a draft reads as absent (modules/access.ts); a 409 here would say it exists.
          if (!mine && row.status === AppState.DRAFT) notFound(c.noun);
          await revokeApproval(trx, ctx, def.table, row, 'revoke', reason, { update_user_id: req.auth!.userId, update_time: ctx.time() });
        });
        return ok(null, '撤销审核成功！');
      });
    revoke(c.revoke, true);
    route(app, c.urge, async (req) => ok(await db.transaction().execute((trx) => urgeApproval(trx, ctx, def.table, req.body.id, req.auth!)), '催办成功，已通知审核人'));

    for (const h of Object.values(c.histories)) {
      route(app, h.list as Call, async (req) => {
        const q = req.body as RowValues & { size: number; pn: number };
        // A draft is its filer's until submitted: history screens show what entered approval.
        const filtered = await repo.applyFilters(repo.live().where(subject.stateColumn, '!=', AppState.DRAFT), def.filters ?? {}, q);
        const [total, rows] = await Promise.all([repo.count(filtered), repo.page(filtered, q.size, (q.pn - 1) * q.size)]);
        return ok({ list: await decorated(rows), total });
      });
      if (h.detail) {
        route(app, h.detail, async (req) => {
          await readable(req.auth!, req.query.id);
          const row = await repo.get(req.query.id);
          return ok((await decorated([row!]))[0]);
        });
      }
      if (h.revoke) revoke(h.revoke, false);
    }

    route(app, c.processInfo, async (req) => ok(await approvalProcess(db, await readable(req.auth!, req.body.id))));

    queueRoutes(app, {
      name: c.queue,
      table: def.table,
      calls: c.task,
      wrapper: c.wrapper,
      rowFilters: (q) => [
        ...textFilterConditions(
          c.taskFilters.map((field) => ({ field })),
          q,
        ),
        ...(def.taskWhere ? [(s: AnySelect) => def.taskWhere!(s, q)] : []),
      ],
      rowsById: async (ctx, ids) => {
        const rows = (await rowsByIds(def, ids)(ctx.db as unknown as Kysely<any>, ctx.dialect, {})).rows;
        return new Map((await decorated(rows)).map((r) => [r.id as number, r]));
      },
    });
  };
}
