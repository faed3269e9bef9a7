import { Button, Input } from 'antd-mobile';
import { PictureOutline, ScanningOutline } from 'antd-mobile-icons';
import { lazy, Suspense, useCallback, useEffect, useRef, useState, type ComponentType } from 'react';
import { appointmentCodes } from '../../../domain/appointments';
import { SCAN_PERMISSION, classifyScan, passApi, type LookupApplication, type PassCheck, type PassLookup } from '../../../domain/pass';
import { isDocumentNumber } from '../../../domain/identity';
import type { PlateReading } from '../../../domain/plate-read';
import { isPlate, PLATE_INVALID, PlateInput } from '../../components/plate-keyboard';
import { QrCamera } from '../../components/qr-camera';
import { ApiError, call } from '../../lib/http';
import { useCan, useMe } from '../../lib/me';
import { cachedPassKey, refreshPassKey, verifyPassOffline } from '../../lib/pass-key';
import type { Row, ScreenModalProps } from '../../list-screen';
import { ParkRecord, SignedContent, Verdict, verdictOf, type LookupState, type Scanned } from './scan-result';
import './scan.css';
import { showToast } from '../../lib/feedback';
import { maskIdNumber } from '../../../domain/personal-data';

/**
 * The patrol's scan screen (/scan, issue 4 item 5): reads a pass QR, an ID
 * QR or a typed plate; a pass is verified on the device first, with the
 * park's public key cached while online, then the park's records are looked
 * up when there is a network.
 */

const FILE_ID = 'scan-file';

/** 拍车牌 loads its reader (and the OCR worker and models) only when the mode is opened. */
const PlateCamera = lazy(() => import('./plate-camera').then((m) => ({ default: m.PlateCamera })));

type Mode = 'qr' | 'plate';

/** The flag action comes from the appointments feature; the app router hands it in (features do not import each other). */
export interface ScanDeps {
  FlagModal?: ComponentType<ScreenModalProps<Row>>;
}

/** The image on a white canvas with a quiet zone, its longest side at most `longest` pixels. */
function drawn(image: ImageBitmap, longest: number): { data: Uint8ClampedArray; width: number; height: number } {
  const pad = 32;
  const factor = Math.min(1, longest / Math.max(image.width, image.height));
  const w = Math.max(1, Math.round(image.width * factor));
  const h = Math.max(1, Math.round(image.height * factor));
  const canvas = document.createElement('canvas');
  canvas.width = w + 2 * pad;
  canvas.height = h + 2 * pad;
  const g = canvas.getContext('2d', { willReadFrequently: true })!;
  g.fillStyle = '#fff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.drawImage(image, pad, pad, w, h);
  return { data: g.getImageData(0, 0, canvas.width, canvas.height).data, width: canvas.width, height: canvas.height };
}

/**
 * Reads a QR from a photo or screenshot: the fallback for devices without a
 * camera. Html5Qrcode.scanFile comes first (it uses the platform's
 * BarcodeDetector where there is one). Its zxing decoder misses many clean
 * images of a pass (22 of 60 random codes of this size; TRY_HARDER and the
 * other binarizer do not help), which a camera makes up for with the next
 * frame and an image cannot; jsQR, which read all 60, then looks again.
 */
async function decodeImage(file: File): Promise<string> {
  const { Html5Qrcode, Html5QrcodeSupportedFormats } = await import('html5-qrcode');
  const reader = new Html5Qrcode(FILE_ID, { formatsToSupport: [Html5QrcodeSupportedFormats.QR_CODE], useBarCodeDetectorIfSupported: true, verbose: false });
  try {
    return await reader.scanFile(file, false);
  } catch (first) {
    const [{ default: jsQR }, image] = await Promise.all([import('jsqr'), createImageBitmap(file)]);
    try {
      // A phone photo may be 4000 px across: jsQR needs far fewer, and is slow on that many.
      for (const longest of [1600, 800]) {
        const { data, width, height } = drawn(image, longest);
        const found = jsQR(data, width, height, { inversionAttempts: 'attemptBoth' });
        if (found?.data) return found.data;
      }
    } finally {
      image.close();
    }
    throw first;
  } finally {
    reader.clear();
  }
}

