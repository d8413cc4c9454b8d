import {
  DOCUMENT_REASON_CODES,
  checkDataConsistency,
  checkDocumentType,
  checkExpiry,
  checkMrz,
  checkReadable,
  computeMrzCheckDigit,
  parseMrz,
} from '../src/tooling';
import { readReferenceJson, type MrzReferenceEntry } from './reference-data';

const mrzEntries = readReferenceJson<MrzReferenceEntry[]>('mrz.json');

function mrzLines(id: string): string[] {
  const entry = mrzEntries.find((candidate) => candidate.id === id);
  if (entry === undefined) throw new Error(`mrz.json has no entry ${id}`);
  return entry.lines;
}

describe('reason codes', () => {
  test('when the closed set is listed, then it is the ten document codes of docs/api.md', () => {
    expect([...DOCUMENT_REASON_CODES].sort()).toEqual(
      [
        'document_unreadable',
        'document_type_mismatch',
        'document_expired',
        'document_data_mismatch',
        'document_mrz_invalid',
        'document_cuil_invalid',
        'document_screen_detected',
        'document_angle_mismatch',
        'document_registry_mismatch',
        'document_registry_unavailable',
      ].sort(),
    );
  });
});

describe('checkReadable', () => {
  const complete = { number: '12345678', surname: 'PEREZ', given_names: 'JUAN', birth_date: '1978-03-15' };

  test('when the identifying fields were read, then the check passes', () => {
    expect(checkReadable(complete)).toEqual({ status: 'passed', check: 'readable' });
  });

  test('when nothing was read, then the document is unreadable', () => {
    expect(checkReadable(null)).toMatchObject({ status: 'failed', reason_code: 'document_unreadable' });
  });

  test('when an identifying field is missing or blank, then the document is unreadable and the field is named', () => {
    expect(checkReadable({ ...complete, birth_date: null, surname: ' ' })).toMatchObject({
      status: 'failed',
      reason_code: 'document_unreadable',
      fields: ['surname', 'birth_date'],
    });
  });
});

describe('checkDocumentType', () => {
  test('when the document is among the accepted ones, then the check passes', () => {
    expect(checkDocumentType('dni', ['dni', 'passport']).status).toBe('passed');
  });

  test('when the document is another accepted type or unsupported, then it is a type mismatch', () => {
    expect(checkDocumentType('passport', ['dni'])).toMatchObject({ reason_code: 'document_type_mismatch' });
    expect(checkDocumentType('unsupported', ['dni', 'passport', 'licence'])).toMatchObject({
      reason_code: 'document_type_mismatch',
    });
  });
});

describe('checkExpiry', () => {
  const today = '2026-11-23';

  test('when the document expires today, then it is still valid', () => {
    expect(checkExpiry('2026-11-23', today).status).toBe('passed');
  });

  test('when the document expired yesterday, then it is expired', () => {
    expect(checkExpiry('2026-11-22', today)).toMatchObject({
      status: 'failed',
      reason_code: 'document_expired',
      fields: ['expiry_date'],
    });
  });

  test('when no expiry date was read, then the check is inconclusive', () => {
    expect(checkExpiry(null, today).status).toBe('inconclusive');
  });

  test('when today is not a date, then the caller is told at once', () => {
    expect(() => checkExpiry('2030-01-01', '23/11/2026')).toThrow(TypeError);
  });
});

describe('checkMrz', () => {
  test('when every check digit holds, then the check passes', () => {
    expect(checkMrz(parseMrz(mrzLines('icao-td3-utopia-eriksson')))).toEqual({ status: 'passed', check: 'mrz' });
  });

  test('when a check digit fails, then the MRZ is invalid and the field is named', () => {
    expect(checkMrz(parseMrz(mrzLines('arg-td1-dni-2009-specimen-villareal')))).toEqual({
      status: 'failed',
      check: 'mrz',
      reason_code: 'document_mrz_invalid',
      detail: 'document_number: check_digit_mismatch',
    });
  });

  test('when a DNI MRZ carries letters in its number, then it is invalid even though the mod-10 check digit holds', () => {
    const digit = (text: string) => String(computeMrzCheckDigit(text));
    const td1 = (number: string) => {
      const field = number.padEnd(9, '<');
      const line1 = `IDARG${field}${digit(field)}${'<'.repeat(15)}`;
      const body = `681110${digit('681110')}F340515${digit('340515')}ARG${'<'.repeat(11)}`;
      const composite = digit(`${line1.slice(5, 30)}${body.slice(0, 7)}${body.slice(8, 15)}${body.slice(18, 29)}`);
      return [line1, `${body}${composite}`, 'LOPEZ<<NOELIA'.padEnd(30, '<')];
    };
    const genuine = parseMrz(td1('52549298'));
    const misread = parseMrz(td1('SZ549298'));

    expect(genuine.ok && genuine.valid).toBe(true);
    expect(misread.ok && misread.valid).toBe(true);
    expect(checkMrz(genuine)).toEqual({ status: 'passed', check: 'mrz' });
    expect(checkMrz(misread)).toMatchObject({ status: 'failed', reason_code: 'document_mrz_invalid' });
  });

  test('when the text is not an MRZ, then the document is unreadable rather than its MRZ invalid', () => {
    expect(checkMrz(parseMrz(['IDARG999999972']))).toMatchObject({ reason_code: 'document_unreadable' });
  });
});

describe('checkDataConsistency', () => {
  const barcode = { name: 'barcode', fields: { number: '12345678', sex: 'M', birth_date: '1978-03-15' } };

  test('when every source agrees, then the check passes', () => {
    const front = { name: 'front_text', fields: { number: '12.345.678', sex: 'M', birth_date: '15/03/1978' } };

    expect(checkDataConsistency([barcode, front], ['number', 'sex', 'birth_date']).status).toBe('passed');
  });

  test('when sources disagree, then the verdict names the fields and the pairs', () => {
    const front = { name: 'front_text', fields: { number: '12.345.678', sex: 'F', birth_date: '15/03/1978' } };
    const mrz = { name: 'mrz', fields: { number: '12345679', sex: 'M', birth_date: '1978-03-15' } };

    expect(checkDataConsistency([barcode, front, mrz], ['number', 'sex', 'birth_date'])).toEqual({
      status: 'failed',
      check: 'data_consistency',
      reason_code: 'document_data_mismatch',
      fields: ['number', 'sex'],
      detail: 'barcode vs front_text: sex; barcode vs mrz: number; front_text vs mrz: number, sex',
    });
  });

  test('when there is one source, then there is nothing to contradict', () => {
    expect(checkDataConsistency([barcode], ['number']).status).toBe('passed');
  });
});
