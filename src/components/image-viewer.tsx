import { ImageViewer } from 'antd-mobile';
import { CloseOutline, EyeInvisibleOutline, PictureOutline, PictureWrongOutline } from 'antd-mobile-icons';
import { HIDDEN_PHOTO } from '../../domain/personal-data';
import { useEffect, useState, type MouseEvent } from 'react';
import { createPortal } from 'react-dom';
import { fileSrc, getFileAccess, isLocalPhoto, splitFileNames, useFileAccess } from '../lib/files';
import { toast } from '../lib/toast';
import './image-upload.css';

/** Photos shown, not edited: thumbnails, the count in a table cell, and the full-screen preview both they and the upload field open. */

/** Full-screen preview of stored images; mounted on first open only, so a list of cells stays light. */
export function Viewer({ images, view, onClose }: { images: string[]; view: { index: number; open: boolean } | null; onClose: () => void }) {
  if (!view || images.length === 0) return null;
  // Keyed by the index: Multi reads defaultIndex only when it mounts.
  return (
    <>
      <ImageViewer.Multi key={view.index} images={images} defaultIndex={Math.min(view.index, images.length - 1)} visible={view.open} onClose={onClose} />
      {/* The viewer closes only by a tap on the image, which a desktop user does not guess: a visible × at both sizes, over its mask. */}
      {view.open &&
        createPortal(
          <button type="button" className="iu-viewer-close" aria-label="关闭" title="关闭" onClick={onClose}>
            <CloseOutline aria-hidden />
          </button>,
          document.body,
        )}
    </>
  );
}

export function useViewer() {
  const [view, setView] = useState<{ index: number; open: boolean } | null>(null);
  return { view, open: (index: number) => setView({ index, open: true }), close: () => setView((v) => (v ? { ...v, open: false } : v)) };
}

/** A face or ID photo the server hid from this reader (it takes pii:view): a tile that says so, never a broken image. */
function HiddenThumb() {
  return (
    <span className="iu-thumb iu-thumb--hidden" role="img" aria-label={HIDDEN_PHOTO_TITLE} title={HIDDEN_PHOTO_TITLE}>
      <EyeInvisibleOutline aria-hidden />
      <span>已隐藏</span>
    </span>
  );
}
export const HIDDEN_PHOTO_TITLE = '人脸或证件照片已隐藏，需“查看个人信息”权限';

export function Thumb({ src, label, onOpen }: { src?: string; label: string; onOpen: () => void }) {
  const [broken, setBroken] = useState(false);
  useEffect(() => setBroken(false), [src]);
  if (src === HIDDEN_PHOTO) return <HiddenThumb />;
  return (
    <button type="button" className={`iu-thumb${src ? '' : ' iu-thumb--loading'}`} onClick={onOpen} disabled={!src} aria-label={label} title={label}>
      {src && !broken && <img src={src} alt="" loading="lazy" decoding="async" draggable={false} onError={() => setBroken(true)} />}
      {broken && <PictureWrongOutline className="iu-thumb__broken" aria-hidden />}
    </button>
  );
}

/** Where to show a part of a field's value: a local photo is its own object URL. */
export const srcOf = (part: string, access: string | undefined): string | undefined => (part === HIDDEN_PHOTO ? HIDDEN_PHOTO : isLocalPhoto(part) ? part : access ? fileSrc(part, access) : undefined);

export interface ImageListProps {
  /** Stored file names joined by ';'. */
  value?: string | null;
  className?: string;
}

/** Read-only thumbnails of a photo field (detail views); tap one to preview them all. */
export function ImageList({ value, className }: ImageListProps) {
  const names = splitFileNames(value);
  const access = useFileAccess();
  const viewer = useViewer();
  if (names.length === 0) return null;
  const urls = names.map((n) => srcOf(n, access));
  return (
    <div className={`iu iu--readonly${className ? ` ${className}` : ''}`}>
      <div className="iu-grid">
        {names.map((n, i) => (
          <div className="iu-tile" key={`${n}-${i}`}>
            <Thumb src={urls[i]} label={`查看第${i + 1}张图片`} onOpen={() => viewer.open(i)} />
          </div>
        ))}
      </div>
      <Viewer images={urls.filter((u): u is string => !!u && u !== HIDDEN_PHOTO)} view={viewer.view} onClose={viewer.close} />
    </div>
  );
}

/** A photo field in a table cell or card line: "N张", tap to preview without loading thumbnails for every row. */
export function ImageCount({ value }: { value?: string | null }) {
  const names = splitFileNames(value);
  const viewer = useViewer();
  const [urls, setUrls] = useState<string[]>([]);
  if (names.length === 0) return null;
  const open = async (e: MouseEvent) => {
    e.stopPropagation();
    try {
      const access = await getFileAccess();
      setUrls(names.map((n) => srcOf(n, access)!).filter((u) => u !== HIDDEN_PHOTO));
      viewer.open(0);
    } catch (err) {
      toast(err instanceof Error ? err.message : '图片加载失败', 'fail');
    }
  };
  return (
    <>
      <button type="button" className="iu-count" onClick={(e) => void open(e)} onDoubleClick={(e) => e.stopPropagation()} title="查看图片">
        <PictureOutline aria-hidden />
        {names.length}张
      </button>
      <Viewer images={urls} view={viewer.view} onClose={viewer.close} />
    </>
  );
}
