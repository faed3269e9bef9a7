import { ErrorCode } from '../../../domain/errors';
import { encryptContent, forgetPublicKey } from '../../lib/crypto';
import { ApiError, post } from '../../lib/http';

/** The key rotates when the server's data is reset; one retry with a fresh key covers that. */
async function sendEncrypted<T>(url: string, payload: unknown): Promise<T> {
  try {
    return await post<T>(url, { content: await encryptContent(payload) });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === ErrorCode.DECRYPT_FAILED)) throw err;
    forgetPublicKey();
    return post<T>(url, { content: await encryptContent(payload) });
  }
}

export function requestCaptcha(account: string) {
  return sendEncrypted<{ expireOfSeconds: number }>('/user/captcha', { account });
}

export function signIn(account: string, password: string, captcha: string) {
  return sendEncrypted<{ token: string }>('/user/v2login', { account, password, captcha });
}
