import { parseDniBarcode, type DniBarcodeData, type DniBarcodeParseResult } from '../src/tooling';
import { readReferenceJson, type DniBarcodeReferenceEntry } from './reference-data';

const today = '2026-11-23';

// Fictitious holder data: no real person's payload is used outside the official specimen.
interface NewLayoutFields {
  tramite: string;
  surname: string;
  givenNames: string;
  sex: string;
  number: string;
  series: string;
  birth: string;
  issue: string;
  cuilSuffix?: string;
}

function buildNewLayoutPayload(overrides: Partial<NewLayoutFields> = {}): string {
  const fields: NewLayoutFields = {
    tramite: '00123456789',
    surname: 'PEREZ',
    givenNames: 'JUAN CARLOS',
    sex: 'M',
    number: '26756539',
    series: 'B',
    birth: '15/03/1978',
    issue: '20/04/2017',
    ...overrides,
  };
  const parts = [
    fields.tramite,
    fields.surname,
    fields.givenNames,
    fields.sex,
    fields.number,
    fields.series,
    fields.birth,
    fields.issue,
  ];
  return [...parts, ...(fields.cuilSuffix === undefined ? [] : [fields.cuilSuffix])].join('@');
}

function buildOldLayoutPayload(replace: Record<number, string> = {}): string {
  const parts = [
    '',
    '12345678    ',
    'A',
    '1',
    'GOMEZ',
    'ANA LUCIA',
    'ARGENTINA',
    '01/02/1962',
    'F',
    '21/04/2011',
    '00098765432',
    '7000 ',
    '21/04/2026',
    '411',
    '0',
    'ILR:2.01 C:110223.01 (No Cap.)',
    'UNIDAD #04 || S/N: 0040>2008>>0003',
  ];
  return parts.map((part, index) => replace[index] ?? part).join('@');
}

const SIGNED_TOKEN = 'MEUCIQDx3v9pQ2yY8kq1b7Rz0wq5T4nJmB6c2H1gVfE8aZr9kQIgU7';

function buildReported2026Payload(birth = '01/02/62', issue = '21/04/26'): string {
  return ['00123456789', 'PEREZ', 'JUAN CARLOS', '26756539', 'B', birth, issue, SIGNED_TOKEN].join('@');
}

function parsedOrFail(result: DniBarcodeParseResult): DniBarcodeData {
  if (!result.ok) throw new Error(`expected a parsed barcode, got ${result.failure}: ${result.detail}`);
  return result;
}

describe('DNI barcode reference data (shared/data/reference-documents/dni-pdf417.json)', () => {
  const entries = readReferenceJson<DniBarcodeReferenceEntry[]>('dni-pdf417.json');

  test('when the reference file is read, then it holds the RENAPER specimen', () => {
    expect(entries.map((entry) => entry.id)).toEqual(['specimen-renaper-villareal-front']);
  });

  test.each(entries.map((entry) => [entry.id, entry] as const))(
    'when the %s payload is parsed, then it gives its listed fields',
    (_id, entry) => {
      const barcode = parsedOrFail(parseDniBarcode(entry.payload, { today }));

      expect(barcode.layout).toBe(entry.layout);
      const { ejemplar, ...sameNames } = entry.expected;
      expect(barcode.fields).toMatchObject({ ...sameNames, series: ejemplar });
      expect(barcode.fields).toMatchObject({ doc_type: 'dni', cuil: null, expiry_date: null });
    },
  );

  test('when the specimen image index lists the payload, then it is the one the specimen entry holds', () => {
    const images = readReferenceJson<Array<{ dni_pdf417_id?: string; expected_payload?: string }>>('images/INDEX.json');
    const specimenImages = images.filter((image) => image.dni_pdf417_id !== undefined);

    expect(specimenImages).not.toHaveLength(0);
    for (const image of specimenImages) {
      const entry = entries.find((candidate) => candidate.id === image.dni_pdf417_id);
      expect(image.expected_payload).toBe(entry?.payload);
    }
  });
});

