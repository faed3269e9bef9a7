import { Dialog, Toast } from 'antd-mobile';
import type { ToastHandler, ToastShowProps } from 'antd-mobile/es/components/toast';
import { CheckCircleFill, CloseCircleFill, CloseOutline } from 'antd-mobile-icons';
import type { ReactNode } from 'react';
import { DESKTOP_QUERY } from './use-media';
import './feedback.css';

/**
 * The one way to confirm, alert and toast (lint forbids antd-mobile's
 * Dialog.confirm/alert/show and Toast.show elsewhere). A phone gets
 * antd-mobile's look; a desktop (DESKTOP_QUERY) gets a modal of desktop size
 * with a ×, right-aligned buttons and Esc/Enter, and a message bar at the top.
 * The layout is read when the dialog or toast opens: a window resized while
 * one shows keeps the look it opened with.
 */

const onDesktop = () => window.matchMedia(DESKTOP_QUERY).matches;

interface DialogText {
  title?: ReactNode;
  content: ReactNode;
}

export interface ConfirmOptions extends DialogText {
  /** 确定 unless given. */
  confirmText?: ReactNode;
  /** 取消 unless given. */
  cancelText?: ReactNode;
  /** The action deletes or discards something: its button is red. */
  danger?: boolean;
}

export interface AlertOptions extends DialogText {
  /** 知道了 unless given. */
  confirmText?: ReactNode;
}

/** Resolves true when confirmed; false when cancelled, or on a desktop closed by its × or Esc. */
export function confirmDialog({ confirmText = '确定', cancelText = '取消', danger, ...text }: ConfirmOptions): Promise<boolean> {
  return openDialog(text, [
    { key: 'cancel', text: cancelText, value: false },
    { key: 'confirm', text: confirmText, value: true, danger },
  ]);
}

/** Resolves once the person has read it and closed it. */
export async function alertDialog({ confirmText = '知道了', ...text }: AlertOptions): Promise<void> {
  await openDialog(text, [{ key: 'confirm', text: confirmText, value: undefined }]);
}

export function showToast(p: ToastShowProps | string): ToastHandler {
  const props = typeof p === 'string' ? { content: p } : p;
  if (!onDesktop()) return Toast.show(props);
  // Filled circles read at a glance on a white bar; antd-mobile's bare ticks are drawn for its dark square.
  const icon = props.icon === 'success' ? <CheckCircleFill className="adm-toast-icon-success" /> : props.icon === 'fail' ? <CloseCircleFill className="adm-toast-icon-fail" /> : props.icon;
  return Toast.show({ ...props, icon, maskClassName: 'fb-toast' });
}

interface Choice<T> {
  key: string;
  text: ReactNode;
  value: T;
  danger?: boolean;
}

/** The key handlers of the open desktop dialogs, the topmost last: only it answers Esc and Enter. */
const keyHandlers: ((e: KeyboardEvent) => void)[] = [];
const onKeyDown = (e: KeyboardEvent) => keyHandlers.at(-1)?.(e);

/**
 * One row of choices, the answer last: the first is what closing means, the
 * last is bold (with two, as antd-mobile's confirm) and on a desktop the
 * filled button that has the focus and that Enter answers.
 */
function openDialog<T>(text: DialogText, choices: [Choice<T>, ...Choice<T>[]]): Promise<T> {
  const desktop = onDesktop();
  const dismissed = choices[0].value;
  const answer = choices[choices.length - 1]!;
  return new Promise<T>((resolve) => {
    let settled = false;
    let body: Element | null = null;
    const returnFocusTo = document.activeElement;

    // Captured on window and stopped there, so a form modal underneath (ScreenModal closes on Esc) never sees it.
    const onKey = (e: KeyboardEvent) => {
      if (e.isComposing || (e.key !== 'Escape' && e.key !== 'Enter')) return;
      // A button of this dialog reached by Tab (取消, ×) answers Enter itself.
      if (e.key === 'Enter' && e.target instanceof Element && body?.contains(e.target)) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      settle(e.key === 'Escape' ? dismissed : answer.value);
    };
    if (desktop) {
      if (!keyHandlers.length) window.addEventListener('keydown', onKeyDown, true);
      keyHandlers.push(onKey);
    }

    const handler = Dialog.show({
      className: desktop ? 'fb-dialog' : undefined,
      title: text.title,
      content: desktop ? (
        <>
          <button
            type="button"
            className="fb-dialog-close"
            aria-label="关闭"
            onClick={() => settle(dismissed)}
            ref={(el) => {
              body = el?.closest('.adm-dialog-body') ?? null;
            }}
          >
            <CloseOutline />
          </button>
          {text.content}
        </>
      ) : (
        text.content
      ),
      actions: [
        choices.map((c) => ({
          key: c.key,
          text: c.text,
          bold: c === answer && choices.length > 1,
          danger: c.danger,
          className: desktop && c === answer ? 'fb-dialog-answer' : undefined,
          onClick: () => settle(c.value),
        })),
      ],
      // Keyboard users land on the answer, as in any desktop dialog; Enter on it is then the browser's own click.
      afterShow: desktop ? () => body?.querySelector<HTMLElement>('.fb-dialog-answer')?.focus() : undefined,
    });

    function settle(value: T) {
      if (settled) return;
      settled = true;
      const i = keyHandlers.indexOf(onKey);
      if (i >= 0) keyHandlers.splice(i, 1);
      if (desktop && !keyHandlers.length) window.removeEventListener('keydown', onKeyDown, true);
      void handler.close();
      // Back to the button that opened it (when it is still there), so the keyboard carries on where it was.
      if (desktop && returnFocusTo instanceof HTMLElement && returnFocusTo.isConnected) returnFocusTo.focus();
      resolve(value);
    }
  });
}
