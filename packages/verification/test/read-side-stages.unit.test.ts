import bwipjs from 'bwip-js';
import sharp from 'sharp';
import type { PreparedImage } from '../src/image/prepare-upload';
import { parseDniBarcode } from '../src/parsers/dni-barcode.parser';
import { parseMrz } from '../src/parsers/mrz.parser';
import {
  ERASED_BY_GLARE,
  READ_SIDE_STAGES,
  awaitNames,
  blankSideReading,
  judgeSide,
  measureLikeness,
  parseBarcode,
  readBarcodeFurther,
  readFirstBarcode,
  readPrint,
  searchZone,
  sideReadingOf,
  startSide,
  type ReadSideOptions,
  type SideContext,
} from '../src/pipeline/read-side';
import type * as mrzReaderModule from '../src/readers/mrz.reader';
import { searchMrzZone, type MrzReading, type MrzSearch, type MrzZoneSearch } from '../src/readers/mrz.reader';
import { stopEngines } from '../src';

// The real search, counted: a test sees whether a stage made one.
jest.mock('../src/readers/mrz.reader', () => {
  const actual: typeof mrzReaderModule = jest.requireActual('../src/readers/mrz.reader');
  return { ...actual, searchMrzZone: jest.fn(actual.searchMrzZone) };
});

const TODAY = '2026-11-23';
const DNI_PAYLOAD = '00123456789@PEREZ@JUAN CARLOS@M@26756539@B@15/03/1978@20/04/2017@203';
// ICAO 9303's TD3 specimen (a passport's page): every check digit holds.
const SPECIMEN = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

afterAll(async () => {
  await stopEngines();
});

/** A plain grey card 480×300, with a DNI's PDF417 on it when asked. */
async function cardImage(withBarcode = false): Promise<PreparedImage> {
  const card = sharp({ create: { width: 480, height: 300, channels: 3, background: '#e6eef0' } });
  const symbol = withBarcode ? await bwipjs.toBuffer({ bcid: 'pdf417', text: DNI_PAYLOAD, scale: 1, height: 6 }) : null;
  const jpeg = await (symbol === null ? card : card.composite([{ input: symbol, left: 20, top: 150 }])).jpeg().toBuffer();
  return { ok: true, jpeg, width: 480, height: 300, source_type: 'jpeg' };
}

/** A side as `startSide` opens it, then `overrides` as if the stages before had recorded them. */
async function sideOf(
  overrides: Partial<SideContext> = {},
  options: Partial<ReadSideOptions> = {},
  image?: PreparedImage,
): Promise<SideContext> {
  const side = await startSide(
    image ?? (await cardImage()),
    { side: 'front', acceptedTypes: ['dni', 'passport'], today: TODAY, ...options },
    Date.now(),
  );
  return Object.assign(side, overrides);
}

function zoneReading(overrides: Partial<MrzReading> = {}): MrzReading {
  const data = parseMrz(SPECIMEN);
  if (!data.ok) throw new Error('the specimen parses');
  const quad = { topLeft: { x: 0, y: 0 }, topRight: { x: 1, y: 0 }, bottomRight: { x: 1, y: 1 }, bottomLeft: { x: 0, y: 1 } };
  return {
    lines: data.lines,
    data,
    valid: data.valid,
    repaired_characters: 0,
    filler_adjustments: 0,
    angle: 0,
    quad,
    confidence: 90,
    name_confidence: 90,
    names_corroborated: true,
    names_second_read: null,
    ...overrides,
  };
}

function zoneSearchOf(found: MrzReading | null, judged: Partial<MrzSearch> = {}, signal = found !== null): MrzZoneSearch {
  const search: MrzSearch = { found, attempts: 3, ms: 0, budget_exhausted: false, signal, erased_characters: 0 };
  return { ...search, namesJudged: Promise.resolve({ ...search, attempts: 4, ...judged }) };
}

