import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { binaryType } from '../../domain/contract';
import { commonApi } from '../../domain/schemas/common-api';
import { errorTable } from '../../domain/errors';
import { flattenPermissions } from '../../domain/permissions';
import type { RouteInfo } from './context';
import { route } from './route';
import { labelsOf } from './validate';

/**
 * The API describes itself from the routes as registered: each route's zod
 * schemas (the same that validate it), its permission code and its Chinese
 * summary. Served as OpenAPI 3 at /api/openapi.json and as a plain page at
 * /api/docs (no scripts, so the page passes the same CSP as the app).
 */

type Json = Record<string, unknown>;
const permissionNames = new Map(flattenPermissions().map((n) => [n.code, n.name]));

const accessText = (p: string) =>
  p === 'public'
    ? '无需登录'
    : p === 'device'
      ? '设备密钥（Authorization: Device <设备编号>:<密钥>）'
      : p === 'signed-in'
        ? '已登录即可'
        : p === 'role'
          ? '已登录且至少有一个角色'
          : `权限 ${p}${permissionNames.get(p) ? `（${permissionNames.get(p)}）` : ''}`;

/**
 * The schemas that several places of the document point to, under
 * components.schemas. zod writes a recursive schema (the menu tree) once in a
 * `definitions` block of the schema it converts, and points to it with
 * `#/definitions/…`, which in an OpenAPI document resolves against the
 * document's root, where nothing is: every such block moves here and its
 * pointers are rewritten. One block seen again (the same text) reuses its names.
 */
class SharedSchemas {
  readonly schemas: Record<string, Json> = {};
  /** A definition of a block as zod wrote it (block text, id) → its component name. */
  private readonly named = new Map<string, string>();

  /** `json` with its definitions placed here; `usedAt` names where it is used ('user.info.data'). */
  place(json: Json, usedAt: string): Json {
    const defs: Record<string, Json> = { ...(json.definitions as Record<string, Json> | undefined), ...(json.$defs as Record<string, Json> | undefined) };
    delete json.definitions;
    delete json.$defs;
    if (!Object.keys(defs).length) return json;
    const block = JSON.stringify(defs);
    const names = new Map<string, string>();
    const added: string[] = [];
    for (const id of Object.keys(defs)) {
      const key = `${block}\u0000${id}`;
      let name = this.named.get(key);
      if (!name) {
        name = this.freeName(id, json, defs, usedAt);
        this.named.set(key, name);
        added.push(id);
      }
      names.set(id, name);
    }
    const pointer = (ref: string) => {
      const id = /^#\/(?:definitions|\$defs)\/(.+)$/.exec(ref)?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
      const name = id === undefined ? undefined : names.get(id);
      return name === undefined ? ref : `#/components/schemas/${name}`;
    };
    for (const id of added) this.schemas[names.get(id)!] = rewriteRefs(defs[id], pointer) as Json;
    return rewriteRefs(json, pointer) as Json;
  }

  /** A component name not yet taken (letters, digits, . _ - as OpenAPI asks): zod's id when it was given one, else where the schema is first used. */
  private freeName(id: string, root: Json, defs: Record<string, Json>, usedAt: string): string {
    let base = id;
    if (/^__schema\d+$/.test(id)) {
      const at =
        refPath(root, id) ??
        Object.values(defs)
          .map((d) => refPath(d, id))
          .find((p) => p !== undefined);
      base = at ? `${usedAt}.${at}` : usedAt;
    }
    base = base.replace(/[^A-Za-z0-9._-]+/g, '_');
    const taken = new Set(this.named.values());
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    return name;
  }
}

/** The value with every `$ref` passed through `pointer`. */
function rewriteRefs(value: unknown, pointer: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, pointer));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? pointer(v) : rewriteRefs(v, pointer)]));
}

