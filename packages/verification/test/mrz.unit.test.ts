import {
  computeMrzCheckDigit,
  documentTypeOfMrz,
  extractMrzLines,
  hasFormatDocumentCode,
  mrzToDocumentFields,
  parseMrz,
  type MrzData,
} from '../src/tooling';
import { readReferenceJson, type MrzReferenceEntry } from './reference-data';

const referenceEntries = readReferenceJson<MrzReferenceEntry[]>('mrz.json');

function parsedOrFail(lines: string | readonly string[]): MrzData {
  const result = parseMrz(lines);
  if (!result.ok) throw new Error(`expected an MRZ, got ${result.failure}: ${result.detail}`);
  return result;
}

function referenceEntry(id: string): MrzReferenceEntry {
  const entry = referenceEntries.find((candidate) => candidate.id === id);
  if (entry === undefined) throw new Error(`mrz.json has no entry ${id}`);
  return entry;
}

describe('MRZ reference data (shared/data/reference-documents/mrz.json)', () => {
  test('when the reference file is read, then it holds the 35 entries its README describes', () => {
    expect(referenceEntries).toHaveLength(35);
  });

  test.each(referenceEntries.map((entry) => [entry.id, entry] as const))(
    'when %s is parsed, then its format, fields, check digits and validity are the expected ones',
    (_id, entry) => {
      const mrz = parsedOrFail(entry.lines);

      expect(mrz.format).toBe(entry.format);
      expect(mrz.check_digits).toEqual(entry.check_digits);
      expect(mrz.valid).toBe(entry.valid);
      const comparable = Object.fromEntries(
        Object.keys(entry.expected).map((key) => [key, (mrz.fields as unknown as Record<string, unknown>)[key]]),
      );
      expect(comparable).toEqual(entry.expected);
    },
  );
});

