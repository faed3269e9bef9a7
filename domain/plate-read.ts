import { isMainlandIdNumber, PLATE_PATTERN } from './identity';

/**
 * What the camera's text reader saw, turned into a plate or a resident ID
 * number the domain accepts (docs/plate-reading.md). Pure: the OCR worker,
 * the scan screen and the unit tests share it. A reading never decides by
 * itself: it only fills the field the patrol then confirms.
 */

export type PlateReading = { kind: 'plate'; value: string } | { kind: 'idcard'; value: string };

const PROVINCES = '京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼使领';
const SUFFIXES = '挂学警港澳';

/** Every character a plate can hold: the CTC decoder may be held to these (plate-ocr.worker.ts). */
export const PLATE_CHARSET = `${PROVINCES}${SUFFIXES}ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789`;

/** Separators a plate or a card prints or the reader invents: the plate's middle dot, spaces, dashes, stray punctuation. */
const SEPARATORS = /[\s·•・∙⋅.。,，、:：;；\-_—–~'"`|/\\()（）[\]【】]/g;

/** Full-width letters and digits to ASCII, upper case, separators gone. */
export function normalizeReading(text: string): string {
  return text.normalize('NFKC').toUpperCase().replace(SEPARATORS, '');
}

/** Plates never use I or O after the issuing letter (they read as 1 and 0): only there are they taken for digits. */
const TAIL_FIX: Record<string, string> = { O: '0', I: '1' };
/** The issuing letter is always a letter: a digit there is the letter it resembles. */
const LETTER_FIX: Record<string, string> = { '0': 'D', '8': 'B' };

/** One window of characters made into a plate, or null when the rule refuses it even after the fixes. */
function fixPlate(chars: string[]): string | null {
  const out = chars.map((c, i) => (i === 1 ? (LETTER_FIX[c] ?? c) : i >= 2 ? (TAIL_FIX[c] ?? c) : c)).join('');
  return PLATE_PATTERN.test(out) ? out : null;
}

/** A new-energy plate (8 characters) has D or F third (small car) or last (large vehicle). */
const isNewEnergy = (p: string) => p.length === 8 && (/[DF]/.test(p[2]) || /[DF]/.test(p[7]));

/** The plate in a line of text, or null: the first province character that starts a window matching PLATE_PATTERN. */
export function plateFrom(text: string): string | null {
  const chars = [...normalizeReading(text)];
  for (let i = 0; i < chars.length; i++) {
    if (!PROVINCES.includes(chars[i])) continue;
    const eight = chars.length - i >= 8 ? fixPlate(chars.slice(i, i + 8)) : null;
    const seven = fixPlate(chars.slice(i, i + 7));
    // An 8-character reading that is not a new-energy plate is more likely a 7-character plate with a stray mark read after it.
    if (eight && (isNewEnergy(eight) || !seven)) return eight;
    if (seven) return seven;
  }
  return null;
}

/** Letters an ID card's digits are read as; X stays only as the last (check) character. */
const DIGIT_FIX: Record<string, string> = { O: '0', D: '0', Q: '0', I: '1', L: '1', '|': '1', Z: '2', S: '5', B: '8', G: '6' };

/** The 18-character resident ID number in a line of text, its check character verified (GB 11643), or null. */
export function idNumberFrom(text: string): string | null {
  const chars = [...normalizeReading(text)];
  for (let i = 0; i + 18 <= chars.length; i++) {
    const window = chars.slice(i, i + 18);
    const head = window.slice(0, 17).map((c) => DIGIT_FIX[c] ?? c);
    if (head.some((c) => !/\d/.test(c))) continue;
    const last = window[17] === '×' ? 'X' : (DIGIT_FIX[window[17]] ?? window[17]);
    const candidate = head.join('') + last;
    if (isMainlandIdNumber(candidate)) return candidate;
  }
  return null;
}

/** The first line (in the reader's order of confidence) that holds a plate or an ID number. */
export function readingFrom(lines: readonly string[]): PlateReading | null {
  for (const line of lines) {
    const id = idNumberFrom(line);
    if (id) return { kind: 'idcard', value: id };
    const plate = plateFrom(line);
    if (plate) return { kind: 'plate', value: plate };
  }
  return null;
}
