import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../server/core/context';
import { Client, startServer, type TestServer } from './harness';

/**
 * The API describes itself from the routes as registered (server/core/openapi.ts):
 * every route declares a Chinese summary and its input as zod schemas, the
 * same schemas that validate it. The description does not depend on the
 * database, so one SQLite server covers it.
 */

type Json = Record<string, any>;

const CHINESE = /[\u4e00-\u9fff]/;
/** Fastify's /:id parameters are OpenAPI's /{id}. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const label = (r: RouteInfo) => `${r.method} ${r.url}`;

/** What is missing from a route's declaration, or null when it is complete. */
function missingDeclaration(r: RouteInfo): string | null {
  const s = r.schema;
  if (!s) return 'no schema';
  const gaps: string[] = [];
  if (typeof s.summary !== 'string' || !s.summary.trim()) gaps.push('no summary');
  else if (!CHINESE.test(s.summary)) gaps.push(`summary not in Chinese: "${s.summary}"`);
  if (!s.body && !s.querystring && !s.multipart) gaps.push('no body, querystring or multipart declaration');
  return gaps.length ? gaps.join('; ') : null;
}

describe('the API description', () => {
  let server: TestServer;
  let routes: RouteInfo[];
  let admin: Client;

  beforeAll(async () => {
    server = await startServer('sqlite');
    routes = server.app.ctx.routes.filter((r) => r.url.startsWith('/api'));
    admin = await new Client(server).as('admin');
  });
  afterAll(async () => server?.close());

  it('has a Chinese summary and a body, querystring or multipart declaration on every route', () => {
    expect(routes.length).toBeGreaterThan(50);
    const offenders = routes.flatMap((r) => {
      const gap = missingDeclaration(r);
      return gap ? [`${label(r)}: ${gap}`] : [];
    });
    expect(offenders, `routes without a complete schema:\n${offenders.join('\n')}`).toEqual([]);
  });

  it('serves an OpenAPI 3 document naming every route with its permission', async () => {
    const res = await fetch(`${server.base}/api/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const envelope = (await res.json()) as Json;
    // Answered like every other call: the document is the envelope's data.
    const doc = (envelope.data ?? envelope) as Json;
    expect(String(doc.openapi)).toMatch(/^3\./);
    expect(doc.info?.title).toBeTruthy();
    const paths = doc.paths as Record<string, Record<string, Json>>;

    const absent: string[] = [];
    const wrongPermission: string[] = [];
    for (const r of routes) {
      const op = paths[openApiPath(r.url)]?.[r.method.toLowerCase()];
      if (!op) absent.push(label(r));
      else if (op['x-permission'] !== r.permission) wrongPermission.push(`${label(r)}: ${String(op['x-permission'])} ≠ ${r.permission}`);
    }
    expect(absent, `routes missing from /api/openapi.json:\n${absent.join('\n')}`).toEqual([]);
    expect(wrongPermission, `x-permission differs from the route's permission:\n${wrongPermission.join('\n')}`).toEqual([]);

    // The entity's labels reach the description as the properties' titles.
    const del = paths['/api/carApplications/delete']?.post;
    expect(del?.summary).toBeTruthy();
    expect(del?.requestBody?.content?.['application/json']?.schema?.properties?.id?.title).toBe('申请ID');
    const upload = paths['/api/file/upload']?.post;
    expect(Object.keys(upload?.requestBody?.content ?? {})).toEqual(['multipart/form-data']);
    // A Fastify parameter is written the OpenAPI way.
    expect(paths['/api/common/enum/{name}']?.get).toBeTruthy();
  });

  it('is a document a third-party OpenAPI validator accepts: schema-valid, every $ref resolving', async () => {
    const doc = (await (await fetch(`${server.base}/api/openapi.json`)).json()) as Json;
    // swagger-parser (behind many code generators) checks the document against the OpenAPI 3.0 schema and resolves every pointer.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();

    // The menu tree of the signed-in user's info is recursive: it lives under components.schemas and points to itself there.
    const menus = doc.paths['/api/user/info'].get.responses[200].content['application/json'].schema.properties.data.properties.menus;
    const ref = String(menus.items.$ref);
    expect(ref).toMatch(/^#\/components\/schemas\//);
    const node = doc.components.schemas[ref.slice('#/components/schemas/'.length)] as Json;
    expect(node.properties.children.items.$ref).toBe(ref);
    expect(JSON.stringify(doc)).not.toMatch(/"#\/(definitions|\$defs)\//);
  });

  it('serves a readable page naming every route', async () => {
    const res = await fetch(`${server.base}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/i);
    const unnamed = routes.filter((r) => !html.includes(`<code>${openApiPath(r.url)}</code>`)).map(label);
    expect(unnamed, `routes missing from /api/docs:\n${unnamed.join('\n')}`).toEqual([]);
  });

  it('answers a body the route schema refuses with the 400 envelope naming the field in Chinese', async () => {
    const empty = await admin.post('/vehicleType/save', { name: '', speed: 60, needRecord: 0, showCargoType: 0, checkOverweight: 0, needBlindVideo: 0 });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ success: false, code: 1001 });
    expect(empty.body.msg).toContain('车型名');
    expect((empty.body.data as { errors: Array<{ field: string; label: string }> }).errors[0]).toMatchObject({ field: 'name', label: '车型名' });

    // A route whose schema lives in domain/schemas with its labels attached there.
    const noId = await admin.post('/carApplications/delete', {});
    expect(noId.status).toBe(400);
    expect(noId.body).toMatchObject({ success: false, code: 1001, msg: '请提供申请ID' });
    expect((noId.body.data as { errors: Array<{ field: string; label: string }> }).errors[0]).toMatchObject({ field: 'id', label: '申请ID' });

    // A GET route's query string goes through the same schema and envelope.
    const badQuery = await admin.get('/carApplications/detail?id=abc');
    expect(badQuery.status).toBe(400);
    expect(badQuery.body).toMatchObject({ success: false, code: 1001 });
    expect(badQuery.body.msg).toContain('申请ID');
  });
});
