import { lazy, Suspense } from 'react';
import type { RouteEditorProps } from './route-editor';
import './route-editor.css';

const RouteEditor = lazy(() => import('./route-editor').then((m) => ({ default: m.RouteEditor })));

/**
 * The route editor (and the small route maps), loaded on first use: Leaflet,
 * react-leaflet and, where a mouse edits, leaflet-geoman stay out of every
 * screen that does not draw a route.
 */
export function LazyRouteEditor(props: RouteEditorProps) {
  return (
    <Suspense fallback={<div className={`route-editor-loading${props.readOnly ? ' is-readonly' : ''}`}>地图加载中…</div>}>
      <RouteEditor {...props} />
    </Suspense>
  );
}
