import type { FastifyInstance, FastifySchema, FastifyTypeProvider } from 'fastify';
import type { z } from 'zod';
import { parse } from './validate';

/**
 * Routes declare their input with the zod schemas of domain/ in Fastify's own
 * route schema. One validator compiler turns a failed parse into the Chinese
 * envelope (core/validate.ts); the same declarations feed the OpenAPI
 * description (core/openapi.ts) and type `req.body` / `req.query` in handlers.
 */
export interface ZodTypeProvider extends FastifyTypeProvider {
  readonly validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  readonly serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

/** What every /api route states besides its permission: a Chinese summary and its input. */
export interface RouteSchema extends FastifySchema {
  summary: string;
  body?: z.ZodType;
  querystring?: z.ZodType;
  /** The `data` of a successful answer (documentation; the envelope is added around it). */
  response?: { 200: z.ZodType };
  /** multipart uploads: the parts the route reads, for the description. */
  multipart?: Record<string, string>;
}

export function registerRouteSchemas(app: FastifyInstance) {
  // A failed parse is returned as the error itself, an AppError that the error handler sends as the envelope.
  app.setValidatorCompiler(({ schema }) => (data: unknown) => {
    try {
      return { value: parse(schema as z.ZodType, data) };
    } catch (error) {
      return { error: error as Error };
    }
  });
  // Answers are the envelope, written as they are: a response schema documents `data`, it never strips it.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}
