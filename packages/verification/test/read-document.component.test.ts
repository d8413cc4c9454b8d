import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { blankSideReading, combineSides, perceptualSignature, readDocument, stopEngines, type SideReading } from '../src/tooling';
import { REFERENCE_DOCUMENTS_DIR } from './reference-data';

const TODAY = '2026-11-23';

function referenceImage(relative: string): Buffer {
  const file = path.join(REFERENCE_DOCUMENTS_DIR, 'images', relative);
  if (!fs.existsSync(file))
    throw new Error(`reference image ${file} is missing: shared/ must be checked out beside the repository`);
  return fs.readFileSync(file);
}

/** A side as readSide reports it, with only what a test sets. */
function buildSide(overrides: Partial<SideReading>): SideReading {
  return { ...blankSideReading(overrides.side ?? 'front'), ...overrides };
}

const BARCODE_FIELDS = {
  doc_type: 'dni' as const,
  series: 'A',
  number: '26756539',
  surname: 'PEREZ',
  given_names: 'JUAN CARLOS',
  sex: 'M' as const,
  birth_date: '1978-03-15',
  cuil: '20-26756539-3',
  expiry_date: null,
  issue_date: '2017-04-20',
  tramite: '00123456789',
  nationality: null,
  issuing_state: 'ARG',
};

/** A 2012 front's print, every field a check needs settled as `status` says (agreeing unless named). */
function printedFront(
  fields: NonNullable<SideReading['printed']>['fields'],
  status: NonNullable<SideReading['printed']>['status'] = {},
): NonNullable<SideReading['printed']> {
  const settled = {
    surname: 'agrees',
    given_names: 'agrees',
    number: 'agrees',
    sex: 'agrees',
    birth_date: 'agrees',
    expiry_date: 'read',
  } as const;
  return { layout: 'dni_2012_front', fields, raw: {}, status: { ...settled, ...status }, labels: [] };
}

afterAll(async () => {
  await stopEngines();
});

