import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, hkdfSync, randomBytes, scrypt as scryptCb, timingSafeEqual, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { compactDecrypt } from 'jose';
import type { Kysely } from 'kysely';
import { ErrorCode } from '../../domain/errors';
import type { DB } from '../db/schema';
import { AppError } from './errors';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, keylen: number, opts: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** 'scrypt$N$r$p$salt$hash', self-describing so the cost can be raised later without breaking old rows. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem });
  return timingSafeEqual(actual, expected);
}

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
export const newToken = () => randomBytes(32).toString('base64url');

export interface ServerKeys {
  publicKeyPem: string;
  privateKey: KeyObject;
}

/**
 * The RSA key for encrypted `content` fields lives in the database so that
 * several servers sharing PostgreSQL decrypt each other's payloads.
 */
export async function loadServerKeys(db: Kysely<DB>): Promise<ServerKeys> {
  const row = await db.selectFrom('sys_setting').select('value').where('key', '=', 'rsa_private_pem').executeTakeFirst();
  let privatePem = row?.value;
  if (!privatePem) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await db
      .insertInto('sys_setting')
      .values({ key: 'rsa_private_pem', value: pem })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    privatePem = (await db.selectFrom('sys_setting').select('value').where('key', '=', 'rsa_private_pem').executeTakeFirstOrThrow()).value;
  }
  const privateKey = createPrivateKey(privatePem);
  const publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return { publicKeyPem, privateKey };
}

/**
 * A 32-byte key for one purpose, derived (HKDF-SHA-256) from the server's
 * private key above: every server of one database derives the same key, and
 * a signed token needs no secret of its own stored anywhere. Another purpose
 * gives an unrelated key, so a token of one kind never passes for another.
 */
export function derivedKey(keys: ServerKeys, purpose: string): Buffer {
  const der = keys.privateKey.export({ type: 'pkcs8', format: 'der' });
  return Buffer.from(hkdfSync('sha256', der, Buffer.alloc(0), `park-access:${purpose}`, 32));
}

/** `a.b.c.MAC`: the fields (whole numbers) joined with dots, then their HMAC-SHA-256 under `key` (base64url, 43 characters). */
export function signFields(key: Buffer, fields: readonly number[]): string {
  const payload = fields.join('.');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

/** The fields of a token signFields made with `key` and `count` fields; null when malformed or wrongly signed (compared in constant time). */
export function verifiedFields(key: Buffer, token: string, count: number): number[] | null {
  const parts = token.split('.');
  if (parts.length !== count + 1 || !parts.slice(0, count).every((p) => /^\d{1,15}$/.test(p))) return null;
  const mac = parts[count]!;
  if (!/^[A-Za-z0-9_-]{43}$/.test(mac)) return null;
  const fields = parts.slice(0, count).map(Number);
  const expected = Buffer.from(signFields(key, fields).slice(-43));
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given) ? fields : null;
}

/** Decrypts a JWE compact `content` (RSA-OAEP-256 / A256GCM) into its JSON payload. */
export async function decryptContent(keys: ServerKeys, content: string): Promise<unknown> {
  try {
    const { plaintext } = await compactDecrypt(content, keys.privateKey, {
      keyManagementAlgorithms: ['RSA-OAEP-256'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    return JSON.parse(new TextDecoder().decode(plaintext));
  } catch {
    throw new AppError(ErrorCode.DECRYPT_FAILED);
  }
}