const lookupParams = (s: Scanned) => (s.type === 'pass' ? { pass: s.text } : s.type === 'plate' ? { license_plate: s.plate } : { idcard: s.idcard });

function ScanPage({ FlagModal }: ScanDeps) {
  const { data: me } = useMe();
  const can = useCan();
  const [scanned, setScanned] = useState<Scanned | null>(null);
  const [unknown, setUnknown] = useState<string | null>(null);
  const [local, setLocal] = useState<PassCheck | null>(null);
  const [lookup, setLookup] = useState<LookupState>({ status: 'loading' });
  const [key, setKey] = useState(cachedPassKey);
  const [plate, setPlate] = useState('');
  const [idcard, setIdcard] = useState('');
  const [idError, setIdError] = useState<string>();
  const [flagRow, setFlagRow] = useState<Row | null>(null);
  const [decoding, setDecoding] = useState(false);
  const [mode, setMode] = useState<Mode>('qr');
  /** What 拍车牌 read, waiting for the patrol to confirm or correct it. */
  const [reading, setReading] = useState<PlateReading | null>(null);
  const [readingError, setReadingError] = useState<string>();
  const fileRef = useRef<HTMLInputElement>(null);
  const seq = useRef(0);

  useEffect(() => {
    void refreshPassKey().then(setKey);
    // The image decoder's fallback is fetched now, while there is a network, so choosing an image works offline later.
    void import('jsqr').catch(() => undefined);
  }, []);

  const runLookup = useCallback(async (s: Scanned) => {
    const mine = ++seq.current;
    if (!navigator.onLine) return setLookup({ status: 'offline' });
    setLookup({ status: 'loading' });
    try {
      const data = await call(passApi.lookup, lookupParams(s));
      if (mine === seq.current) setLookup({ status: 'done', data });
    } catch (e) {
      if (mine !== seq.current) return;
      if (e instanceof ApiError && e.status === 0) setLookup({ status: 'offline' });
      else setLookup({ status: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  }, []);

  // Back online: what waited for the network is asked now.
  useEffect(() => {
    const again = () => {
      if (scanned && lookup.status === 'offline') void runLookup(scanned);
      void refreshPassKey().then(setKey);
    };
    window.addEventListener('online', again);
    return () => window.removeEventListener('online', again);
  }, [scanned, lookup.status, runLookup]);

  const handle = useCallback(
    async (text: string) => {
      const target = classifyScan(text);
      setLocal(null);
      if (target.type === 'unknown') {
        setScanned(null);
        setUnknown(target.text);
        return;
      }
      setUnknown(null);
      setScanned(target);
      if (target.type === 'pass') {
        try {
          setLocal(await verifyPassOffline(target.text));
        } catch {
          setLocal(null);
        }
      }
      void runLookup(target);
    },
    [runLookup],
  );

  const chooseImage = async (file: File | undefined) => {
    if (!file) return;
    setDecoding(true);
    try {
      await handle(await decodeImage(file));
    } catch {
      showToast({ icon: 'fail', content: '未能在图片中识别到二维码，请换一张清晰、完整的照片' });
    } finally {
      setDecoding(false);
      if (fileRef.current) fileRef.current.value = '';
    }
  };

  const lookIdUp = () => {
    const v = idcard.trim().toUpperCase();
    if (!v) return setIdError('请输入证件号码');
    if (!isDocumentNumber(v)) return setIdError('证件号码格式不正确：身份证号为18位，其他证件为5至30位字母或数字');
    setIdError(undefined);
    // Typed into the document field, it is a document number whatever it looks like (a passport number would classify as unknown).
    setLocal(null);
    setUnknown(null);
    const target: Scanned = { type: 'idcard', idcard: v };
    setScanned(target);
    void runLookup(target);
  };

  const read = (r: PlateReading) => {
    setReadingError(undefined);
    setReading(r);
    if (r.kind === 'plate') setPlate(r.value);
    else setIdcard(r.value);
  };

  /** The patrol's confirmation of a reading: only now does the lookup run. */
  const confirmReading = (value: string) => {
    if (!reading) return;
    if (reading.kind === 'plate') {
      if (!isPlate(value)) return setReadingError(PLATE_INVALID);
      setPlate(value);
      setReading(null);
      void handle(value);
      return;
    }
    const v = value.trim().toUpperCase();
    if (!isDocumentNumber(v)) return setReadingError('证件号码格式不正确：身份证号为18位，其他证件为5至30位字母或数字');
    setIdcard(v);
    setReading(null);
    setLocal(null);
    setUnknown(null);
    const target: Scanned = { type: 'idcard', idcard: v };
    setScanned(target);
    void runLookup(target);
  };

  const switchMode = (m: Mode) => {
    setMode(m);
    setReading(null);
    setReadingError(undefined);
  };

  const reset = () => {
    seq.current++;
    setReading(null);
    setScanned(null);
    setUnknown(null);
    setLocal(null);
  };

  if (me && !can(SCAN_PERMISSION)) {
    return (
      <div className="page scan">
        <div className="card scan-denied">没有访问权限：扫码核验需要“车辆标记查询”权限，请联系管理员。</div>
      </div>
    );
  }

  const hasResult = !!scanned || !!unknown;
  const verdict = scanned?.type === 'pass' ? verdictOf(local, lookup) : null;
  const trustedPayload = verdict?.payload;
  const mayFlag = !!FlagModal && can(appointmentCodes.car.label);
  const flag = (a: LookupApplication) => setFlagRow({ car_application_id: a.id, license_plate: a.license_plate, visitor_company: a.visitor_company, label_status: a.label_status });

  return (
    <div className={`page scan${hasResult ? ' scan--result' : ''}`}>
      <section className="card scan-reader" aria-label="扫码">
        <div className="scan-modes" role="tablist" aria-label="识别方式">
          {(
            [
              ['qr', '扫码'],
              ['plate', '拍车牌'],
            ] as const
          ).map(([m, label]) => (
            <button
              key={m}
              type="button"
              role="tab"
              id={`scan-mode-${m}`}
              aria-selected={mode === m}
              aria-controls="scan-mode-panel"
              className={`scan-modes__tab${mode === m ? ' scan-modes__tab--on' : ''}`}
              onClick={() => switchMode(m)}
            >
              {label}
            </button>
          ))}
        </div>
        <div id="scan-mode-panel" role="tabpanel" aria-labelledby={`scan-mode-${mode}`} className="scan-mode-panel">
          <h2 className="scan-reader__title">{mode === 'qr' ? '扫描通行码或身份证二维码' : '拍摄车牌或身份证号码'}</h2>
          {mode === 'qr' ? (
            <>
              <QrCamera id="scan-camera" active={!hasResult} onText={(t) => void handle(t)} />
              <div id={FILE_ID} className="scan-file" aria-hidden />
            </>
          ) : (
            !hasResult &&
            !reading && (
              <Suspense fallback={<div className="plate-camera__status">正在加载拍车牌…</div>}>
                <PlateCamera onRead={read} />
              </Suspense>
            )
          )}
          {reading && (
            <div className="scan-reading" role="group" aria-label="识别结果">
              <div className="scan-reading__title">识别结果（请核对，可点击修改）</div>
              {reading.kind === 'plate' ? (
                <PlateInput value={plate} onChange={setPlate} onConfirm={confirmReading} title="核对车牌号" />
              ) : (
                <Input className="scan-manual__input" aria-label="识别的证件号码" value={idcard} onChange={setIdcard} maxLength={30} clearable />
              )}
              {readingError && <div className="scan-manual__error">{readingError}</div>}
              <div className="scan-actions">
                <Button color="primary" onClick={() => confirmReading(reading.kind === 'plate' ? plate : idcard)}>
                  确认查询
                </Button>
                <Button onClick={() => switchMode('plate')}>重新拍摄</Button>
              </div>
            </div>
          )}
          <div className="scan-actions">
            {hasResult && (
              <Button color="primary" onClick={reset}>
                <ScanningOutline /> {mode === 'qr' ? '继续扫码' : '继续拍摄'}
              </Button>
            )}
            {mode === 'qr' && (
              <>
                <Button onClick={() => fileRef.current?.click()} loading={decoding} loadingText="识别中">
                  <PictureOutline /> 选择图片
                </Button>
                <input ref={fileRef} type="file" accept="image/*" className="scan-file-input" aria-label="选择二维码图片" onChange={(e) => void chooseImage(e.target.files?.[0])} />
              </>
            )}
          </div>
        </div>
        <div className="scan-manual">
          <div className="scan-manual__item">
            <label className="scan-manual__label">车牌号</label>
            <PlateInput value={plate} onChange={setPlate} onConfirm={(p) => void handle(p)} />
          </div>
          <div className="scan-manual__item">
            <label className="scan-manual__label" htmlFor="scan-idcard">
              证件号码
            </label>
            <div className="scan-manual__row">
              <Input
                id="scan-idcard"
                className="scan-manual__input"
                value={idcard}
                onChange={(v) => {
                  setIdcard(v);
                  setIdError(undefined);
                }}
                onEnterPress={lookIdUp}
                maxLength={30}
                placeholder="身份证号、护照号等证件号码"
                clearable
              />
              <Button size="small" color="primary" fill="outline" onClick={lookIdUp}>
                查询
              </Button>
            </div>
            {idError && <div className="scan-manual__error">{idError}</div>}
          </div>
        </div>
        <div className={`scan-key${key ? '' : ' scan-key--missing'}`}>
          {key ? `离线核验已就绪：园区签名公钥更新于 ${key.fetchedAt.slice(0, 16)}` : '离线核验未就绪：尚未保存园区签名公钥，联网后自动获取'}
        </div>
      </section>

      <section className="scan-result" aria-label="扫描结果" aria-live="polite">
        {!hasResult && <div className="card scan-empty">扫描或输入后，结果显示在这里</div>}
        {unknown !== null && (
          <div className="sr-verdict sr-verdict--bad" role="status" aria-label="核验结果">
            <div>
              <div className="sr-verdict__title">无法识别的二维码</div>
              <div className="sr-verdict__detail">内容既不是园区通行码，也不是身份证号或车牌号：{unknown.length > 60 ? `${unknown.slice(0, 60)}…` : unknown}</div>
            </div>
          </div>
        )}
        {scanned && (
          <>
            {verdict && <Verdict status={verdict.status} payload={verdict.payload} />}
            {scanned.type !== 'pass' && <div className="scan-query">{scanned.type === 'plate' ? `查询车牌 ${scanned.plate}` : `查询证件号码 ${maskIdNumber(scanned.idcard)}`}</div>}
            {trustedPayload && <SignedContent payload={trustedPayload} />}
            {lookup.status === 'loading' && <div className="card scan-note">正在查询园区记录…</div>}
            {lookup.status === 'offline' && (
              <div className="card scan-note scan-note--offline" role="status">
                <b>当前无网络</b>
                <span>{trustedPayload ? '以上为通行码签名所证明的内容。预约是否已撤销、黑白名单状态和车辆标记需要联网后查询。' : '黑白名单状态、预约和车辆标记需要联网后查询。'}</span>
                <Button size="mini" fill="outline" onClick={() => void runLookup(scanned)}>
                  重新查询
                </Button>
              </div>
            )}
            {lookup.status === 'error' && (
              <div className="card scan-note scan-note--error" role="alert">
                {lookup.message}
              </div>
            )}
            {lookup.status === 'done' && <ParkRecord data={lookup.data} onFlag={mayFlag ? flag : undefined} />}
          </>
        )}
      </section>

      {FlagModal && (
        <FlagModal
          open={!!flagRow}
          row={flagRow ?? undefined}
          onClose={() => setFlagRow(null)}
          onDone={() => {
            setFlagRow(null);
            if (scanned) void runLookup(scanned);
          }}
        />
      )}
    </div>
  );
}

/** The route's page with what the app router hands in. */
export function scanPageWith(deps: ScanDeps): ComponentType {
  const Page = () => <ScanPage {...deps} />;
  Page.displayName = 'ScanPage';
  return Page;
}
