import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../domain/errors';
import { sha256 } from './crypto';
import { AppError } from './errors';

/** The device a call came from (DESIGN.md §8), once its key is checked. */
export interface DeviceIdentity {
  id: number;
  number: string;
  kind: string;
  name: string;
}

/** A new device key: 32 random bytes, base64url. Only its SHA-256 is stored, so it is shown once. */
export function newDeviceKey(): { key: string; hash: string } {
  const key = randomBytes(32).toString('base64url');
  return { key, hash: sha256(key) };
}

const UNAUTHENTICATED = '设备认证失败：请使用 Authorization: Device <设备编号>:<密钥>';

/**
 * `Authorization: Device <number>:<key>` → the live device whose issued key
 * it is; 401 for no header, a wrong or replaced key, a device without a key
 * or a deleted one (the same answer for each, so numbers cannot be probed).
 */
export async function authenticateDevice(app: FastifyInstance, req: FastifyRequest): Promise<DeviceIdentity> {
  const m = /^Device\s+([^:\s]{1,50}):(\S{1,200})$/i.exec(req.headers.authorization ?? '');
  if (!m) throw new AppError(ErrorCode.UNAUTHENTICATED, UNAUTHENTICATED);
  const row = await app.ctx.db.selectFrom('equipment').select(['id', 'number', 'kind', 'name', 'key_hash']).where('number', '=', m[1]!).where('deleted', '=', 0).executeTakeFirst();
  const given = Buffer.from(sha256(m[2]!), 'hex');
  const stored = Buffer.from(row?.key_hash ?? '00'.repeat(32), 'hex');
  // Compared in constant time, and compared even when the device is unknown, so timing says nothing either.
  const match = stored.length === given.length && timingSafeEqual(stored, given) && !!row?.key_hash;
  if (!row || !match) throw new AppError(ErrorCode.UNAUTHENTICATED, UNAUTHENTICATED);
  return { id: row.id, number: row.number, kind: row.kind, name: row.name };
}
