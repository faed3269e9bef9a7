// Deep import: the package index is marked side-effectful and would pull every component into the entry.
import { unstableSetRender } from 'antd-mobile/es/utils/unstable-render';
import { StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { router } from './app/router';
import { registerServiceWorker } from './app/sw-register';
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

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
);

registerServiceWorker();
