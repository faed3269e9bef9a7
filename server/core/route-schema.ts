import type { FastifyInstance, FastifySchema, FastifyTypeProvider } from 'fastify';
import type { z } from 'zod';
import { parse } from './validate';

/**
 * Routes declare their input and answer with the zod schemas of domain/ in
 * Fastify's own route schema (built from domain/contract.ts by core/route.ts
 * and core/resource.ts). One validator compiler turns a failed parse into the
 * Chinese envelope (core/validate.ts); the same declarations feed the OpenAPI
 * description (core/openapi.ts) and type `req.body`, `req.query` and the
 * handler's answer.
 */
export interface ZodTypeProvider extends FastifyTypeProvider {
  readonly validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  readonly serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

/** What every /api route states besides its permission: a Chinese summary, its input and its answer. */
export interface RouteSchema extends FastifySchema {
  summary: string;
  body?: z.ZodType;
  querystring?: z.ZodType;
  /** The `data` of a successful answer, or a binary marker (domain/contract.ts `binary`) for a file or stream. */
  answer?: z.ZodType;
  /** The whole successful reply, envelope and data: what the serializer checks (CHECK_ANSWERS) and the handler's return type. */
  response?: { 200: z.ZodType };
  /** multipart uploads: the parts the route reads, for the description. */
  multipart?: Record<string, string>;
}

/**
 * Where an answer differs from its declaration: the first failed rule, or a
 * field the declaration does not name (zod drops unknown keys when parsing,
 * so the parsed value is compared key by key with the sent one). Compared on
 * the JSON as it goes on the wire.
 */
export function answerMismatch(schema: z.ZodType, data: unknown): string | null {
  const wire: unknown = JSON.parse(JSON.stringify(data) ?? 'null');
  const parsed = schema.safeParse(wire);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `${issue.path.join('.') || '(root)'}: ${issue.message}`;
  }
  return undeclared(wire, parsed.data, '');
}

function undeclared(sent: unknown, kept: unknown, at: string): string | null {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    for (let i = 0; i < sent.length; i++) {
      const gap = undeclared(sent[i], kept[i], `${at}[${i}]`);
      if (gap) return gap;
    }
    return null;
  }
  if (sent && typeof sent === 'object' && kept && typeof kept === 'object') {
    for (const [k, v] of Object.entries(sent)) {
      if (!(k in kept)) return `${at ? `${at}.` : ''}${k}: not in the declared answer`;
      const gap = undeclared(v, (kept as Record<string, unknown>)[k], at ? `${at}.${k}` : k);
      if (gap) return gap;
    }
  }
  return null;
}

export function registerRouteSchemas(app: FastifyInstance, opts: { checkAnswers: boolean }) {
  // A failed parse is returned as the error itself, an AppError that the error handler sends as the envelope.
  app.setValidatorCompiler(({ schema }) => (data: unknown) => {
    try {
      return { value: parse(schema as z.ZodType, data) };
    } catch (error) {
      return { error: error as Error };
    }
  });
  // Answers are written as they are: a declared answer never strips or reshapes one. Test servers hold each
  // answer to its declaration, so a declaration that drifts from what the route sends fails a test.
  app.setSerializerCompiler(({ schema, method, url }) => {
    if (!opts.checkAnswers) return (data) => JSON.stringify(data);
    return (data) => {
      const gap = answerMismatch(schema as z.ZodType, data);
      if (gap) throw new Error(`${method} ${url}: the answer does not match its declaration: ${gap}`);
      return JSON.stringify(data);
    };
  });
}