/** Where in `schema` the first pointer to definition `id` is, as property names ('menus.item'), or undefined. */
function refPath(schema: unknown, id: string, at: string[] = []): string | undefined {
  if (Array.isArray(schema)) return schema.map((s) => refPath(s, id, at)).find((p) => p !== undefined);
  if (!schema || typeof schema !== 'object') return undefined;
  const node = schema as Json;
  if (typeof node.$ref === 'string' && node.$ref.endsWith(`/${id}`)) return at.join('.');
  for (const [k, v] of Object.entries(node)) {
    if (k === 'definitions' || k === '$defs') continue;
    const found =
      k === 'properties' && v && typeof v === 'object'
        ? Object.entries(v as Json)
            .map(([prop, sub]) => refPath(sub, id, [...at, prop]))
            .find((p) => p !== undefined)
        : refPath(v, id, k === 'items' ? [...at, 'item'] : at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** JSON Schema of a zod schema as a client sends it (or, for an answer, as the server sends it); the entity's labels become each property's title. */
function inputSchema(schema: z.ZodType, shared: SharedSchemas, usedAt: string, io: 'input' | 'output' = 'input'): Json {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Json;
  const labels = labelsOf(schema);
  const props = json.properties as Record<string, Json> | undefined;
  if (props) for (const [k, v] of Object.entries(props)) if (labels[k] && !v.title) v.title = labels[k];
  delete json.$schema;
  return shared.place(json, usedAt);
}

const envelope = (data: Json = {}): Json => ({
  type: 'object',
  required: ['success', 'code', 'msg', 'message', 'data'],
  properties: {
    success: { type: 'boolean' },
    code: { type: 'integer', description: '1000 为成功；失败码见 errorTable' },
    msg: { type: 'string' },
    message: { type: 'string' },
    data,
  },
});

/** A success as the route declares it: the envelope around its data, or the file type it streams. */
function answerDoc(answer: z.ZodType | undefined, shared: SharedSchemas, usedAt: string): Json {
  if (!answer) return { description: '成功（答复未声明）', content: { 'application/json': { schema: envelope() } } };
  const file = binaryType(answer);
  if (file) return { description: '成功：文件', content: { [file]: { schema: { type: 'string', format: 'binary' } } } };
  return { description: '成功（code 1000）', content: { 'application/json': { schema: envelope(inputSchema(answer, shared, `${usedAt}.data`, 'output')) } } };
}

/** Fastify's /:id style parameters become OpenAPI's {id}. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const tagOf = (url: string) => url.replace(/^\/api\/(v2\/)?/, '').split('/')[0] ?? 'api';

export function openApiDocument(routes: RouteInfo[], version: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const shared = new SharedSchemas();
  for (const r of routes) {
    const s = r.schema;
    const usedAt = r.url.replace(/^\/api\//, '').replace(/\//g, '.');
    const op: Json = {
      summary: s?.summary ?? r.operation ?? '',
      description: accessText(r.permission),
      tags: [tagOf(r.url)],
      'x-permission': r.permission,
      ...(r.operation ? { 'x-operation-log': r.operation } : {}),
      responses: {
        200: answerDoc(s?.answer, shared, usedAt),
        default: { description: '失败：见 errorTable（HTTP 状态与 code 一一对应）', content: { 'application/json': { schema: envelope() } } },
      },
    };
    if (s?.body) op.requestBody = { required: true, content: { 'application/json': { schema: inputSchema(s.body, shared, `${usedAt}.body`) } } };
    if (s?.multipart) {
      op.requestBody = {
        required: true,
        content: {
          'multipart/form-data': { schema: { type: 'object', properties: Object.fromEntries(Object.entries(s.multipart).map(([k, d]) => [k, { type: 'string', format: 'binary', description: d }])) } },
        },
      };
    }
    if (s?.querystring) {
      const q = inputSchema(s.querystring, shared, `${usedAt}.query`);
      const required = new Set((q.required as string[] | undefined) ?? []);
      op.parameters = Object.entries((q.properties as Record<string, Json>) ?? {}).map(([name, schema]) => ({ name, in: 'query', required: required.has(name), schema }));
    }
    (paths[openApiPath(r.url)] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: '园区出入管理后台 API',
      version,
      description: '所有接口位于 /api 下，答复为 { success, code, msg, message, data }。登录后在 Authorization: Bearer <token> 中携带令牌；写操作可带 Idempotency-Key。',
    },
    components: {
      schemas: shared.schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      'x-error-table': Object.fromEntries(Object.entries(errorTable).map(([code, e]) => [code, { status: e.status, message: e.message }])),
    },
    security: [{ bearer: [] }],
    paths,
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function fieldRows(schema: Json | undefined): string {
  const props = (schema?.properties as Record<string, Json> | undefined) ?? {};
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  const rows = Object.entries(props).map(
    ([name, p]) =>
      `<tr><td><code>${escapeHtml(name)}</code></td><td>${escapeHtml(String(p.title ?? ''))}</td><td>${escapeHtml(String(p.type ?? (p.anyOf ? '多种' : '')))}${p.format ? ` (${escapeHtml(String(p.format))})` : ''}</td><td>${required.has(name) ? '是' : ''}</td></tr>`,
  );
  return rows.length ? `<table><tr><th>字段</th><th>名称</th><th>类型</th><th>必填</th></tr>${rows.join('')}</table>` : '<p class="none">无参数</p>';
}

/** A readable page of the same document: one section per area, one block per call. */
export function docsPage(doc: Json): string {
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = (op.requestBody as { content?: Record<string, { schema: Json }> } | undefined)?.content;
      const input = body
        ? Object.values(body)[0]?.schema
        : op.parameters
          ? { properties: Object.fromEntries((op.parameters as Json[]).map((p) => [p.name, p.schema])), required: (op.parameters as Json[]).filter((p) => p.required).map((p) => p.name) }
          : undefined;
      const tag = (op.tags as string[])[0]!;
      const block = `<section id="${escapeHtml(method + path)}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code> ${escapeHtml(String(op.summary))}</h3><p>${escapeHtml(String(op.description))}${op['x-operation-log'] ? `；记入操作日志“${escapeHtml(String(op['x-operation-log']))}”` : ''}</p>${fieldRows(input as Json | undefined)}</section>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), block]);
    }
  }
  const tags = [...byTag.keys()].sort();
  const info = doc.info as Json;
  return `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(String(info.title))}</title><style>
body{font:14px/1.6 system-ui,"Noto Sans CJK SC",sans-serif;margin:0 auto;max-width:1000px;padding:16px;color:#1f2329}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #e5e6eb;padding-top:12px}h3{font-size:15px;margin:16px 0 4px;word-break:break-all}
table{border-collapse:collapse;width:100%;margin:4px 0 8px}td,th{border:1px solid #e5e6eb;padding:3px 8px;text-align:left;font-size:13px}th{background:#f7f8fa}
.m{display:inline-block;min-width:44px;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:0 4px}.post{background:#1677ff}.get{background:#00b578}
nav a{margin-right:10px;white-space:nowrap}.none{color:#86909c;margin:0}
</style></head><body><h1>${escapeHtml(String(info.title))} <small>${escapeHtml(String(info.version))}</small></h1><p>${escapeHtml(String(info.description))} 机器可读的描述：<a href="/api/openapi.json">/api/openapi.json</a>（OpenAPI 3）。</p>
<nav>${tags.map((t) => `<a href="#tag-${escapeHtml(t)}">${escapeHtml(t)}</a>`).join(' ')}</nav>
${tags.map((t) => `<h2 id="tag-${escapeHtml(t)}">${escapeHtml(t)}</h2>${byTag.get(t)!.join('')}`).join('\n')}</body></html>`;
}

export async function openApiRoutes(app: FastifyInstance, opts: { version: string }) {
  let doc: Json | undefined;
  // Built once, on first ask: by then every route is registered.
  const document = () => (doc ??= openApiDocument(app.ctx.routes, opts.version));
  route(app, commonApi.openapi, async (_req, reply) => reply.send(document()));
  route(app, commonApi.docs, async (_req, reply) => reply.type('text/html; charset=utf-8').send(docsPage(document())));
}
