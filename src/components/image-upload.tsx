import { ImageViewer } from 'antd-mobile';
import { AddOutline, CameraOutline, ClockCircleOutline, CloseOutline, PictureOutline, PictureWrongOutline, PicturesOutline, RedoOutline } from 'antd-mobile-icons';
import { useEffect, useRef, useState, useSyncExternalStore, type ChangeEvent, type MouseEvent } from 'react';
import { createPortal } from 'react-dom';
import { compressImage } from '../lib/compress-image';
import {
  DEFAULT_MAX_IMAGES,
  IMAGE_MAX_BYTES,
  admitPhotos,
  fileSrc,
  forgetLocalPhotos,
  getFileAccess,
  isLocalPhoto,
  isNetworkFailure,
  joinFileNames,
  keepLocalPhoto,
  localPhotoBlob,
  notImageMessage,
  photoLimitMessage,
  settleLocalPhoto,
  splitFileNames,
  trackPhoto,
  uploadFile,
  type PhotoOutcome,
  useFileAccess,
} from '../lib/files';
import { toast } from '../lib/toast';
import { onlineNow, useOnline } from '../lib/use-online';
import './image-upload.css';

/** Full-screen preview of stored images; mounted on first open only, so a list of cells stays light. */
function Viewer({ images, view, onClose }: { images: string[]; view: { index: number; open: boolean } | null; onClose: () => void }) {
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

/** Where to show a part of a field's value: a local photo is its own object URL. */
const srcOf = (part: string, access: string | undefined): string | undefined => (isLocalPhoto(part) ? part : access ? fileSrc(part, access) : undefined);

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
      <Viewer images={urls.filter((u): u is string => !!u)} view={viewer.view} onClose={viewer.close} />
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
      setUrls(names.map((n) => srcOf(n, access)!));
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

// ---------------------------------------------------------------- the editable field

/**
 * What happens to a photo still on the device: being compressed, being sent,
 * waiting for the network ('待上传', kept in the value), or refused by the
 * server (kept out of the value until the person retries or removes it).
 */
type Stage = 'compressing' | 'uploading' | 'waiting' | 'failed';
interface LocalState {
  stage: Stage;
  percent: number;
  error?: string;
}

/** Phones and tablets offer the camera and the gallery; a mouse gets the one file chooser. */
const COARSE = '(pointer: coarse)';
const useTouch = () =>
  useSyncExternalStore(
    (cb) => {
      const mq = window.matchMedia(COARSE);
      mq.addEventListener('change', cb);
      return () => mq.removeEventListener('change', cb);
    },
    () => window.matchMedia(COARSE).matches,
    () => false,
  );

/** Two uploads at a time: quicker than one by one, gentler on a mobile uplink than all at once. */
const PARALLEL_UPLOADS = 2;

export interface ImageUploadProps {
  /**
   * Stored file names joined by ';'. While a photo is not uploaded yet (still
   * sending, or no network) its place holds a blob: URL: the flag form hands
   * those to the outbox (splitLocalPhotos), other forms refuse to save them.
   */
  value?: string | null;
  onChange?: (value: string) => void;
  /** Most images the field takes (spec 000: 20 per document field, 9 flag photos). */
  max?: number;
  /** Read-only: thumbnails only. */
  disabled?: boolean;
}

/**
 * The one photo field of every form: camera or gallery, compression in a
 * worker, thumbnails at once from the local photo, upload with progress,
 * photos kept on the device while offline (uploaded when the network is back),
 * retry, delete, tap to preview.
 */
export function ImageUpload({ value, onChange, max = DEFAULT_MAX_IMAGES, disabled }: ImageUploadProps) {
  const parts = splitFileNames(value);
  // Uploads finish after renders: they edit the latest value, not the one they started with.
  const partsRef = useRef(parts);
  partsRef.current = parts;
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const [local, setLocal] = useState<Record<string, LocalState>>({});
  const localRef = useRef(local);
  localRef.current = local;
  /** Photos uploaded here keep showing from the device instead of loading again. */
  const [previews, setPreviews] = useState<Record<string, string>>({});
  const previewsRef = useRef(previews);
  previewsRef.current = previews;
  const aborts = useRef(new Map<string, AbortController>());
  /** What a form waiting on a scheduled photo is told when it is done (trackPhoto). */
  const outcomes = useRef(new Map<string, (o: PhotoOutcome) => void>());
  const queue = useRef<string[]>([]);
  const active = useRef(0);
  const mounted = useRef(true);
  const online = useOnline();
  const touch = useTouch();
  const access = useFileAccess();
  const viewer = useViewer();

  const commit = (next: string[]) => {
    partsRef.current = next;
    onChangeRef.current?.(joinFileNames(next));
  };
  const patch = (url: string, change: Partial<LocalState>) =>
    setLocal((m) => {
      const next = { ...m, [url]: { ...(m[url] ?? { stage: 'waiting', percent: 0 }), ...change } };
      localRef.current = next;
      return next;
    });
  const unset = (url: string) =>
    setLocal((m) => {
      if (!(url in m)) return m;
      const { [url]: _gone, ...rest } = m;
      localRef.current = rest;
      return rest;
    });

  const finish = (url: string, outcome: PhotoOutcome) => {
    outcomes.current.get(url)?.(outcome);
    outcomes.current.delete(url);
  };

  const send = async (url: string) => {
    // Anything but an upload or a refusal leaves the photo on the device.
    let outcome: PhotoOutcome = { waiting: true };
    const abort = new AbortController();
    try {
      if (!partsRef.current.includes(url)) return;
      if (!onlineNow()) return patch(url, { stage: 'waiting', percent: 0, error: undefined });
      aborts.current.set(url, abort);
      // Compression started when the photo was picked: its progress stays on the tile.
      patch(url, { stage: 'compressing', error: undefined });
      const blob = await localPhotoBlob(url);
      if (abort.signal.aborted) return;
      if (blob.size > IMAGE_MAX_BYTES) throw new Error(`图片压缩后仍超过${IMAGE_MAX_BYTES / 1024 / 1024}MB，请换一张`);
      patch(url, { stage: 'uploading', percent: 0 });
      const name = await uploadFile(blob, (percent) => mounted.current && patch(url, { percent }), abort.signal);
      if (abort.signal.aborted) return;
      const at = partsRef.current.indexOf(url);
      if (at < 0) return; // removed while it was being sent
      settleLocalPhoto(url);
      setPreviews((p) => ({ ...p, [name]: url }));
      commit(partsRef.current.map((p, i) => (i === at ? name : p)));
      unset(url);
      outcome = { name };
    } catch (err) {
      if (abort.signal.aborted || !mounted.current) return;
      if (isNetworkFailure(err)) {
        patch(url, { stage: 'waiting', percent: 0 });
        return;
      }
      // The server refused this photo: it leaves the value (a form must not save it), the tile stays to retry or remove.
      const message = err instanceof Error ? err.message : '上传失败';
      commit(partsRef.current.filter((p) => p !== url));
      patch(url, { stage: 'failed', percent: 0, error: message });
      toast(message, 'fail');
      outcome = { refused: message };
    } finally {
      if (aborts.current.get(url) === abort) aborts.current.delete(url);
      finish(url, outcome);
    }
  };

  const pump = () => {
    while (active.current < PARALLEL_UPLOADS && queue.current.length) {
      const url = queue.current.shift()!;
      active.current++;
      void send(url).finally(() => {
        active.current--;
        if (mounted.current) pump();
      });
    }
  };
  const schedule = (urls: string[]) => {
    const fresh = urls.filter((u) => !queue.current.includes(u) && !aborts.current.has(u));
    if (!fresh.length) return;
    for (const url of fresh) {
      if (outcomes.current.has(url)) continue;
      trackPhoto(url, new Promise<PhotoOutcome>((resolve) => outcomes.current.set(url, resolve)));
    }
    queue.current.push(...fresh);
    pump();
  };

  // Local photos the field did not add itself (a value handed back to a remounted field) wait like any other.
  const unknownLocal = parts.filter((p) => isLocalPhoto(p) && !(p in local));
  useEffect(() => {
    if (!unknownLocal.length) return;
    for (const url of unknownLocal) patch(url, { stage: 'waiting', percent: 0 });
    if (onlineNow()) schedule(unknownLocal);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [unknownLocal.join(';')]);

  // Back online: send what waited.
  useEffect(() => {
    if (!online) return;
    schedule(partsRef.current.filter((p) => isLocalPhoto(p) && localRef.current[p]?.stage === 'waiting'));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [online]);

  // Leaving the form cancels uploads in flight (the photos stay in the value, as local ones)
  // and frees the previews of photos already stored.
  useEffect(() => {
    mounted.current = true;
    const inFlight = aborts.current; // the one Map for the component's life
    const waiters = outcomes.current;
    return () => {
      mounted.current = false;
      for (const a of inFlight.values()) a.abort();
      inFlight.clear();
      queue.current = [];
      for (const resolve of waiters.values()) resolve({ waiting: true });
      waiters.clear();
      for (const url of Object.values(previewsRef.current)) URL.revokeObjectURL(url);
    };
  }, []);

  if (disabled) return parts.length ? <ImageList value={value} /> : <span className="iu-none">暂无图片</span>;

  const failed = Object.entries(local).filter(([url, s]) => s.stage === 'failed' && !parts.includes(url));
  const count = parts.length + failed.length;

  const pick = (e: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(e.target.files ?? []);
    e.target.value = '';
    if (!files.length) return;
    const images = files.filter((f) => !f.type || f.type.startsWith('image/'));
    const others = files.filter((f) => !images.includes(f));
    if (others.length) toast(notImageMessage(others.map((f) => f.name)), 'fail');
    const { accept, message } = admitPhotos(count, images.length, max);
    if (message) toast(message);
    const added: string[] = [];
    for (const file of images.slice(0, accept)) {
      // The thumbnail shows the photo as taken at once; compression runs in a worker behind it.
      let url = '';
      const progress = (percent: number) => {
        if (mounted.current && localRef.current[url]?.stage === 'compressing') patch(url, { percent });
      };
      url = keepLocalPhoto(file, compressImage(file, { onProgress: progress }));
      added.push(url);
      patch(url, { stage: onlineNow() ? 'compressing' : 'waiting', percent: 0 });
    }
    if (!added.length) return;
    commit([...partsRef.current, ...added]);
    if (onlineNow()) schedule(added);
    else toast('当前无网络，照片已保存在本机，联网后自动上传');
  };

  const remove = (part: string) => {
    aborts.current.get(part)?.abort();
    queue.current = queue.current.filter((u) => u !== part);
    finish(part, { waiting: true });
    if (partsRef.current.includes(part)) commit(partsRef.current.filter((p) => p !== part));
    if (isLocalPhoto(part)) {
      unset(part);
      forgetLocalPhotos([part]);
    }
    const preview = previewsRef.current[part];
    if (preview) {
      URL.revokeObjectURL(preview);
      setPreviews(({ [part]: _gone, ...rest }) => rest);
    }
  };

  const retry = (url: string) => {
    if (!onlineNow()) return void toast('当前无网络，联网后自动上传');
    if (!partsRef.current.includes(url)) commit([...partsRef.current, url]);
    patch(url, { stage: 'compressing', percent: 0, error: undefined });
    schedule([url]);
  };

  const shown = [...parts, ...failed.map(([url]) => url)];
  const srcs = shown.map((p) => previews[p] ?? srcOf(p, access));
  const viewable = srcs.filter((u): u is string => !!u);
  /** The viewer holds only the images it can show; a tile opens its own among them. */
  const openAt = (i: number) => viewer.open(srcs.slice(0, i).filter(Boolean).length);
  const waiting = parts.filter((p) => isLocalPhoto(p) && local[p]?.stage === 'waiting').length;
  const limitReached = count >= max;

  return (
    <div className="iu">
      <div className="iu-grid">
        {shown.map((part, i) => {
          const state = isLocalPhoto(part) ? (local[part] ?? { stage: 'waiting' as const, percent: 0 }) : undefined;
          const busy = state && (state.stage === 'compressing' || state.stage === 'uploading');
          return (
            <div className={`iu-tile${state ? ` iu-tile--${state.stage}` : ''}`} data-stage={state?.stage ?? 'stored'} key={part}>
              <Thumb src={srcs[i]} label={`查看第${i + 1}张图片`} onOpen={() => openAt(i)} />
              {busy && (
                <div
                  className="iu-mask"
                  role="progressbar"
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={state.percent}
                  aria-label={`第${i + 1}张图片${state.stage === 'compressing' ? '压缩' : '上传'}进度`}
                >
                  <span className="iu-percent">{state.stage === 'compressing' ? `压缩中 ${state.percent}%` : `上传 ${state.percent}%`}</span>
                  {/* Keyed by stage: the upload's bar starts empty instead of sliding back from the compression's. */}
                  <span className="iu-bar" key={state.stage}>
                    <span style={{ width: `${state.percent}%` }} />
                  </span>
                </div>
              )}
              {state?.stage === 'waiting' && (
                <button type="button" className="iu-wait" onClick={() => retry(part)} title={online ? '立即上传' : '联网后自动上传'}>
                  <ClockCircleOutline aria-hidden />
                  待上传
                </button>
              )}
              {state?.stage === 'failed' && (
                <button type="button" className="iu-mask iu-mask--failed" onClick={() => retry(part)} title={state.error}>
                  <RedoOutline aria-hidden />
                  <span>重新上传</span>
                </button>
              )}
              <button type="button" className="iu-del" onClick={() => remove(part)} aria-label={busy ? `取消上传第${i + 1}张图片` : `删除第${i + 1}张图片`} title={busy ? '取消' : '删除'}>
                <CloseOutline />
              </button>
            </div>
          );
        })}
        {!limitReached &&
          (touch ? (
            <>
              <label className="iu-add" title="拍照">
                <input type="file" accept="image/*" capture="environment" onChange={pick} aria-label="拍照" />
                <CameraOutline className="iu-add__icon" aria-hidden />
                <span className="iu-add__text">
                  拍照 {count}/{max}
                </span>
              </label>
              <label className="iu-add" title="从相册选择">
                <input type="file" accept="image/*" multiple onChange={pick} aria-label="从相册选择" />
                <PicturesOutline className="iu-add__icon" aria-hidden />
                <span className="iu-add__text">相册</span>
              </label>
            </>
          ) : (
            <label className="iu-add" title="添加图片">
              <input type="file" accept="image/*" multiple onChange={pick} aria-label="添加图片" />
              <AddOutline className="iu-add__icon" aria-hidden />
              <span className="iu-add__text">
                {count}/{max}
              </span>
            </label>
          ))}
      </div>
      {waiting > 0 && (
        <div className="iu-note iu-note--waiting" role="status">
          {waiting}张照片待上传{online ? '' : '，联网后自动上传'}
        </div>
      )}
      {limitReached && <div className="iu-note">{photoLimitMessage(max)}，已达上限</div>}
      <Viewer images={viewable} view={viewer.view} onClose={viewer.close} />
    </div>
  );
}
