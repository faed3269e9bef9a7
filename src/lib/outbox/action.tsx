import { ClockCircleOutline } from 'antd-mobile-icons';
import { showToast } from '../feedback';
import { settlePhotos, splitLocalPhotos } from '../files';
import { ApiError, post } from '../http';
import { OutboxUnavailableError, sendOrQueue, type SendOutcome } from './index';
import type { EnqueueInput } from './types';

/**
 * An action modal's 确定 (a decision, a flag, a mark cancellation): the
 * action is stored and sent at once (sendOrQueue, ./send.ts), and the person
 * reads what became of it in the modal's words: done, refused (why, while
 * they can still act), or left to the outbox (offline, or no answer in time).
 * Not exported from ./index, which the shell loads first: this brings the toasts.
 */

/** Why the server refused the action, read while the person is still in the modal. */
export interface Refusal {
  message: string;
  /** The HTTP status; 0 when no answer came (a direct send only: the outbox keeps those). */
  status: number;
  /** Per-field messages of a validation refusal (a direct send only: the outbox keeps the message alone). */
  fieldErrors: ApiError['fieldErrors'];
}

export interface SendActionOptions {
  /** How long an online action waits for its answer before the modal lets go and leaves it to the outbox. */
  waitMs: number;
  /** The toast once the server accepted it ('审核成功！'). */
  okText: string;
  /** The toast once it is left to the outbox: the device is offline (nothing tried), or the answer was slow. */
  waitingText: { offline: string; slow: string };
  /** Accepted (after the toast). */
  onDone: () => void;
  /** Refused: the outbox has let it go, so the person may act again; awaited. */
  onRefused: (refusal: Refusal) => unknown;
  /** Left to the outbox (after the toast): the person is done here either way. */
  onQueued: () => void;
  /**
   * Without a usable IndexedDB (some private windows), send it directly as before the outbox instead of
   * throwing OutboxUnavailableError. Not for an action with photos on the device: only the outbox uploads those.
   */
  direct?: boolean;
}

/** Stores the action and sends it now (./send.ts), then tells the person; throws what the modal should report as failed. */
export async function sendAction(input: EnqueueInput, o: SendActionOptions): Promise<void> {
  let sent: SendOutcome;
  try {
    sent = await sendOrQueue(input, o.waitMs);
  } catch (e) {
    if (!(o.direct && e instanceof OutboxUnavailableError)) throw e;
    try {
      await post(input.url, input.body);
    } catch (err) {
      const answer = err instanceof ApiError ? err : new ApiError(err instanceof Error ? err.message : String(err), 0, 0);
      await o.onRefused({ message: answer.message, status: answer.status, fieldErrors: answer.fieldErrors });
      return;
    }
    showToast({ icon: 'success', content: o.okText });
    return o.onDone();
  }
  if (sent.state === 'done') {
    showToast({ icon: 'success', content: o.okText });
    return o.onDone();
  }
  if (sent.state === 'refused') {
    await o.onRefused({ message: sent.item.error ?? '', status: sent.item.status ?? 0, fieldErrors: [] });
    return;
  }
  showToast({ icon: <ClockCircleOutline />, content: sent.offline ? o.waitingText.offline : o.waitingText.slow, duration: 3000 });
  o.onQueued();
}

/**
 * A photo field's value ready for the outbox: photos the field is still compressing or sending are waited for
 * (issue 24 item 2), so a sent one goes as its stored name and is not uploaded twice; photos still on this device
 * come back as Blobs, which the outbox uploads before the action. `error` says why a photo cannot go.
 */
export async function outboxPhotos(value: unknown): Promise<{ names: string; blobs: Blob[] } | { error: string }> {
  const settled = await settlePhotos(value);
  if (settled.error) return { error: settled.error };
  try {
    return await splitLocalPhotos(settled.value);
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}
