import {
  FIELD_NAMES,
  comparable,
  compareFields,
  editDistance,
  withoutMisplacedValues,
  mrzToDocumentFields,
  namesMatch,
  normaliseCountry,
  normaliseDocumentNumber,
  parseDniBarcode,
  parseMrz,
  type ComparableFields,
} from '../src/tooling';
import { readReferenceJson, type DniBarcodeReferenceEntry, type MrzReferenceEntry } from './reference-data';

const today = '2026-11-23';

describe('namesMatch', () => {
  test.each([
    ['MUÑOZ', 'MUNOZ'],
    ['MUÑOZ', 'MUNXXOZ'],
    ['GÜEMES', 'GUEMES'],
    ['GÜEMES', 'GUEEMES'],
    ['GÜEMES', 'GUXXEMES'],
    ['José María', 'JOSE MARIA'],
    ["D'ANGELO", 'DANGELO'],
    ['PEREZ-GARCIA', 'PEREZ GARCIA'],
    ['VILLA REAL', 'VILLAREAL'],
    ['MU\u00C3\u2018OZ', 'MUÑOZ'],
  ])('when %s is compared with %s, then they are the same name', (a, b) => {
    expect(namesMatch(a, b)).toBe(true);
    expect(namesMatch(b, a)).toBe(true);
  });

  test.each([
    ['MUÑOZ', 'MUNIZ'],
    ['MARIA', 'MARIO'],
    ['ANA', 'ANA MARIA'],
  ])('when %s is compared with %s, then they are different names', (a, b) => {
    expect(namesMatch(a, b)).toBe(false);
  });

  test('when the MRZ side is marked truncated, then a prefix of the full name matches', () => {
    expect(namesMatch('ANDRE ESTEV', 'ANDRE ESTEVAO', { truncated: true })).toBe(true);
    expect(namesMatch('ANDRE ESTEVAO', 'ANDRE ESTEV', {}, { truncated: true })).toBe(true);
  });

  test('when the shorter side is not marked truncated, then a prefix does not match', () => {
    expect(namesMatch('ANDRE ESTEV', 'ANDRE ESTEVAO')).toBe(false);
    expect(namesMatch('ANDRE ESTEVAO', 'ANDRE ESTEV', { truncated: true })).toBe(false);
  });

  // Misreads measured on corpus seed 99's DNI fronts (printed fields read at confidence 75 or more).
  test.each([
    ['CAMILA FLORENOA', 'CAMILA FLORENCIA'],
    ['VALENTINA NOEUA', 'VALENTINA NOELIA'],
    ['NOEUA', 'NOELIA'],
    ['NAHUEL INAM', 'NAHUEL IÑAKI'],
    ['GOMEX', 'GÓMEZ'],
  ])('when %s read by OCR from the print is compared with %s, then it is taken as the same name', (printed, other) => {
    expect(namesMatch(printed, other, { ocr: true })).toBe(true);
    expect(namesMatch(other, printed, {}, { ocr: true })).toBe(true);
    expect(namesMatch(printed, other)).toBe(false);
  });

  test.each([
    ['LOPEZ', 'PEREZ'],
    ['ANA', 'EVA'],
    ['JUAN PABLO', 'JUAN CARLOS'],
    ['ROMINA', 'ROSANA'],
  ])('when %s read by OCR differs from %s by more than a misread, then they are different names', (printed, other) => {
    expect(namesMatch(printed, other, { ocr: true })).toBe(false);
  });
});

describe('editDistance', () => {
  test('when two strings differ, then the fewest insertions, deletions and substitutions are counted', () => {
    expect(editDistance('GOMEZ', 'GOMES')).toBe(1);
    expect(editDistance('', 'ABC')).toBe(3);
    expect(editDistance('SAME', 'SAME')).toBe(0);
    expect(editDistance('PEREZ', 'LOPEZ')).toBe(2);
  });

  test('when OCR merged two narrow letters into one, or split one into two, then that is one edit', () => {
    expect(editDistance('FLORENCIA', 'FLORENOA')).toBe(1);
    expect(editDistance('NOELIA', 'NOEUA')).toBe(1);
    expect(editDistance('INAM', 'INAKI')).toBe(1);
    expect(editDistance('NOEUA', 'NOELIA')).toBe(1);
  });

  test('when the distance is over the limit, then the limit plus one is returned without finishing', () => {
    expect(editDistance('AAAAAAAA', 'BBBBBBBB', 2)).toBe(3);
    expect(editDistance('A', 'ABCDEF', 2)).toBe(3);
  });
});

describe('normaliseDocumentNumber and normaliseCountry', () => {
  test('when a DNI number is printed with dots, spaces or a leading zero, then it is the bare number', () => {
    expect(normaliseDocumentNumber('12.345.678')).toBe('12345678');
    expect(normaliseDocumentNumber('12 345 678')).toBe('12345678');
    expect(normaliseDocumentNumber('07507882')).toBe('7507882');
    expect(normaliseDocumentNumber('l898902c3')).toBe('L898902C3');
  });

  test('when the country is a name we know or a code, then it is the ICAO code; otherwise it is unknown', () => {
    expect(normaliseCountry('ARGENTINA')).toBe('ARG');
    expect(normaliseCountry('ARG')).toBe('ARG');
    expect(normaliseCountry('D<<')).toBe('D');
    expect(normaliseCountry('PARAGUAYA')).toBeNull();
  });
});

