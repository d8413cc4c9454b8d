import { expandTwoDigitYearDate, normaliseDate, parseDayMonthYear, parseMrzDate, toIsoDate } from '../src/tooling';

describe('toIsoDate', () => {
  test('when the day does not exist in that month, then there is no date', () => {
    expect(toIsoDate(1990, 2, 31)).toBeNull();
    expect(toIsoDate(2023, 2, 29)).toBeNull();
    expect(toIsoDate(1900, 2, 29)).toBeNull();
    expect(toIsoDate(2024, 13, 1)).toBeNull();
    expect(toIsoDate(2024, 4, 0)).toBeNull();
  });

  test('when the date exists, then it is written YYYY-MM-DD', () => {
    expect(toIsoDate(2000, 2, 29)).toBe('2000-02-29');
    expect(toIsoDate(1969, 11, 1)).toBe('1969-11-01');
  });
});

describe('expandTwoDigitYearDate', () => {
  const today = '2026-11-23';

  test('when a birth date in 20YY would be after today, then it is 19YY', () => {
    expect(expandTwoDigitYearDate(26, 11, 24, 'past', today)).toBe('1926-11-24');
    expect(expandTwoDigitYearDate(74, 8, 12, 'past', today)).toBe('1974-08-12');
  });

  test('when a birth date in 20YY is today or earlier, then it is 20YY', () => {
    expect(expandTwoDigitYearDate(26, 11, 23, 'past', today)).toBe('2026-11-23');
    expect(expandTwoDigitYearDate(0, 2, 29, 'past', today)).toBe('2000-02-29');
  });

  test('when the year is an expiry or issue year, then it is always 20YY', () => {
    expect(expandTwoDigitYearDate(95, 7, 12, 'twenty_first', today)).toBe('2095-07-12');
  });
});

describe('parseMrzDate', () => {
  test('when a part is not a digit, then there is no date', () => {
    expect(parseMrzDate('740BIZ', 'past', '2026-11-23')).toBeNull();
    expect(parseMrzDate('7408<<', 'past', '2026-11-23')).toBeNull();
  });
});

describe('parseDayMonthYear', () => {
  test('when the barcode date uses slashes, dashes or spaced slashes, then it reads the same', () => {
    expect(parseDayMonthYear('01/11/1969')).toBe('1969-11-01');
    expect(parseDayMonthYear('01-11-1969')).toBe('1969-11-01');
    expect(parseDayMonthYear('01 / 11 / 1969')).toBe('1969-11-01');
  });

  test('when the year has two digits or the date does not exist, then there is no date', () => {
    expect(parseDayMonthYear('01/11/69')).toBeNull();
    expect(parseDayMonthYear('31/02/1990')).toBeNull();
  });
});

describe('normaliseDate', () => {
  test.each([
    ['1969-11-01', '1969-11-01'],
    ['01/11/1969', '1969-11-01'],
    ['1.11.1969', '1969-11-01'],
    ['01 NOV 1969', '1969-11-01'],
    ['31 OCT/ OCT 2013', '2013-10-31'],
    ['17 ene/jan 1990', '1990-01-17'],
    ['05 AGO/AUG 2001', '2001-08-05'],
  ])('when the date is written %s, then it is %s', (text, iso) => {
    expect(normaliseDate(text)).toBe(iso);
  });

  test.each([['31 FEB 1990'], ['17 ENE/FEB 1990'], ['1969-02-30'], ['yesterday']])(
    'when the text is %s, then it is no date',
    (text) => {
      expect(normaliseDate(text)).toBeNull();
    },
  );
});
