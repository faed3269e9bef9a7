import { describe, expect, it } from 'vitest';
import { anonymiseName, HIDDEN_PHOTO, hidePhotos, looksMasked, maskIdNumber, maskPersonal, maskPhone, personalKindOf } from '../../domain/personal-data';

describe('personal data rules', () => {
  it('finds ID numbers, phones and face or ID photos by field name, and nothing else', () => {
    for (const f of ['idcard', 'id_card', 'idCard', 'visitor_idcard', 'applicant_idcard', 'paper_number', 'driver_qualification_certificate']) expect(personalKindOf(f), f).toBe('idNumber');
    for (const f of ['phone', 'visitor_phone', 'interviewee_phone', 'mobile', 'telephone', 'phones', 'carrier_phone']) expect(personalKindOf(f), f).toBe('phone');
    for (const f of ['face_photo', 'visitor_face_photo', 'applicant_face_photo', 'visitor_idcard_photo1', 'legal_person_idcard_img', 'snapshot']) expect(personalKindOf(f), f).toBe('photo');
    for (const f of ['idcard_type', 'visitor_idcard_type', 'license_plate', 'photo', 'vehicle_image', 'plate_image', 'business_license_number', 'phone_count', 'id'])
      expect(personalKindOf(f), f).toBeNull();
  });

  it('masks as the display restriction says', () => {
    expect(maskIdNumber('441302199001011231')).toBe('4413**********1231');
    expect(maskIdNumber('44030319870619100x')).toBe('4403**********100X');
    expect(maskIdNumber('E12345678')).toBe('E1*****78');
    expect(maskPhone('13812345678')).toBe('138****5678');
    expect(maskPhone('0752-5551234')).toBe('075*****1234');
    expect(maskPhone('13812345678,13900001111')).toBe('138****5678,139****1111');
    expect(maskPhone('')).toBe('');
    expect(maskPersonal('idNumber', '')).toBe('');
  });

  it('hides each stored photo name and keeps an empty field empty', () => {
    expect(hidePhotos('')).toBe('');
    expect(hidePhotos('0123456789abcdef0123456789abcdef.png;fedcba9876543210fedcba9876543210.jpg')).toBe(`${HIDDEN_PHOTO};${HIDDEN_PHOTO}`);
    expect(looksMasked('photo', HIDDEN_PHOTO)).toBe(true);
    expect(looksMasked('photo', '0123456789abcdef0123456789abcdef.png')).toBe(false);
    expect(looksMasked('phone', '138****5678')).toBe(true);
    expect(looksMasked('phone', '13812345678')).toBe(false);
  });

  it('anonymises a name to its first character', () => {
    expect(anonymiseName('王小明')).toBe('王*');
    expect(anonymiseName(' 欧阳娜娜 ')).toBe('欧*');
    expect(anonymiseName('')).toBe('');
  });
});
