import { webcrypto } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  PASS_KEY_ALGORITHM,
  PASS_TYPE,
  classifyScan,
  fromBase64Url,
  importPassPublicKey,
  parsePass,
  passKeyId,
  signPass,
  toBase64Url,
  validityAt,
  verifyPass,
  type PassPayload,
  type PassVerifyKey,
} from '../../domain/pass';
import { maskIdNumber } from '../../domain/personal-data';

/** A fresh key pair the way the server makes one, and the verify key the way the app imports it (SPKI, base64url). */
async function keyPair() {
  const pair = await webcrypto.subtle.generateKey(PASS_KEY_ALGORITHM, true, ['sign', 'verify']);
  const spki = new Uint8Array(await webcrypto.subtle.exportKey('spki', pair.publicKey));
  const kid = await passKeyId(spki);
  const verify: PassVerifyKey = { kid, key: await importPassPublicKey(toBase64Url(spki)) };
  return { privateKey: pair.privateKey, kid, verify, spki };
}

let park: Awaited<ReturnType<typeof keyPair>>;
let other: Awaited<ReturnType<typeof keyPair>>;
beforeAll(async () => {
  park = await keyPair();
  other = await keyPair();
});

const carPayload = (kid: string): PassPayload => ({
  number: 'CA20260301000042',
  kind: 'car',
  plate: '粤LU1856',
  plateColor: 1,
  begin: '2026-03-05 00:00:00',
  end: '2026-03-25 23:59:59',
  issuedAt: '2026-03-01 09:30:00',
  kid,
});
const personPayload = (kid: string): PassPayload => ({
  number: 'PA20260301000007',
  kind: 'person',
  name: '张丽',
  idMasked: maskIdNumber('44030319870619100X'),
  begin: '2026-03-02 08:00:00',
  end: '2026-03-02 18:00:00',
  issuedAt: '2026-03-01 09:30:00',
  kid,
});

describe('base64url', () => {
  it('round-trips every length and matches Node', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = new Uint8Array(webcrypto.getRandomValues(new Uint8Array(n)));
      const text = toBase64Url(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64url'));
      expect(fromBase64Url(text)).toEqual(bytes);
    }
  });
  it('refuses characters and lengths no encoder makes', () => {
    expect(fromBase64Url('ab+c')).toBeNull();
    expect(fromBase64Url('abcde')).toBeNull();
    // 'QR' would decode to 'A' with stray low bits; the canonical spelling is 'QQ'.
    expect(fromBase64Url('QR')).toBeNull();
    expect(fromBase64Url('QQ')).toEqual(new Uint8Array([0x41]));
  });
});

describe('pass signing and verification', () => {
  it('encodes as a compact JWS (ES256, typ park-pass, the kid in the header) and verifies as valid within its dates', async () => {
    const pass = await signPass(carPayload(park.kid), park.privateKey);
    expect(pass).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}$/);
    expect(JSON.parse(Buffer.from(pass.split('.')[0]!, 'base64url').toString('utf8'))).toEqual({ alg: 'ES256', typ: PASS_TYPE, kid: park.kid });
    // Any JWS library verifies it: here Node's own crypto over the JWS signing input.
    const [h, b, sig] = pass.split('.');
    const pub = await webcrypto.subtle.importKey('spki', park.spki, PASS_KEY_ALGORITHM, false, ['verify']);
    expect(await webcrypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, pub, Buffer.from(sig!, 'base64url'), Buffer.from(`${h}.${b}`))).toBe(true);
    const check = await verifyPass(pass, park.verify, '2026-03-10 12:00:00');
    expect(check.status).toBe('valid');
    expect(check.payload).toEqual(carPayload(park.kid));
  });

  it('keeps Chinese names and masked ID numbers of person passes', async () => {
    const pass = await signPass(personPayload(park.kid), park.privateKey);
    const check = await verifyPass(pass, park.verify, '2026-03-02 09:00:00');
    expect(check.status).toBe('valid');
    expect(check.payload?.name).toBe('张丽');
    expect(check.payload?.idMasked).toBe('4403**********100X');
  });

  it('says not yet valid before the first moment and expired after the last', async () => {
    const pass = await signPass(carPayload(park.kid), park.privateKey);
    expect((await verifyPass(pass, park.verify, '2026-03-04 23:59:59')).status).toBe('not-yet');
    expect((await verifyPass(pass, park.verify, '2026-03-05 00:00:00')).status).toBe('valid');
    expect((await verifyPass(pass, park.verify, '2026-03-25 23:59:59')).status).toBe('valid');
    const expired = await verifyPass(pass, park.verify, '2026-03-26 00:00:00');
    expect(expired.status).toBe('expired');
    // An expired pass is still genuine: the patrol sees whose it was.
    expect(expired.payload?.plate).toBe('粤LU1856');
  });

  it('reads a payload changed after signing as forged', async () => {
    const pass = await signPass(carPayload(park.kid), park.privateKey);
    const [header, body, sig] = pass.split('.');
    const json = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as Record<string, unknown>;
    for (const change of [{ p: '粤LU1857' }, { c: 2 }, { e: '2027-03-25 23:59:59' }, { n: 'CA20260301000043' }]) {
      const altered = Buffer.from(JSON.stringify({ ...json, ...change }), 'utf8').toString('base64url');
      const check = await verifyPass(`${header}.${altered}.${sig}`, park.verify, '2026-03-10 12:00:00');
      expect(check.status).toBe('forged');
      expect(check.payload).toBeUndefined();
    }
  });

  it('reads a changed signature, or one made by another key under the park key id, as forged', async () => {
    const pass = await signPass(carPayload(park.kid), park.privateKey);
    const sig = Buffer.from(pass.split('.')[2], 'base64url');
    sig[10] ^= 0x01;
    const flipped = `${pass.split('.').slice(0, 2).join('.')}.${sig.toString('base64url')}`;
    expect((await verifyPass(flipped, park.verify, '2026-03-10 12:00:00')).status).toBe('forged');
    const impostor = await signPass(carPayload(park.kid), other.privateKey);
    expect((await verifyPass(impostor, park.verify, '2026-03-10 12:00:00')).status).toBe('forged');
  });

  it('tells a pass signed by a key this device does not hold from a forgery', async () => {
    const pass = await signPass(carPayload(other.kid), other.privateKey);
    expect((await verifyPass(pass, park.verify, '2026-03-10 12:00:00')).status).toBe('unknown-key');
  });

  it('treats texts that are not passes as malformed', async () => {
    const pass = await signPass(carPayload(park.kid), park.privateKey);
    const [header, , sig] = pass.split('.');
    const otherType = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: park.kid })).toString('base64url');
    for (const text of [
      'hello',
      'PK1.',
      'PK1.abc',
      `${pass}.x`,
      `${otherType}.${pass.split('.')[1]}.${sig}`,
      `${header}.${Buffer.from('{"n":1}').toString('base64url')}.${sig}`,
      `PK1.${Buffer.from('{"n":1}').toString('base64url')}.${sig}`,
    ]) {
      expect(parsePass(text), text).toBeNull();
      expect((await verifyPass(text, park.verify, '2026-03-10 12:00:00')).status).toBe('malformed');
    }
  });

  it('refuses a car pass without a plate and a person pass without a name', async () => {
    const { plate: _p, ...noPlate } = carPayload(park.kid);
    expect(parsePass(await signPass(noPlate as PassPayload, park.privateKey))).toBeNull();
    const { name: _n, ...noName } = personPayload(park.kid);
    expect(parsePass(await signPass(noName as PassPayload, park.privateKey))).toBeNull();
  });
});

