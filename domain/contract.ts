import { z } from 'zod';
import { ErrorCode } from './errors';
import type { PermissionCode } from './permissions';
import { idField, labelled, type FieldLabels } from './schemas/common';

/**
 * The wire contract, declared once (refine's resources, fastify/demo's route
 * schemas): each call's method, path, permission code, input and answer.
 * The server registers its routes from these declarations (core/route.ts,
 * core/resource.ts), the client calls through them (src/lib/http.ts `call`),
 * and the OpenAPI document describes both sides from them. Paths are
 * relative to /api, as the client's base URL and the server's prefix are.
 */

/**
 * Who may call a route. A permission code means the caller must hold it;
 * 'role': any signed-in user holding at least one role; 'signed-in': any
 * session (info, logout, profile); 'public': no session (sign-in calls);
 * 'device': a park device's key (DESIGN.md §8), never a user's session.
 */
export type Access = 'public' | 'signed-in' | 'role' | 'device' | PermissionCode;

export type Method = 'GET' | 'POST';

export interface Call<I extends z.ZodType = z.ZodType, A extends z.ZodType = z.ZodType> {
  method: Method;
  /** Relative to /api; Fastify's `:name` marks a path parameter. */
  path: string;
  permission: Access;
  /** Chinese, for the API description. */
  summary: string;
  /** The body of a POST, the query string of a GET. Absent for multipart uploads. */
  input?: I;
  /** The `data` of a successful answer (the envelope is added around it), or `binary` for a file or stream. */
  answer: A;
  /** Set on mutating calls: the operation log's name for it. */
  operation?: string;
  /** multipart uploads: the parts the route reads. */
  multipart?: Record<string, string>;
}

/** Declares a call; an identity that keeps its schemas' types for both sides. */
export const defineCall = <I extends z.ZodType = z.ZodType, A extends z.ZodType = z.ZodType>(call: Call<I, A> & { input: I }) => call;
/** A multipart upload: its parts are named, not parsed by zod. */
export const defineUpload = <A extends z.ZodType>(call: Omit<Call<z.ZodType, A>, 'input'> & { multipart: Record<string, string> }) => call as Call<z.ZodType<never>, A>;

/** What a call takes on the wire, and what it answers. */
export type InputOf<C> = C extends { input?: infer I extends z.ZodType } ? z.input<I> : never;
export type AnswerOf<C> = C extends { answer: infer A extends z.ZodType } ? z.output<A> : never;

/** An answer that is a file or a stream (xlsx, an image, SSE), not a JSON envelope. */
export const binary = (contentType: string) => z.custom<never>(() => true).meta({ binary: contentType });
export const binaryType = (answer: z.ZodType): string | undefined => (answer.meta() as { binary?: string } | undefined)?.binary;

/** No data: `null` under the envelope (edits, deletes, binds). */
export const none = z.null();

/** The envelope of DESIGN.md §3 around a call's data: what a successful reply's body is. */
export const envelopeOf = <A extends z.ZodType>(data: A) => z.object({ success: z.boolean(), code: z.literal(ErrorCode.OK), msg: z.string(), message: z.string(), data });

/** A page of a list: { list, total }. */
export const pageOf = <R extends z.ZodType>(row: R) => z.object({ list: z.array(row), total: z.number().int() });

/** Answer-side column types, named for what the databases hand back. */
export const col = {
  id: z.number().int(),
  int: z.number().int(),
  num: z.number(),
  text: z.string(),
  /** 'YYYY-MM-DD HH:mm:ss' park time. */
  time: z.string(),
  flag: z.number().int(),
  nullable: <T extends z.ZodType>(t: T) => t.nullable(),
};

/**
 * The calls of a plain register (core/resource.ts turns them into routes):
 * list, all, get, detail, save, edit, delete, each optional. The declaration
 * says the row as answered; the calls follow from it.
 */
export interface ResourceContractDef<R extends z.ZodType, Q extends z.ZodType, C extends z.ZodType, U extends z.ZodType> {
  /** The noun in messages and summaries: '车型'. */
  noun: string;
  labels: FieldLabels;
  /** A row as the list, get and detail answer it. */
  row: R;
  /** The row's key column: what save answers ({ [key]: id }) and the table's primary key. */
  key: string;
  /** The wire name of the key in bodies and queries (default 'id'). */
  idParam?: string;
  paths: Partial<Record<ResourceVerb, string | { url: string; method?: Method }>>;
  permissions: { list: Access } & Partial<Record<Exclude<ResourceVerb, 'list'>, Access>>;
  schemas: {
    list?: Q;
    all?: z.ZodType;
    id?: z.ZodType;
    create?: C;
    update?: U;
    /** What save and edit take on the wire when it is not `create` / `update` themselves (an encrypted envelope). */
    writeBody?: z.ZodType;
  };
  /** A detail's answer when it differs from the row (names joined in). */
  detailRow?: z.ZodType;
  operations?: { save?: string; edit?: string; delete?: string };
  messages?: { save?: string; edit?: string; delete?: string };
}

