import { ErrorCode } from '../../../domain/errors';
import { encryptContent, forgetPublicKey } from '../../lib/crypto';
import { authApi } from '../../../domain/schemas/auth';
import { ApiError, call } from '../../lib/http';

/** The key rotates when the server's data is reset; one retry with a fresh key covers that. */
async function sendEncrypted<T>(send: (body: { content: string }) => Promise<T>, payload: unknown): Promise<T> {
  try {
    return await send({ content: await encryptContent(payload) });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === ErrorCode.DECRYPT_FAILED)) throw err;
    forgetPublicKey();
    return send({ content: await encryptContent(payload) });
  }
}

export function requestCaptcha(account: string) {
  return sendEncrypted((body) => call(authApi.captcha, body), { account });
}

export function signIn(account: string, password: string, captcha: string) {
  return sendEncrypted((body) => call(authApi.login, body), { account, password, captcha });
}
