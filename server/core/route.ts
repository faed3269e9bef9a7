import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { z } from 'zod';
import { binaryType, envelopeOf, type Call } from '../../domain/contract';
import type { Envelope } from '../../domain/envelope';
import type { RouteSchema } from './route-schema';

/**
 * Registers the route a call of domain/ declares: its method, path,
 * permission, operation name, input and answer come from the declaration, so
 * the server and the client cannot say them differently. The handler's
 * answer is typed by the declared answer; a file or stream answers through
 * `reply`.
 */

type Parsed<C> = C extends Call<infer I, z.ZodType> ? z.output<I> : never;
type Answer<C> = C extends Call<z.ZodType, infer A> ? z.input<A> : never;

export type CallRequest<C extends Call> = FastifyRequest<{ Body: Parsed<C>; Querystring: Parsed<C> }>;
export type CallHandler<C extends Call> = (req: CallRequest<C>, reply: FastifyReply) => Promise<Envelope<Answer<C>> | FastifyReply | void>;

/** What a route may add beside the declaration: config flags (secretAnswer), a body limit, hooks. */
export type RouteExtras = Omit<RouteShorthandOptions, 'schema'> & { params?: z.ZodType };

export function routeSchema(call: Call, params?: z.ZodType): RouteSchema {
  const input = call.input ? (call.method === 'GET' ? { querystring: call.input } : { body: call.input }) : {};
  const json = binaryType(call.answer) === undefined;
  return {
    summary: call.summary,
    ...input,
    ...(params ? { params } : {}),
    ...(call.multipart ? { multipart: call.multipart } : {}),
    answer: call.answer,
    ...(json ? { response: { 200: envelopeOf(call.answer) } } : {}),
  };
}

export function route<C extends Call>(app: FastifyInstance, call: C, handler: CallHandler<C>, extras: RouteExtras = {}) {
  const { params, config, ...rest } = extras;
  app.route({
    ...rest,
    method: call.method,
    url: call.path,
    config: { ...config, permission: call.permission, ...(call.operation ? { operation: call.operation } : {}) },
    schema: routeSchema(call, params),
    handler: handler as (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  });
}
