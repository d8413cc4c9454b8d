import {
  checkCuil,
  compareFields,
  mrzToDocumentFields,
  parseCuil,
  parseDniBarcode,
  parseMrz,
  type ComparableFields,
  type FieldName,
} from '@idv/verification/tooling';
import {
  DEFAULT_GENERATE_OPTIONS,
  DOCUMENT_VARIANTS,
  decodeLicencePayload,
  generateDocumentContent,
  type DocumentContent,
  type SideContent,
} from '../src';

/** The payloads of enough documents to meet every variant, defect and sex many times (no images: fast). */
const DOCUMENTS: DocumentContent[] = Array.from({ length: 360 }, (_, index) =>
  generateDocumentContent(index, { ...DEFAULT_GENERATE_OPTIONS, seed: 7 }),
);
const SIDES: { document: DocumentContent; side: SideContent }[] = DOCUMENTS.flatMap((document) =>
  document.sides.map((side) => ({ document, side })),
);
const TODAY = DEFAULT_GENERATE_OPTIONS.referenceDate;

const latin1Reading = (text: string, encoding: 'latin1' | 'utf8'): string =>
  // A decoder that reads the symbol's bytes as Latin-1 sees UTF-8 bytes as mojibake.
  encoding === 'utf8' ? Buffer.from(text, 'utf8').toString('latin1') : text;

