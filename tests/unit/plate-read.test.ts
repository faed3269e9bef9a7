import { describe, expect, it } from 'vitest';
import { PLATE_PATTERN } from '../../domain/identity';
import { idNumberFrom, normalizeReading, plateFrom, readingFrom } from '../../domain/plate-read';

describe('normalizeReading', () => {
  it('drops the plate dot, spaces and punctuation, and makes full-width characters ASCII upper case', () => {
    expect(normalizeReading('苏a·12345')).toBe('苏A12345');
    expect(normalizeReading('粤 B - ８８８ＦＤ')).toBe('粤B888FD');
    expect(normalizeReading('京A.1234警')).toBe('京A1234警');
  });
});

describe('plateFrom', () => {
  it('reads every kind of plate the rule knows', () => {
    for (const p of ['苏A12345', '鲁B8G9K2', '粤BD12345', '粤B12345F', '沪D1234挂', '京A1234警', '浙C1234学']) {
      expect(plateFrom(p)).toBe(p);
      expect(PLATE_PATTERN.test(p)).toBe(true);
    }
  });

  it('takes O and I for 0 and 1 after the issuing letter, where plates never use them', () => {
    expect(plateFrom('苏A1O3I5')).toBe('苏A10315');
    expect(plateFrom('京AOOOI1')).toBe('京A00011');
  });

  it('takes a digit in the issuing letter place for the letter it resembles, and nowhere else', () => {
    expect(plateFrom('苏012345')).toBe('苏D12345');
    expect(plateFrom('苏812345')).toBe('苏B12345');
    // The tail may hold letters: a B there stays a B.
    expect(plateFrom('苏A1B345')).toBe('苏A1B345');
  });

  it('finds the plate inside a longer line and skips what comes before it', () => {
    expect(plateFrom('车牌：浙A·8K2P9 欢迎')).toBe('浙A8K2P9');
    expect(plateFrom('AB苏E77889')).toBe('苏E77889');
  });

  it('keeps 8 characters only for a new-energy plate, else reads the 7 before a stray mark', () => {
    expect(plateFrom('粤BD12345')).toBe('粤BD12345');
    expect(plateFrom('粤B12345F')).toBe('粤B12345F');
    expect(plateFrom('苏A123451')).toBe('苏A12345');
  });

  it('refuses what the plate rule refuses', () => {
    expect(plateFrom('A12345')).toBeNull();
    expect(plateFrom('苏A123')).toBeNull();
    expect(plateFrom('苏A12挂45')).toBeNull();
    expect(plateFrom('中华人民共和国')).toBeNull();
  });
});

describe('idNumberFrom', () => {
  it('reads an 18-character number whose check character holds', () => {
    expect(idNumberFrom('公民身份号码 11010519491231002X')).toBe('11010519491231002X');
    expect(idNumberFrom('1101 0519 4912 3100 2x')).toBe('11010519491231002X');
  });

  it('takes the letters digits are read as for the digits, where the check character then holds', () => {
    expect(idNumberFrom('11O1O5I949I23I002X')).toBe('11010519491231002X');
  });

  it('refuses a number whose check character does not hold', () => {
    expect(idNumberFrom('110105194912310021')).toBeNull();
    expect(idNumberFrom('11010519491331002X')).toBeNull();
  });
});

describe('readingFrom', () => {
  it('picks the first line that holds a plate or an ID number', () => {
    expect(readingFrom(['中华人民共和国', '居民身份证', '11010519491231002X'])).toEqual({ kind: 'idcard', value: '11010519491231002X' });
    expect(readingFrom(['STOP', '苏A·12345'])).toEqual({ kind: 'plate', value: '苏A12345' });
    expect(readingFrom(['欢迎光临', '12345'])).toBeNull();
  });

  it('prefers the raw line and falls back to the plate-held decoding of the same line', () => {
    expect(readingFrom(['芬A12345', '苏A12345'])).toEqual({ kind: 'plate', value: '苏A12345' });
  });
});
