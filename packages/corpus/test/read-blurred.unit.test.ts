import { readSide, stopReaders } from '@idv/verification';
import { DEFAULT_GENERATE_OPTIONS, generateDocumentImages } from '../src';

afterAll(async () => {
  await stopReaders();
});

describe('the service reading a defocused corpus photo', () => {
  it('when a passport page is blurred by about 2 px, then its MRZ is read exactly through the deblurred variants', async () => {
    // Seed 7's document 14 (profile `blur`, an Argentine passport) read no MRZ before the MRZ search
    // deblurred the zone (bench/documents, 2026-11-25): the plain crop's check digits failed.
    const [page] = await generateDocumentImages(14, { ...DEFAULT_GENERATE_OPTIONS, seed: 7 });
    if (page === undefined) throw new Error('the corpus gave no image');
    expect(page.label.degradation.profile).toBe('blur');

    const reading = await readSide(page.image, { side: 'front', acceptedTypes: ['passport'], today: page.label.reference_date });

    expect(reading.mrz?.valid).toBe(true);
    expect(reading.mrz?.lines).toEqual(page.label.mrz?.lines);
  }, 60_000);
});
