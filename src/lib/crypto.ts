import { CompactEncrypt, importSPKI } from 'jose';
import { authApi } from '../../domain/schemas/auth';
import { call } from './http';

let cached: { pem: string; key: CryptoKey } | null = null;

/** Encrypts a JSON payload as JWE (RSA-OAEP-256 / A256GCM) with the server's public key, as every `content` field requires. */
export async function encryptContent(payload: unknown): Promise<string> {
  if (!cached) {
    const { publicKey } = await call(authApi.publicKey);
    cached = { pem: publicKey, key: (await importSPKI(publicKey, 'RSA-OAEP-256')) as CryptoKey };
  }
  const plaintext = new TextEncoder().encode(JSON.stringify(payload));
  return new CompactEncrypt(plaintext).setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM' }).encrypt(cached.key);
}

/** The key rotates when the server's data directory is reset; a decrypt failure drops the cache so the next try refetches. */
export function forgetPublicKey() {
  cached = null;
}
