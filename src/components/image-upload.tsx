import { ImageViewer } from 'antd-mobile';
import { AddOutline, CloseOutline, PictureOutline, PictureWrongOutline, RedoOutline } from 'antd-mobile-icons';
import { useEffect, useRef, useState, type ChangeEvent, type MouseEvent } from 'react';
import { DEFAULT_MAX_IMAGES, IMAGE_MAX_BYTES, fileSrc, getFileAccess, joinFileNames, splitFileNames, uploadFile, useFileAccess } from '../lib/files';
import { toast } from '../lib/toast';
import './image-upload.css';

/** Full-screen preview of stored images; mounted on first open only, so a list of cells stays light. */
function Viewer({ images, view, onClose }: { images: string[]; view: { index: number; open: boolean } | null; onClose: () => void }) {
  if (!view || images.length === 0) return null;
  // Keyed by the index: Multi reads defaultIndex only when it mounts.
  return <ImageViewer.Multi key={view.index} images={images} defaultIndex={Math.min(view.index, images.length - 1)} visible={view.open} onClose={onClose} />;
}

function useViewer() {
  const [view, setView] = useState<{ index: number; open: boolean } | null>(null);
  return { view, open: (index: number) => setView({ index, open: true }), close: () => setView((v) => (v ? { ...v, open: false } : v)) };
}

