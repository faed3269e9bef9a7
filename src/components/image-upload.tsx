import { AddOutline, CameraOutline, ClockCircleOutline, CloseOutline, PicturesOutline, RedoOutline } from 'antd-mobile-icons';
import { useSyncExternalStore, type ChangeEvent } from 'react';
import { DEFAULT_MAX_IMAGES, isLocalPhoto, photoLimitMessage, useFileAccess } from '../lib/files';
import { ImageList, srcOf, Thumb, useViewer, Viewer } from './image-viewer';
import { usePhotoUploads } from './use-photo-uploads';
import './image-upload.css';
import { HIDDEN_PHOTO } from '../../domain/personal-data';

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
  const { parts, local, previews, failed, count, online, add, remove, retry } = usePhotoUploads(value, onChange, max);
  const touch = useTouch();
  const access = useFileAccess();
  const viewer = useViewer();

  if (disabled) return parts.length ? <ImageList value={value} /> : <span className="iu-none">暂无图片</span>;

  const pick = (e: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(e.target.files ?? []);
    e.target.value = '';
    add(files);
  };

  const shown = [...parts, ...failed.map(([url]) => url)];
  const srcs = shown.map((p) => previews[p] ?? srcOf(p, access));
  const viewable = srcs.filter((u): u is string => !!u && u !== HIDDEN_PHOTO);
  /** The viewer holds only the images it can show; a tile opens its own among them. */
  const openAt = (i: number) => viewer.open(srcs.slice(0, i).filter((u) => !!u && u !== HIDDEN_PHOTO).length);
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
