import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import type { ResourceContract } from '../../domain/contract';
import { INT_MAX } from '../../domain/schemas/common';
import type { AuthContext } from './context';
import { isUniqueViolation } from './db-errors';
import { AppError, notFound, ok } from './errors';
import { tableRepository, type AnySelect, type Db, type ListFilter, type RowValues, type TableRepository, type TableSpec } from './repository';
import { route } from './route';
import { parse } from './validate';
import { answerInClear, keepStoredWhereMasked } from './personal-data';

/**
 * A plain register declared once (refine's resources, immich's controller →
 * service → repository): table and key, the spec's paths, the zod schemas of
 * domain/, permission codes, filters and their match rule, uniqueness rules,
 * soft delete, operation-log names and the row's read rule. `registerResource`
 * turns it into the list, get, detail, save, edit and delete routes.
 */

export interface WriteContext {
  mode: 'create' | 'edit';
  /** The row's key when editing. */
  id?: number;
  auth: AuthContext;
  now: string;
  req: FastifyRequest;
}

/**
 * May the caller read any of these rows? Each declaration brings its own read
 * rule, as immich's access checks depend only on their repository: core runs
 * it and knows no module's rule.
 */
export type ReadRule = (db: Db, auth: AuthContext, ids: number[]) => Promise<boolean>;

export interface ResourceDef extends TableSpec {
  /** The wire side, declared in domain/: noun, labels, paths, permission codes, input and answer schemas, messages. */
  contract: ResourceContract;
  /** Whose rows the caller may read, beyond the route's permission code: get and detail answer 404 for any other row. */
  readable: ReadRule;
  filters?: Record<string, ListFilter>;
  /** Fields whose value another live row may not hold (compared as stored, after the schema's trim); each is backed by a unique index over the live rows (server/db/migrations), which settles two saves at once. */
  unique?: Array<{ field: string; column: string; /** Unique over the whole table, not only this kind's scope. */ acrossScope?: boolean }>;
  /** The list's rows before paging (joins); default the live rows of the table. */
  listFrom?: (db: Db) => AnySelect;
  /** The caller's rows only (a filer's own registrations): narrows list and all per request. */
  listScope?: (q: AnySelect, auth: AuthContext) => AnySelect;
  /** Rows as answered: e.g. names looked up for a page. */
  decorate?: (rows: RowValues[], db: Db) => Promise<RowValues[]>;
  /** Remembered or estimated totals for million-row registers. */
  count?: (q: AnySelect, repo: TableRepository, filters: RowValues) => Promise<number>;
  /** The wire body before it is parsed as create / update (an encrypted body decrypted). */
  decode?: (body: unknown, req: FastifyRequest) => Promise<unknown>;
  /** Parsed values → columns. Default: the values as they are. */
  toRow?: (values: RowValues, ctx: WriteContext) => RowValues | Promise<RowValues>;
  /** Rules that need the database (a referenced row exists, nobody disables themself). */
  check?: (values: RowValues, ctx: WriteContext, db: Db) => Promise<void>;
  /** Runs in an edit's transaction before the update: lock the row and refuse by its state; answers columns to set beside the values. */
  beforeUpdate?: (trx: Db, id: number, ctx: WriteContext) => Promise<RowValues | void>;
  /** Runs in the write's transaction after the row is written (sessions ended on a new password). */
  afterWrite?: (trx: Db, values: RowValues, ctx: WriteContext & { id: number }) => Promise<void>;
  /** Runs in the delete's transaction before the row goes: refuse (children remain) or clean up. */
  beforeDelete?: (trx: Db, id: number, auth: AuthContext, req: FastifyRequest) => Promise<void>;
  /** Whether a get or detail shows the row's personal data as stored: its filer's own draft, still to correct (core/personal-data.ts). */
  shownInClear?: (row: RowValues, auth: AuthContext) => boolean;
  /** What the operation log records instead of the body (never a secret). */
  auditParams?: (values: RowValues) => unknown;
  /** Columns stamped on create and edit. */
  stamps?: { createUser?: string; createTime?: string; updateTime?: string; updateUser?: string };
}

export const ALL_LIMIT = 1000;

/** Declares a resource; its table key is the contract's. */
export const defineResource = (def: Omit<ResourceDef, 'key'>): ResourceDef => ({ ...def, key: def.contract.key });

export function duplicateError(label: string, field: string, value: unknown): AppError {
  return new AppError(ErrorCode.DUPLICATE, `${label}“${String(value)}”已存在`, { errors: [{ field, label, message: `${label}已存在` }] });
}

