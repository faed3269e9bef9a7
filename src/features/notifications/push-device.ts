import { subscribeDevice, unsubscribeDevice, vapidPublicKey } from './push-api';

/**
 * This browser's Web Push channel: support, permission, subscribing with the
 * server's VAPID key and telling the server. Every refusal becomes a message
 * a person can act on.
 */

export class PushSetupError extends Error {}

export const DENIED_MESSAGE = '浏览器已禁止本站发送通知：请在浏览器的网站设置中把“通知”改为允许，然后再开启';

const OWNER_KEY = 'park.push.owner';
const LABEL_KEY = 'park.push.label';

function isIos() {
  return /iPad|iPhone|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
}

/** Why this browser cannot receive pushes, or null when it can. */
export function pushUnsupportedReason(): string | null {
  if (!window.isSecureContext) return '推送通知需要通过 https 访问本系统，当前连接不支持';
  const missing = !('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window);
  if (!missing) return null;
  if (isIos()) return '当前浏览器不支持推送通知。iPhone / iPad 请先在 Safari 中点“分享 → 添加到主屏幕”，再从主屏幕打开本应用后开启';
  return '当前浏览器不支持推送通知，请使用最新版 Chrome、Edge、Firefox 或 Safari';
}

export function notificationPermission(): NotificationPermission | 'unsupported' {
  return 'Notification' in window ? Notification.permission : 'unsupported';
}

async function registration(): Promise<ServiceWorkerRegistration> {
  const ready = navigator.serviceWorker.ready;
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new PushSetupError('后台服务尚未就绪（首次打开或刚更新），请刷新页面后重试')), 8000));
  return Promise.race([ready, timeout]);
}

/** The browser's current subscription, if any (without asking for permission). */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (pushUnsupportedReason()) return null;
  const reg = await navigator.serviceWorker.getRegistration();
  return (await reg?.pushManager.getSubscription()) ?? null;
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4);
  const raw = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function sameKey(a: ArrayBuffer | null | undefined, b: Uint8Array) {
  if (!a || a.byteLength !== b.byteLength) return false;
  const x = new Uint8Array(a);
  return x.every((v, i) => v === b[i]);
}

function toBody(sub: PushSubscription, label: string) {
  const json = sub.toJSON();
  if (!json.endpoint || !json.keys?.p256dh || !json.keys.auth) throw new PushSetupError('浏览器返回的推送订阅不完整，请重试');
  return { endpoint: json.endpoint, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth }, device_label: label };
}

/** A name a person recognises in the device list: the kind of device and the browser. */
export function defaultDeviceLabel(): string {
  const ua = navigator.userAgent;
  const device = /iPhone/.test(ua)
    ? 'iPhone'
    : /iPad/.test(ua)
      ? 'iPad'
      : /Android/.test(ua)
        ? /Mobile/.test(ua)
          ? 'Android 手机'
          : 'Android 平板'
        : /Windows/.test(ua)
          ? 'Windows 电脑'
          : /Mac OS X/.test(ua)
            ? 'Mac 电脑'
            : /Linux/.test(ua)
              ? 'Linux 电脑'
              : '未知设备';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /MicroMessenger/.test(ua)
      ? '微信'
      : /(Chrome|Chromium|CriOS)\//.test(ua)
        ? 'Chrome'
        : /Firefox\//.test(ua)
          ? 'Firefox'
          : /Safari\//.test(ua)
            ? 'Safari'
            : '浏览器';
  return `${device} · ${browser}`;
}

export function storedLabel(): string | null {
  try {
    return localStorage.getItem(LABEL_KEY);
  } catch {
    return null;
  }
}

function remember(userId: number, label: string) {
  try {
    localStorage.setItem(OWNER_KEY, String(userId));
    localStorage.setItem(LABEL_KEY, label);
  } catch {
    // a private window: the opt-in still holds for this session
  }
}

/** 开启本机推送: permission, a subscription under the server's current key, and the server told. */
export async function enablePush(userId: number, label: string): Promise<void> {
  const unsupported = pushUnsupportedReason();
  if (unsupported) throw new PushSetupError(unsupported);
  let permission = Notification.permission;
  if (permission === 'default') permission = await Notification.requestPermission();
  if (permission === 'denied') throw new PushSetupError(DENIED_MESSAGE);
  if (permission !== 'granted') throw new PushSetupError('没有获得通知权限，本机推送未开启');
  const reg = await registration();
  const key = keyBytes(await vapidPublicKey());
  let sub = await reg.pushManager.getSubscription();
  // A subscription made under another key (the server's keys were replaced) can never be pushed to.
  if (sub && !sameKey(sub.options.applicationServerKey, key)) {
    await sub.unsubscribe().catch(() => undefined);
    sub = null;
  }
  if (!sub) {
    try {
      sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    } catch (err) {
      const name = (err as DOMException).name;
      if (name === 'NotAllowedError') throw new PushSetupError('浏览器拒绝了推送订阅：请允许本站的通知后重试');
      // Chrome's push service cannot be reached from mainland China, among other causes.
      throw new PushSetupError('无法连接浏览器的推送服务，本机推送未开启。应用打开时，消息中心仍会实时收到通知');
    }
  }
  await subscribeDevice(toBody(sub, label));
  remember(userId, label);
}

/** 关闭本机推送: the server forgets this device and the browser drops the channel. */
export async function disablePush(): Promise<void> {
  const sub = await currentSubscription();
  if (sub) {
    await unsubscribeDevice({ endpoint: sub.endpoint });
    await sub.unsubscribe().catch(() => undefined);
  }
  try {
    localStorage.removeItem(OWNER_KEY);
  } catch {
    // nothing stored
  }
}

let reboundFor: string | null = null;

/**
 * A subscription is bound to the session that made it, so pushes stop when
 * that person signs out. When the same person signs in again on this
 * browser, the opt-in they gave still stands: bind it to the new session.
 * Someone else signing in here has not opted in, and is not subscribed.
 */
export async function rebindIfOptedIn(userId: number, token: string | null): Promise<void> {
  if (!token || reboundFor === token || notificationPermission() !== 'granted') return;
  let owner: string | null = null;
  try {
    owner = localStorage.getItem(OWNER_KEY);
  } catch {
    return;
  }
  if (owner !== String(userId)) return;
  const sub = await currentSubscription();
  if (!sub) return;
  reboundFor = token;
  await subscribeDevice(toBody(sub, storedLabel() ?? defaultDeviceLabel()));
}
