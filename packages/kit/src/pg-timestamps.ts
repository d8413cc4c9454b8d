import pg from 'pg';

/**
 * A timestamptz read from PostgreSQL that keeps the ISO text it was read as: `toISOString()` (and JSON) answer
 * it without formatting the date again. Otherwise a plain Date; if it is ever changed (`setTime`…), it formats
 * its new value as any Date does.
 */
export class IsoDate extends Date {
  constructor(
    private readonly readAt: number,
    private readonly iso: string,
  ) {
    super(readAt);
  }

  override toISOString(): string {
    return this.getTime() === this.readAt ? this.iso : super.toISOString();
  }
}

const defaultTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;

/** The digit at `i`, NaN if it is none (which makes `Date.UTC` NaN). */
function digit(text: string, i: number): number {
  const value = text.charCodeAt(i) - 48;
  return value >= 0 && value <= 9 ? value : NaN;
}

const twoDigits = (text: string, i: number) => digit(text, i) * 10 + digit(text, i + 1);

/**
 * timestamptz's text as PostgreSQL sends it in a UTC session (`2026-11-30 12:34:56.789123+00`, the fraction
 * trimmed of trailing zeros or absent) becomes the ISO string `Date#toISOString` would give
 * (`2026-11-30T12:34:56.789Z`: milliseconds truncated, as the default parser does) by slicing, and the date
 * from its digits. Any other shape (another time zone, BC, infinity, a year below 100 or above 9999) goes to
 * pg's default parser.
 */
export function parseTimestamptz(text: string): Date {
  const n = text.length;
  if (
    n >= 22 &&
    n <= 29 &&
    n !== 23 &&
    text.endsWith('+00') &&
    text[4] === '-' &&
    text[7] === '-' &&
    text[10] === ' ' &&
    text[13] === ':' &&
    text[16] === ':' &&
    (n === 22 || text[19] === '.')
  ) {
    const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
    const millis = n === 22 ? 0 : digit(text, 20) * 100 + (n > 24 ? digit(text, 21) * 10 : 0) + (n > 25 ? digit(text, 22) : 0);
    // Date.UTC reads years 0 to 99 as 1900 to 1999: those go to the default parser.
    const time =
      year >= 100
        ? Date.UTC(
            year,
            twoDigits(text, 5) - 1,
            twoDigits(text, 8),
            twoDigits(text, 11),
            twoDigits(text, 14),
            twoDigits(text, 17),
            millis,
          )
        : NaN;
    if (!Number.isNaN(time)) {
      const fraction = n === 22 ? '000' : `${text.slice(20, n - 3)}00`.slice(0, 3);
      return new IsoDate(time, `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction}Z`);
    }
  }
  return defaultTimestamptz(text);
}

/**
 * Type parsers for one pool (`createPool`'s `types`): timestamptz through `parseTimestamptz`, every other type
 * as pg parses it globally. A service's list reads several timestamps per row and sends each as ISO text
 * (issue 43: `postgres-date` and the formatting were ≈ 40 µs of a list of 25).
 */
const TIMESTAMPTZ_OID: number = pg.types.builtins.TIMESTAMPTZ;

export const isoTimestampTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format: 'text' | 'binary' = 'text'): unknown =>
    oid === TIMESTAMPTZ_OID && format === 'text'
      ? parseTimestamptz
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};
