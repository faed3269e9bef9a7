import { queryOptions } from '@tanstack/react-query';
import { pushApi, type PushSubscribeBody } from '../../../domain/schemas/notifications';
import { call } from '../../lib/http';

/** Web Push devices (push-settings-page.tsx, push-device.ts): apart from api.ts, which the shell loads first and keeps free of the schemas. */
export const devicesKey = ['push', 'devices'] as const;

export const devicesQuery = queryOptions({
  queryKey: devicesKey,
  queryFn: () => call(pushApi.subscriptions),
  staleTime: 0,
});

export const vapidPublicKey = () => call(pushApi.vapidPublicKey).then((d) => d.publicKey);
export const subscribeDevice = (body: PushSubscribeBody) => call(pushApi.subscribe, body);
export const unsubscribeDevice = (by: { endpoint: string } | { push_subscription_id: number }) => call(pushApi.unsubscribe, by);