describe('passes issued before they were JWS (PK1)', () => {
  /** 'PK1.' + base64url(payload) + '.' + signature over the text before the last dot, as the server made them until issue 25. */
  async function signPk1(payload: PassPayload, key: CryptoKey) {
    const wire = { n: payload.number, k: payload.kind, p: payload.plate, c: payload.plateColor, b: payload.begin, e: payload.end, i: payload.issuedAt, kid: payload.kid };
    const body = `PK1.${Buffer.from(JSON.stringify(wire)).toString('base64url')}`;
    const sig = Buffer.from(await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(body))).toString('base64url');
    return `${body}.${sig}`;
  }

  it('are still read and verified until they expire, and altered ones read as forged', async () => {
    const old = await signPk1(carPayload(park.kid), park.privateKey);
    expect(classifyScan(old).type).toBe('pass');
    const check = await verifyPass(old, park.verify, '2026-03-10 12:00:00');
    expect(check.status).toBe('valid');
    expect(check.payload).toEqual(carPayload(park.kid));
    const sig = Buffer.from(old.split('.')[2]!, 'base64url');
    sig[3] ^= 0x01;
    expect((await verifyPass(`${old.split('.').slice(0, 2).join('.')}.${sig.toString('base64url')}`, park.verify, '2026-03-10 12:00:00')).status).toBe('forged');
  });
});

describe('helpers', () => {
  it('masks ID numbers', () => {
    expect(maskIdNumber('44030319870619100x')).toBe('4403**********100X');
    expect(maskIdNumber('E12345678')).toBe('E1*****78');
  });

  it('places a moment against a validity', () => {
    expect(validityAt('2026-03-05 00:00:00', '2026-03-06 23:59:59', '2026-03-04 10:00:00')).toBe('not-yet');
    expect(validityAt('2026-03-05 00:00:00', '2026-03-06 23:59:59', '2026-03-06 10:00:00')).toBe('valid');
    expect(validityAt('2026-03-05 00:00:00', '2026-03-06 23:59:59', '2026-03-07 00:00:00')).toBe('expired');
  });

  it('classifies scanned texts: pass, ID QR, plate, other', () => {
    expect(classifyScan(' PK1.abc.def ').type).toBe('pass');
    const jwsHeader = Buffer.from(JSON.stringify({ alg: 'ES256', typ: PASS_TYPE, kid: 'k' })).toString('base64url');
    expect(classifyScan(`${jwsHeader}.e30.abc`).type).toBe('pass');
    // A JWS of another kind (a JWT someone shows) is not a pass.
    expect(classifyScan(`${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.e30.abc`).type).toBe('unknown');
    expect(classifyScan('44030319870619100x')).toEqual({ type: 'idcard', idcard: '44030319870619100X' });
    // A wrong check character is not an ID number.
    expect(classifyScan('440303198706191019').type).toBe('unknown');
    expect(classifyScan('粤lu 1856')).toEqual({ type: 'plate', plate: '粤LU1856' });
    expect(classifyScan('https://example.com').type).toBe('unknown');
  });
});
