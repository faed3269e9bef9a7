/**
 * Personal data on the wire (docs/personal-data.md): which fields hold it,
 * and how each kind shows to a reader. The server masks every JSON answer
 * and every export by these rules (server/core/personal-data.ts); the screens
 * read the same rules to tell a masked value from a typed one.
 *
 * - ID and document numbers: `4413**********1231` (an 18-character number
 *   keeps 4 and 4; a shorter document keeps 2 and 2).
 * - Phones: `138****5678`; a landline or a list of numbers, each number
 *   keeps its first 3 and last 4 characters.
 * - Face and ID photos: hidden from readers without pii:view, each stored
 *   name replaced by HIDDEN_PHOTO.
 *
 * Names are not masked on display; retention anonymises them (王小明 → 王*).
 */

export type PersonalKind = 'idNumber' | 'phone' | 'photo';

/**
 * The kind of personal data a field holds, by its name; null for any other
 * field. Names, not values, decide: a plate or a waybill number that happens
 * to be 11 digits is never masked, and a new field named like these is
 * masked without anyone remembering to.
 */
export function personalKindOf(field: string): PersonalKind | null {
  if (PHOTO_FIELD.test(field)) return 'photo';
  if (ID_FIELD.test(field)) return 'idNumber';
  if (PHONE_FIELD.test(field)) return 'phone';
  return null;
}

/** visitor_idcard, applicant_idcard, id_card, idCard, the spec's paper_number, the drivers' and escorts' qualification certificate numbers. */
const ID_FIELD = /^(?:[a-z_]*_)?id_?card$|^idCard$|^paper_number$|_qualification_certificate$/i;
/** phone, visitor_phone, mobile, telephone, phones (a stranded rule's SMS recipients). */
const PHONE_FIELD = /^(?:[a-z_]*_)?(?:phone|phones|mobile|telephone)$/i;
/** Face photos (a visitor's, a list entry's, an applicant's), ID card photos, a legal person's ID card image, a pedestrian gate's face capture. */
const PHOTO_FIELD = /face_photo$|idcard_photo\d*$|idcard_img$|^snapshot$/i;

/** What a hidden photo's stored name shows as. Never a stored name (core/storage.ts), so it is never served. */
export const HIDDEN_PHOTO = 'hidden-photo';

/** Resident ID numbers keep the first 4 and last 4; shorter documents keep 2 and 2. */
export function maskIdNumber(id: string): string {
  const v = id.trim().toUpperCase();
  if (v.length >= 15) return v.slice(0, 4) + '*'.repeat(v.length - 8) + v.slice(-4);
  if (v.length > 4) return v.slice(0, 2) + '*'.repeat(v.length - 4) + v.slice(-2);
  return '*'.repeat(v.length);
}

/** A telephone number as typed: digits, with dashes or a leading +. */
const PHONE_NUMBER = /\+?\d[\d-]{5,19}/g;

/** Each number in the text keeps its first 3 and last 4 characters (138****5678); anything between numbers stays. */
export function maskPhone(text: string): string {
  return text.replace(PHONE_NUMBER, (n) => (n.length <= 7 ? '*'.repeat(n.length - 2) + n.slice(-2) : n.slice(0, 3) + '*'.repeat(n.length - 7) + n.slice(-4)));
}

/** Each stored name of a photo field (';'-joined) as HIDDEN_PHOTO; an empty field stays empty, so a reader still sees whether there is a photo. */
export function hidePhotos(value: string): string {
  return value
    .split(';')
    .map((part) => (part.trim() === '' ? part : HIDDEN_PHOTO))
    .join(';');
}

/** A value of the kind as every reader sees it by default. */
export function maskPersonal(kind: PersonalKind, value: string): string {
  if (kind === 'idNumber') return value === '' ? value : maskIdNumber(value);
  if (kind === 'phone') return maskPhone(value);
  return hidePhotos(value);
}

/** Whether a value shows as masked: what a form sends back unchanged when its reader never saw the whole value. */
export function looksMasked(kind: PersonalKind, value: string): boolean {
  return kind === 'photo' ? value.split(';').some((part) => part.trim() === HIDDEN_PHOTO) : value.includes('*');
}

/** A name anonymised: its first character and one star (王小明 → 王*). */
export function anonymiseName(name: string): string {
  const chars = [...name.trim()];
  return chars.length === 0 ? '' : `${chars[0]}*`;
}

/** The made-up numbers the import templates' example row shows: well-formed, so the example passes the form's rules, and no person's. */
export const EXAMPLE_ID_NUMBER = '441302199001011231';
export const EXAMPLE_MOBILE = '13800138000';
