// Deep import: the package index is marked side-effectful and would pull every component into the entry.
import { unstableSetRender } from 'antd-mobile/es/utils/unstable-render';
import { startTransition, StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { applyLargeText } from './app/large-text';
import { loginPath } from './app/login-path';
import { loadShell } from './app/require-auth';
import { createAppRouter, requiresSignIn } from './app/router';
import { registerServiceWorker } from './app/sw-register';
import { session } from './lib/session';
// The CSS variables and base styles antd-mobile's index would load; components are deep-imported (see vite.config.ts).
import 'antd-mobile/es/global';
import './styles/global.css';

// antd-mobile 5 renders Toast/Dialog with the React 18 API that React 19 removed; give it createRoot.
unstableSetRender((node, container) => {
  const host = container as Element & { _admRoot?: Root };
  host._admRoot ??= createRoot(host);
  const root = host._admRoot;
  root.render(node);
  return async () => {
    await Promise.resolve();
    root.unmount();
    delete host._admRoot;
  };
});

// Signed in or not is known from the stored token before anything else loads. A signed-in start fetches the shell
// now, beside React's first render; a signed-out one on a signed-in path goes to /login before the router starts,
// so the first visit to '/' costs what the login screen costs, with no redirect render on the way.
if (session.token()) void loadShell().catch(() => undefined);
else if (requiresSignIn(window.location.pathname)) window.history.replaceState(null, '', loginPath(window.location));

// 大字模式 is on <html> before anything renders.
applyLargeText();

const router = createAppRouter();

// As a transition, React renders the first screen in slices of a few milliseconds, yielding between them, rather
// than in one long task: a phone stays responsive to a tap while the shell mounts (Lighthouse's TBT). Until it
// commits, the HTML splash stays on screen.
const root = createRoot(document.getElementById('root')!);
startTransition(() => {
  root.render(
    <StrictMode>
      <RouterProvider router={router} />
    </StrictMode>,
  );
});

registerServiceWorker();
