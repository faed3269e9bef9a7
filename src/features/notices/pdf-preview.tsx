import { getDocument, GlobalWorkerOptions } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { useEffect, useRef, useState } from 'react';

GlobalWorkerOptions.workerSrc = workerUrl;

/** A longer document is read by its download; drawing hundreds of pages would hold a phone's memory for nothing. */
const MAX_PAGES = 10;

/**
 * A PDF attachment drawn into canvases by pdf.js (loaded with this component
 * only). The file itself is always served as a download in a sandbox
 * (server/modules/files.ts): a PDF may carry scripts, and no browser's own
 * viewer is let near the park's origin. pdf.js parses it in a worker and runs
 * none of them. The fetch goes through the service worker, so a notice opened
 * once previews offline too.
 */
export default function PdfPreview({ src, title, onError }: { src: string; title: string; onError: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState(0);
  // The parent's handler is a fresh function each render; the drawing must not start over for it.
  const failed = useRef(onError);
  failed.current = onError;
  useEffect(() => {
    const target = box.current;
    if (!target) return;
    let cancelled = false;
    // One whole read: the service worker's offline copy answers whole files, not ranges.
    const task = getDocument({ url: src, enableXfa: false, disableRange: true, disableStream: true });
    (async () => {
      const doc = await task.promise;
      const pages = Math.min(doc.numPages, MAX_PAGES);
      if (!cancelled) setMore(doc.numPages - pages);
      for (let n = 1; n <= pages && !cancelled; n++) {
        const page = await doc.getPage(n);
        const width = target.clientWidth || 360;
        const viewport = page.getViewport({ scale: (width / page.getViewport({ scale: 1 }).width) * Math.min(window.devicePixelRatio || 1, 2) });
        const canvas = document.createElement('canvas');
        canvas.width = Math.floor(viewport.width);
        canvas.height = Math.floor(viewport.height);
        canvas.className = 'nv-pdf-page';
        canvas.setAttribute('aria-label', `${title} 第${n}页`);
        target.append(canvas);
        await page.render({ canvas, viewport }).promise;
      }
    })().catch(() => {
      if (!cancelled) failed.current();
    });
    return () => {
      cancelled = true;
      void task.destroy();
      target.replaceChildren();
    };
  }, [src, title]);
  return (
    <div className="nv-file-pdf" role="document" aria-label={title}>
      <div ref={box} className="nv-pdf-pages" />
      {more > 0 && (
        <div className="nv-pdf-more">
          仅预览前 {MAX_PAGES} 页，其余 {more} 页请下载查看
        </div>
      )}
    </div>
  );
}