describe('combineSides', () => {
  it('when the printed surname differs from the barcode, then document_data_mismatch names the field', () => {
    const front = buildSide({
      detected_type: 'dni',
      detected_face: 'front',
      barcode_fields: BARCODE_FIELDS,
      printed: printedFront({ surname: 'GOMEZ', number: '26756539', expiry_date: '2032-04-20' }, { surname: 'differs' }),
    });

    const reading = combineSides([front], { acceptedTypes: ['dni'], today: TODAY });

    expect(reading.reasons).toEqual(['document_data_mismatch']);
    expect(reading.checks.find((check) => check.name === 'data_consistency')).toMatchObject({
      verdict: 'failed',
      fields: ['surname'],
    });
    expect(reading.fields).toMatchObject({ surname: 'PEREZ', expiry_date: '2032-04-20', cuil: '20-26756539-3' });
  });

  it("when the CUIL prefix is a woman's on a man's DNI, then document_cuil_invalid", () => {
    const front = buildSide({
      detected_type: 'dni',
      detected_face: 'front',
      barcode_fields: { ...BARCODE_FIELDS, cuil: '27-26756539-7' },
    });

    const reading = combineSides([front], { acceptedTypes: ['dni'], today: TODAY });

    expect(reading.reasons).toContain('document_cuil_invalid');
  });

  it('when the front shows a back and the type is not accepted, then document_type_mismatch', () => {
    const front = buildSide({
      detected_type: 'dni',
      detected_face: 'back',
      problems: ['other_side'],
      barcode_fields: BARCODE_FIELDS,
    });

    const reading = combineSides([front], { acceptedTypes: ['passport'], today: TODAY });

    expect(reading.checks.filter((check) => check.reason === 'document_type_mismatch').map((check) => check.name)).toEqual([
      'document_type',
      'side',
    ]);
  });

  it('when the angled front agrees on one name only, then the angle check is inconclusive rather than passed', () => {
    const front = buildSide({ detected_type: 'dni', barcode_fields: BARCODE_FIELDS });
    const surnameOnly = buildSide({
      side: 'front_angle',
      printed: printedFront({ surname: BARCODE_FIELDS.surname }),
    });
    const numberToo = buildSide({
      side: 'front_angle',
      printed: printedFront({ surname: BARCODE_FIELDS.surname, number: BARCODE_FIELDS.number }),
    });
    const angleOf = (angled: SideReading) =>
      combineSides([front, angled], { acceptedTypes: ['dni'], today: TODAY }).checks.find((check) => check.name === 'angle');

    expect(angleOf(surnameOnly)).toEqual({ name: 'angle', verdict: 'inconclusive', detail: 'only surname read on both' });
    expect(angleOf(numberToo)).toMatchObject({ verdict: 'passed' });
  });

  it('when front and front_angle carry different DNI numbers, then document_angle_mismatch', () => {
    const front = buildSide({ detected_type: 'dni', barcode_fields: BARCODE_FIELDS });
    const angled = buildSide({
      side: 'front_angle',
      detected_type: 'dni',
      barcode_fields: { ...BARCODE_FIELDS, number: '30111222' },
    });

    const reading = combineSides([front, angled], { acceptedTypes: ['dni'], today: TODAY });

    expect(reading.checks.find((check) => check.name === 'angle')).toMatchObject({ verdict: 'failed', fields: ['number'] });
    expect(reading.reasons).toContain('document_angle_mismatch');
  });

  it('when the angled front is the front photo again, then document_angle_mismatch though every field agrees', async () => {
    const signature = await perceptualSignature(referenceImage('dni/ar_dni_2012_specimen_front_villareal.jpg'));
    const front = buildSide({ detected_type: 'dni', barcode_fields: BARCODE_FIELDS, image_signature: signature });
    const again = buildSide({
      side: 'front_angle',
      detected_type: 'dni',
      barcode_fields: BARCODE_FIELDS,
      image_signature: signature,
    });

    const reading = combineSides([front, again], { acceptedTypes: ['dni'], today: TODAY });

    expect(reading.checks.find((check) => check.name === 'angle')).toMatchObject({
      verdict: 'failed',
      reason: 'document_angle_mismatch',
    });
    expect(reading.reasons).toEqual(['document_angle_mismatch']);
  });

  it('when the quality module reports a screen, then document_screen_detected', () => {
    const front = buildSide({
      detected_type: 'dni',
      barcode_fields: BARCODE_FIELDS,
      quality: {
        blur: 1,
        glare: 0,
        brightness: 128,
        screen: { score: 0.9, detected: true, judged: true, evidence: 'colour' },
        problems: [],
        assessed: true,
      },
    });

    expect(combineSides([front], { acceptedTypes: ['dni'], today: TODAY }).reasons).toContain('document_screen_detected');
  });

  it('when a side was too blurred to judge for recapture, then the screen check is inconclusive, not passed', () => {
    const quality = (judged: boolean) => ({
      blur: 40,
      glare: 0,
      brightness: 128,
      screen: { score: 0.1, detected: false, judged, evidence: null },
      problems: [],
      assessed: true,
    });
    const judgedFront = buildSide({ detected_type: 'dni', barcode_fields: BARCODE_FIELDS, quality: quality(true) });
    const blurredBack = buildSide({
      side: 'back',
      detected_type: 'dni',
      barcode_fields: BARCODE_FIELDS,
      quality: quality(false),
    });

    expect(combineSides([judgedFront], { acceptedTypes: ['dni'], today: TODAY }).checks).toContainEqual({
      name: 'screen',
      verdict: 'passed',
    });
    expect(
      combineSides([judgedFront, blurredBack], { acceptedTypes: ['dni'], today: TODAY }).checks.find(
        (check) => check.name === 'screen',
      ),
    ).toEqual({ name: 'screen', verdict: 'inconclusive', detail: 'too blurred to judge: back' });
  });
});

describe('readDocument', () => {
  it('when the 2012 specimen front and a tilted photo of it are read, then the angle check passes on the same data', async () => {
    const front = referenceImage('dni/ar_dni_2012_specimen_front_villareal.jpg');
    const angled = await sharp(front).rotate(8, { background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer();

    const reading = await readDocument(
      [
        { side: 'front', image: front },
        { side: 'front_angle', image: angled },
      ],
      { acceptedTypes: ['dni'], today: TODAY, expectedType: 'dni' },
    );

    expect(reading.doc_type).toBe('dni');
    expect(reading.checks.find((check) => check.name === 'angle')).toMatchObject({ verdict: 'passed' });
    expect(reading.fields).toMatchObject({ number: '99999999', surname: 'VILLAREAL', birth_date: '1969-11-01' });
    expect(reading.face_crop).not.toBeNull();
  });
});
