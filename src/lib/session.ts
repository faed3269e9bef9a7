/**
 * The signed-in token, kept in localStorage so a reload (or an offline start)
 * keeps the person signed in. Listeners learn when it changes or expires.
 */
const KEY = 'park.token';
type Listener = (reason: 'login' | 'logout' | 'expired') => void;
const listeners = new Set<Listener>();

export const session = {
  token(): string | null {
    try {
      return localStorage.getItem(KEY);
    } catch {
      return null;
    }
  },
  start(token: string) {
    localStorage.setItem(KEY, token);
    listeners.forEach((l) => l('login'));
  },
  end() {
    localStorage.removeItem(KEY);
    listeners.forEach((l) => l('logout'));
  },
  expire() {
    if (!localStorage.getItem(KEY)) return;
    localStorage.removeItem(KEY);
    listeners.forEach((l) => l('expired'));
  },
  subscribe(l: Listener): () => void {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};