describe('parseDniBarcode, new_2012 layout', () => {
  test('when the payload has 8 fields, then every field is read and there is no expiry date', () => {
    const barcode = parsedOrFail(parseDniBarcode(buildNewLayoutPayload(), { today }));

    expect(barcode).toMatchObject({ layout: 'new_2012', separator: '@', sex_known: true, encoding_repaired: false });
    expect(barcode.fields).toEqual({
      doc_type: 'dni',
      tramite: '00123456789',
      surname: 'PEREZ',
      given_names: 'JUAN CARLOS',
      sex: 'M',
      number: '26756539',
      series: 'B',
      birth_date: '1978-03-15',
      issue_date: '2017-04-20',
      cuil: null,
      expiry_date: null,
      nationality: null,
      issuing_state: 'ARG',
    });
  });

  test('when a 9th field carries the CUIL prefix and check digit, then the CUIL is built around the DNI number', () => {
    const barcode = parsedOrFail(parseDniBarcode(buildNewLayoutPayload({ cuilSuffix: '203' }), { today }));

    expect(barcode.fields.cuil).toBe('20-26756539-3');
  });

  test('when the DNI number has 7 digits, then the CUIL pads it to 8', () => {
    const barcode = parsedOrFail(parseDniBarcode(buildNewLayoutPayload({ number: '7507882', cuilSuffix: '200' }), { today }));

    expect(barcode.fields.cuil).toBe('20-07507882-0');
  });

  test('when the 9th field is empty (a trailing @), then there is no CUIL', () => {
    const barcode = parsedOrFail(parseDniBarcode(`${buildNewLayoutPayload()}@`, { today }));

    expect(barcode.fields.cuil).toBeNull();
  });

  test('when fields carry trailing spaces and the payload is wrapped in whitespace and control characters, then they are trimmed', () => {
    const payload = `\u0000\r\n ${buildNewLayoutPayload({ surname: 'PEREZ ', givenNames: 'JUAN  CARLOS ' })} \r\n`;

    const barcode = parsedOrFail(parseDniBarcode(payload, { today }));

    expect(barcode.fields).toMatchObject({ surname: 'PEREZ', given_names: 'JUAN CARLOS', tramite: '00123456789' });
  });

  test("when a keyboard-wedge scanner typed '@' as '\"' and '/' as '-', then the payload reads the same", () => {
    const wedged = buildNewLayoutPayload().replace(/@/g, '"').replace(/\//g, '-');

    const barcode = parsedOrFail(parseDniBarcode(wedged, { today }));

    expect(barcode.separator).toBe('"');
    expect(barcode.fields).toEqual(parsedOrFail(parseDniBarcode(buildNewLayoutPayload(), { today })).fields);
  });

  test.each([
    ['Windows-1252', 'MU\u00C3\u2018OZ', 'MUÑOZ'],
    ['Latin-1', 'MU\u00C3\u0091OZ', 'MUÑOZ'],
    ['Windows-1252 É', 'JOS\u00C3\u2030', 'JOSÉ'],
    ['Latin-1 á', 'GARC\u00C3\u00ADA', 'GARCÍA'],
  ])('when UTF-8 names were decoded as %s, then the letters are repaired', (_charset, surname, repaired) => {
    const barcode = parsedOrFail(parseDniBarcode(buildNewLayoutPayload({ surname }), { today }));

    expect(barcode.fields.surname).toBe(repaired);
    expect(barcode.encoding_repaired).toBe(true);
  });

  test('when a name is already correct UTF-8, then it is left as it is', () => {
    const barcode = parsedOrFail(parseDniBarcode(buildNewLayoutPayload({ surname: 'MUÑOZ' }), { today }));

    expect(barcode.fields.surname).toBe('MUÑOZ');
    expect(barcode.encoding_repaired).toBe(false);
  });
});

describe('parseDniBarcode, old_2009 layout', () => {
  test('when the payload has 17 fields starting with an empty one, then it is read with its expiry date and nationality', () => {
    const barcode = parsedOrFail(parseDniBarcode(buildOldLayoutPayload(), { today }));

    expect(barcode.layout).toBe('old_2009');
    expect(barcode.fields).toEqual({
      doc_type: 'dni',
      number: '12345678',
      series: 'A',
      surname: 'GOMEZ',
      given_names: 'ANA LUCIA',
      nationality: 'ARG',
      birth_date: '1962-02-01',
      sex: 'F',
      issue_date: '2011-04-21',
      tramite: '00098765432',
      expiry_date: '2026-04-21',
      cuil: null,
      issuing_state: 'ARG',
    });
    expect(barcode.extra).toEqual({
      office_code: '7000',
      undocumented: ['411', '0', 'ILR:2.01 C:110223.01 (No Cap.)', 'UNIDAD #04 || S/N: 0040>2008>>0003'],
    });
  });

  test('when the nationality is not one we map to a code, then it is kept as written and the code is unknown', () => {
    const barcode = parsedOrFail(parseDniBarcode(buildOldLayoutPayload({ 6: 'PARAGUAYA' }), { today }));

    expect(barcode.fields.nationality).toBeNull();
    expect(barcode.extra.nationality_text).toBe('PARAGUAYA');
  });
});

describe('parseDniBarcode, reported_2026 layout', () => {
  test('when the payload has 8 fields, no sex, two-digit years and a token, then what can be read is read and sex is unknown', () => {
    const barcode = parsedOrFail(parseDniBarcode(buildReported2026Payload(), { today }));

    expect(barcode).toMatchObject({ layout: 'reported_2026', sex_known: false, extra: { token: SIGNED_TOKEN } });
    expect(barcode.fields).toMatchObject({
      tramite: '00123456789',
      surname: 'PEREZ',
      given_names: 'JUAN CARLOS',
      sex: null,
      number: '26756539',
      series: 'B',
      birth_date: '1962-02-01',
      issue_date: '2026-04-21',
      expiry_date: null,
    });
    expect(barcode.assumptions).not.toHaveLength(0);
  });

  test('when a two-digit birth year is not after today, then it is in the 2000s', () => {
    const barcode = parsedOrFail(parseDniBarcode(buildReported2026Payload('15/06/12'), { today }));

    expect(barcode.fields.birth_date).toBe('2012-06-15');
  });

  test('when the fields come in another order, then they are still assigned by their shape', () => {
    const payload = ['PEREZ', 'JUAN CARLOS', '26756539', '00123456789', '01/02/62', 'B', '21/04/26', SIGNED_TOKEN].join('@');

    const barcode = parsedOrFail(parseDniBarcode(payload, { today }));

    expect(barcode.fields).toMatchObject({ tramite: '00123456789', number: '26756539', series: 'B', surname: 'PEREZ' });
  });

  test('when the last field is too short to be a signed token, then the layout is unknown', () => {
    const payload = buildReported2026Payload().replace(SIGNED_TOKEN, 'ABC123');

    expect(parseDniBarcode(payload, { today })).toMatchObject({ ok: false, failure: 'unknown_layout' });
  });
});

describe('parseDniBarcode, malformed payloads', () => {
  test.each([
    ['an empty payload', '   \r\n', 'empty', undefined],
    ['text without separators', 'DOCUMENTO NACIONAL DE IDENTIDAD', 'no_separator', undefined],
    ['7 fields', buildNewLayoutPayload().split('@').slice(0, 7).join('@'), 'field_count', undefined],
    ['10 fields', `${buildNewLayoutPayload({ cuilSuffix: '203' })}@X`, 'field_count', undefined],
    ['17 fields without the leading empty one', buildOldLayoutPayload({ 0: 'X' }), 'unknown_layout', undefined],
    ['8 fields without a sex or two-digit dates', 'A@B@C@D@E@F@G@H', 'unknown_layout', undefined],
    ['31 February', buildNewLayoutPayload({ birth: '31/02/1990' }), 'invalid_field', 'birth_date'],
    ['month 13', buildNewLayoutPayload({ issue: '01/13/2015' }), 'invalid_field', 'issue_date'],
    ['a two-digit birth year', buildNewLayoutPayload({ birth: '15/03/78' }), 'invalid_field', 'birth_date'],
    ['letters in the DNI number', buildNewLayoutPayload({ number: '26A56539' }), 'invalid_field', 'number'],
    ['a 9-digit DNI number', buildNewLayoutPayload({ number: '267565390' }), 'invalid_field', 'number'],
    ['a short trámite', buildNewLayoutPayload({ tramite: '123' }), 'invalid_field', 'tramite'],
    ['digits in the surname', buildNewLayoutPayload({ surname: 'PEREZ2' }), 'invalid_field', 'surname'],
    ['an empty given name', buildNewLayoutPayload({ givenNames: ' ' }), 'invalid_field', 'given_names'],
    ['a two-letter ejemplar', buildNewLayoutPayload({ series: 'AB' }), 'invalid_field', 'series'],
    ['a CUIL suffix with letters', buildNewLayoutPayload({ cuilSuffix: '2O3' }), 'invalid_field', 'cuil'],
    ['an old layout with 30 February expiry', buildOldLayoutPayload({ 12: '30/02/2026' }), 'invalid_field', 'expiry_date'],
    ['a 2026 layout with 31 April', buildReported2026Payload('31/04/62'), 'invalid_field', 'birth_date'],
  ])('when the payload is %s, then the failure is %s', (_case, payload, failure, field) => {
    const result = parseDniBarcode(payload, { today });

    expect(result).toMatchObject({ ok: false, failure });
    if (!result.ok) expect(result.field).toBe(field);
  });

  test('when the payload is cut at any length, then the parser answers without throwing', () => {
    const payloads = [buildNewLayoutPayload({ cuilSuffix: '203' }), buildOldLayoutPayload(), buildReported2026Payload()];

    for (const payload of payloads) {
      for (let length = 0; length <= payload.length; length += 1) {
        const result = parseDniBarcode(payload.slice(0, length), { today });
        expect(typeof result.ok).toBe('boolean');
      }
    }
  });

  test('when a failure is reported, then its detail does not repeat the holder data', () => {
    const result = parseDniBarcode(buildNewLayoutPayload({ surname: 'PEREZ2' }), { today });

    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.detail).not.toContain('PEREZ');
  });
});
