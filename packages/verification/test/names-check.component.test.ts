import sharp from 'sharp';
import { decodeGrey } from '../src/image/raster';
import { FILLER_GLYPH_THRESHOLD } from '../src/calibration/mrz';
import { fillerLikeness } from '../src/readers/filler-glyphs';
import {
  mrzNameWords,
  namesAgree,
  namesPickedBySecondRead,
  secondReadOfNames,
  verdictAmongRivals,
} from '../src/readers/names-check';
import { MRZ_WHITELIST, recognise, stopOcr, type OcrLine } from '../src/readers/ocr';

afterAll(async () => {
  await stopOcr();
});

const TD3_NAMES = 'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<';

/**
 * The names line as a camera-sharp MRZ crop: OCR-B (fonts-ocr-b), dark on light grey, 1500 px wide,
 * turned by `degrees` about its middle as a slanted photo would show it.
 */
async function namesLineImage(line: string, degrees = 0): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1500" height="160">
    <rect width="1500" height="160" fill="#ececec"/>
    <text x="20" y="98" font-family="OCR B" font-size="44" fill="#1a1a1a" transform="rotate(${degrees} 750 80)">${line.replace(/</g, '&lt;')}</text>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The legacy engine's line of the image, with its symbols' boxes: what the MRZ reader keeps of a read. */
async function legacyLine(png: Buffer): Promise<OcrLine> {
  const { lines } = await recognise(png, { whitelist: MRZ_WHITELIST, mode: 'block' });
  const [line] = lines;
  if (line === undefined) throw new Error('the legacy engine read no line');
  return line;
}

