import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ErrorCode } from '../../domain/errors';
import { idField, labelled, type FieldLabels } from '../../domain/schemas/common';
import type { Access, AuthContext } from './context';
import { AppError, notFound, ok } from './errors';
import { tableRepository, type AnySelect, type Db, type FilterMatch, type RowValues, type TableRepository, type TableSpec } from './repository';
import type { RouteSchema, ZodTypeProvider } from './route-schema';
import { parse } from './validate';

/**
 * A plain register declared once (refine's resources, immich's controller →
 * service → repository): table and key, the spec's paths, the zod schemas of
 * domain/, permission codes, filters and their match rule, uniqueness rules,
 * soft delete, operation-log names and the row's read rule. `registerResource`
 * turns it into the list, get, detail, save, edit and delete routes.
 */

type Method = 'GET' | 'POST';
interface PathDef {
  url: string;
  method?: Method;
}
const pathOf = (p: string | PathDef): Required<PathDef> => (typeof p === 'string' ? { url: p, method: 'POST' } : { method: 'POST', ...p });

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
  /** The noun in messages: '车型' → '车型不存在或已被删除'. */
  noun: string;
  labels: FieldLabels;
  /** Whose rows the caller may read, beyond the route's permission code: get and detail answer 404 for any other row. */
  readable: ReadRule;
  paths: {
    list?: string | PathDef;
    /** Answers every live row matching the filters as an array (form preloads, trees), capped at ALL_LIMIT. */
    all?: string | PathDef;
    get?: string | PathDef;
    detail?: string | PathDef;
    save?: string | PathDef;
    edit?: string | PathDef;
    delete?: string | PathDef;
  };
  permissions: { list: Access; all?: Access; get?: Access; detail?: Access; save?: Access; edit?: Access; delete?: Access };
  schemas: {
    list?: z.ZodType;
    /** The filters of `all` (default none). */
    all?: z.ZodType;
    /** { [idParam]: id } of get, detail and delete. */
    id?: z.ZodType;
    create?: z.ZodType;
    /** Carries the key under `idParam`. */
    update?: z.ZodType;
    /** What the save and edit routes take on the wire when it is not `create` / `update` themselves (an encrypted envelope). */
    writeBody?: z.ZodType;
  };
  /** The wire name of the key in bodies and queries (default 'id'). */
  idParam?: string;
  filters?: Record<string, { column: string; match: FilterMatch }>;
  /** Fields whose value another live row may not hold. */
  unique?: Array<{ field: string; column: string; /** Unique over the whole table, not only this kind's scope. */ acrossScope?: boolean }>;
  operations?: { save?: string; edit?: string; delete?: string };
  messages?: { save?: string; edit?: string; delete?: string };
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
  /** What the operation log records instead of the body (never a secret). */
  auditParams?: (values: RowValues) => unknown;
  /** Columns stamped on create and edit. */
  stamps?: { createUser?: string; createTime?: string; updateTime?: string; updateUser?: string };
}

export const ALL_LIMIT = 1000;

/** Declares a resource; an identity that keeps the literal types. */
export const defineResource = (def: ResourceDef): ResourceDef => def;

export function duplicateError(label: string, field: string, value: unknown): AppError {
  return new AppError(ErrorCode.DUPLICATE, `${label}“${String(value)}”已存在`, { errors: [{ field, label, message: `${label}已存在` }] });
}

