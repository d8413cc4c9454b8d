import type { GreyRaster } from '../src/image/raster';
import { startSearch, type MrzReaders, type SearchContext, type ZoneContext } from '../src/readers/mrz-search/context';
import { finishSearch, judgeNames, repairDataLine, voteCells } from '../src/readers/mrz-search/end-stages';
import { MIN_NAME_CONFIDENCE } from '../src/calibration/mrz';
import {
  BINARISED,
  DESCREENED,
  DESCREENED_WIDE,
  GLYPHS,
  PLAIN,
  RECTIFIED,
  WIDE,
  checkOf,
  zoneVariants,
} from '../src/readers/mrz-search/variants';
import {
  considerRead,
  corroborateNames,
  openZone,
  readVariant,
  readZone,
  weighPass,
  zoneImage,
} from '../src/readers/mrz-search/zone-stages';
import type { ZoneCrop } from '../src/readers/mrz-search/zones';
import { bestMrz, type ScoredMrz } from '../src/readers/mrz-text';
import type { OcrLine, OcrResult } from '../src/readers/ocr';
import { SafetyClock, WorkBudget } from '../src/readers/work-budget';

// ICAO 9303's TD3 specimen: every check digit holds.
const SPECIMEN = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
// The same zone with other names: no check digit covers them, so it is as valid.
const OTHER_NAMES = ['P<UTOERIKSSEN<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', SPECIMEN[1]!];
// The number's 8 read as B: its check digit and the composite fail.
const NUMBER_MISREAD = [SPECIMEN[0]!, 'L89B902C36UTO7408122F1204159ZE184226B<<<<<10'];

function ocrLine(text: string, index: number, confidence = 90): OcrLine {
  const bbox = { x0: 20, y0: 20 + index * 60, x1: 1180, y1: 60 + index * 60 };
  const symbols = [...text].map((character) => ({ text: character, confidence, bbox }));
  return { text, confidence, bbox, words: [{ text, confidence, bbox, symbols }] };
}

function ocrOf(lines: readonly string[], confidence = 90): OcrResult {
  return { text: lines.join('\n'), confidence, lines: lines.map((line, index) => ocrLine(line, index, confidence)) };
}

function scoredOf(lines: readonly string[]): ScoredMrz {
  const scored = bestMrz(lines);
  if (scored === null) throw new Error('no MRZ in the lines');
  return scored;
}

/** Readers that answer the zone passes in turn from `passes` (the last one again once they run out). */
function scriptedReaders(passes: (OcrResult | null)[], overrides: Partial<MrzReaders> = {}): MrzReaders & { calls: number } {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    zone: () => Promise.resolve(passes[Math.min(calls++, passes.length - 1)] ?? null),
    names: () => Promise.resolve({ verdict: 'agreed' as const, text: null, fillerSeenAfter: null }),
    dataLine: () => Promise.resolve(null),
    ...overrides,
  };
}

/** A white page 600×400 with a grey band where a zone would be. */
function page(): GreyRaster {
  const width = 600;
  const height = 400;
  const data = Buffer.alloc(width * height, 240);
  for (let y = 300; y < 360; y += 1) for (let x = 60; x < 540; x += 4) data[y * width + x] = 40;
  return { data, width, height };
}

const CROP: ZoneCrop = {
  left: 40,
  top: 280,
  width: 520,
  height: 100,
  flipped: false,
  lines: 2,
  block_top: 300,
  block_bottom: 360,
  line_height: 30,
};

async function searchOf(readers: MrzReaders, options: { recaptured?: boolean; passes?: number } = {}): Promise<SearchContext> {
  const budget = new WorkBudget(options.passes ?? 8, new SafetyClock(30_000));
  return startSearch(page(), { angles: [0], budget, recaptured: options.recaptured }, readers);
}

async function zoneOf(search: SearchContext, crop: ZoneCrop = CROP): Promise<ZoneContext> {
  const turned = search.raster;
  return openZone(search, { angleIndex: 0, angle: 0, turned, crop });
}

describe('the MRZ search’s variants', () => {
  test('when a zone is read, then the plain crop comes first, the straightened one second, the descreened only on a recapture', () => {
    expect(zoneVariants(true, false).slice(0, 3)).toEqual([PLAIN, RECTIFIED, GLYPHS]);
    expect(zoneVariants(false, false)).not.toContain(RECTIFIED);
    expect(zoneVariants(false, false)).not.toContain(DESCREENED);
    expect(zoneVariants(false, true).at(-1)).toBe(DESCREENED);
  });

  test('when a valid read’s names are checked, then the plain crop is checked by the wide one and a keystoned one by the straightened', () => {
    expect(checkOf('plain', false, false)).toBe(WIDE);
    expect(checkOf('plain', true, false)).toBe(RECTIFIED);
    expect(checkOf('glyphs', false, false)).toBe(PLAIN);
    expect(checkOf('descreened', false, true)).toBe(DESCREENED_WIDE);
  });
});

