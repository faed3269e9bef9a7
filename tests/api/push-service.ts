import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { importJWK, jwtVerify } from 'jose';

/**
 * A push service stand-in on loopback: it plays the browser vendor's push
 * endpoint for subscriptions whose keys the test made, records what the
 * server sends, answers the status the test chose per path, and decrypts
 * the payload with the subscription's private key (RFC 8291 / RFC 8188).
 */

export interface FakeSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  /** The user agent's private ECDH key and auth secret: only the "browser" knows them. */
  privateKey: Buffer;
  publicKey: Buffer;
  authSecret: Buffer;
}

export interface ReceivedPush {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  status: number;
}

export class PushServiceStandIn {
  readonly received: ReceivedPush[] = [];
  private answers = new Map<string, number>();
  private waiters: Array<{ match: (p: ReceivedPush) => boolean; resolve: (p: ReceivedPush) => void }> = [];
  private server!: http.Server;
  origin = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const status = this.answers.get(path) ?? 201;
        const push: ReceivedPush = { path, headers: req.headers, body: Buffer.concat(chunks), status };
        this.received.push(push);
        res.writeHead(status).end();
        for (const w of [...this.waiters]) {
          if (w.match(push)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(push);
          }
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The status this path answers from now on (201 unless told). */
  answer(path: string, status: number) {
    this.answers.set(path, status);
  }

  /** A new subscription on this service, with fresh P-256 keys and auth secret as a browser would make them. */
  subscription(name: string): FakeSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const authSecret = randomBytes(16);
    return {
      endpoint: `${this.origin}/push/${name}`,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') },
      privateKey: ecdh.getPrivateKey(),
      publicKey: ecdh.getPublicKey(),
      authSecret,
    };
  }

  /** The next push to a path (already received ones count), or a failure after the timeout. */
  next(path: string, after = 0, timeoutMs = 10_000): Promise<ReceivedPush> {
    const match = (p: ReceivedPush) => p.path === path;
    const seen = this.received.filter(match);
    if (seen.length > after) return Promise.resolve(seen[after]!);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no push to ${path} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        match: (p) => match(p) && this.received.filter(match).length > after,
        resolve: (p) => {
          clearTimeout(timer);
          resolve(p);
        },
      });
    });
  }

  count(path: string) {
    return this.received.filter((p) => p.path === path).length;
  }
}

/**
 * RFC 8291 §3.4 and RFC 8188 §2: the body is salt(16) | rs(4) | idlen(1) |
 * keyid (the sender's ephemeral public key) | one aes128gcm record.
 */
export function decryptPush(sub: FakeSubscription, body: Buffer): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const senderPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  if (idlen !== 65) throw new Error(`keyid must be an uncompressed P-256 point, got ${idlen} bytes`);
  if (record.length > rs) throw new Error('a push payload must fit one record');

  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(sub.privateKey);
  const ecdhSecret = ecdh.computeSecret(senderPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), sub.publicKey, senderPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, sub.authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));

  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02 followed by optional zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('missing last-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

/** RFC 8292: `vapid t=<JWT>, k=<public key>`; the JWT is ES256-signed by k for the endpoint's origin. */
export async function verifyVapid(authorization: string | undefined, endpointOrigin: string): Promise<{ publicKey: string; sub: string; exp: number }> {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!m) throw new Error(`not a VAPID Authorization header: ${authorization}`);
  const [, token, k] = m;
  const point = Buffer.from(k!, 'base64url');
  const key = await importJWK({ kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') }, 'ES256');
  const { payload } = await jwtVerify(token!, key, { audience: endpointOrigin, algorithms: ['ES256'] });
  return { publicKey: k!, sub: String(payload.sub), exp: Number(payload.exp) };
}
