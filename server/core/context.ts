import type { DeviceIdentity } from './device-auth';
import type { Kysely } from 'kysely';
import type { Config } from '../config';
import type { Dialect } from '../db/index';
import type { DB } from '../db/schema';
import type { ServerKeys } from './crypto';
import type { RouteSchema } from './route-schema';
import type { SmsSender } from './sms';

export type { Access } from '../../domain/contract';
import type { Access } from '../../domain/contract';

/** How a route's answer that holds a secret is kept for Idempotency-Key replays (FastifyContextConfig.secretAnswer). */
export type SecretAnswer = 'refuse' | ((answer: { data?: unknown }) => unknown);

export interface RouteInfo {
  method: string;
  url: string;
  permission: Access;
  operation?: string;
  schema?: RouteSchema;
}

export interface AuthContext {
  userId: number;
  account: string;
  userName: string;
  departId: number;
  sessionId: number;
  roleIds: number[];
  roleNames: string[];
  permissions: Set<string>;
}

export interface AppContext {
  config: Config;
  db: Kysely<DB>;
  dialect: Dialect;
  keys: ServerKeys;
  sms: SmsSender;
  /** Park-time 'YYYY-MM-DD HH:mm:ss' for now. */
  time(): string;
  /** Epoch ms for now (due times of overtime nodes). */
  now(): number;
  /** Every /api route as registered: what the permission test, the fuzzer and the API description walk. */
  routes: RouteInfo[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: Access;
    /** Set on mutating routes: the operation-log entry's name. */
    operation?: string;
    /**
     * The answer carries a secret that is shown once (a device key, a file
     * access token), so an Idempotency-Key replay must not get it from the
     * stored answer (DESIGN.md §11): 'refuse' stores, in place of a success,
     * a 409 saying the secret was shown once; a function stores what it
     * returns: the answer with its secret taken out (core/idempotency.ts).
     */
    secretAnswer?: SecretAnswer;
    /** The route runs as one unit of work (core/unit-of-work.ts): its change, key and log commit together. */
    unitOfWork?: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
    /** The calling device on 'device' routes. */
    device?: DeviceIdentity;
    /** What the operation log records as params when the body itself is encrypted. */
    auditParams?: unknown;
    /** The operation log's entry was written with the change, in the call's unit of work. */
    operationLogged?: boolean;
  }
  interface FastifyInstance {
    ctx: AppContext;
  }
}
