import { shellCalls } from '../../domain/shell-calls';
import { call } from '../lib/http';
import { session } from '../lib/session';

/**
 * Ends the session on the server, then locally. The local end happens even if
 * the call fails (offline, already expired): the person asked to leave.
 * The shell's session listener then navigates to /login.
 */
export async function logout(): Promise<void> {
  try {
    await call(shellCalls.logout);
  } catch {
    // nothing to do: the token is dropped below either way
  }
  // Passes saved for offline display name people and plates: they leave with the person who signed out.
  await import('../lib/pass-key').then((m) => m.forgetSavedPasses()).catch(() => undefined);
  session.end();
}

export async function confirmLogout(): Promise<void> {
  // The dialog brings react-spring; the shell loads it only when someone actually signs out.
  const { confirmDialog } = await import('../lib/feedback');
  const ok = await confirmDialog({ title: '退出登录', content: '确定要退出当前账号吗？', confirmText: '退出', cancelText: '取消' });
  if (ok) await logout();
}
