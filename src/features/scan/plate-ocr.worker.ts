/**
 * The plate and ID-number reader, off the page's thread (docs/plate-reading.md):
 * PaddleOCR PP-OCRv4 mobile text detection and recognition through ONNX
 * Runtime Web (WebAssembly), the models served by the park's own server. The
 * detector finds the text lines, the recogniser reads the largest first, and
 * reading stops at the first line that holds a plate or an ID number.
 */
import * as ort from 'onnxruntime-web/wasm';
import { PLATE_CHARSET, readingFrom, type PlateReading } from '../../../domain/plate-read';
import { OCR_MODEL_DIR } from './plate-ocr-files';

export type OcrRequest = { type: 'load' } | { type: 'read'; id: number; image: ImageBitmap; crop?: Rect };
export type OcrAnswer =
  { type: 'ready' } | { type: 'failed'; message: string } | { type: 'result'; id: number; reading: PlateReading | null; lines: string[]; ms: number } | { type: 'error'; id: number; message: string };

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface Box {
  cx: number;
  cy: number;
  w: number;
  h: number;
  angle: number;
  score: number;
}

const scope = self as unknown as { onmessage: ((e: MessageEvent<OcrRequest>) => void) | null; postMessage(message: OcrAnswer): void };

/** Longest side given to the detector: a framed plate or a card face needs no more, and the time grows with the area. */
const DET_SIDE = 480;
const DET_THRESHOLD = 0.3;
const BOX_THRESHOLD = 0.5;
const REC_HEIGHT = 48;
const REC_MIN_WIDTH = 160;
const REC_MAX_WIDTH = 960;
/** Lines read at most per photo: a card face has about eight. */
const MAX_LINES = 8;

let loading: Promise<{ det: ort.InferenceSession; rec: ort.InferenceSession; keys: string[]; plateKeys: Uint8Array }> | null = null;

