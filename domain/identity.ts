/**
 * Phone, plate and document-number rules, free of zod: the form schemas use
 * them, and so do the pass verifier and the plate keyboard, which must not
 * pull the schema library into the screens that load them.
 */

export const MOBILE_PATTERN = /^1[3-9]\d{9}$/;
/** Landline or mobile, as interviewee and cargo contact numbers may be either. */
export const TELEPHONE_PATTERN = /^[0-9][0-9-]{5,19}$/;
const PROVINCES = '京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼使领';
/** Province + letter + 5 (ordinary) or 6 (new energy) letters/digits; a 5-character tail may end in 挂/学/警/港/澳. */
export const PLATE_PATTERN = new RegExp(`^[${PROVINCES}][A-Z](?:[A-Z0-9]{5,6}|[A-Z0-9]{4}[挂学警港澳])$`);
export const OTHER_DOCUMENT_PATTERN = /^[A-Za-z0-9]{5,30}$/;

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

const ID_NUMBER_FORMAT_MESSAGE = '身份证号格式不正确';
/** A mistyped digit mostly shows here: the number has its shape and a real birth date, and the check character says it is not the number. */
const ID_CHECK_MESSAGE = '身份证号校验码不正确（第18位与前17位不符），请核对号码';

/** Why a text is not an 18-character resident ID (GB 11643: 17 digits, a real birth date and the ISO 7064 check character), or null when it is one. */
export function mainlandIdProblem(value: string): string | null {
  const v = value.toUpperCase();
  if (!/^\d{17}[\dX]$/.test(v)) return ID_NUMBER_FORMAT_MESSAGE;
  const y = +v.slice(6, 10),
    m = +v.slice(10, 12),
    d = +v.slice(12, 14);
  const birth = new Date(Date.UTC(y, m - 1, d));
  if (y < 1900 || birth.getUTCFullYear() !== y || birth.getUTCMonth() !== m - 1 || birth.getUTCDate() !== d) return ID_NUMBER_FORMAT_MESSAGE;
  const sum = ID_WEIGHTS.reduce((s, w, i) => s + w * +v[i], 0);
  return ID_CHECK[sum % 11] === v[17] ? null : ID_CHECK_MESSAGE;
}

export const isMainlandIdNumber = (value: string): boolean => mainlandIdProblem(value) === null;

/** The message for a document number of the given type, or null when it is well-formed. */
export function idNumberError(idcardType: number | null | undefined, value: string): string | null {
  if (idcardType === 1 || idcardType == null) return mainlandIdProblem(value);
  return OTHER_DOCUMENT_PATTERN.test(value) ? null : '证件号码格式不正确';
}

/**
 * A document number of any type an appointment accepts (resident ID, permits,
 * passport), for readers that are not told the type: a gate reading a card,
 * a patrol typing a number.
 */
export function isDocumentNumber(value: string): boolean {
  // Every 18-digit document in use (resident ID, the residence permits, the 2023 permanent residence card) carries the
  // GB 11643 check character, so that shape is held to it: a mistyped ID number is refused, not taken for a passport.
  if (/^\d{17}[\dX]$/i.test(value)) return isMainlandIdNumber(value);
  // Types 2 to 6 share one rule (idNumberError).
  return idNumberError(6, value) === null;
}