export async function registerResource(appInstance: FastifyInstance, def: ResourceDef) {
  const app = appInstance.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;
  const repo = tableRepository(ctx.db, def);
  const idParam = def.idParam ?? 'id';
  const idSchema = def.schemas.id ?? labelled(z.object({ [idParam]: idField(def.labels[idParam] ?? `${def.noun}ID`) }), def.labels);
  const stamps = { createTime: 'create_time', updateTime: 'update_time', ...def.stamps };
  const idOf = (v: unknown) => Number((v as Record<string, unknown>)[idParam]);

  const route = (p: string | PathDef, permission: Access, schema: RouteSchema, operation: string | undefined, handler: (req: FastifyRequest) => Promise<unknown>) => {
    const { url, method } = pathOf(p);
    if (method === 'GET' && schema.body) {
      schema = { ...schema, querystring: schema.body };
      delete schema.body;
    }
    app.route({ method, url, config: { permission, ...(operation ? { operation } : {}) }, schema, handler });
  };
  const input = (req: FastifyRequest) => (req.method === 'GET' ? req.query : req.body);
  const rowsFor = (auth: AuthContext) => {
    const rows = def.listFrom ? def.listFrom(ctx.db) : repo.live();
    return def.listScope ? def.listScope(rows, auth) : rows;
  };

  /** A row the caller may read, or 404: the same answer for "absent" and "not yours". */
  const readRow = async (id: number, auth: AuthContext) => {
    const row = await repo.get(id);
    if (!row || !(await def.readable(ctx.db, auth, [id]))) notFound(def.noun);
    return row!;
  };

  if (def.paths.list) {
    route(def.paths.list, def.permissions.list, { summary: `${def.noun}列表`, body: def.schemas.list! }, undefined, async (req) => {
      const q = input(req) as RowValues & { size: number; pn: number };
      const filtered = await repo.applyFilters(rowsFor(req.auth!), def.filters ?? {}, q);
      const [total, rows] = await Promise.all([def.count ? def.count(filtered, repo, q) : repo.count(filtered), repo.page(filtered, q.size, (q.pn - 1) * q.size)]);
      return ok({ list: def.decorate ? await def.decorate(rows, ctx.db) : rows, total });
    });
  }
  if (def.paths.all) {
    route(def.paths.all, def.permissions.all ?? def.permissions.list, { summary: `全部${def.noun}`, body: def.schemas.all ?? z.object({}) }, undefined, async (req) => {
      const filtered = await repo.applyFilters(rowsFor(req.auth!), def.filters ?? {}, (input(req) ?? {}) as RowValues);
      const rows = await repo.all(filtered, ALL_LIMIT);
      return ok(def.decorate ? await def.decorate(rows, ctx.db) : rows);
    });
  }
  for (const which of ['get', 'detail'] as const) {
    const p = def.paths[which];
    if (!p) continue;
    route(p, def.permissions[which] ?? def.permissions.list, { summary: `${def.noun}${which === 'get' ? '（编辑用）' : '详情'}`, body: idSchema }, undefined, async (req) => {
      const row = await readRow(idOf(input(req)), req.auth!);
      return ok(def.decorate ? (await def.decorate([row], ctx.db))[0] : row);
    });
  }

  const write = async (req: FastifyRequest, mode: 'create' | 'edit') => {
    const schema = mode === 'create' ? def.schemas.create! : def.schemas.update!;
    // The route's schema has parsed a plain body already; an encoded one is parsed once decoded.
    const values = (def.decode ? parse(schema, await def.decode(req.body, req)) : req.body) as RowValues;
    if (def.auditParams) req.auditParams = def.auditParams(values);
    const id = mode === 'edit' ? idOf(values) : undefined;
    const wctx: WriteContext = { mode, ...(id !== undefined ? { id } : {}), auth: req.auth!, now: ctx.time(), req };
    if (mode === 'edit' && !(await repo.exists(id!))) notFound(def.noun);
    for (const u of def.unique ?? []) if (await repo.taken(u.column, values[u.field], id, u)) throw duplicateError(def.labels[u.field] ?? u.field, u.field, values[u.field]);
    await def.check?.(values, wctx, ctx.db);
    const { [idParam]: _key, ...fields } = values;
    void _key;
    const row = def.toRow ? await def.toRow(fields, wctx) : fields;
    return ctx.db.transaction().execute(async (trx) => {
      let written: number;
      if (mode === 'create') {
        written = await repo.insert({ ...row, ...(stamps.createUser ? { [stamps.createUser]: wctx.auth.userId } : {}), [stamps.createTime]: wctx.now, [stamps.updateTime]: wctx.now }, trx);
      } else {
        written = id!;
        const extra = (await def.beforeUpdate?.(trx, id!, wctx)) ?? {};
        const changed = await repo.update(id!, { ...row, ...extra, ...(stamps.updateUser ? { [stamps.updateUser]: wctx.auth.userId } : {}), [stamps.updateTime]: wctx.now }, trx);
        if (changed === 0) notFound(def.noun);
      }
      await def.afterWrite?.(trx, values, { ...wctx, id: written });
      return written;
    });
  };

  const writeBody = (schema: z.ZodType | undefined) => def.schemas.writeBody ?? schema!;
  if (def.paths.save) {
    route(
      def.paths.save,
      def.permissions.save!,
      { summary: def.operations?.save ?? `新增${def.noun}`, body: writeBody(def.schemas.create) },
      def.operations?.save ?? `新增${def.noun}`,
      async (req) => {
        const id = await write(req, 'create');
        return ok({ [def.key]: id }, def.messages?.save ?? '创建成功！');
      },
    );
  }
  if (def.paths.edit) {
    route(
      def.paths.edit,
      def.permissions.edit!,
      { summary: def.operations?.edit ?? `编辑${def.noun}`, body: writeBody(def.schemas.update) },
      def.operations?.edit ?? `编辑${def.noun}`,
      async (req) => {
        await write(req, 'edit');
        return ok(null, def.messages?.edit ?? '编辑成功！');
      },
    );
  }
  if (def.paths.delete) {
    route(def.paths.delete, def.permissions.delete!, { summary: def.operations?.delete ?? `删除${def.noun}`, body: idSchema }, def.operations?.delete ?? `删除${def.noun}`, async (req) => {
      const id = idOf(input(req));
      await ctx.db.transaction().execute(async (trx) => {
        await def.beforeDelete?.(trx, id, req.auth!, req);
        if ((await repo.remove(id, { [stamps.updateTime]: ctx.time() }, trx)) === 0) notFound(def.noun);
      });
      return ok(null, def.messages?.delete ?? '删除成功！');
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
