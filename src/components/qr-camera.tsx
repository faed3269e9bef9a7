import { ScanningOutline } from 'antd-mobile-icons';
import { useEffect, useRef, useState } from 'react';
import './qr-camera.css';

/** Shared by the patrol's scan screen and the muster's marking: a pass QR read by the camera. */

type CameraState = { status: 'idle' } | { status: 'starting' } | { status: 'running' } | { status: 'error'; message: string };

function cameraMessage(e: unknown): string {
  const name = (e as { name?: string })?.name ?? '';
  const text = String((e as { message?: string })?.message ?? e);
  if (!window.isSecureContext || !navigator.mediaDevices) return '当前连接不是 HTTPS，浏览器不允许使用摄像头。';
  if (name === 'NotAllowedError' || /Permission|NotAllowed/i.test(text)) return '摄像头权限被拒绝，请在浏览器设置中允许本网站使用摄像头。';
  if (name === 'NotFoundError' || /not found|NotFound|no camera|OverconstrainedError/i.test(text)) return '未找到可用的摄像头。';
  if (name === 'NotReadableError' || /NotReadable|in use/i.test(text)) return '摄像头正被其他应用使用。';
  return '未能打开摄像头。';
}

/** The live camera reader of QR codes; html5-qrcode is loaded only when a screen shows it. */
export function QrCamera({
  active,
  onText,
  id = 'qr-camera',
  fallback = '可点“选择图片”识别通行码的照片或截图，或在下方手动输入。',
}: {
  active: boolean;
  onText: (text: string) => void;
  id?: string;
  /** What to do instead when the camera cannot be used. */
  fallback?: string;
}) {
  const [state, setState] = useState<CameraState>({ status: 'idle' });
  const onTextRef = useRef(onText);
  onTextRef.current = onText;

  useEffect(() => {
    if (!active) return;
    let cancelled = false;
    let scanner: import('html5-qrcode').Html5Qrcode | null = null;
    let read = false;
    setState({ status: 'starting' });
    void (async () => {
      try {
        const { Html5Qrcode, Html5QrcodeSupportedFormats } = await import('html5-qrcode');
        if (cancelled) return;
        scanner = new Html5Qrcode(id, { formatsToSupport: [Html5QrcodeSupportedFormats.QR_CODE], useBarCodeDetectorIfSupported: true, verbose: false });
        await scanner.start(
          { facingMode: 'environment' },
          {
            fps: 10,
            aspectRatio: 1,
            qrbox: (w, h) => {
              const side = Math.max(120, Math.floor(Math.min(w, h) * 0.72));
              return { width: side, height: side };
            },
          },
          (text) => {
            // The library reports every frame that decodes; one read is enough.
            if (read) return;
            read = true;
            onTextRef.current(text);
          },
          () => undefined,
        );
        if (cancelled) await scanner.stop();
        else setState({ status: 'running' });
      } catch (e) {
        if (!cancelled) setState({ status: 'error', message: cameraMessage(e) });
      }
    })();
    return () => {
      cancelled = true;
      const s = scanner;
      if (s?.isScanning)
        void s
          .stop()
          .then(() => s.clear())
          .catch(() => undefined);
      setState({ status: 'idle' });
    };
  }, [active, id]);

  return (
    <div className={`scan-camera scan-camera--${state.status}`}>
      <div id={id} className="scan-camera__view" />
      {state.status === 'starting' && <div className="scan-camera__note">正在打开摄像头…</div>}
      {state.status === 'error' && (
        <div className="scan-camera__note scan-camera__note--error" role="status">
          <ScanningOutline aria-hidden />
          <span>
            {state.message}
            {fallback}
          </span>
        </div>
      )}
      {state.status === 'running' && <div className="scan-camera__hint">将二维码放入框内，自动识别</div>}
    </div>
  );
}
