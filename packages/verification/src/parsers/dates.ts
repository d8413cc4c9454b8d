import type { IsoDate } from '../model';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` for a real calendar date, or null (31/02, month 13, day 0 ...). */
export function toIsoDate(year: number, month: number, day: number): IsoDate | null {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return null;
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1) return null;
  // Date.UTC rolls 31/02 over into March; comparing back is how an impossible day is caught.
  const date = new Date(Date.UTC(year, month - 1, day));
  date.setUTCFullYear(year);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function isIsoDate(value: string): value is IsoDate {
  const match = ISO_DATE.exec(value);
  return match !== null && toIsoDate(Number(match[1]), Number(match[2]), Number(match[3])) === value;
}

/** Throws on a malformed `today`: that is a caller's bug, unlike a malformed document, which never throws. */
export function assertIsoDate(value: string, name: string): void {
  if (!isIsoDate(value)) throw new TypeError(`${name} must be a YYYY-MM-DD calendar date, got ${JSON.stringify(value)}`);
}

/**
 * The century of a two-digit year, as ICAO 9303 leaves it to the reader:
 * - `past` (birth dates): the most recent year that does not put the date after `today`;
 * - `twenty_first` (expiry and issue dates): always 20YY, as no document in circulation expires or was
 *   issued in the 1900s that a 20YY reading would make valid (a 1995 expiry read as 2095 is the one
 *   exception, and only old specimens carry one).
 */
export type CenturyRule = 'past' | 'twenty_first';

export function expandTwoDigitYearDate(
  yy: number,
  month: number,
  day: number,
  rule: CenturyRule,
  today: IsoDate,
): IsoDate | null {
  if (!Number.isInteger(yy) || yy < 0 || yy > 99) return null;
  const in2000s = toIsoDate(2000 + yy, month, day);
  // A date impossible in 20YY is impossible in 19YY too (only 2000 is a leap year where 1900 is not).
  if (rule === 'twenty_first' || in2000s === null) return in2000s;
  return in2000s > today ? toIsoDate(1900 + yy, month, day) : in2000s;
}

const DAY_MONTH_YEAR = /^(\d{2})[/-](\d{2})[/-](\d{4})$/;
const DAY_MONTH_SHORT_YEAR = /^(\d{2})[/-](\d{2})[/-](\d{2})$/;

/**
 * `DD/MM/YYYY` as printed in DNI barcodes. A keyboard-wedge scanner on a Spanish layout types the US '/'
 * key as '-', so both separators are read; whitespace (some decoders space the slashes) is ignored.
 */
export function parseDayMonthYear(text: string): IsoDate | null {
  const match = DAY_MONTH_YEAR.exec(text.replace(/\s+/g, ''));
  if (match === null) return null;
  return toIsoDate(Number(match[3]), Number(match[2]), Number(match[1]));
}

export function parseDayMonthShortYear(text: string, rule: CenturyRule, today: IsoDate): IsoDate | null {
  const match = DAY_MONTH_SHORT_YEAR.exec(text.replace(/\s+/g, ''));
  if (match === null) return null;
  return expandTwoDigitYearDate(Number(match[3]), Number(match[2]), Number(match[1]), rule, today);
}

export function looksLikeDayMonthShortYear(text: string): boolean {
  return DAY_MONTH_SHORT_YEAR.test(text.replace(/\s+/g, ''));
}

/** `YYMMDD` as in an MRZ; null when any part is not a digit or the date does not exist. */
export function parseMrzDate(yymmdd: string, rule: CenturyRule, today: IsoDate): IsoDate | null {
  if (!/^\d{6}$/.test(yymmdd)) return null;
  return expandTwoDigitYearDate(Number(yymmdd.slice(0, 2)), Number(yymmdd.slice(2, 4)), Number(yymmdd.slice(4, 6)), rule, today);
}

const MONTHS: Readonly<Record<string, number>> = {
  // Spanish and English abbreviations, as printed side by side on the DNI ("31 OCT/ OCT 2013").
  ENE: 1,
  JAN: 1,
  FEB: 2,
  MAR: 3,
  ABR: 4,
  APR: 4,
  MAY: 5,
  JUN: 6,
  JUL: 7,
  AGO: 8,
  AUG: 8,
  SEP: 9,
  SET: 9,
  OCT: 10,
  NOV: 11,
  DIC: 12,
  DEC: 12,
};

/**
 * A date as any of our sources writes it: ISO, `DD/MM/YYYY` (or `-`, `.`), or the DNI's printed
 * `DD MMM YYYY` with a Spanish and/or English month ("01 NOV 1969", "31 OCT/ OCT 2013", "17 ENE/JAN 1990").
 */
export function normaliseDate(text: string): IsoDate | null {
  const trimmed = text.trim().toUpperCase();
  if (isIsoDate(trimmed)) return trimmed;
  const numeric = /^(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{4})$/.exec(trimmed);
  if (numeric !== null) return toIsoDate(Number(numeric[3]), Number(numeric[2]), Number(numeric[1]));
  const printed = /^(\d{1,2})\s+([A-Z]{3})(?:\s*\/\s*([A-Z]{3}))?\s+(\d{4})$/.exec(trimmed);
  if (printed === null) return null;
  const first = MONTHS[printed[2] ?? ''];
  const second = printed[3] === undefined ? first : MONTHS[printed[3]];
  if (first === undefined || second !== first) return null;
  return toIsoDate(Number(printed[4]), first, Number(printed[1]));
}