describe('parseMrz', () => {
  test('when the ICAO TD3 specimen is checked, then its check digits are those ICAO prints', () => {
    expect(computeMrzCheckDigit('L898902C3')).toBe(6);
    expect(computeMrzCheckDigit('740812')).toBe(2);
    expect(computeMrzCheckDigit('120415')).toBe(9);
    expect(computeMrzCheckDigit('ZE184226B<<<<<')).toBe(1);
  });

  test('when a filler stands in for the check digit of a field that is not empty, then that check fails', () => {
    const [line1 = '', line2 = ''] = referenceEntry('icao-td3-utopia-eriksson').lines;
    // Personal number check digit (position 43) and birth date check digit (position 20) replaced by '<'.
    const personal = parsedOrFail([line1, `${line2.slice(0, 42)}<${line2.slice(43)}`]);
    const birth = parsedOrFail([line1, `${line2.slice(0, 19)}<${line2.slice(20)}`]);

    expect(personal.check_digits.personal_number).toBe(false);
    expect(birth.check_digits.birth_date).toBe(false);
  });

  test('when a character outside the MRZ alphabet is in the text, then no check digit is computed', () => {
    expect(computeMrzCheckDigit('L89890«C3')).toBeNull();
  });

  test('when OCR confused letters and digits, then the fields keep the misread characters and the MRZ is invalid', () => {
    const mrz = parsedOrFail(referenceEntry('icao-td3-utopia-ocr-noise').lines);

    expect(mrz.fields.birth_date).toBe('740BIZ');
    expect(mrz.valid).toBe(false);
    expect(mrz.problems).toEqual(
      expect.arrayContaining([
        { field: 'birth_date', problem: 'check_digit_mismatch' },
        { field: 'birth_date', problem: 'not_a_date' },
      ]),
    );
  });

  test('when noisy OCR output surrounds the zone, then the zone is found without changing a character', () => {
    const entry = referenceEntry('aut-td1-musterfrau-ocr-noise');

    const lines = extractMrzLines(entry.raw_ocr_input ?? '');

    expect(lines).toEqual(['IDAUT10000999<6<<<<<<<<<<<<<<<', '7IO9O94FIIIZ3ISAUT<<<<<<<<<<<4', 'MUSTERFRAU<<ISOLDE<<<<<<<<<<<<']);
    const mrz = parsedOrFail(lines ?? []);
    expect(mrz.valid).toBe(false);
    expect(mrz.check_digits).toMatchObject({ birth_date: false, expiry_date: false });
    expect(mrz.fields.birth_date).toBe('7IO9O9');
  });

  test('when OCR output holds no run of MRZ-shaped lines, then no zone is found', () => {
    expect(extractMrzLines('DOCUMENTO NACIONAL DE IDENTIDAD\nVILLAREAL\nMARIA VICTORIA')).toBeNull();
  });

  test('when the lines come as one string with spaces and lower case, then they parse like the clean lines', () => {
    const mrz = parsedOrFail(
      ' i<uto d23145890 7abc<<<<<<<<<<<<\n7408122f1204159uto<<<<<<<<<<<1\r\nERIKSSON<<ANNA<MARIA<<<<<<<<<<\n',
    );

    expect(mrz.format).toBe('TD1');
    expect(mrz.valid).toBe(true);
    expect(mrz.fields.document_number).toBe('D23145890');
  });

  test('when a line is one character short, then the result is a line-layout failure', () => {
    const result = parseMrz(['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10']);

    expect(result).toMatchObject({ ok: false, failure: 'line_layout' });
  });

  test('when a line holds a character outside the MRZ alphabet, then the result is a charset failure', () => {
    const result = parseMrz(['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<«<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10']);

    expect(result).toMatchObject({ ok: false, failure: 'charset' });
  });

  test('when a TD1 document number overflows into the optional data, then the convention its check digit used is reported', () => {
    expect(parsedOrFail(referenceEntry('prt-td1-cacador').lines).long_document_number).toBe('icao');
    expect(parsedOrFail(referenceEntry('bel-td1-prado-bel-bo-03003').lines).long_document_number).toBe('filler_included');
    expect(parsedOrFail(referenceEntry('che-td1-smith').lines).long_document_number).toBeNull();
  });

  test('when the name field is full, then the names are flagged as possibly truncated', () => {
    expect(parsedOrFail(referenceEntry('prt-td1-cacador').lines).names_truncated).toBe(true);
    expect(parsedOrFail(referenceEntry('che-td1-smith').lines).names_truncated).toBe(false);
  });

  test('when the name field was cut right after the filler between two words, then the names are flagged as possibly truncated', () => {
    // Corpus seed 99, document 121: MARÍA DE LOS ÁNGELES cut to fit 30 characters.
    const mrz = parsedOrFail([
      'IDARG15971034<6<<<<<<<<<<<<<<<',
      '6402101F3704239ARG<<<<<<<<<<<8',
      'RODRIGUEZ<SILVA<<MARIA<DE<LOS<',
    ]);

    expect(mrz.valid).toBe(true);
    expect(mrz.names_truncated).toBe(true);
  });

  test('when the 2009 DNI specimen is parsed strictly, then its document number check fails and the rest holds', () => {
    const mrz = parsedOrFail(referenceEntry('arg-td1-dni-2009-specimen-villareal').lines);

    expect(mrz.problems).toEqual([{ field: 'document_number', problem: 'check_digit_mismatch' }]);
    expect(documentTypeOfMrz(mrz)).toBe('dni');
  });

  test('when a birth date has an unknown day written as fillers, then it is not a date problem', () => {
    const clean = referenceEntry('che-td1-smith').lines;
    const line2 = `7510<<${computeMrzCheckDigit('7510<<')}${(clean[1] ?? '').slice(7, 29)}`;
    const composite = `${(clean[0] ?? '').slice(5, 30)}${line2.slice(0, 7)}${line2.slice(8, 15)}${line2.slice(18, 29)}`;
    const lines = [clean[0] ?? '', `${line2}${computeMrzCheckDigit(composite)}`, clean[2] ?? ''];

    const mrz = parsedOrFail(lines);

    expect(mrz.valid).toBe(true);
    expect(mrzToDocumentFields(mrz, { today: '2026-11-23' }).birth_date).toBeNull();
  });
});

