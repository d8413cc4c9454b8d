import sharp from 'sharp';
import { mrzNameWords, namesAgree, secondReadOfNames } from '../src/readers/names-check';
import { stopOcr } from '../src/readers/ocr';

afterAll(async () => {
  await stopOcr();
});

const TD3_NAMES = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<';

/** The names line as a camera-sharp MRZ crop: OCR-B (fonts-ocr-b), dark on light grey, 1200 px wide. */
async function namesLineImage(line: string): Promise<{ png: Buffer; box: { x0: number; y0: number; x1: number; y1: number } }> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="120">
    <rect width="1200" height="120" fill="#ececec"/>
    <text x="20" y="78" font-family="OCR B" font-size="44" fill="#1a1a1a">${line.replace(/</g, '&lt;')}</text>
  </svg>`;
  return { png: await sharp(Buffer.from(svg)).png().toBuffer(), box: { x0: 20, y0: 44, x1: 1180, y1: 80 } };
}

describe('mrzNameWords', () => {
  it.each([
    ['TD3', TD3_NAMES, ['ERIKSSON', 'ANNA', 'MARIA']],
    ['TD2', 'I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', ['ERIKSSON', 'ANNA', 'MARIA']],
    ['TD1', 'VILLAREAL<<MARIA<VICTORIA<<<<<', ['VILLAREAL', 'MARIA', 'VICTORIA']],
  ] as const)(
    'when a %s names line is split, then its words are the names without type, state or filler',
    (format, line, words) => {
      expect(mrzNameWords(line, format)).toEqual(words);
    },
  );

  it('when the names field is all filler, then there are no words', () => {
    expect(mrzNameWords('P<UTO<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<', 'TD3')).toEqual([]);
  });
});

describe('namesAgree', () => {
  it('when the other engine reads the filler as C, L and K, then the words alone are compared and agree', () => {
    expect(namesAgree(['ALVAREZ', 'CAMILA'], 'PCURYALVAREZ<<CAMILACCCCCCCCLCCCLLLLKLLLLLL')).toBe(true);
  });

  it('when the other engine reads a letter of the names otherwise, then they disagree', () => {
    expect(namesAgree(['ALVAREZ', 'CAHILA'], 'PCURYALVAREZ<<CAMILACCCCCCCC')).toBe(false);
  });

  it('when the first engine cut a word short, then the longer word read by the other does not hold it', () => {
    expect(namesAgree(['MARTINE', 'NOA'], 'P<BRAMARTINEZ<<NOA<<C<CLCLL')).toBe(false);
  });

  it('when a word also occurs inside another, then the occurrence that ends at a filler counts', () => {
    expect(namesAgree(['ANA'], 'P<ARGANALIA<<ANA<<<<')).toBe(true);
  });

  it('when the words appear only out of order, then they disagree', () => {
    expect(namesAgree(['CAMILA', 'ALVAREZ'], 'P<URYALVAREZ<<CAMILA<<<<')).toBe(false);
  });

  it('when the other engine splits the line with spaces, then spacing is ignored', () => {
    expect(namesAgree(['ERIKSSON', 'ANNA', 'MARIA'], 'P<UTO ERIKS SON<<ANNA<MA RIA')).toBe(true);
  });

  it('when the other engine read nothing, then they disagree', () => {
    expect(namesAgree(['NOA'], '')).toBe(false);
  });
});

describe('secondReadOfNames with the LSTM engine', () => {
  it('when the names line is read again, then the names the legacy engine read agree', async () => {
    const { png, box } = await namesLineImage(TD3_NAMES);

    const second = await secondReadOfNames(png, box, ['ERIKSSON', 'ANNA', 'MARIA']);

    expect(second.verdict).toBe('agreed');
  });

  it('when the legacy engine read an M as H, then the second read disagrees', async () => {
    const { png, box } = await namesLineImage(TD3_NAMES);

    const second = await secondReadOfNames(png, box, ['ERIKSSON', 'ANNA', 'HARIA']);

    expect(second.verdict).toBe('disagreed');
    expect(second.text).toContain('MARIA');
  });
});
