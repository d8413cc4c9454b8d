import { readDocument, readSide, stopEngines } from '@idv/verification/tooling';
import { DEFAULT_GENERATE_OPTIONS, generateDocumentImages } from '../src';

afterAll(async () => {
  await stopEngines();
});

async function corpusDocument(seed: number, index: number) {
  const images = await generateDocumentImages(index, { ...DEFAULT_GENERATE_OPTIONS, seed });
  if (images.length === 0) throw new Error('the corpus gave no image');
  return images;
}

describe('the CUIL printed on a DNI back, read by the service', () => {
  it('when a 2009 card back is photographed, then its printed CUIL is read (its barcode carries none)', async () => {
    // Seed 42's document 40: a 2009 DNI, profile `clean`.
    const back = (await corpusDocument(42, 40)).find((image) => image.label.side === 'back');
    if (back === undefined) throw new Error('no back');
    expect(back.label.layout).toBe('dni_2009_back');

    const reading = await readSide(back.image, { side: 'back', acceptedTypes: ['dni'], today: back.label.reference_date });

    expect(reading.barcode_fields?.cuil ?? null).toBeNull();
    expect(reading.printed?.fields.cuil).toBe(back.label.fields.cuil);
  }, 60_000);

  it('when a 2009 card prints a CUIL whose check digit is wrong, then the document is rejected for it', async () => {
    // Seed 7's document 2: a 2009 DNI with the corpus's `cuil_check_digit` defect, accepted before the
    // backs' print was read (bench/documents, 2026-11-25).
    const images = await corpusDocument(7, 2);
    expect(images[0]?.label.expected.reason_codes).toEqual(['document_cuil_invalid']);

    const reading = await readDocument(
      images.map((image) => ({ side: image.label.side, image: image.image })),
      { acceptedTypes: ['dni'], today: images[0]?.label.reference_date ?? '2026-11-23' },
    );

    expect(reading.reasons).toContain('document_cuil_invalid');
  }, 90_000);
});

describe('the number printed on a passport data page, read by the service', () => {
  it('when a passport prints another number than its MRZ says, then the document is rejected for the mismatch', async () => {
    // Seed 42's document 42: a German passport photographed on its side, with the corpus's
    // `printed_data_mismatch` defect (one digit of the printed number changed: C38X78T97 for C38X78T67),
    // accepted before the visual zone was read.
    const [page] = await corpusDocument(42, 42);
    if (page === undefined) throw new Error('no page');
    expect(page.label.expected.defects).toEqual(['printed_data_mismatch']);

    const reading = await readDocument([{ side: 'front', image: page.image }], {
      acceptedTypes: ['passport'],
      today: page.label.reference_date,
    });

    expect(reading.reasons).toEqual(['document_data_mismatch']);
    expect(reading.fields.number).toBe(page.label.fields.number);
  }, 60_000);

  it('when a genuine passport is read, then its printed number agrees with the MRZ and it is accepted', async () => {
    // Seed 42's document 20: a foreign passport, profile `clean`.
    const [page] = await corpusDocument(42, 20);
    if (page === undefined) throw new Error('no page');
    expect(page.label.expected.reason_codes).toEqual([]);

    const side = await readSide(page.image, { side: 'front', acceptedTypes: ['passport'], today: page.label.reference_date });

    expect(side.printed?.fields.number).toBe(page.label.fields.number);
    expect(side.mrz_fields?.number).toBe(page.label.fields.number);
  }, 60_000);
});

describe('the MRZ read by the service', () => {
  // Corpus seed 6001 with the MRZ-bearing variants and the profiles of an ordinary photo (the set the
  // MRZ reader's changes of 2026-11-27 were measured on: docs/documents.md, "Reading images").
  const MRZ_SET = {
    ...DEFAULT_GENERATE_OPTIONS,
    seed: 6001,
    variants: ['passport_arg', 'passport_foreign', 'dni_2012_8', 'dni_2012_9', 'dni_2009'] as const,
    profiles: ['clean', 'tilt', 'rotated', 'perspective', 'blur', 'jpeg', 'glare', 'low_light', 'print'] as const,
  };
  /** Document `index`'s side with an MRZ, and that side read as the service reads it. */
  async function readMrzSide(index: number) {
    const images = await generateDocumentImages(index, MRZ_SET);
    const page = images.find((image) => image.label.mrz !== null);
    if (page === undefined) throw new Error('no MRZ side');
    const { side, reference_date: today } = page.label;
    const reading = await readSide(page.image, { side, acceptedTypes: ['dni', 'passport'], today });
    return { page, reading };
  }

  it.each([
    // Document 83: a 2012 DNI back turned by 89°; its zone was read upside down and no MRZ found.
    [83, 'rotated', 'a card turned by 90° lies off-centre, so that its zone falls in the half an upright page has it'],
    // Document 34: a 2012 DNI back in low light (gain 0.23, sensor noise σ 8.6); read as it is, the zone
    // gave noise read as letters and no valid line. It is read smoothed.
    [34, 'low_light', 'a dim photo stretches its sensor noise over the zone'],
  ])(
    'when (document %i, %s) %s, then the zone is read exactly',
    async (index, profile) => {
      const { page, reading } = await readMrzSide(index);
      expect(page.label.degradation.profile).toBe(profile);

      expect(reading.mrz?.lines).toEqual(page.label.mrz?.lines);
      expect(reading.mrz?.valid).toBe(true);
    },
    60_000,
  );

  it('when a blurred M is read as H in the sex, then the sex is taken as M and the zone is valid', async () => {
    // Document 103: a blurred 2009 front (σ ≈ 3 px); every check digit held and the zone was invalid for the H.
    const { reading } = await readMrzSide(103);

    expect(reading.mrz?.valid).toBe(true);
    expect(reading.mrz_fields?.sex).toBe('M');
  }, 60_000);

  it('when the variants split on a blurred M in the names, then the names the other engine reads are given back', async () => {
    // Document 193: `HUNOZ<<HARTINA` chosen, `MUNOZ<<MARTINA` read by other variants and by the LSTM engine.
    const { page, reading } = await readMrzSide(193);

    expect(reading.mrz?.lines).toEqual(page.label.mrz?.lines);
    expect(reading.mrz_fields?.surname).toBe('MUNOZ');
    expect(reading.mrz_fields?.given_names).toBe('MARTINA CAMILA');
  }, 60_000);

  it('when every OCR variant misreads the names and the glyphs read them as the second engine does, then they are given back', async () => {
    // Document 67: every variant of the OCR engine read `ROHERO` or worse, the LSTM engine `ROMERO`: until
    // 2026-11-28 one engine alone gave nothing and the names were withheld. Matched glyph by glyph
    // (mrz-glyphs.ts), the zone reads `ROMERO`, which the LSTM engine confirms.
    const { page, reading } = await readMrzSide(67);

    expect(reading.mrz?.lines).toEqual(page.label.mrz?.lines);
    expect(reading.mrz).toMatchObject({ valid: true, names_second_read: 'agreed', names_withheld: false });
    expect(reading.mrz_fields?.surname).toBe('ROMERO');
  }, 60_000);
});