export type ResourceVerb = 'list' | 'all' | 'get' | 'detail' | 'save' | 'edit' | 'delete';

type Paths = ResourceContractDef<z.ZodType, z.ZodType, z.ZodType, z.ZodType>['paths'];
/** The calls of a register, by verb: each typed by the declaration's schemas. */
type ResourceCalls<R extends z.ZodType, Q extends z.ZodType, C extends z.ZodType, U extends z.ZodType> = {
  list: Call<Q, z.ZodObject<{ list: z.ZodArray<R>; total: z.ZodNumber }>>;
  all: Call<z.ZodType, z.ZodArray<R>>;
  get: Call<IdInput, R>;
  detail: Call<IdInput, R>;
  save: Call<C, z.ZodObject<Record<string, z.ZodNumber>>>;
  edit: Call<U, z.ZodNull>;
  delete: Call<IdInput, z.ZodNull>;
};
/** { [idParam]: id } */
type IdInput = z.ZodType<Record<string, number>, Record<string, unknown>>;

export function defineResourceContract<R extends z.ZodType, Q extends z.ZodType, C extends z.ZodType, U extends z.ZodType, P extends Paths>(def: ResourceContractDef<R, Q, C, U> & { paths: P }) {
  const idParam = def.idParam ?? 'id';
  const idSchema = def.schemas.id ?? labelled(z.object({ [idParam]: idField(def.labels[idParam] ?? `${def.noun}ID`) }), def.labels);
  const at = (verb: ResourceVerb) => {
    const p = def.paths[verb]!;
    return typeof p === 'string' ? { path: p, method: 'POST' as Method } : { path: p.url, method: p.method ?? ('POST' as Method) };
  };
  const permission = (verb: ResourceVerb) => def.permissions[verb as 'get'] ?? def.permissions.list;
  const has = (verb: ResourceVerb) => def.paths[verb] !== undefined;
  const saveName = def.operations?.save ?? `新增${def.noun}`;
  const editName = def.operations?.edit ?? `编辑${def.noun}`;
  const deleteName = def.operations?.delete ?? `删除${def.noun}`;
  const calls = {
    list: has('list') ? defineCall({ ...at('list'), permission: permission('list'), summary: `${def.noun}列表`, input: def.schemas.list as Q, answer: pageOf(def.row) }) : undefined,
    all: has('all') ? defineCall({ ...at('all'), permission: permission('all'), summary: `全部${def.noun}`, input: def.schemas.all ?? z.object({}), answer: z.array(def.row) }) : undefined,
    get: has('get') ? defineCall({ ...at('get'), permission: permission('get'), summary: `${def.noun}（编辑用）`, input: idSchema, answer: def.row }) : undefined,
    detail: has('detail') ? defineCall({ ...at('detail'), permission: permission('detail'), summary: `${def.noun}详情`, input: idSchema, answer: (def.detailRow ?? def.row) as R }) : undefined,
    save: has('save')
      ? defineCall({
          ...at('save'),
          permission: permission('save'),
          summary: saveName,
          operation: saveName,
          input: (def.schemas.writeBody ?? def.schemas.create) as C,
          answer: z.object({ [def.key]: col.id }),
        })
      : undefined,
    edit: has('edit')
      ? defineCall({ ...at('edit'), permission: permission('edit'), summary: editName, operation: editName, input: (def.schemas.writeBody ?? def.schemas.update) as U, answer: none })
      : undefined,
    delete: has('delete') ? defineCall({ ...at('delete'), permission: permission('delete'), summary: deleteName, operation: deleteName, input: idSchema, answer: none }) : undefined,
  };
  // Only the verbs the declaration has a path for: a screen cannot call a route that is not there.
  const present = Object.fromEntries(Object.entries(calls).filter(([, c]) => c !== undefined)) as unknown as Pick<ResourceCalls<R, Q, C, U>, keyof P & ResourceVerb>;
  return { ...def, idParam, idSchema, calls: present };
}

/** Any register's contract, as core/resource.ts reads it. */
export type ResourceContract = Omit<ReturnType<typeof defineResourceContract>, 'calls'> & { calls: Partial<ResourceCalls<z.ZodType, z.ZodType, z.ZodType, z.ZodType>> };
