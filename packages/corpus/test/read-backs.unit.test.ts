import { readDocument, readSide, stopReaders } from '@idv/verification';
import { DEFAULT_GENERATE_OPTIONS, generateDocumentImages } from '../src';

afterAll(async () => {
  await stopReaders();
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