describe('compareFields', () => {
  const barcodeSide: ComparableFields = {
    number: '12345678',
    surname: 'MUÑOZ',
    given_names: 'JOSÉ MARÍA',
    sex: 'M',
    birth_date: '1978-03-15',
    issue_date: '2017-04-20',
    expiry_date: null,
    nationality: 'ARGENTINA',
  };

  test('when two sources write the same data differently, then nothing mismatches', () => {
    const printedSide: ComparableFields = {
      number: '12.345.678',
      surname: 'Muñoz',
      given_names: 'Jose Maria',
      sex: 'MASCULINO',
      birth_date: '15 MAR/ MAR 1978',
      issue_date: '20/04/2017',
      expiry_date: '20 ABR/ APR 2032',
      nationality: 'ARG',
    };

    expect(compareFields(barcodeSide, printedSide, FIELD_NAMES)).toEqual([]);
  });

  test('when sources disagree, then the mismatching fields are listed in the order asked', () => {
    const otherSide: ComparableFields = { ...barcodeSide, sex: 'F', number: '12.345.679', surname: 'MUNIZ' };

    expect(compareFields(barcodeSide, otherSide, ['sex', 'surname', 'number', 'birth_date'])).toEqual([
      'sex',
      'surname',
      'number',
    ]);
  });

  test('when only some fields are asked, then the others are not compared', () => {
    expect(compareFields(barcodeSide, { ...barcodeSide, sex: 'F' }, ['number'])).toEqual([]);
  });

  test('when a field is missing or unreadable on one side, then it is not a mismatch', () => {
    const partial: ComparableFields = { number: '12345678', birth_date: '15 MRZ 1978', sex: null, nationality: 'PARAGUAYA' };

    expect(compareFields(barcodeSide, partial, FIELD_NAMES)).toEqual([]);
  });

  test('when the RENAPER specimen barcode is compared with its printed front, then only the issue date differs (a specimen quirk)', () => {
    const [specimen] = readReferenceJson<DniBarcodeReferenceEntry[]>('dni-pdf417.json');
    const barcode = parseDniBarcode(specimen?.payload ?? '', { today });
    if (!barcode.ok) throw new Error(`specimen payload did not parse: ${barcode.failure}`);
    // As printed on the card (dni-pdf417.json notes).
    const printedFront: ComparableFields = {
      doc_type: 'dni',
      surname: 'VILLAREAL',
      given_names: 'MARIA VICTORIA',
      sex: 'F',
      nationality: 'ARGENTINA',
      series: 'A',
      birth_date: '01 NOV 1969',
      issue_date: '31 OCT 2013',
      expiry_date: '31 OCT 2002',
      tramite: '00000010532',
      number: '99.999.999',
    };

    expect(compareFields(comparable(barcode.fields), printedFront, FIELD_NAMES)).toEqual(['issue_date']);
  });

  test('when the 2009 specimen MRZ is compared with its printed side, then the spaced surname matches and the number does not', () => {
    const entry = readReferenceJson<MrzReferenceEntry[]>('mrz.json').find(
      (candidate) => candidate.id === 'arg-td1-dni-2009-specimen-villareal',
    );
    const mrz = parseMrz(entry?.lines ?? []);
    if (!mrz.ok) throw new Error(`specimen MRZ did not parse: ${mrz.failure}`);
    // As printed on the 2009 card (mrz.json notes); the MRZ glues the number's check digit to it.
    const printedSide: ComparableFields = {
      surname: 'VILLA REAL',
      given_names: 'MARIA VICTORIA',
      number: '99.999.997',
      sex: 'F',
      expiry_date: '29 SEP 2024',
    };

    expect(compareFields(comparable(mrzToDocumentFields(mrz, { today }), mrz.names_truncated), printedSide, FIELD_NAMES)).toEqual(
      ['number'],
    );
  });
});

describe('withoutMisplacedValues', () => {
  const barcode = { surname: 'SÁNCHEZ MÜLLER', given_names: 'NICOLÁS', birth_date: '1951-07-30', issue_date: '2011-11-23' };

  test("when a printed field reads its neighbour's value, then it is dropped: the crop landed on the next row", () => {
    const printed = { given_names: 'SANCHEZ MULLER', birth_date: '2011-11-23', number: '5213348', names_by_ocr: true };

    expect(withoutMisplacedValues(printed, barcode)).toEqual({ number: '5213348', names_by_ocr: true });
  });

  test("when a printed field differs from the barcode and is no neighbour's value, then it is kept, to be a mismatch", () => {
    const printed = { given_names: 'PEDRO', birth_date: '1961-07-30', names_by_ocr: true };

    expect(withoutMisplacedValues(printed, barcode)).toEqual(printed);
  });

  test('when a printed field agrees with the barcode, then it is kept', () => {
    const printed = { surname: 'SANCHEZ MULLER', given_names: 'NICOLAS', names_by_ocr: true };

    expect(withoutMisplacedValues(printed, barcode)).toEqual(printed);
  });
});