export async function registerResource(app: FastifyInstance, def: ResourceDef) {
  const { ctx } = app;
  const c = def.contract;
  const repo = tableRepository(ctx.db, def);
  const { idParam, calls } = c;
  const stamps = { createTime: 'create_time', updateTime: 'update_time', ...def.stamps };
  const idOf = (v: unknown) => Number((v as Record<string, unknown>)[idParam]);
  const input = (req: FastifyRequest) => (req.method === 'GET' ? req.query : req.body);
  const rowsFor = (auth: AuthContext) => {
    const rows = def.listFrom ? def.listFrom(ctx.db) : repo.live();
    return def.listScope ? def.listScope(rows, auth) : rows;
  };
  // Rows leave as the table holds them; the declared row (checked on test servers) says what that is.
  const answer = (data: unknown, msg?: string) => ok(data as never, msg);

  /** A row the caller may read, or 404: the same answer for "absent" and "not yours". */
  const readRow = async (id: number, auth: AuthContext) => {
    const row = await repo.get(id);
    if (!row || !(await def.readable(ctx.db, auth, [id]))) notFound(c.noun);
    return row!;
  };

  if (calls.list) {
    route(app, calls.list, async (req) => {
      const q = input(req) as RowValues & { size: number; pn: number };
      const filtered = await repo.applyFilters(rowsFor(req.auth!), def.filters ?? {}, q);
      const [total, rows] = await Promise.all([def.count ? def.count(filtered, repo, q) : repo.count(filtered), repo.page(filtered, q.size, (q.pn - 1) * q.size)]);
      return answer({ list: def.decorate ? await def.decorate(rows, ctx.db) : rows, total });
    });
  }
  if (calls.all) {
    route(app, calls.all, async (req) => {
      const filtered = await repo.applyFilters(rowsFor(req.auth!), def.filters ?? {}, (input(req) ?? {}) as RowValues);
      const rows = await repo.all(filtered, ALL_LIMIT);
      return answer(def.decorate ? await def.decorate(rows, ctx.db) : rows);
    });
  }
  for (const call of [calls.get, calls.detail]) {
    if (!call) continue;
    route(app, call, async (req) => {
      const row = await readRow(idOf(input(req)), req.auth!);
      if (def.shownInClear?.(row, req.auth!)) answerInClear(req);
      return answer(def.decorate ? (await def.decorate([row], ctx.db))[0] : row);
    });
  }

  /**
   * An edit's personal fields sent back as they showed (masked, core/personal-data.ts) keep their stored values.
   * Before the form's rules check them: a masked number is no valid number.
   */
  const keepStoredPersonalData = async (body: unknown, mode: 'create' | 'edit') => {
    if (mode !== 'edit' || !body || typeof body !== 'object') return body;
    // Before the schema has checked it: an id that is no key a row can have (PostgreSQL refuses integers past
    // INT_MAX with an error) is the schema's to refuse.
    const raw = (body as Record<string, unknown>)[idParam];
    if (typeof raw !== 'number' && typeof raw !== 'string') return body;
    const id = Number(raw);
    if (!Number.isSafeInteger(id) || id <= 0 || id > INT_MAX) return body;
    return keepStoredWhereMasked(body, await repo.get(id), c.labels);
  };

  const write = async (req: FastifyRequest, mode: 'create' | 'edit') => {
    const schema = mode === 'create' ? c.schemas.create! : c.schemas.update!;
    // The route's schema has parsed a plain body already; an encoded one is parsed once decoded.
    const values = (def.decode ? parse(schema, await keepStoredPersonalData(await def.decode(req.body, req), mode)) : req.body) as RowValues;
    if (def.auditParams) req.auditParams = def.auditParams(values);
    const id = mode === 'edit' ? idOf(values) : undefined;
    const wctx: WriteContext = { mode, ...(id !== undefined ? { id } : {}), auth: req.auth!, now: ctx.time(), req };
    if (mode === 'edit' && !(await repo.exists(id!))) notFound(c.noun);
    const refuseTaken = async () => {
      for (const u of def.unique ?? []) if (await repo.taken(u.column, values[u.field], id, u)) throw duplicateError(c.labels[u.field] ?? u.field, u.field, values[u.field]);
    };
    await refuseTaken();
    await def.check?.(values, wctx, ctx.db);
    const { [idParam]: _key, ...fields } = values;
    void _key;
    const row = def.toRow ? await def.toRow(fields, wctx) : fields;
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        let written: number;
        if (mode === 'create') {
          written = await repo.insert({ ...row, ...(stamps.createUser ? { [stamps.createUser]: wctx.auth.userId } : {}), [stamps.createTime]: wctx.now, [stamps.updateTime]: wctx.now }, trx);
        } else {
          written = id!;
          const extra = (await def.beforeUpdate?.(trx, id!, wctx)) ?? {};
          const changed = await repo.update(id!, { ...row, ...extra, ...(stamps.updateUser ? { [stamps.updateUser]: wctx.auth.userId } : {}), [stamps.updateTime]: wctx.now }, trx);
          if (changed === 0) notFound(c.noun);
        }
        await def.afterWrite?.(trx, values, { ...wctx, id: written });
        return written;
      });
    } catch (err) {
      // Two saves at once both pass the check above; the unique index (one per declared `unique`, server/db/migrations) refuses the later one, answered as the check would.
      if (isUniqueViolation(err)) await refuseTaken();
      throw err;
    }
  };

  if (calls.save) {
    route(app, calls.save, async (req) => {
      const id = await write(req, 'create');
      return answer({ [def.key]: id }, c.messages?.save ?? '创建成功！');
    });
  }
  if (calls.edit) {
    const restoreMasked = async (req: FastifyRequest) => {
      if (!def.decode) req.body = await keepStoredPersonalData(req.body, 'edit');
    };
    route(
      app,
      calls.edit,
      async (req) => {
        await write(req, 'edit');
        return answer(null, c.messages?.edit ?? '编辑成功！');
      },
      { preValidation: restoreMasked },
    );
  }
  if (calls.delete) {
    route(app, calls.delete, async (req) => {
      const id = idOf(input(req));
      await ctx.db.transaction().execute(async (trx) => {
        await def.beforeDelete?.(trx, id, req.auth!, req);
        if ((await repo.remove(id, { [stamps.updateTime]: ctx.time() }, trx)) === 0) notFound(c.noun);
      });
      return answer(null, c.messages?.delete ?? '删除成功！');
    });
  }
  return repo;
}

/** A plugin registering one or more declared resources. */
export const resourceRoutes =
  (...defs: ResourceDef[]) =>
  async (app: FastifyInstance) => {
    for (const def of defs) await registerResource(app, def);
  };
