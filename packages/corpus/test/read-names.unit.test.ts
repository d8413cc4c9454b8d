import { readSide, stopReaders } from '@idv/verification';
import { corpusPage } from './pages';

afterAll(async () => {
  await stopReaders();
});

describe('the MRZ names a passport photo gives back', () => {
  it('when one variant reads the names line with a stray mark before it, then that is no contradiction and the names are given', async () => {
    // Seed 7's document 53 (perspective, a Uruguayan passport): two variants read the names exactly, the
    // binarised one `HP<URYNUNEZ…`. Counted as other names, it withheld them and the passport was
    // rejected as unreadable (bench/documents, 2026-11-26).
    const passport = await corpusPage(7, 53);
    expect(passport.label.degradation.profile).toBe('perspective');

    const reading = await readSide(passport.image, {
      side: 'front',
      acceptedTypes: ['passport'],
      today: passport.label.reference_date,
    });

    expect(reading.mrz).toMatchObject({ valid: true, names_second_read: 'agreed', names_withheld: false });
    expect(reading.mrz_fields?.surname).toBe('NUNEZ');
    expect(reading.mrz_fields?.given_names).toBe('NICOLAS NAHUEL');
  }, 60_000);

  it('when variants read the names with an M and with an H, then the names are withheld', async () => {
    // Seed 7's document 14 (blur): MARTIN read as HARTIN by three variants and as MARTIN by three.
    const passport = await corpusPage(7, 14);

    const reading = await readSide(passport.image, {
      side: 'front',
      acceptedTypes: ['passport'],
      today: passport.label.reference_date,
    });

    expect(reading.mrz).toMatchObject({ valid: true, names_withheld: true });
    expect(reading.mrz_fields?.surname).toBeNull();
  }, 60_000);
});
