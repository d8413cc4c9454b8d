import { readSide, stopEngines } from '@idv/verification/tooling';
import { corpusPage } from './pages';

afterAll(async () => {
  await stopEngines();
});

describe('the service reading a defocused corpus photo', () => {
  it('when a passport page is blurred by about 2 px, then its MRZ is read exactly through the deblurred variants', async () => {
    // Seed 7's document 14 (profile `blur`, an Argentine passport) read no MRZ before the MRZ search
    // deblurred the zone (bench/documents, 2026-11-25): the plain crop's check digits failed.
    const page = await corpusPage(7, 14);
    expect(page.label.degradation.profile).toBe('blur');

    const reading = await readSide(page.image, { side: 'front', acceptedTypes: ['passport'], today: page.label.reference_date });

    expect(reading.mrz?.valid).toBe(true);
    expect(reading.mrz?.lines).toEqual(page.label.mrz?.lines);
  }, 60_000);

  it('when a blurred passport number is read with S for 5, then the second engine picks the one repair that passes', async () => {
    // Seed 99's document 4 (blur, a Paraguayan passport): the legacy engine read `S784835` for `5784835`,
    // failing the number's and the composite's check digits; the genuine passport was rejected with
    // `document_mrz_invalid` (bench/documents, 2026-11-26).
    const page = await corpusPage(99, 4);
    expect(page.label.degradation.profile).toBe('blur');

    const reading = await readSide(page.image, { side: 'front', acceptedTypes: ['passport'], today: page.label.reference_date });

    expect(reading.mrz?.valid).toBe(true);
    expect(reading.mrz?.lines[1]).toBe(page.label.mrz?.lines[1]);
  }, 60_000);
});