function Thumb({ src, label, onOpen }: { src?: string; label: string; onOpen: () => void }) {
  const [broken, setBroken] = useState(false);
  useEffect(() => setBroken(false), [src]);
  return (
    <button type="button" className={`iu-thumb${src ? '' : ' iu-thumb--loading'}`} onClick={onOpen} disabled={!src} aria-label={label} title={label}>
      {src && !broken && <img src={src} alt="" loading="lazy" decoding="async" draggable={false} onError={() => setBroken(true)} />}
      {broken && <PictureWrongOutline className="iu-thumb__broken" aria-hidden />}
    </button>
  );
}

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
  const urls = access ? names.map((n) => fileSrc(n, access)) : [];
  return (
    <div className={`iu iu--readonly${className ? ` ${className}` : ''}`}>
      <div className="iu-grid">
        {names.map((n, i) => (
          <div className="iu-tile" key={`${n}-${i}`}>
            <Thumb src={urls[i]} label={`查看第${i + 1}张图片`} onOpen={() => viewer.open(i)} />
          </div>
        ))}
      </div>
      <Viewer images={urls} view={viewer.view} onClose={viewer.close} />
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
      setUrls(names.map((n) => fileSrc(n, access)));
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

interface Pending {
  id: number;
  file: File;
  preview: string;
  percent: number;
  error?: string;
  abort: AbortController;
}

export interface ImageUploadProps {
  /** Stored file names joined by ';'. */
  value?: string | null;
  onChange?: (value: string) => void;
  /** Most images the field takes (spec 000: 20). */
  max?: number;
  /** Read-only: thumbnails only. */
  disabled?: boolean;
}

let nextId = 1;

/**
 * The one photo field of every form: thumbnails, add (camera on phones),
 * upload progress, delete, tap to preview. The value changes as each upload
 * completes; photos still uploading are not in it yet.
 */
export function ImageUpload({ value, onChange, max = DEFAULT_MAX_IMAGES, disabled }: ImageUploadProps) {
  const names = splitFileNames(value);
  const namesRef = useRef(names);
  namesRef.current = names;
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const [pending, setPending] = useState<Pending[]>([]);
  const pendingRef = useRef(pending);
  pendingRef.current = pending;
  const access = useFileAccess();
  const viewer = useViewer();

  // Leaving the form cancels uploads in flight and frees the local previews.
  useEffect(
    () => () => {
      for (const p of pendingRef.current) {
        p.abort.abort();
        URL.revokeObjectURL(p.preview);
      }
    },
    [],
  );

  if (disabled) return names.length ? <ImageList value={value} /> : <span className="iu-none">暂无图片</span>;

  const patch = (pid: number, change: Partial<Pending>) => setPending((list) => list.map((p) => (p.id === pid ? { ...p, ...change } : p)));
  const drop = (pid: number) =>
    setPending((list) => {
      const hit = list.find((p) => p.id === pid);
      if (hit) URL.revokeObjectURL(hit.preview);
      return list.filter((p) => p.id !== pid);
    });

  const send = async (p: Pending) => {
    try {
      const name = await uploadFile(p.file, (percent) => patch(p.id, { percent }), p.abort.signal);
      if (p.abort.signal.aborted) return;
      const next = [...namesRef.current, name];
      namesRef.current = next;
      onChangeRef.current?.(joinFileNames(next));
      drop(p.id);
    } catch (err) {
      if (p.abort.signal.aborted) return;
      const message = err instanceof Error ? err.message : '上传失败';
      patch(p.id, { error: message, percent: 0 });
      toast(message, 'fail');
    }
  };

  const retry = (p: Pending) => {
    const again = { ...p, error: undefined, percent: 0, abort: new AbortController() };
    setPending((list) => list.map((x) => (x.id === p.id ? again : x)));
    void send(again);
  };

  const pick = async (e: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(e.target.files ?? []);
    e.target.value = '';
    const room = max - names.length - pendingRef.current.length;
    if (files.length > room) toast(`最多上传${max}张图片`);
    const accepted: Pending[] = [];
    for (const file of files.slice(0, Math.max(room, 0))) {
      if (file.type && !file.type.startsWith('image/')) {
        toast('请选择图片文件', 'fail');
        continue;
      }
      if (file.size > IMAGE_MAX_BYTES) {
        toast(`文件不能超过${IMAGE_MAX_BYTES / 1024 / 1024}MB`, 'fail');
        continue;
      }
      accepted.push({ id: nextId++, file, preview: URL.createObjectURL(file), percent: 0, abort: new AbortController() });
    }
    if (!accepted.length) return;
    setPending((list) => [...list, ...accepted]);
    // Two at a time: quicker than one by one, gentler on a mobile uplink than all at once.
    const queue = [...accepted];
    const worker = async () => {
      for (let p = queue.shift(); p; p = queue.shift()) await send(p);
    };
    await Promise.all([worker(), worker()]);
  };

  const remove = (index: number) => onChange?.(joinFileNames(names.filter((_, i) => i !== index)));
  const count = names.length + pending.length;
  const urls = access ? names.map((n) => fileSrc(n, access)) : [];

  return (
    <div className="iu">
      <div className="iu-grid">
        {names.map((n, i) => (
          <div className="iu-tile" key={`${n}-${i}`}>
            <Thumb src={urls[i]} label={`查看第${i + 1}张图片`} onOpen={() => viewer.open(i)} />
            <button type="button" className="iu-del" onClick={() => remove(i)} aria-label={`删除第${i + 1}张图片`} title="删除">
              <CloseOutline />
            </button>
          </div>
        ))}
        {pending.map((p) => (
          <div className={`iu-tile iu-tile--pending${p.error ? ' iu-tile--failed' : ''}`} key={p.id}>
            <img className="iu-preview" src={p.preview} alt="" />
            {p.error ? (
              <button type="button" className="iu-mask iu-mask--failed" onClick={() => retry(p)} title={p.error}>
                <RedoOutline aria-hidden />
                <span>重新上传</span>
              </button>
            ) : (
              <div className="iu-mask" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={p.percent} aria-label="上传进度">
                <span className="iu-percent">{p.percent}%</span>
                <span className="iu-bar">
                  <span style={{ width: `${p.percent}%` }} />
                </span>
              </div>
            )}
            <button
              type="button"
              className="iu-del"
              onClick={() => {
                p.abort.abort();
                drop(p.id);
              }}
              aria-label="取消上传"
              title="取消"
            >
              <CloseOutline />
            </button>
          </div>
        ))}
        {count < max && (
          <label className="iu-add" title="添加图片">
            <input type="file" accept="image/*" capture="environment" multiple onChange={(e) => void pick(e)} />
            <AddOutline className="iu-add__icon" aria-hidden />
            <span className="iu-add__text">
              {count}/{max}
            </span>
          </label>
        )}
      </div>
      {count >= max && <div className="iu-note">最多上传{max}张图片</div>}
      <Viewer images={urls} view={viewer.view} onClose={viewer.close} />
    </div>
  );
}
