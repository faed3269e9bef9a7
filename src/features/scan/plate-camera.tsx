import { Button } from 'antd-mobile';
import { PictureOutline } from 'antd-mobile-icons';
import { useEffect, useRef, useState } from 'react';
import type { PlateReading } from '../../../domain/plate-read';
import { createPlateReader, type PlateReader } from './plate-read';

/**
 * 拍车牌: the camera frames a plate (or an ID card's number) in a guide box
 * and the phone reads it on the device, offline once the models are cached
 * (docs/plate-reading.md). A reading only fills the field; the patrol confirms.
 */

type Status = { kind: 'loading' } | { kind: 'ready'; camera: boolean } | { kind: 'reading' } | { kind: 'missed'; text: string } | { kind: 'failed'; text: string };

/** The guide box as a share of the video's width and height (a plate is about 3:1). */
const GUIDE = { x: 0.08, y: 0.3, w: 0.84, h: 0.4 };
/** Pause between frames while nothing is read: the phone stays cool and the worker never queues. */
const FRAME_PAUSE_MS = 400;

export function PlateCamera({ onRead }: { onRead: (reading: PlateReading) => void }) {
  const video = useRef<HTMLVideoElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const reader = useRef<PlateReader | null>(null);
  const [status, setStatus] = useState<Status>({ kind: 'loading' });
  const onReadRef = useRef(onRead);
  onReadRef.current = onRead;

  useEffect(() => {
    let stopped = false;
    let stream: MediaStream | null = null;
    const r = createPlateReader();
    reader.current = r;

    const loop = async () => {
      const v = video.current;
      while (!stopped && v && v.readyState >= 2) {
        const crop = { x: Math.round(v.videoWidth * GUIDE.x), y: Math.round(v.videoHeight * GUIDE.y), w: Math.round(v.videoWidth * GUIDE.w), h: Math.round(v.videoHeight * GUIDE.h) };
        try {
          const frame = await createImageBitmap(v, crop.x, crop.y, crop.w, crop.h);
          const result = await r.read(frame);
          if (stopped) return;
          if (result.reading) return onReadRef.current(result.reading);
        } catch {
          if (stopped) return;
        }
        await new Promise((resolve) => setTimeout(resolve, FRAME_PAUSE_MS));
      }
    };

    void (async () => {
      try {
        await r.ready;
      } catch {
        if (!stopped) setStatus({ kind: 'failed', text: '识别模型加载失败：首次使用需联网下载（约 18 MB），请联网后重试。' });
        return;
      }
      if (stopped) return;
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment', width: { ideal: 1280 }, height: { ideal: 720 } } });
        if (stopped) return stream.getTracks().forEach((t) => t.stop());
        const v = video.current!;
        v.srcObject = stream;
        await v.play();
        setStatus({ kind: 'ready', camera: true });
        void loop();
      } catch {
        if (!stopped) setStatus({ kind: 'ready', camera: false });
      }
    })();
    return () => {
      stopped = true;
      stream?.getTracks().forEach((t) => t.stop());
      r.close();
      reader.current = null;
    };
  }, []);

  const choosePhoto = async (file: File | undefined) => {
    const r = reader.current;
    if (!file || !r) return;
    setStatus({ kind: 'reading' });
    try {
      await r.ready;
      const result = await r.read(await createImageBitmap(file));
      if (result.reading) {
        setStatus({ kind: 'ready', camera: !!video.current?.srcObject });
        onReadRef.current(result.reading);
      } else setStatus({ kind: 'missed', text: '未能在照片中识别到车牌或身份证号码，请换一张清晰、正面的照片，或在下方手动输入。' });
    } catch {
      setStatus({ kind: 'failed', text: '识别失败，请重试或在下方手动输入。' });
    } finally {
      if (fileRef.current) fileRef.current.value = '';
    }
  };

  const camera = status.kind === 'ready' && status.camera;
  const message =
    status.kind === 'loading'
      ? '正在加载识别模型…首次使用需下载约 18 MB，之后离线可用'
      : status.kind === 'reading'
        ? '正在识别照片…'
        : status.kind === 'ready'
          ? status.camera
            ? '将车牌或身份证号码放入框内，自动识别'
            : '未能打开摄像头：可点“选择照片”识别车牌或身份证照片'
          : status.text;

  return (
    <div className="plate-camera">
      <div className={`plate-camera__view${camera ? '' : ' plate-camera__view--off'}`}>
        <video ref={video} className="plate-camera__video" muted playsInline aria-hidden />
        <div className="plate-camera__guide" aria-hidden style={{ left: `${GUIDE.x * 100}%`, top: `${GUIDE.y * 100}%`, width: `${GUIDE.w * 100}%`, height: `${GUIDE.h * 100}%` }} />
      </div>
      <div className={`plate-camera__status${status.kind === 'failed' || status.kind === 'missed' ? ' plate-camera__status--bad' : ''}`} role="status">
        {message}
      </div>
      <Button block onClick={() => fileRef.current?.click()} loading={status.kind === 'reading' || status.kind === 'loading'} loadingText={status.kind === 'loading' ? '加载中' : '识别中'}>
        <PictureOutline /> 选择照片
      </Button>
      <input ref={fileRef} type="file" accept="image/*" className="scan-file-input" aria-label="选择车牌或身份证照片" onChange={(e) => void choosePhoto(e.target.files?.[0])} />
    </div>
  );
}