function load() {
  loading ??= (async () => {
    // One thread: without cross-origin isolation the browser has no shared memory for more.
    ort.env.wasm.numThreads = 1;
    const fetchModel = async (name: string) => {
      const r = await fetch(OCR_MODEL_DIR + name);
      if (!r.ok) throw new Error(`${name}: HTTP ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    };
    const [detBytes, recBytes, keysText] = await Promise.all([
      fetchModel('det.onnx'),
      fetchModel('rec.onnx'),
      fetch(OCR_MODEL_DIR + 'keys.txt').then((r) => {
        if (!r.ok) throw new Error(`keys.txt: HTTP ${r.status}`);
        return r.text();
      }),
    ]);
    const options: ort.InferenceSession.SessionOptions = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
    const det = await ort.InferenceSession.create(detBytes, options);
    const rec = await ort.InferenceSession.create(recBytes, options);
    // CTC classes: 0 is the blank, then the dictionary, then the space.
    const keys = ['', ...keysText.split(/\r?\n/).filter((k, i, all) => k !== '' || i < all.length - 1), ' '];
    const plateKeys = new Uint8Array(keys.length);
    plateKeys[0] = 1;
    keys.forEach((k, i) => {
      if (k && PLATE_CHARSET.includes(k)) plateKeys[i] = 1;
    });
    return { det, rec, keys, plateKeys };
  })();
  loading.catch(() => (loading = null));
  return loading;
}

function canvas(w: number, h: number) {
  const c = new OffscreenCanvas(w, h);
  return { c, g: c.getContext('2d', { willReadFrequently: true })! };
}

/** The detector's input: the picture at most DET_SIDE on its longest side, both sides multiples of 32, ImageNet-normalised BGR. */
function detInput(image: ImageBitmap, crop: Rect) {
  const scale = Math.min(1, DET_SIDE / Math.max(crop.w, crop.h));
  const w = Math.max(32, Math.round((crop.w * scale) / 32) * 32);
  const h = Math.max(32, Math.round((crop.h * scale) / 32) * 32);
  const { g } = canvas(w, h);
  g.drawImage(image, crop.x, crop.y, crop.w, crop.h, 0, 0, w, h);
  const px = g.getImageData(0, 0, w, h).data;
  const n = w * h;
  const data = new Float32Array(3 * n);
  const mean = [0.406, 0.456, 0.485];
  const std = [0.225, 0.224, 0.229];
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) data[c * n + i] = (px[i * 4 + (2 - c)] / 255 - mean[c]) / std[c];
  }
  return { tensor: new ort.Tensor('float32', data, [1, 3, h, w]), w, h, sx: crop.w / w, sy: crop.h / h };
}

/**
 * The text regions of the detector's probability map: connected pixels over
 * DET_THRESHOLD, each turned into the smallest rotated rectangle along its
 * principal axis and grown by the DB "unclip" distance (area × 1.5 / perimeter).
 */
function boxes(prob: Float32Array, w: number, h: number): Box[] {
  const seen = new Uint8Array(w * h);
  const out: Box[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (seen[start] || prob[start] <= DET_THRESHOLD) continue;
    const xs: number[] = [];
    const ys: number[] = [];
    let sum = 0;
    stack.push(start);
    seen[start] = 1;
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % w,
        y = (p - x) / w;
      xs.push(x);
      ys.push(y);
      sum += prob[p];
      for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, y > 0 ? p - w : -1, y < h - 1 ? p + w : -1]) {
        if (q >= 0 && !seen[q] && prob[q] > DET_THRESHOLD) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    const n = xs.length;
    if (n < 20 || sum / n < BOX_THRESHOLD) continue;
    let mx = 0,
      my = 0;
    for (let i = 0; i < n; i++) {
      mx += xs[i];
      my += ys[i];
    }
    mx /= n;
    my /= n;
    let sxx = 0,
      syy = 0,
      sxy = 0;
    for (let i = 0; i < n; i++) {
      const dx = xs[i] - mx,
        dy = ys[i] - my;
      sxx += dx * dx;
      syy += dy * dy;
      sxy += dx * dy;
    }
    let angle = 0.5 * Math.atan2(2 * sxy, sxx - syy);
    // A text line runs along its longer side; beyond ±45° it is a column, read as a line across.
    if (angle > Math.PI / 4) angle -= Math.PI / 2;
    if (angle < -Math.PI / 4) angle += Math.PI / 2;
    const cos = Math.cos(angle),
      sin = Math.sin(angle);
    let u0 = Infinity,
      u1 = -Infinity,
      v0 = Infinity,
      v1 = -Infinity;
    for (let i = 0; i < n; i++) {
      const dx = xs[i] - mx,
        dy = ys[i] - my;
      const u = dx * cos + dy * sin,
        v = -dx * sin + dy * cos;
      u0 = Math.min(u0, u);
      u1 = Math.max(u1, u);
      v0 = Math.min(v0, v);
      v1 = Math.max(v1, v);
    }
    const bw = u1 - u0 + 1,
      bh = v1 - v0 + 1;
    if (Math.min(bw, bh) < 3) continue;
    const grow = (bw * bh * 1.5) / (2 * (bw + bh));
    const cu = (u0 + u1) / 2,
      cv = (v0 + v1) / 2;
    out.push({ cx: mx + cu * cos - cv * sin, cy: my + cu * sin + cv * cos, w: bw + 2 * grow, h: bh + 2 * grow, angle, score: sum / n });
  }
  return out.sort((a, b) => b.w * b.h - a.w * a.h);
}

/** The recogniser's input: the rotated box cut out upright at 48 px high, normalised to [-1, 1], padded right to REC_MIN_WIDTH. */
function recInput(image: ImageBitmap, box: Box) {
  const ratio = box.w / box.h;
  const tw = Math.min(REC_MAX_WIDTH, Math.max(8, Math.ceil(REC_HEIGHT * ratio)));
  const width = Math.max(REC_MIN_WIDTH, tw);
  const { g } = canvas(tw, REC_HEIGHT);
  g.setTransform(tw / box.w, 0, 0, REC_HEIGHT / box.h, tw / 2, REC_HEIGHT / 2);
  g.rotate(-box.angle);
  g.translate(-box.cx, -box.cy);
  g.drawImage(image, 0, 0);
  const px = g.getImageData(0, 0, tw, REC_HEIGHT).data;
  const n = width * REC_HEIGHT;
  const data = new Float32Array(3 * n);
  for (let y = 0; y < REC_HEIGHT; y++) {
    for (let x = 0; x < tw; x++) {
      const s = (y * tw + x) * 4;
      const d = y * width + x;
      for (let c = 0; c < 3; c++) data[c * n + d] = px[s + (2 - c)] / 127.5 - 1;
    }
  }
  return new ort.Tensor('float32', data, [1, 3, REC_HEIGHT, width]);
}

/** Greedy CTC decoding: the best class per step, repeats merged, blanks dropped; `allowed` limits the classes (the plate's characters). */
function decode(logits: Float32Array, steps: number, classes: number, keys: string[], allowed?: Uint8Array): string {
  let text = '';
  let last = -1;
  for (let t = 0; t < steps; t++) {
    let best = 0,
      bestScore = -Infinity;
    const row = t * classes;
    for (let k = 0; k < classes; k++) {
      if (allowed && !allowed[k]) continue;
      if (logits[row + k] > bestScore) {
        bestScore = logits[row + k];
        best = k;
      }
    }
    if (best !== 0 && best !== last) text += keys[best] ?? '';
    last = best;
  }
  return text;
}

async function read(image: ImageBitmap, crop: Rect | undefined) {
  const { det, rec, keys, plateKeys } = await load();
  const area = crop ?? { x: 0, y: 0, w: image.width, h: image.height };
  const input = detInput(image, area);
  const detOut = await det.run({ [det.inputNames[0]]: input.tensor });
  const prob = detOut[det.outputNames[0]].data as Float32Array;
  // Back to the picture's own pixels, for a sharp cut.
  const found = boxes(prob, input.w, input.h).map((b) => ({
    ...b,
    cx: area.x + b.cx * input.sx,
    cy: area.y + b.cy * input.sy,
    w: b.w * Math.hypot(input.sx * Math.cos(b.angle), input.sy * Math.sin(b.angle)),
    h: b.h * Math.hypot(input.sx * Math.sin(b.angle), input.sy * Math.cos(b.angle)),
  }));
  // Nothing found: the frame itself is read as one line (a plate filling the guide box).
  if (!found.length) found.push({ cx: area.x + area.w / 2, cy: area.y + area.h / 2, w: area.w, h: area.h, angle: 0, score: 0 });
  const lines: string[] = [];
  for (const box of found.slice(0, MAX_LINES)) {
    const out = await rec.run({ [rec.inputNames[0]]: recInput(image, box) });
    const t = out[rec.outputNames[0]];
    const [, steps, classes] = t.dims as number[];
    const logits = t.data as Float32Array;
    const raw = decode(logits, steps, classes, keys);
    const held = decode(logits, steps, classes, keys, plateKeys);
    lines.push(raw, held);
    const reading = readingFrom([raw, held]);
    if (reading) return { reading, lines };
  }
  return { reading: null, lines };
}

scope.onmessage = (e) => {
  const m = e.data;
  if (m.type === 'load') {
    load().then(
      () => scope.postMessage({ type: 'ready' }),
      (err: unknown) => scope.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
    );
    return;
  }
  const started = performance.now();
  read(m.image, m.crop).then(
    ({ reading, lines }) => {
      m.image.close();
      scope.postMessage({ type: 'result', id: m.id, reading, lines, ms: Math.round(performance.now() - started) });
    },
    (err: unknown) => {
      m.image.close();
      scope.postMessage({ type: 'error', id: m.id, message: err instanceof Error ? err.message : String(err) });
    },
  );
};