describe('the side’s stages, each on its own', () => {
  test('startSide decodes the photo and estimates its skew, reading nothing yet', async () => {
    const side = await sideOf();
    expect(side.raster).toMatchObject({ width: 480, height: 300 });
    expect(side.skew).toBeNull();
    expect(side).toMatchObject({ quality: null, zoneSearch: null, barcode: null, symbols: { attempts: 0 } });
    expect((await side.qualityPending).assessed).toBe(true);
  });

  test('readFirstBarcode reads a PDF417 on the photo and waits for the quality assessment', async () => {
    const side = await sideOf({}, {}, await cardImage(true));
    await readFirstBarcode(side);
    expect(side.symbols.found?.text).toBe(DNI_PAYLOAD);
    expect(side.quality?.assessed).toBe(true);
  });

  test('searchZone runs only after the quality is known, and finds no zone on a card without one', async () => {
    const side = await sideOf();
    await expect(searchZone(side)).rejects.toThrow('readFirstBarcode');
    side.quality = await side.qualityPending;
    await searchZone(side);
    expect(side.zoneSearch).toMatchObject({ found: null, attempts: 0 });
    expect(side.mrzType).toBeNull();
  });

  test('searchZone makes no MRZ search on a 2012 front whose PDF417 was read, and does on any other symbol', async () => {
    const searches = jest.mocked(searchMrzZone);
    searches.mockClear();
    const front = await sideOf();
    front.quality = await front.qualityPending;
    front.symbols.found = { format: 'PDF417', text: DNI_PAYLOAD, angle: 0 } as NonNullable<SideContext['barcode']>;
    expect(parseDniBarcode(DNI_PAYLOAD, { today: TODAY })).toMatchObject({ ok: true, layout: 'new_2012' });
    await searchZone(front);
    expect(searches).not.toHaveBeenCalled();
    expect(front.zoneSearch).toMatchObject({ found: null, attempts: 0, signal: false, erased_characters: 0 });
    expect(await front.zoneSearch?.namesJudged).toMatchObject({ found: null, attempts: 0, signal: false });
    expect(front.zone).toBeNull();

    const other = await sideOf();
    other.quality = await other.qualityPending;
    const quad = { topLeft: { x: 0, y: 0 }, topRight: { x: 1, y: 0 }, bottomRight: { x: 1, y: 1 }, bottomLeft: { x: 0, y: 1 } };
    other.symbols.found = { format: 'PDF417', text: 'not a DNI', angle: 0, quad } as NonNullable<SideContext['barcode']>;
    await searchZone(other);
    expect(searches).toHaveBeenCalledTimes(1);
  });

  test('readBarcodeFurther searches no further on a page its valid MRZ identifies, and further elsewhere', async () => {
    const identified = await sideOf({ zone: zoneReading() });
    await readBarcodeFurther(identified);
    expect(identified.symbols.attempts).toBe(0);
    const unknown = await sideOf({}, { work: { barcode_megapixels: 0.3, deblur_megapixels: 0 } });
    await readBarcodeFurther(unknown);
    expect(unknown.symbols.attempts).toBeGreaterThan(0);
    expect(unknown.symbols.found).toBeNull();
  });

  test('parseBarcode parses the symbol read and takes the zone’s number', async () => {
    const found = { format: 'PDF417', text: DNI_PAYLOAD } as NonNullable<SideContext['barcode']>;
    const side = await sideOf({ zone: zoneReading() });
    side.symbols.found = found;
    await parseBarcode(side);
    expect(side.barcodeFields).toMatchObject({ number: '26756539', surname: 'PEREZ' });
    expect(side.layout).toBe('new_2012');
    expect(side.zoneNumber).toBe('L898902C3');
  });

  test('readPrint reads nothing where no anchor gives the card’s geometry, nor a 2009 back’s CUIL without its number', async () => {
    const bare = await sideOf();
    await readPrint(bare);
    expect(bare.print).toMatchObject({ printed: null, passes: 0, faceCrop: null });
    const back = await sideOf({ layout: 'old_2009', barcode: { quad: zoneReading().quad } as SideContext['barcode'] });
    await readPrint(back);
    expect(back.print).toMatchObject({ printed: null, passes: 0 });
  });

  test('awaitNames withholds names the second engine did not read the same, and counts what the searches spent', async () => {
    const judged = zoneReading({ names_second_read: 'disagreed' });
    const side = await sideOf({ zoneSearch: zoneSearchOf(zoneReading(), { found: judged }) });
    side.symbols.attempts = 5;
    await awaitNames(side);
    expect(side.namesWithheld).toBe(true);
    expect(side.mrzFields).toMatchObject({ number: 'L898902C3', surname: null, given_names: null });
    expect(side.work).toMatchObject({ barcode_attempts: 5, mrz_ocr_passes: 4, safety_cap_reached: false });
  });

  test('measureLikeness hashes the photo, and looks for the card’s outline on a front only', async () => {
    const back = await sideOf({}, { side: 'back' });
    await measureLikeness(back);
    expect(back.likeness.image_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(back.likeness.image_signature).not.toBeNull();
    expect(back.likeness.card_outline).toBeNull();
  });
});

describe('judgeSide', () => {
  async function judgedSide(overrides: Partial<SideContext>, options: Partial<ReadSideOptions> = {}) {
    // A photo of good quality: the problems judged are then the reading's alone.
    const side = await sideOf({ quality: blankSideReading('front').quality, ...overrides }, options);
    return judgeSide(side);
  }

  test('when nothing was read, then no document is in the photo', async () => {
    const judged = await judgedSide({ mrzSearch: zoneSearchOf(null) });
    expect(judged).toEqual({
      detected_type: null,
      detected_face: null,
      problems: ['barcode_not_found', 'mrz_not_found', 'no_document'],
    });
  });

  test('when a zone showed but did not read and lost its ink, then the glare is what to change', async () => {
    const unread = { ...zoneSearchOf(null, {}, true), erased_characters: ERASED_BY_GLARE };
    const judged = await judgedSide({ mrzSearch: unread });
    expect(judged.problems).toEqual(['glare', 'mrz_not_found', 'barcode_not_found']);
  });

  test('when a passport is shown where a DNI is asked for, then it is the wrong type, and no other side', async () => {
    const judged = await judgedSide({ mrzSearch: zoneSearchOf(zoneReading()), mrzType: 'passport' }, { acceptedTypes: ['dni'] });
    expect(judged).toMatchObject({ detected_type: 'passport', detected_face: 'data_page' });
    expect(judged.problems).toEqual(['barcode_not_found', 'wrong_type']);
  });

  test('when a 2012 front is sent as the back, then it is the other side', async () => {
    const parsed = parseDniBarcode(DNI_PAYLOAD, { today: TODAY });
    if (!parsed.ok) throw new Error('the payload parses');
    const barcode = { format: 'PDF417', text: DNI_PAYLOAD } as SideContext['barcode'];
    const judged = await judgedSide(
      { mrzSearch: zoneSearchOf(null), barcode, barcodeFields: parsed.fields, layout: parsed.layout },
      { side: 'back' },
    );
    expect(judged).toMatchObject({ detected_type: 'dni', detected_face: 'front', problems: ['mrz_not_found', 'other_side'] });
  });

  test('when a front’s print was not read, then it is asked for again', async () => {
    const print = { printed: null, passes: 2, frontLabelsFound: 0, backCuilRead: false, frontPrintUnread: true, faceCrop: null };
    const judged = await judgedSide({ mrzSearch: zoneSearchOf(zoneReading()), mrzType: 'dni', print });
    expect(judged.problems).toContain('print_unreadable');
  });
});

describe('readSide’s driver', () => {
  test('the stages run in the order the reading needs: the quick barcode, the MRZ, the rest of the barcode, the print, the names', () => {
    expect(READ_SIDE_STAGES.map((stage) => stage.name)).toEqual([
      'readFirstBarcode',
      'searchZone',
      'readBarcodeFurther',
      'parseBarcode',
      'readPrint',
      'awaitNames',
      'measureLikeness',
    ]);
  });

  test('sideReadingOf gives the reading’s fields in the order of a blank reading', async () => {
    const side = await sideOf({ zoneSearch: zoneSearchOf(null) });
    side.quality = await side.qualityPending;
    await awaitNames(side);
    const reading = sideReadingOf(side, judgeSide(side));
    expect(Object.keys(reading)).toEqual(Object.keys(blankSideReading('front')));
    expect(reading).toMatchObject({ side: 'front', refusal: null, barcode: null, mrz: null, printed: null });
  });
});
