import type { AppointmentKind } from '../../domain/appointments';
import { importPassPublicKey, passApi, verifyPass, type IssuedPass, type PassCheck, type PassPublicKey, type PassVerifyKey } from '../../domain/pass';
import { formatInZone } from '../../domain/time';
import { call } from './http';

/**
 * The park's pass-verifying public key, kept in localStorage so that a
 * patrol's phone verifies passes with no network: it is fetched whenever the
 * device is online and signed in (the scan screen asks on open; the shell may
 * call refreshPassKey after sign-in so a phone that never opened the screen
 * online still has it).
 */
const STORAGE_KEY = 'park.passKey';

interface StoredKey extends PassPublicKey {
  fetchedAt: string;
}

export function cachedPassKey(): StoredKey | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as StoredKey;
    return v && typeof v.kid === 'string' && typeof v.publicKey === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** Fetches and stores the key; answers the stored one when offline or refused. */
export async function refreshPassKey(): Promise<StoredKey | null> {
  try {
    const key = await call(passApi.publicKey, {});
    const stored: StoredKey = { ...key, fetchedAt: formatInZone(Date.now()) };
    localStorage.setItem(STORAGE_KEY, JSON.stringify(stored));
    imported = null;
    return stored;
  } catch {
    return cachedPassKey();
  }
}

let imported: { kid: string; key: Promise<PassVerifyKey> } | null = null;

/** Verifies a scanned pass with the cached key only, never the network; null when no key was ever cached. */
export async function verifyPassOffline(scanned: string, now = formatInZone(Date.now())): Promise<PassCheck | null> {
  const stored = cachedPassKey();
  if (!stored) return null;
  if (!imported || imported.kid !== stored.kid) {
    const key = importPassPublicKey(stored.publicKey).then((k) => ({ kid: stored.kid, key: k }));
    // A key that fails to import must not stay cached as a rejected promise.
    key.catch(() => {
      if (imported?.key === key) imported = null;
    });
    imported = { kid: stored.kid, key };
  }
  return verifyPass(scanned, await imported.key, now);
}

// ---------------------------------------------------------------- passes kept for showing offline

/**
 * The last pass fetched for an application is kept on the device, per user,
 * so that a visitor can still show it at a gate with no signal. Sign-out
 * should call forgetSavedPasses (the person's next sign-in fetches afresh).
 */
const PASS_PREFIX_KEY = 'park.pass.';
const passKey = (userId: number, kind: AppointmentKind, id: number) => `${PASS_PREFIX_KEY}${userId}.${kind}.${id}`;

export function savePass(userId: number, kind: AppointmentKind, id: number, pass: IssuedPass): void {
  try {
    localStorage.setItem(passKey(userId, kind, id), JSON.stringify(pass));
  } catch {
    // Storage full or disabled: the pass still shows, only not offline.
  }
}

export function savedPass(userId: number, kind: AppointmentKind, id: number): IssuedPass | null {
  try {
    const v = JSON.parse(localStorage.getItem(passKey(userId, kind, id)) ?? 'null') as IssuedPass | null;
    return v && typeof v.pass === 'string' && v.payload ? v : null;
  } catch {
    return null;
  }
}

export function dropSavedPass(userId: number, kind: AppointmentKind, id: number): void {
  localStorage.removeItem(passKey(userId, kind, id));
}

export function forgetSavedPasses(): void {
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const k = localStorage.key(i);
    if (k?.startsWith(PASS_PREFIX_KEY)) localStorage.removeItem(k);
  }
}