describe('the MRZ search’s stages, each on its own', () => {
  test('startSearch brings the photo to the analysis width and has spent nothing', async () => {
    const search = await searchOf(scriptedReaders([]));
    expect(search.analysis.width).toBe(600);
    expect(search).toMatchObject({ attempts: 0, signal: false, best: null, plainCutShort: false });
  });

  test('openZone lists the zone’s variants and reads a recaptured photo’s zone descreened only once a plain pass was cut short', async () => {
    const plain = await zoneOf(await searchOf(scriptedReaders([])));
    expect(plain.variants[0]).toBe(PLAIN);
    expect(plain.zoneGrey.width).toBe(PLAIN.width);
    expect(plain.zoneBlock).toMatchObject({ lines: 2 });
    const recaptured = await searchOf(scriptedReaders([]), { recaptured: true });
    recaptured.plainCutShort = true;
    const descreened = await zoneOf(recaptured);
    expect(descreened.variants).toEqual([DESCREENED, DESCREENED_WIDE]);
    expect(descreened.promoted).toBe(true);
  });

  test('zoneImage maps the crop’s pixels back to the turned image and gives no straightened crop where the lines were not traced', async () => {
    const zone = await zoneOf(await searchOf(scriptedReaders([])));
    const image = await zoneImage(zone, PLAIN);
    expect(image?.toTurned({ x: 0, y: 0 })).toEqual({ x: CROP.left, y: CROP.top });
    const flipped = await zoneOf(zone.search, { ...CROP, flipped: true });
    expect((await zoneImage(flipped, PLAIN))?.toTurned({ x: 0, y: 0 })).toEqual({
      x: CROP.left + CROP.width,
      y: CROP.top + CROP.height,
    });
    if (zone.rectified === null) expect(await zoneImage(zone, RECTIFIED)).toBeNull();
  });

  test('readVariant spends one pass per variant, answers a second ask from the first, and records the names read', async () => {
    const readers = scriptedReaders([ocrOf(SPECIMEN)]);
    const search = await searchOf(readers);
    const zone = await zoneOf(search);
    const first = await readVariant(zone, PLAIN);
    const again = await readVariant(zone, PLAIN);
    expect(again).toBe(first);
    expect(search.attempts).toBe(1);
    expect(search.options.budget.spent).toBe(1);
    expect(zone.bestNamesByVariant.get('plain')).toBeDefined();
    expect(search.namesReadInSearch.size).toBe(1);
  });

  test('considerRead keeps a valid read over an invalid one, and among equals the one whose names were read surer', async () => {
    const search = await searchOf(scriptedReaders([]));
    const zone = await zoneOf(search);
    const image = { png: Buffer.alloc(0), toTurned: (point: { x: number; y: number }) => point };
    considerRead(zone, 'plain', image, ocrOf(NUMBER_MISREAD), scoredOf(NUMBER_MISREAD));
    expect(search.best?.reading.valid).toBe(false);
    considerRead(zone, 'wide', image, ocrOf(SPECIMEN, 70), scoredOf(SPECIMEN));
    expect(search.best).toMatchObject({ variant: 'wide', reading: { valid: true, name_confidence: 70 } });
    considerRead(zone, 'binarised', image, ocrOf(NUMBER_MISREAD), scoredOf(NUMBER_MISREAD));
    expect(search.best?.variant).toBe('wide');
    considerRead(zone, 'binarised_light', image, ocrOf(SPECIMEN, 95), scoredOf(SPECIMEN));
    expect(search.best).toMatchObject({ variant: 'binarised_light', reading: { name_confidence: 95 } });
  });

  test('corroborateNames reads the checking variant once and counts the names only when it read them the same', async () => {
    const agreeing = scriptedReaders([ocrOf(SPECIMEN), ocrOf(SPECIMEN)]);
    const zone = await zoneOf(await searchOf(agreeing));
    const pass = await readVariant(zone, PLAIN);
    considerRead(zone, 'plain', pass!.image, pass!.ocr!, scoredOf(SPECIMEN));
    await corroborateNames(zone);
    expect(agreeing.calls).toBe(2);
    expect(zone.search.best).toMatchObject({ corroborated: true, reading: { names_corroborated: true } });

    const disagreeing = scriptedReaders([ocrOf(SPECIMEN), ocrOf(OTHER_NAMES)]);
    const other = await zoneOf(await searchOf(disagreeing));
    const plain = await readVariant(other, PLAIN);
    considerRead(other, 'plain', plain!.image, plain!.ocr!, scoredOf(SPECIMEN));
    await corroborateNames(other);
    await corroborateNames(other);
    expect(disagreeing.calls).toBe(2);
    expect(other.search.best?.corroborated).toBe(false);
  });

  test('weighPass ends the search on a valid read whose names were read twice, and turns back a first read that showed no MRZ', async () => {
    const zone = await zoneOf(await searchOf(scriptedReaders([ocrOf(SPECIMEN), ocrOf(SPECIMEN)])));
    const pass = await readVariant(zone, PLAIN);
    expect(await weighPass(zone, 0, PLAIN, { image: pass!.image, ocr: pass!.ocr! })).toEqual({
      next: 'finish',
      budgetExhausted: false,
    });

    const garbage = ocrOf(['AB3 XY7 QRS', 'L0T 0F N0ISE']);
    const noMrz = await zoneOf(await searchOf(scriptedReaders([garbage])));
    const read = await readVariant(noMrz, PLAIN);
    const outcome = await weighPass(noMrz, 0, PLAIN, { image: read!.image, ocr: read!.ocr! });
    expect(outcome).toEqual({ next: 'zone', turnedBack: { ...CROP, flipped: true, turned_back: true } });
    expect(noMrz.search.signal).toBe(false);
  });

  test('readZone ends the search on a pass cut short, but a recaptured photo’s zone is then read descreened', async () => {
    const ordinary = await zoneOf(await searchOf(scriptedReaders([null])));
    expect(await readZone(ordinary)).toEqual({ next: 'finish', budgetExhausted: false });

    const recaptured = await zoneOf(await searchOf(scriptedReaders([null, ocrOf(SPECIMEN)]), { recaptured: true }));
    await readZone(recaptured);
    expect(recaptured.search.plainCutShort).toBe(true);
    expect(recaptured.variants).toEqual([PLAIN, DESCREENED, DESCREENED_WIDE]);
    expect(recaptured.search.best?.reading.valid).toBe(true);
  });

  test('voteCells makes the zone’s lines by a vote of reads none of which was valid alone', async () => {
    const holes = [5, 20, 33].map((cell) =>
      SPECIMEN.map((line, index) => (index === 1 ? line : `${line.slice(0, cell)} ${line.slice(cell + 1)}`)),
    );
    const search = await searchOf(scriptedReaders(holes.map((lines) => ocrOf(lines))));
    const zone = await zoneOf(search);
    for (const variant of [PLAIN, BINARISED, WIDE]) await readVariant(zone, variant);
    expect(search.best).toBeNull();
    voteCells(search);
    expect(search.best?.reading).toMatchObject({ valid: true, lines: SPECIMEN });
  });

  test('repairDataLine takes the look-alike repair the second engine’s read of the data line holds', async () => {
    const readers = scriptedReaders([ocrOf(NUMBER_MISREAD)], { dataLine: () => Promise.resolve(SPECIMEN[1]!) });
    const search = await searchOf(readers);
    const zone = await zoneOf(search);
    const pass = await readVariant(zone, PLAIN);
    considerRead(zone, 'plain', pass!.image, pass!.ocr!, scoredOf(NUMBER_MISREAD));
    await repairDataLine(search, search.best!);
    expect(search.best?.reading).toMatchObject({ valid: true, lines: SPECIMEN, repaired_characters: 1 });
    expect(search.attempts).toBe(2);
  });

  test('judgeNames asks the second engine only of valid names read surely enough, and records its verdict', async () => {
    const names = jest.fn(() => Promise.resolve({ verdict: 'disagreed' as const, text: null, fillerSeenAfter: null }));
    const search = await searchOf(scriptedReaders([ocrOf(SPECIMEN, MIN_NAME_CONFIDENCE - 1)], { names }));
    const zone = await zoneOf(search);
    const pass = await readVariant(zone, PLAIN);
    considerRead(zone, 'plain', pass!.image, pass!.ocr!, scoredOf(SPECIMEN));
    await judgeNames(search, search.best);
    expect(names).not.toHaveBeenCalled();
    search.best!.reading.name_confidence = MIN_NAME_CONFIDENCE;
    await judgeNames(search, search.best);
    expect(names).toHaveBeenCalledTimes(1);
    expect(search.best?.reading.names_second_read).toBe('disagreed');
  });

  test('finishSearch gives the zone as read at once and its names once judged', async () => {
    const search = await searchOf(scriptedReaders([ocrOf(SPECIMEN)]));
    const zone = await zoneOf(search);
    const pass = await readVariant(zone, PLAIN);
    considerRead(zone, 'plain', pass!.image, pass!.ocr!, scoredOf(SPECIMEN));
    const finished = await finishSearch(search, true);
    expect(finished).toMatchObject({ attempts: 1, budget_exhausted: true, found: { names_second_read: null } });
    const judged = await finished.namesJudged;
    expect(judged).toMatchObject({ attempts: 2, found: { names_second_read: 'agreed', lines: SPECIMEN } });
  });
});