/** The line as if the legacy engine had read the symbol at `index` as `text`, its box unchanged. */
function misreadAt(line: OcrLine, index: number, text: string): OcrLine {
  let position = 0;
  return {
    ...line,
    words: line.words.map((word) => ({
      ...word,
      symbols: word.symbols.map((symbol) => (position++ === index ? { ...symbol, text } : symbol)),
    })),
  };
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

describe('namesAgree where the photo shows a filler after a word', () => {
  it('when the other engine reads the filler after a word as D and the glyph there is a filler, then they agree', () => {
    // Seed 99's document 15: the LSTM engine's `BRUNOD<KK` for `BRUNO<<<<`.
    expect(namesAgree(['SUAREZ', 'BRUNO'], 'P<BRASUAREZ<<KBRUNOD<KKLLLLLL', [false, true])).toBe(true);
  });

  it('when the glyph after the word is not known to be a filler, then the D still parts them', () => {
    expect(namesAgree(['SUAREZ', 'BRUNO'], 'P<BRASUAREZ<<KBRUNOD<KKLLLLLL', [false, false])).toBe(false);
  });

  it('when the glyphs were measured and the one after a word is no filler, then an L there is the word going on', () => {
    // `MIGUE<` for `MIGUEL`: read from the text alone, the L would pass for a filler read as L.
    expect(namesAgree(['PEREZ', 'MIGUE'], 'P<ARGPEREZ<<MIGUEL<<<<', null)).toBe(true);
    expect(namesAgree(['PEREZ', 'MIGUE'], 'P<ARGPEREZ<<MIGUEL<<<<', [true, false])).toBe(false);
  });
});

describe('verdictAmongRivals', () => {
  const chosen = ['ALVAREZ', 'MARTIN'];

  it('when the second engine reads the chosen names and not the rival a variant read, then it agrees', () => {
    const second = { verdict: 'agreed' as const, text: 'P<URYALVAREZ<<MARTINCCCCCCC' };

    expect(verdictAmongRivals(second, chosen, [['ALVAREZ', 'HARTIN']])).toBe('agreed');
  });

  it('when its text holds the rival names too, then it cannot pick between them and disagrees', () => {
    // The glyph after MARTIN looked like a filler, so the E the engine read there let MARTIN agree; the
    // same text holds a variant's MARTINE followed by a filler read as C.
    const second = { verdict: 'agreed' as const, text: 'P<URYALVAREZ<<MARTINECCCCC' };

    expect(verdictAmongRivals(second, chosen, [['ALVAREZ', 'MARTINE']])).toBe('disagreed');
  });

  it('when a rival has the same words (other fillers), then it is no rival', () => {
    const second = { verdict: 'agreed' as const, text: 'P<URYALVAREZ<<MARTINCCCCCCC' };

    expect(verdictAmongRivals(second, chosen, [['ALVAREZ', 'MARTIN']])).toBe('agreed');
  });

  it('when the second engine disagreed or read nothing, then that stands', () => {
    expect(verdictAmongRivals({ verdict: 'disagreed', text: 'X' }, chosen, [])).toBe('disagreed');
    expect(verdictAmongRivals({ verdict: 'unread', text: null }, chosen, [['ALVAREZ', 'HARTIN']])).toBe('unread');
  });
});

describe('namesPickedBySecondRead', () => {
  // Corpus seed 6001, document 193 (a blurred 2009 front): three variants of the legacy engine read a
  // blurred M as H, four read it right; the chosen (valid) read was one of the three.
  const chosen = 'HUNOZ<<HARTINA<CAMILA<<<<<<<<<';
  const right = 'MUNOZ<<MARTINA<CAMILA<<<<<<<<<';

  it('when the second engine reads the names one variant read and not the chosen ones, then those are picked', () => {
    const second = { text: 'MUNOZ<<MARTINA<KCAMILA<<LLLLLLLL', fillerSeenAfter: null };

    expect(namesPickedBySecondRead(second, chosen, [right, 'HUNOZ<<HARTINA<CAHILA<<<<<<<<<'], 'TD1')).toBe(right);
  });

  it('when its text holds two of the lines, then none is picked', () => {
    // Read without the glyphs, MIGUE followed by an L is MIGUE and a filler read as L as much as MIGUEL.
    const second = { text: 'PEREZ<<MIGUEL<<<<<<<<<<<<<<<<<', fillerSeenAfter: null };
    const lines = ['PEREZ<<MIGUEL<<<<<<<<<<<<<<<<<', 'PEREZ<<MIGUE<<<<<<<<<<<<<<<<<<'];

    expect(namesPickedBySecondRead(second, 'PEREZ<<HIGUEL<<<<<<<<<<<<<<<<<', lines, 'TD1')).toBeNull();
  });

  it('when its text holds none of the other lines, then none is picked', () => {
    const second = { text: 'ROMERO<<FACUNDO<<<<L<LLLLLLLLL', fillerSeenAfter: null };

    expect(
      namesPickedBySecondRead(second, 'ROHERO<<FACUNDO<<<<<<<<<<<<<<<', ['RONERO<<SACUNDO<<<<<<<<<<<<<<<'], 'TD1'),
    ).toBeNull();
  });

  it('when only the chosen names are in its text (leniently), then nothing is picked: the chosen names stay withheld', () => {
    const second = { text: 'MUNOZ<<MARTINA<CAMILA<<<<<<<<<', fillerSeenAfter: null };

    expect(namesPickedBySecondRead(second, right, [chosen], 'TD1')).toBeNull();
  });

  it('when the glyphs after the chosen words were measured, then they count for a line with its fillers in the same places', () => {
    // Seed 6001, document 4: the LSTM engine read the lone filler between the two surnames as S.
    const text = 'DALESSANDROSGIMENEZ<<JULIETALKL';
    const rival = 'DALESSANDRO<GIMENEZ<<JULIETA<<';

    expect(namesPickedBySecondRead({ text, fillerSeenAfter: null }, 'DALESSANDRO<GIHENEZ<<JULIETA<<', [rival], 'TD1')).toBeNull();
    expect(
      namesPickedBySecondRead({ text, fillerSeenAfter: [true, true, true] }, 'DALESSANDRO<GIHENEZ<<JULIETA<<', [rival], 'TD1'),
    ).toBe(rival);
  });
});

describe('fillerLikeness', () => {
  const line = 'P<BRASUAREZ<<BRUNO<<<<<<<<<<<<<<<<<<<<<<<<<<';

  it.each([0, 4])(
    'when a names line turned by %i° is measured, then every filler glyph looks like the others and no letter does',
    async (degrees) => {
      const png = await namesLineImage(line, degrees);
      const ocr = await legacyLine(png);

      const measured = fillerLikeness(await decodeGrey(png), ocr);

      expect(measured?.text).toBe(line);
      const fillers = measured!.likeness.filter((_, index) => line[index] === '<');
      const letters = measured!.likeness.filter((_, index) => line[index] !== '<');
      expect(Math.min(...fillers)).toBeGreaterThanOrEqual(FILLER_GLYPH_THRESHOLD);
      expect(Math.max(...letters)).toBeLessThan(FILLER_GLYPH_THRESHOLD);
    },
    60_000,
  );

  it('when the line has fewer than four fillers, then there is no template and no measure', async () => {
    const png = await namesLineImage('VILLAREAL<<MARIA<VICTORIA');

    expect(fillerLikeness(await decodeGrey(png), await legacyLine(png))).toBeNull();
  }, 60_000);
});

describe('secondReadOfNames with the LSTM engine', () => {
  it('when the names line is read again, then the names the legacy engine read agree', async () => {
    const png = await namesLineImage(TD3_NAMES);

    const second = await secondReadOfNames(png, await legacyLine(png), TD3_NAMES, 'TD3');

    expect(second.verdict).toBe('agreed');
  }, 60_000);

  it('when the legacy engine read an M as H, then the second read disagrees', async () => {
    const png = await namesLineImage(TD3_NAMES);
    const at = TD3_NAMES.indexOf('MARIA');

    const second = await secondReadOfNames(
      png,
      misreadAt(await legacyLine(png), at, 'H'),
      TD3_NAMES.replace('MARIA', 'HARIA'),
      'TD3',
    );

    expect(second.verdict).toBe('disagreed');
    expect(second.text).toContain('MARIA');
  }, 60_000);

  it('when the legacy engine read the last letter of a word as a filler, then its glyph is no filler and the second read disagrees', async () => {
    // `CARLO<` for `CARLOS`: the other engine reads CARLOS, the S after CARLO is no filler read, and the
    // photo shows an S there, not a chevron.
    const names = 'P<ARGPEREZ<<JUAN<CARLOS<<<<<<<<<<<<<<<<<<<<<';
    const png = await namesLineImage(names);
    const at = names.indexOf('CARLOS') + 5;

    const misread = misreadAt(await legacyLine(png), at, '<');

    const second = await secondReadOfNames(png, misread, names.replace('CARLOS', 'CARLO<'), 'TD3');

    expect(fillerLikeness(await decodeGrey(png), misread)?.likeness[at]).toBeLessThan(FILLER_GLYPH_THRESHOLD);
    expect(second.verdict).toBe('disagreed');
    expect(second.text).toContain('CARLOS');
  }, 60_000);

  it.each([
    ['MIGUEL', 'L'],
    ['MARTIN', 'N'],
  ])(
    'when the legacy engine read the last letter of %s as a filler, then the glyph there parts the engines although the LSTM engine reads a filler as %s',
    async (word, last) => {
      const names = `P<ARGPEREZ<<${word}<<<<<<<<<<<<<<<<<<<<<<<<<<`.slice(0, 44);
      const png = await namesLineImage(names);
      const at = names.indexOf(word) + word.length - 1;
      const misread = misreadAt(await legacyLine(png), at, '<');

      const second = await secondReadOfNames(png, misread, names.replace(word, `${word.slice(0, -1)}<`), 'TD3');

      expect(second.text).toContain(`${word.slice(0, -1)}${last}`);
      expect(second.verdict).toBe('disagreed');
    },
    60_000,
  );
});