describe('generated payloads read back with the verification parsers', () => {
  it('when the corpus is generated, then it holds every variant, both layouts of the 2012 barcode and every sex', () => {
    const variants = new Set(DOCUMENTS.map((document) => document.variant));
    expect([...variants].sort()).toEqual([...DOCUMENT_VARIANTS].sort());
    const fieldCounts = new Set(
      SIDES.flatMap(({ side }) => (side.barcode?.layout === 'new_2012' ? [side.barcode.field_count] : [])),
    );
    expect([...fieldCounts].sort()).toEqual([8, 9]);
    expect(new Set(DOCUMENTS.map((document) => document.fields.sex))).toEqual(new Set(['M', 'F', 'X']));
    expect(
      DOCUMENTS.some((document) => /Ñ/.test(document.fields.surname ?? '') || /Ñ/.test(document.fields.given_names ?? '')),
    ).toBe(true);
    expect(DOCUMENTS.some((document) => document.fields.number?.length === 7)).toBe(true);
  });

  it('when a DNI barcode payload is parsed, then every field it carries equals the label', () => {
    const dniBarcodes = SIDES.filter(({ side }) => side.barcode !== null && side.barcode.layout !== 'corpus_licence_v1');
    expect(dniBarcodes.length).toBeGreaterThan(100);
    for (const { document, side } of dniBarcodes) {
      const barcode = side.barcode!;
      const parsed = parseDniBarcode(latin1Reading(barcode.payload, barcode.encoding), { today: TODAY });
      if (!parsed.ok) throw new Error(`${document.document_id}: ${parsed.detail}`);
      expect(parsed.layout).toBe(barcode.layout);
      expect(parsed.encoding_repaired).toBe(
        barcode.encoding === 'utf8' && [...barcode.payload].some((char) => char.charCodeAt(0) > 127),
      );
      const carried: FieldName[] = ['tramite', 'surname', 'given_names', 'sex', 'number', 'series', 'birth_date', 'issue_date'];
      if (barcode.layout === 'old_2009') carried.push('expiry_date');
      if (barcode.field_count === 9) carried.push('cuil');
      for (const field of carried)
        expect({ field, value: parsed.fields[field] }).toEqual({ field, value: document.fields[field] });
    }
  });

  it('when an MRZ is parsed, then its check digits hold exactly when the label says so and its fields match the label', () => {
    const zones = SIDES.filter(({ side }) => side.mrz !== null);
    expect(zones.length).toBeGreaterThan(100);
    for (const { document, side } of zones) {
      const parsed = parseMrz(side.mrz!.lines);
      if (!parsed.ok) throw new Error(`${document.document_id}: ${parsed.detail}`);
      expect(parsed.format).toBe(side.mrz!.format);
      expect(parsed.valid).toBe(side.mrz!.valid);
      expect(parsed.valid).toBe(!document.defects.includes('mrz_check_digit'));
      if (!parsed.valid) continue;
      const read: ComparableFields = {
        ...mrzToDocumentFields(parsed, { today: TODAY }),
        names_truncated: parsed.names_truncated,
      };
      const label: ComparableFields = document.fields;
      expect(
        compareFields(read, label, ['number', 'surname', 'given_names', 'sex', 'birth_date', 'expiry_date', 'issuing_state']),
      ).toEqual([]);
    }
  });

  it('when an MRZ check digit is broken on purpose, then the parser reports a check digit mismatch', () => {
    const broken = SIDES.filter(({ side }) => side.mrz !== null && !side.mrz.valid);
    expect(broken.length).toBeGreaterThan(3);
    for (const { side } of broken) {
      const parsed = parseMrz(side.mrz!.lines);
      expect(parsed.ok && parsed.problems.some((problem) => problem.problem === 'check_digit_mismatch')).toBe(true);
    }
  });

  it('when a CUIL is printed, then it passes the CUIL check exactly when the label says it is valid', () => {
    const withCuil = DOCUMENTS.filter((document) => document.fields.cuil !== null);
    expect(withCuil.some((document) => document.cuil_valid === false)).toBe(true);
    for (const document of withCuil) {
      expect(parseCuil(document.fields.cuil!).ok).toBe(document.cuil_valid);
      const verdict = checkCuil(document.fields.cuil, { sex: document.fields.sex, number: document.fields.number });
      expect(verdict.status).toBe(document.cuil_valid === true ? 'passed' : 'failed');
    }
  });

  it('when a licence barcode is decoded, then it gives back the label, and no DNI layout takes it for a DNI', () => {
    const licences = SIDES.filter(({ side }) => side.barcode?.layout === 'corpus_licence_v1');
    expect(licences.length).toBeGreaterThan(20);
    for (const { document, side } of licences) {
      const decoded = decodeLicencePayload(side.barcode!.payload);
      expect(decoded).toMatchObject({
        number: document.fields.number,
        surname: document.fields.surname,
        given_names: document.fields.given_names,
        sex: document.fields.sex,
        birth_date: document.fields.birth_date,
        issue_date: document.fields.issue_date,
        expiry_date: document.fields.expiry_date,
      });
      expect(parseDniBarcode(side.barcode!.payload, { today: TODAY }).ok).toBe(false);
    }
  });

  it('when a document is labelled expired or defective, then its expected reason codes say so and only so', () => {
    for (const document of DOCUMENTS) {
      expect(document.expired).toBe((document.fields.expiry_date ?? '9999') < document.reference_date);
      const codes = new Set(document.expected_reason_codes);
      expect(codes.has('document_expired')).toBe(document.expired);
      expect(codes.has('document_cuil_invalid')).toBe(document.defects.includes('cuil_check_digit'));
      expect(codes.has('document_mrz_invalid')).toBe(document.defects.includes('mrz_check_digit'));
      expect(codes.has('document_data_mismatch')).toBe(document.defects.includes('printed_data_mismatch'));
    }
    expect(DOCUMENTS.some((document) => document.expired)).toBe(true);
    expect(DOCUMENTS.some((document) => document.expected_reason_codes.length === 0)).toBe(true);
  });

  it('when the printed data is altered on purpose, then the printed number differs from the machine-readable one', () => {
    const altered = DOCUMENTS.filter((document) => document.defects.includes('printed_data_mismatch'));
    expect(altered.length).toBeGreaterThan(3);
    for (const document of altered) {
      const front = document.sides.find((side) => side.side === 'front')!;
      expect(compareFields({ number: front.printed.number ?? null }, { number: document.fields.number }, ['number'])).toEqual([
        'number',
      ]);
      // One digit changed to another digit, as a forger's edit would: same length, letters left alone.
      const printed = (front.printed.number ?? '').replace(/\./g, '');
      const genuine = document.fields.number!;
      expect(printed).toHaveLength(genuine.length);
      const changed = [...genuine].flatMap((character, index) => (character === printed[index] ? [] : [index]));
      expect(changed).toHaveLength(1);
      expect(genuine[changed[0]!]).toMatch(/\d/);
      expect(printed[changed[0]!]).toMatch(/\d/);
    }
    // Passports with letters in their numbers are among them (the edit once wrote 'NaN' over a letter).
    expect(altered.some((document) => /[A-Z]/.test(document.fields.number ?? ''))).toBe(true);
    const intact = DOCUMENTS.filter((document) => !document.defects.includes('printed_data_mismatch'));
    for (const document of intact) {
      const front = document.sides.find((side) => side.side === 'front')!;
      expect(
        compareFields(front.printed, document.fields, ['number', 'surname', 'given_names', 'sex', 'birth_date', 'expiry_date']),
      ).toEqual([]);
    }
  });

  it('when a holder is X, then the document was issued after the X marker existed', () => {
    for (const document of DOCUMENTS.filter((candidate) => candidate.fields.sex === 'X')) {
      expect(document.fields.issue_date! >= '2021-07-21').toBe(true);
    }
  });
});