describe('documentTypeOfMrz', () => {
  test('when the MRZ is a passport, an Argentine TD1 or another ID card, then it is passport, dni or unsupported', () => {
    expect(documentTypeOfMrz(parsedOrFail(referenceEntry('icao-td3-utopia-eriksson').lines))).toBe('passport');
    expect(documentTypeOfMrz(parsedOrFail(referenceEntry('arg-td1-dni-2009-specimen-villareal').lines))).toBe('dni');
    expect(documentTypeOfMrz(parsedOrFail(referenceEntry('che-td1-smith').lines))).toBe('unsupported');
    expect(documentTypeOfMrz(parsedOrFail(referenceEntry('usa-mrva-traveler').lines))).toBe('unsupported');
  });

  test('when an invalid read has no ICAO issuing state, then it names no type (a passport that lost its first characters)', () => {
    // bench/documents seed 99, document 14: a blurred Argentine passport's `P<ARGGOMEZ…` read as a TD2.
    const misread = parsedOrFail(['ARGGOHEZ<PENALOZA<<LUCIA<<<<<<<<<<<<', 'AAC7946626ARG6103121F36021331301SSB1']);

    expect(misread).toMatchObject({ format: 'TD2', valid: false });
    expect(documentTypeOfMrz(misread)).toBeNull();
  });

  test('when a read whose every check digit holds has no ICAO issuing state, then it names no type either', () => {
    // bench/documents seed 99, document 178: a passport's TD3 on a screen, read without its first two and
    // last eight characters, fits a TD2 of state `GSU` whose check digits all hold.
    const withCheck = (field: string): string => `${field}${computeMrzCheckDigit(field) ?? ''}`;
    const number = withCheck('AAB123456');
    const birth = withCheck('850412');
    const expiry = withCheck('310905');
    const optional = '<<<<<<<';
    const composite = computeMrzCheckDigit(`${number}${birth}${expiry}${optional}`) ?? '';
    const cut = parsedOrFail(['I<GSUAREZ<<MARIA'.padEnd(36, '<'), `${number}ARG${birth}F${expiry}${optional}${composite}`]);

    expect(cut).toMatchObject({ format: 'TD2', valid: true });
    expect(documentTypeOfMrz(cut)).toBeNull();
  });

  test('when an invalid read has an ICAO issuing state, then another document is still unsupported', () => {
    const [first, second, third] = referenceEntry('che-td1-smith').lines;
    // The birth date's check digit made wrong: the card is still a Swiss ID card.
    const damaged = parsedOrFail([
      first ?? '',
      `${second?.slice(0, 6)}${second?.[6] === '0' ? '1' : '0'}${second?.slice(7)}`,
      third ?? '',
    ]);

    expect(damaged.valid).toBe(false);
    expect(documentTypeOfMrz(damaged)).toBe('unsupported');
  });
});

describe('hasFormatDocumentCode', () => {
  test('when the document code starts as its format allows (P, A/C/I, V), then it holds; otherwise not', () => {
    for (const id of ['icao-td3-utopia-eriksson', 'che-td1-smith', 'icao-td2-utopia', 'usa-mrva-traveler'])
      expect(hasFormatDocumentCode(parsedOrFail(referenceEntry(id).lines))).toBe(true);
    const [first = '', second = ''] = referenceEntry('icao-td3-utopia-eriksson').lines;

    expect(hasFormatDocumentCode(parsedOrFail([`I${first.slice(1)}`, second]))).toBe(false);
  });
});

describe('mrzToDocumentFields', () => {
  const today = '2026-11-23';

  test('when the MRZ is mapped, then dates are ISO with birth years pivoted on today and expiry years in 20YY', () => {
    const fields = mrzToDocumentFields(parsedOrFail(referenceEntry('icao-9303-p11-td1-stevenson').lines), { today });

    expect(fields).toMatchObject({
      number: 'D23145890734',
      surname: 'STEVENSON',
      given_names: 'PETER JOHN',
      sex: 'M',
      birth_date: '1934-07-12',
      expiry_date: '2095-07-12',
      nationality: 'UTO',
      issuing_state: 'UTO',
    });
  });

  test('when a birth year is not after today, then it stays in the 2000s', () => {
    const fields = mrzToDocumentFields(parsedOrFail(referenceEntry('bel-td1-prado-bel-bo-11005-uto-changed').lines), {
      today,
    });

    expect(fields.birth_date).toBe('2013-01-01');
  });

  test("when the sex is '<' (unspecified), then the domain sex is X", () => {
    const fields = mrzToDocumentFields(parsedOrFail(referenceEntry('bad-td1').lines), { today });

    expect(fields.sex).toBe('X');
    expect(fields.birth_date).toBeNull();
  });

  test('when today is not a calendar date, then the caller is told at once', () => {
    const mrz = parsedOrFail(referenceEntry('che-td1-smith').lines);

    expect(() => mrzToDocumentFields(mrz, { today: '2026-02-30' })).toThrow(TypeError);
  });
});
