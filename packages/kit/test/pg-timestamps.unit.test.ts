import pg from 'pg';
import { IsoDate, isoTimestampTypes, parseTimestamptz } from '../src/pg-timestamps';

const pgDefault = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;
const same = (text: string) => {
  const ours = parseTimestamptz(text);
  const theirs = pgDefault(text);
  expect(ours.getTime()).toBe(theirs.getTime());
  expect(ours.toISOString()).toBe(theirs.toISOString());
  expect(JSON.stringify({ at: ours })).toBe(JSON.stringify({ at: theirs }));
};

describe('timestamptz read as ISO text (issue 43)', () => {
  test('when PostgreSQL sends a UTC timestamp with 0 to 6 fraction digits, then the date and its ISO text are what pg gives', () => {
    for (const text of [
      '2026-11-30 12:34:56+00',
      '2026-11-30 12:34:56.7+00',
      '2026-11-30 12:34:56.78+00',
      '2026-11-30 12:34:56.789+00',
      '2026-11-30 12:34:56.7891+00',
      '2026-11-30 12:34:56.999999+00',
      '2026-11-30 12:34:56.000001+00',
      '1969-12-31 23:59:59.999+00',
      '9999-12-31 23:59:59.999999+00',
    ]) {
      same(text);
      expect(parseTimestamptz(text)).toBeInstanceOf(IsoDate);
    }
    expect(parseTimestamptz('2026-11-30 12:34:56.789123+00').toISOString()).toBe('2026-11-30T12:34:56.789Z');
    // Every millisecond and microsecond fraction PostgreSQL can send (trailing zeros trimmed), against pg's parser.
    for (let us = 0; us < 1_000_000; us += 997)
      same(`2026-11-30 12:34:56.${String(us).padStart(6, '0').replace(/0+$/, '') || '0'}+00`);
  });

  test('when the text has another zone, an era, a year below 100 or infinity, then pg default parser reads it', () => {
    for (const text of [
      '2026-11-30 13:34:56.789+01',
      '2026-11-30 07:04:56.789-05:30',
      '0044-03-15 12:00:00+00 BC',
      '12026-01-01 00:00:00+00',
    ]) {
      same(text);
      expect(parseTimestamptz(text)).not.toBeInstanceOf(IsoDate);
    }
    expect(parseTimestamptz('infinity')).toBe(pgDefault('infinity'));
  });

  test('when a read date is changed, then it formats its new value', () => {
    const date = parseTimestamptz('2026-11-30 12:34:56.789+00');
    date.setTime(Date.UTC(2027, 0, 1));
    expect(date.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  test('when the pool asks for a parser, then only text timestamptz is ours and other types stay pg global ones', () => {
    const parser = (oid: number) => isoTimestampTypes.getTypeParser(oid, 'text') as unknown;
    expect(parser(pg.types.builtins.TIMESTAMPTZ)).toBe(parseTimestamptz);
    for (const oid of [pg.types.builtins.INT8, pg.types.builtins.TIMESTAMP, pg.types.builtins.JSONB, pg.types.builtins.DATE]) {
      expect(parser(oid)).toBe(pg.types.getTypeParser(oid, 'text'));
    }
  });
});
