import {
  DEFAULT_SIDE_SAFETY_CAP_MS,
  DEFAULT_SIDE_WORK,
  RECAPTURE_OCR_TIMEOUT_MS,
  type SideWorkLimits,
} from '../calibration/budgets';
import { ANALYSIS_SIDE, MIN_SKEW_DEGREES } from '../calibration/image';
import { ERASED_BY_GLARE, MIN_NAME_CONFIDENCE } from '../calibration/mrz';
import { quadAngle, type Quad } from '../image/geometry';
import { prepareUpload, type PreparedImage, type UploadRefusalReason } from '../image/prepare-upload';
import { decodeGrey, decodeInkLevel, greyVariant, type GreyRaster } from '../image/raster';
import { comparable, type ComparableFields } from '../checks/compare-fields';
import type { DocumentFields, DocumentType, Side } from '../model';
import { parseDniBarcode, type DniBarcodeLayout, type DniBarcodeParseResult } from '../parsers/dni-barcode.parser';
import {
  documentTypeOfMrz,
  mrzToDocumentFields,
  type MrzCheckedField,
  type MrzFormat,
  type MrzProblem,
} from '../parsers/mrz.parser';
import {
  ALL_REGIONS,
  barcodePlan,
  searchBarcode,
  searchBlurredBarcode,
  wholeFrontSymbol,
  type BarcodeReading,
  type BarcodeSearch,
  type BarcodeStep,
} from '../readers/barcode.reader';
import { locateBarcodes, type LocatedBarcode } from '../readers/barcode-locator';
import { searchMrzZone, type MrzReading, type MrzSearch, type MrzZoneSearch } from '../readers/mrz.reader';
import type { NamesSecondRead } from '../readers/names-check';
import { SafetyClock, WorkBudget } from '../readers/work-budget';
import { estimatePageSkew, type SkewEstimate } from '../readers/skew';
import {
  PRINT_NEEDED,
  cardFrame,
  portraitCrop,
  printedNumberAgainst,
  readPrintedFields,
  type CardFrame,
  type PrintedField,
  type PrintedFieldName,
  type PrintedLayout,
  type PrintedReading,
  type PrintedStatus,
} from '../readers/printed.reader';
import type { QualityAssessment } from './quality-port';
import { assessQualityBeside } from './quality-thread';
import { perceptualHash, perceptualSignature } from './perceptual-hash';
import { findCardOutline, type CardOutline } from './card-outline';

/**
 * What one photographed side says, read by the one code path the service, the CLI and the benchmark
 * share. Keys are snake_case like the rest of the package's data (and `result.document`).
 */
export type SideFace = 'front' | 'back' | 'data_page';

export type SideProblem =
  /** The upload itself was refused (see `refusal`). */
  | 'unreadable_image'
  /** Neither a barcode, an MRZ nor printed fields were read. */
  | 'no_document'
  | 'blurry'
  | 'glare'
  | 'too_dark'
  | 'barcode_not_found'
  /** No MRZ was read, or one showed and no read of it holds (listed before the barcode then). */
  | 'mrz_not_found'
  /** The side shows the other face of the card (a back uploaded as the front, or the reverse). */
  | 'other_side'
  /** The document read is not among the accepted types. */
  | 'wrong_type'
  /**
   * A front whose printed fields a check needs (`PRINT_NEEDED`: what is compared with the barcode or MRZ,
   * the 2012+ card's expiry) could not be settled: the photo is taken again rather than the check passing
   * on what was not read.
   */
  | 'print_unreadable';

export interface SideReading {
  side: Side;
  /** 'unsupported' for a document with an MRZ we do not verify (a foreign ID card, a visa). */
  detected_type: DocumentType | 'unsupported' | null;
  detected_face: SideFace | null;
  barcode: (Omit<BarcodeReading, 'quad'> & { layout: DniBarcodeLayout | null; parse_failure: string | null }) | null;
  barcode_fields: DocumentFields | null;
  mrz: {
    lines: string[];
    format: MrzFormat;
    valid: boolean;
    check_digits: Partial<Record<MrzCheckedField, boolean>>;
    problems: MrzProblem[];
    names_truncated: boolean;
    repaired_characters: number;
    angle: number;
    /** The OCR's lowest confidence in a letter of the names (see `MrzReading.name_confidence`). */
    name_confidence: number;
    /** A second OCR pass read the same names (see `MrzReading.names_corroborated`). */
    names_corroborated: boolean;
    /** The other OCR engine's read of the names (see `MrzReading.names_second_read`). */
    names_second_read: NamesSecondRead | null;
    /** The names were read too uncertainly to be given back: `mrz_fields` leaves them empty. */
    names_withheld: boolean;
  } | null;
  mrz_fields: DocumentFields | null;
  printed: {
    layout: PrintedLayout;
    fields: Partial<DocumentFields>;
    raw: Partial<Record<string, PrintedField>>;
    /** How each field read came out (`PrintedStatus`); the checks compare only settled fields. */
    status: Partial<Record<PrintedFieldName, PrintedStatus>>;
    /** The fields whose printed label was found. */
    labels: PrintedFieldName[];
    /** What each look at a name gave (`PrintedReading.nameReads`); absent from readings stored before it. */
    nameReads?: PrintedReading['nameReads'];
  } | null;
  quality: QualityAssessment;
  problems: SideProblem[];
  refusal: UploadRefusalReason | null;
  /** The document photo (DNI front portrait, passport photo) as a JPEG, for the face step. */
  face_crop: Buffer | null;
  /** 64-bit difference hash of the image (hex), for comparing front and front_angle when data is missing. */
  image_hash: string | null;
  /** The photo's likeness signature (`perceptualSignature`): a copy of another photo is near it. */
  image_signature: string | null;
  /** The card's outline in the photo (fronts only: the angled front is compared with the front by it). */
  card_outline: CardOutline | null;
  /** What the searches spent, counted as their budgets count it (`SideWorkLimits`). */
  work: {
    barcode_attempts: number;
    barcode_megapixels: number;
    /** Attempts on located symbols with their blur undone (the last resort; counted in `barcode_megapixels`). */
    deblur_attempts: number;
    mrz_ocr_passes: number;
    printed_ocr_passes: number;
    /** The side's wall-clock safety cap ended a search (a pathological photo, or a machine far overloaded). */
    safety_cap_reached: boolean;
  };
  /** Where the time went, per stage (for profiling; no budget is in milliseconds). */
  timings: {
    decode_ms: number;
    skew_ms: number;
    /**
     * How long the side waited for the quality assessment once the first barcode stage was done: it runs
     * beside decoding, the skew estimate and that stage on a helper thread (0 when it was done by then).
     */
    quality_ms: number;
    barcode_ms: number;
    mrz_ms: number;
    printed_ms: number;
    /** The hash, the likeness signature and (fronts) the card's outline. */
    hash_ms: number;
  };
  ms: number;
}

export interface ReadSideOptions {
  side: Side;
  acceptedTypes: readonly DocumentType[];
  today: string;
  /** How much the searches may try, counted (see `SideWorkLimits`); the defaults otherwise. */
  work?: Partial<SideWorkLimits>;
  /**
   * Wall-clock safety cap for the whole side (ms): past it no new attempt starts. Meant never to
   * decide an ordinary reading (it is there for pathological photos); the budgets are `work`.
   */
  safetyCapMs?: number;
}

// Tuned in calibration/; exported here too, where the benchmarks and tests have always found them.
export { DEFAULT_SIDE_SAFETY_CAP_MS, DEFAULT_SIDE_WORK, ERASED_BY_GLARE, RECAPTURE_OCR_TIMEOUT_MS, type SideWorkLimits };

/**
 * A TD1 zone as a side reports it, every check digit holding and its names confirmed, with what the caller
 * sets: the zone of a reading built by hand (tests, tools).
 */
export function zoneReading(overrides: Partial<NonNullable<SideReading['mrz']>> = {}): NonNullable<SideReading['mrz']> {
  return {
    lines: [],
    format: 'TD1',
    valid: true,
    check_digits: {},
    problems: [],
    names_truncated: false,
    repaired_characters: 0,
    angle: 0,
    name_confidence: 90,
    names_corroborated: true,
    names_second_read: 'agreed',
    names_withheld: false,
    ...overrides,
  };
}

/** A PDF417 a side reports, decoded whole with `text` as its payload: the barcode of a reading built by hand (tests, tools). */
export function barcodeReading(text: string): NonNullable<SideReading['barcode']> {
  return {
    format: 'PDF417',
    text,
    bytes_base64: '',
    angle: 0,
    region: 'full',
    scale: 1,
    symbol_orientation: 0,
    sequence: null,
    layout: null,
    parse_failure: null,
  };
}

/** A side on which nothing was read and nothing is wrong yet: the base of every reading built by hand. */
export function blankSideReading(side: Side): SideReading {
  return {
    side,
    detected_type: null,
    detected_face: null,
    barcode: null,
    barcode_fields: null,
    mrz: null,
    mrz_fields: null,
    printed: null,
    quality: {
      blur: null,
      glare: null,
      brightness: null,
      screen: { score: null, detected: false, judged: false, evidence: null },
      problems: [],
      assessed: false,
    },
    problems: [],
    refusal: null,
    face_crop: null,
    image_hash: null,
    image_signature: null,
    card_outline: null,
    work: {
      barcode_attempts: 0,
      barcode_megapixels: 0,
      deblur_attempts: 0,
      mrz_ocr_passes: 0,
      printed_ocr_passes: 0,
      safety_cap_reached: false,
    },
    timings: { decode_ms: 0, skew_ms: 0, quality_ms: 0, barcode_ms: 0, mrz_ms: 0, printed_ms: 0, hash_ms: 0 },
    ms: 0,
  };
}

function emptyReading(side: Side, started: number, refusal: UploadRefusalReason): SideReading {
  return { ...blankSideReading(side), problems: ['unreadable_image'], refusal, ms: Date.now() - started };
}

/**
 * The turns the MRZ search tries, in order (`searchMrzZone`): the barcode's when one was read, else the page
 * upright by the skew hint, upright, a few degrees either side, across, and the hint's neighbours last.
 */
export function mrzAngles(skew: number | null, axis: 'horizontal' | 'vertical', known: number | null): number[] {
  if (known !== null) return [known];
  // Each turn also covers the page upside down (the locator reads blocks in the top half turned 180°).
  // Lines that run closer to the vertical are a page on its side: its turns come first.
  const upright = axis === 'vertical' ? 90 : 0;
  const across = 90 - upright;
  const angles: number[] = [];
  const add = (turn: number) => {
    if (!angles.includes(turn)) angles.push(turn);
  };
  if (skew !== null) add(upright - skew);
  add(upright);
  // A page tilted by a couple of degrees slants its MRZ lines into each other at the locator's scale,
  // and the skew estimate misses it when the page's text is sparse: small turns are cheap to try (the
  // locator costs milliseconds when it finds nothing).
  for (const turn of [2, -2, 4, -4]) add(upright + turn);
  if (skew !== null) add(across - skew);
  add(across);
  // The estimate itself can be a few degrees off where halftone or a table's texture weighs in its
  // profile (a print at 10.4° estimated at 8° across: its MRZ lines still merged): the turns beside it.
  if (skew !== null) for (const turn of [2, -2]) [upright - skew + turn, across - skew + turn].forEach(add);
  return angles;
}

/**
 * An MRZ that says which page this is, and so that no PDF417 is on it: every check digit holding, or
 * at least two (what the MRZ search itself takes as a zone rather than noise of the right shape).
 */
function identifiesPage(mrz: MrzReading): boolean {
  return mrz.valid || Object.values(mrz.data.check_digits).filter(Boolean).length >= 2;
}

function faceOf(
  layout: DniBarcodeLayout | null,
  mrz: MrzReading | null,
  frontLabels: number,
  backCuil: boolean,
): SideFace | null {
  if (layout === 'new_2012') return 'front';
  // The 2009 card's PDF417 is on its back; the reported 2026 card carries its QR on the back.
  if (layout === 'old_2009' || layout === 'reported_2026') return 'back';
  if (mrz !== null) {
    const type = documentTypeOfMrz(mrz.data);
    if (type === 'passport') return 'data_page';
    // A TD1 MRZ is on the 2009 front and on the 2012+ back: the front's printed labels tell them apart.
    // When they cannot be read, the face stays unknown rather than be guessed (a wrong guess rejects a
    // good card).
    if (type === 'dni' && frontLabels >= 2) return 'front';
    if (type === 'dni' && backCuil) return 'back';
  }
  return null;
}

/**
 * The CUIL printed on a DNI back (the 2009 card's barcode and the 2012+ card's 8-field barcode do not
 * carry it). Kept only when its number part is the card's number read on the same side, by barcode or
 * MRZ: a digit misread there must not pass for another person's CUIL, and only the prefix and the check
 * digit, which the CUIL checks judge, are then the print's alone.
 */
async function readBackCuil(
  frame: CardFrame,
  layout: 'dni_2009_back' | 'dni_2012_back',
  number: string | null,
  clock: SafetyClock,
): Promise<{ printed: SideReading['printed']; passes: number }> {
  if (number === null) return { printed: null, passes: 0 };
  const ofTheCard = (cuil: string) => cuil.slice(3, 11) === number.padStart(8, '0');
  const reading = await readPrintedFields(frame, layout, clock, { agrees: { cuil: ofTheCard } });
  const cuil = reading.fields.cuil ?? null;
  const fields = cuil !== null && ofTheCard(cuil) ? { cuil } : {};
  return {
    printed: { layout: reading.layout, fields, raw: reading.raw, status: reading.status, labels: reading.labels },
    passes: reading.passes,
  };
}

/**
 * What a zone says of the fields a page's print is settled against: each dated or numbered field its
 * check digit holds, the sex of a zone whose dates and composite hold, and the names once the second
 * engine judged them (none when they are withheld: read too uncertainly to settle anything).
 */
async function zoneExpectation(zone: MrzReading, judged: Promise<MrzSearch>, today: string): Promise<ComparableFields> {
  const fields = mrzToDocumentFields(zone.data, { today });
  const checks = zone.data.check_digits;
  const expected: ComparableFields = {
    ...(checks.document_number === true ? { number: fields.number } : {}),
    ...(checks.birth_date === true ? { birth_date: fields.birth_date } : {}),
    ...(checks.expiry_date === true ? { expiry_date: fields.expiry_date } : {}),
    // No check digit covers the sex: it is taken where the dates' and the composite's hold (the 2009
    // specimen's zone fails only its number's, a quirk of its print).
    ...(checks.birth_date === true && checks.expiry_date === true && checks.composite !== false ? { sex: fields.sex } : {}),
  };
  const mrz = (await judged).found;
  if (mrz === null || namesWithheldOf(mrz)) return expected;
  const names = mrzToDocumentFields(mrz.data, { today });
  return { ...expected, surname: names.surname, given_names: names.given_names, names_truncated: mrz.data.names_truncated };
}

/**
 * The names are the one part of an MRZ no check digit covers; read uncertainly, they are not given (the
 * document then lacks them) rather than given wrong with every check passing. Given back: the two
 * engines read them the same and no variant of the zone read other names (`searchMrzZone`).
 */
function namesWithheldOf(mrz: MrzReading): boolean {
  return mrz.name_confidence < MIN_NAME_CONFIDENCE || (mrz.valid && mrz.names_second_read !== 'agreed');
}

/**
 * The fields a front's checks need from its print (`PRINT_NEEDED`) that its reading did not settle. None
 * once one of them was settled as different from the barcode or MRZ: the print is then shown not to be
 * the card's, whatever else could not be read, and the data consistency says so.
 */
export function printUnsettled(printed: SideReading['printed']): PrintedFieldName[] {
  if (printed === null) return [];
  const needed = PRINT_NEEDED[printed.layout] ?? [];
  if (needed.some((field) => printed.status[field] === 'differs')) return [];
  return needed.filter((field) => (printed.status[field] ?? 'unread') === 'unread');
}

/**
 * The state `readSide`'s stages share (`READ_SIDE_STAGES` runs them in order): what `startSide` decoded
 * and measured, and what each stage after it found, for the stages after that. A field a stage sets is
 * null (or none) until it ran.
 */
export interface SideContext {
  readonly options: ReadSideOptions;
  readonly prepared: PreparedImage;
  readonly started: number;
  readonly limits: SideWorkLimits;
  readonly clock: SafetyClock;
  /** The milliseconds since the last lap: each stage's share of `timings`. */
  readonly lap: () => number;
  readonly timings: SideReading['timings'];
  /** On a helper thread beside the first stages (quality-thread.ts); the MRZ search is the first to wait for it. */
  readonly qualityPending: Promise<QualityAssessment>;
  readonly raster: GreyRaster;
  readonly skewEstimate: SkewEstimate;
  /** The page's skew, where it is beyond zxing's and tesseract's own tolerance. */
  readonly skew: number | null;
  /** A symbol whose payload is no DNI's and no PDF417 does not end a barcode search. */
  readonly accept: (symbol: { format: string; text: string }) => boolean;
  /** The PDF417 candidates the locator found. */
  readonly located: LocatedBarcode[];
  /** What the barcode searches found and spent, over all their stages. */
  readonly symbols: { found: BarcodeReading | null; refused: BarcodeReading | null; attempts: number; megapixels: number };
  deblurAttempts: number;
  /** Set by `readFirstBarcode`. */
  quality: QualityAssessment | null;
  /** Set by `searchZone`: the zone as read, its names still being judged (`zoneSearch.namesJudged`). */
  zoneSearch: MrzZoneSearch | null;
  zone: MrzReading | null;
  mrzType: ReturnType<typeof documentTypeOfMrz> | null;
  /** Set by `parseBarcode`. */
  barcode: BarcodeReading | null;
  parsed: DniBarcodeParseResult | null;
  barcodeFields: DocumentFields | null;
  layout: DniBarcodeLayout | null;
  /** The zone's number: what the names' judging cannot change. */
  zoneNumber: string | null;
  /** Set by `readPrint`. */
  print: SidePrint;
  /** Set by `awaitNames`: the zone with its names judged. */
  mrzSearch: MrzSearch | null;
  namesWithheld: boolean;
  mrzFields: DocumentFields | null;
  work: SideReading['work'] | null;
  /** Set by `measureLikeness`. */
  likeness: Pick<SideReading, 'image_hash' | 'image_signature' | 'card_outline'>;
}

/** What `readPrint` read of the side's print, and what it says of which face this is. */
export interface SidePrint {
  printed: SideReading['printed'];
  passes: number;
  /**
   * Labels of the 2009 front's layout found on a TD1 side: two or more make it that front; a 2012+ back's
   * CUIL read there makes it that back.
   */
  frontLabelsFound: number;
  backCuilRead: boolean;
  frontPrintUnread: boolean;
  faceCrop: Buffer | null;
}

export type SideStage = (side: SideContext) => Promise<void> | void;

function stageRan<T>(value: T | null, stage: string): T {
  if (value === null) throw new Error(`this stage of readSide runs after ${stage}`);
  return value;
}

/** Decodes the photo, starts its quality assessment beside, and estimates the page's skew. */
export async function startSide(prepared: PreparedImage, options: ReadSideOptions, started: number): Promise<SideContext> {
  const limits: SideWorkLimits = { ...DEFAULT_SIDE_WORK, ...options.work };
  const clock = new SafetyClock(options.safetyCapMs ?? DEFAULT_SIDE_SAFETY_CAP_MS);
  let mark = Date.now();
  const lap = () => {
    const now = Date.now();
    const elapsed = now - mark;
    mark = now;
    return elapsed;
  };
  // On a helper thread beside decoding, the skew estimate and the first barcode stage, which need none of
  // it; the MRZ search is the first to wait for it (quality-thread.ts).
  const qualityPending = assessQualityBeside(prepared);
  // Awaited below; should an earlier stage throw first, its failure is not also an unhandled rejection.
  qualityPending.catch(() => undefined);
  const raster: GreyRaster = await decodeGrey(prepared.jpeg);
  const decodeMs = lap();
  const analysis = await greyVariant(raster, { scale: Math.min(1, ANALYSIS_SIDE / Math.max(raster.width, raster.height)) });
  const skewEstimate = estimatePageSkew(analysis);
  const skew = Math.abs(skewEstimate.degrees) >= MIN_SKEW_DEGREES ? skewEstimate.degrees : null;
  const skewMs = lap();
  return {
    options,
    prepared,
    started,
    limits,
    clock,
    lap,
    timings: { decode_ms: decodeMs, skew_ms: skewMs, quality_ms: 0, barcode_ms: 0, mrz_ms: 0, printed_ms: 0, hash_ms: 0 },
    qualityPending,
    raster,
    skewEstimate,
    skew,
    accept: ({ format, text }) => format === 'PDF417' || parseDniBarcode(text, { today: options.today }).ok,
    located: [],
    symbols: { found: null, refused: null, attempts: 0, megapixels: 0 },
    deblurAttempts: 0,
    quality: null,
    zoneSearch: null,
    zone: null,
    mrzType: null,
    barcode: null,
    parsed: null,
    barcodeFields: null,
    layout: null,
    zoneNumber: null,
    print: { printed: null, passes: 0, frontLabelsFound: 0, backCuilRead: false, frontPrintUnread: false, faceCrop: null },
    mrzSearch: null,
    namesWithheld: false,
    mrzFields: null,
    work: null,
    likeness: { image_hash: null, image_signature: null, card_outline: null },
  };
}

/** A barcode search's finds and spending added to the side's. */
function tally(side: SideContext, search: BarcodeSearch): void {
  const { symbols } = side;
  symbols.attempts += search.attempts;
  symbols.megapixels += search.megapixels;
  symbols.found ??= search.found;
  symbols.refused ??= search.refused;
}

/**
 * 1. The barcode, quickly: around the PDF417 candidates the locator finds (a tight crop turned to the
 *    symbol's own angle and upscaled: where dim, noisy and tilted symbols read, in 0.8–1 MP), then the
 *    whole photo as taken and deskewed (a QR, which the locator does not look for). A symbol whose
 *    payload is no DNI's and no PDF417 (a licence's QR, a URL beside the PDF417 with the data) does
 *    not end the search. The whole photo stays before the MRZ even when nothing was located: a
 *    symbol read there gives the MRZ search its one turn, where a barcode side's MRZ search over every
 *    turn cost 2–13 s (a synthetic card at 12°, the 2012 specimen). Then the quality assessment is awaited.
 */
export const readFirstBarcode: SideStage = async (side) => {
  const { raster, skew, limits, clock, accept, lap } = side;
  const located = locateBarcodes(raster);
  side.located.push(...located);
  tally(
    side,
    await searchBarcode(raster, {
      steps: [
        ...located.map((candidate) => ({ angle: candidate.angle, regions: ['located'] as const, located: candidate })),
        ...barcodePlan('first', skew),
      ],
      budget: new WorkBudget(limits.first_barcode_megapixels, clock),
      accept,
    }),
  );
  side.timings.barcode_ms = lap();
  side.quality = await side.qualityPending;
  side.timings.quality_ms = lap();
};

/**
 * 2. The MRZ, at the barcode's orientation when there is one. It goes before the barcode's slower
 *    stages: a side with a valid MRZ carries no PDF417 (passport pages, the 2009 front, the 2012+
 *    back), and the 2026 back's QR is read from the whole photo at any turn.
 *    Its names are judged by the second OCR engine while the printed fields are read (`searchMrzZone`):
 *    until then `zone` is the zone as read, whose names alone may still change.
 */
export const searchZone: SideStage = async (side) => {
  const { raster, skew, skewEstimate, symbols, limits, clock, options } = side;
  const quality = stageRan(side.quality, 'readFirstBarcode');
  if (symbols.found !== null && carriesNoZone(symbols.found, options.today)) {
    side.zoneSearch = noZoneSearched();
    side.timings.mrz_ms = side.lap();
    return;
  }
  const oriented = symbols.found ?? symbols.refused;
  const knownAngle = oriented === null ? null : -quadAngle(oriented.quad);
  const zoneSearch = await searchMrzZone(raster, {
    angles: mrzAngles(skew, skewEstimate.axis, knownAngle),
    budget: new WorkBudget(limits.mrz_ocr_passes, clock),
    ocrTimeoutMs: quality.screen.detected ? RECAPTURE_OCR_TIMEOUT_MS : undefined,
    recaptured: quality.screen.evidence !== null,
  });
  side.zoneSearch = zoneSearch;
  side.zone = zoneSearch.found;
  side.mrzType = side.zone === null ? null : documentTypeOfMrz(side.zone.data);
  side.timings.mrz_ms = side.lap();
};

/**
 * The face the PDF417 just read is printed on carries no machine readable zone: a 2012+ DNI front (its
 * zone is on the back). Its MRZ search, which found nothing on such fronts but cost 40–70 ms of locating
 * at the symbol's turn (issue 43), is not made; the side reads as when it found nothing.
 */
function carriesNoZone(symbol: BarcodeReading, today: string): boolean {
  const parsed = parseDniBarcode(symbol.text, { today });
  return parsed.ok && parsed.layout === 'new_2012';
}

/** An MRZ search that was not made: what one that found nothing and saw no zone gives back. */
function noZoneSearched(): MrzZoneSearch {
  const search: MrzSearch = { found: null, attempts: 0, ms: 0, budget_exhausted: false, signal: false, erased_characters: 0 };
  return { ...search, namesJudged: Promise.resolve(search) };
}

/**
 * 3. The barcode again: the located candidates smoothed (sensor noise), the likely regions, turned as
 *    the MRZ was read, then along the ladder of tilts, as far as the budget goes.
 *    4. Last, a located symbol that nothing read may be defocused: its crop with the blur undone.
 */
export const readBarcodeFurther: SideStage = async (side) => {
  const { raster, skew, symbols, located, zone, limits, clock, accept } = side;
  // A page its MRZ identifies carries no PDF417 to search further for: a passport's data page (TD3) no
  // barcode at all, a DNI's TD1 side (the 2009 front, the 2012+ back) at most the 2026 back's QR, which
  // the first stage reads from the whole photo at any turn. Only when nothing was located, though: a
  // located symbol that did not read is worth the later stages.
  const pageKnown = located.length === 0 && zone !== null && identifiesPage(zone);
  if (symbols.found === null && zone?.valid !== true && !pageKnown) {
    // The located angle can be a few degrees off on a sharp symbol (its row boundaries): ±3° on either
    // side brings it within zxing's tolerance.
    const steps: BarcodeStep[] = located.flatMap((candidate) => [
      { angle: candidate.angle, regions: ['located'] as const, located: candidate, filter: 'smoothed' as const },
      ...[3, -3].map((offset) => ({
        angle: candidate.angle + offset,
        regions: ['located'] as const,
        located: { ...candidate, angle: candidate.angle + offset },
      })),
    ]);
    steps.push(...barcodePlan('regions', skew));
    if (zone !== null) steps.push({ angle: zone.angle, regions: ALL_REGIONS });
    steps.push(...barcodePlan('ladder', skew));
    const pending = symbols.refused;
    tally(
      side,
      await searchBarcode(raster, {
        steps,
        budget: new WorkBudget(limits.barcode_megapixels, clock),
        accept,
        formats: pending === null ? undefined : (['PDF417', 'QRCode'] as const).filter((format) => format !== pending.format),
      }),
    );
    if (symbols.found === null && located.length > 0) {
      const blurred = await searchBlurredBarcode(raster, located, {
        budget: new WorkBudget(limits.deblur_megapixels, clock),
        accept,
        formats: ['PDF417'],
      });
      side.deblurAttempts = blurred.attempts;
      tally(side, blurred);
    }
  }
  side.timings.barcode_ms += side.lap();
};

/** The symbol read (or refused), its payload parsed, and the zone's number. */
export const parseBarcode: SideStage = (side) => {
  const { symbols, zone, options } = side;
  const barcode = symbols.found ?? symbols.refused;
  const parsed = barcode === null ? null : parseDniBarcode(barcode.text, { today: options.today });
  side.barcode = barcode;
  side.parsed = parsed;
  side.barcodeFields = parsed?.ok === true ? parsed.fields : null;
  side.layout = parsed?.ok === true ? parsed.layout : null;
  side.zoneNumber = zone === null ? null : mrzToDocumentFields(zone.data, { today: options.today }).number;
};

/** The printed fields read, as a side's reading keeps them. */
function kept(reading: Awaited<ReturnType<typeof readPrintedFields>>, fields = reading.fields): SideReading['printed'] {
  return {
    layout: reading.layout,
    fields,
    raw: reading.raw,
    status: reading.status,
    labels: reading.labels,
    ...(Object.keys(reading.nameReads ?? {}).length > 0 ? { nameReads: reading.nameReads } : {}),
  };
}

/**
 * 5. Printed fields and the photo, where an anchor gives the card's geometry (the barcode of a 2012+
 *    front or a 2009 back, the MRZ of a TD1 side or a passport's page). The print is read on the ink
 *    level (`decodeInkLevel`), where the coloured seal and stamps over the text drop out.
 */
export const readPrint: SideStage = async (side) => {
  const { barcode, layout, zone, mrzType } = side;
  side.lap();
  let ink: Promise<GreyRaster> | null = null;
  const inkFrame = (anchor: Quad, unitEdge: 'width' | 'height') => {
    ink ??= decodeInkLevel(side.prepared.jpeg);
    return ink.then((level) => cardFrame(level, anchor, unitEdge));
  };
  // Where no print is read (the angled front), the frame places the portrait alone: its geometry is the
  // photo's size and the anchor's, the same on the grey raster, which is already decoded (and often
  // already turned to that angle by the barcode search): the ink level is not decoded for it.
  const printFrame = (anchor: Quad, unitEdge: 'width' | 'height') =>
    readsPrint(side) ? inkFrame(anchor, unitEdge) : cardFrame(side.raster, anchor, unitEdge);
  if (barcode !== null && layout === 'new_2012') {
    await readFront2012(side, await printFrame(wholeFrontSymbol(barcode.quad), 'width'));
  } else if (zone !== null && mrzType === 'dni' && zone.data.format === 'TD1') {
    await readTd1Side(side, zone, await inkFrame(zone.quad, 'height'));
  } else if (zone !== null && mrzType === 'passport') {
    await readPassportPage(side, zone, await printFrame(zone.quad, 'width'));
  } else if (barcode !== null && layout === 'old_2009') {
    const back = await readBackCuil(
      await cardFrame(side.raster, barcode.quad, 'width'),
      'dni_2009_back',
      side.barcodeFields?.number ?? null,
      side.clock,
    );
    side.print.printed = back.printed;
    side.print.passes = back.passes;
  }
  side.timings.printed_ms = side.lap();
};

/**
 * The angled front is compared with the front by its barcode or MRZ, and the checks take no printed
 * field from it: its print is not read (the front's, which the checks need, is settled before the
 * front is taken).
 */
function readsPrint(side: SideContext): boolean {
  return side.options.side !== 'front_angle';
}

/** A 2012+ front: its print settled against the barcode, and its portrait. */
async function readFront2012(side: SideContext, frame: CardFrame): Promise<void> {
  const { barcodeFields, clock, print } = side;
  if (readsPrint(side)) {
    const reading = await readPrintedFields(frame, 'dni_2012_front', clock, {
      expected: barcodeFields === null ? {} : comparable(barcodeFields),
      needed: PRINT_NEEDED.dni_2012_front,
    });
    print.printed = kept(reading);
    print.passes = reading.passes;
  }
  print.faceCrop = await portraitCrop(side.prepared.jpeg, frame, 'dni_2012_front');
}

/**
 * A TD1 MRZ is also the 2012+ back's, which has none of the 2009 front's labels (its address's, its
 * CUIL's): the front's values are read only where at least two of its labels are found. A side sent as
 * the back is first read as a 2012+ back: its printed CUIL, the zone's number in it, says so on its own
 * (no 2009 front prints one), and the 2009 front's labels are then not looked for. That look is one
 * stacked pass over the label area, ≈ 0.5 s of OCR on every genuine back (docs/performance.md "A back
 * read as a back first").
 */
async function readTd1Side(side: SideContext, zone: MrzReading, frame: CardFrame): Promise<void> {
  const { zoneSearch, clock, options, print } = side;
  const readBack = () => readBackCuil(frame, 'dni_2012_back', side.zoneNumber, clock);
  const back = options.side === 'back' ? await readBack() : null;
  if (back?.printed?.fields.cuil !== undefined) {
    setBackPrint(print, back, 0);
    return;
  }
  const reading = await readPrintedFields(frame, 'dni_2009_front', clock, {
    minLabels: 2,
    expected: zoneExpectation(zone, stageRan(zoneSearch, 'searchZone').namesJudged, options.today),
    needed: PRINT_NEEDED.dni_2009_front,
  });
  print.frontLabelsFound = reading.labels.length;
  if (print.frontLabelsFound >= 2) {
    print.printed = kept(reading);
    print.passes = reading.passes + (back?.passes ?? 0);
    print.faceCrop = await portraitCrop(side.prepared.jpeg, frame, 'dni_2009_front');
    return;
  }
  // Read once: a back whose CUIL was looked for above reads the same again.
  setBackPrint(print, back ?? (await readBack()), reading.passes);
}

/**
 * A 2012+ back's printed CUIL as the side's print, after `passesBefore` other passes. Its CUIL, the card's
 * number in it, says a 2012+ back; neither it nor the 2009 front's labels read, the side sent as a front
 * may be a 2009 front whose print (which the checks need) was not read: it is asked for again, never taken
 * on its MRZ alone (an altered print would pass).
 */
function setBackPrint(print: SidePrint, back: Awaited<ReturnType<typeof readBackCuil>>, passesBefore: number): void {
  print.printed = back.printed;
  print.passes = passesBefore + back.passes;
  print.backCuilRead = back.printed?.fields.cuil !== undefined;
  print.frontPrintUnread = !print.backCuilRead;
}

/**
 * A passport's page: its portrait, and the visual zone against the MRZ (a page whose print was altered
 * and its MRZ not). The number is compared where its check digit makes the MRZ's certain, and with OCR's
 * letter-for-digit slips allowed (`printedNumberAgainst`).
 */
async function readPassportPage(side: SideContext, zone: MrzReading, frame: CardFrame): Promise<void> {
  const { zoneSearch, zoneNumber, clock, options, print } = side;
  print.faceCrop = await portraitCrop(side.prepared.jpeg, frame, 'passport_td3');
  const machineNumber = zone.data.check_digits.document_number === true ? zoneNumber : null;
  if (!readsPrint(side)) return;
  const agrees =
    machineNumber === null
      ? undefined
      : { number: (value: string) => printedNumberAgainst({ number: value }, machineNumber).number === machineNumber };
  const reading = await readPrintedFields(frame, 'passport_td3', clock, {
    expected: zoneExpectation(zone, stageRan(zoneSearch, 'searchZone').namesJudged, options.today),
    ...(agrees === undefined ? {} : { agrees }),
  });
  print.passes = reading.passes;
  print.printed = kept(reading, machineNumber === null ? reading.fields : printedNumberAgainst(reading.fields, machineNumber));
}

/** The zone once its names were judged, the fields it gives, and what the searches spent. */
export const awaitNames: SideStage = async (side) => {
  const { symbols, clock, options } = side;
  const mrzSearch = await stageRan(side.zoneSearch, 'searchZone').namesJudged;
  const mrz = mrzSearch.found;
  side.timings.mrz_ms += side.lap();
  side.mrzSearch = mrzSearch;
  side.namesWithheld = mrz !== null && namesWithheldOf(mrz);
  const mrzRead = mrz === null ? null : mrzToDocumentFields(mrz.data, { today: options.today });
  side.mrzFields = mrzRead !== null && side.namesWithheld ? { ...mrzRead, surname: null, given_names: null } : mrzRead;
  side.work = {
    barcode_attempts: symbols.attempts,
    barcode_megapixels: Math.round(symbols.megapixels * 100) / 100,
    deblur_attempts: side.deblurAttempts,
    mrz_ocr_passes: mrzSearch.attempts,
    printed_ocr_passes: side.print.passes,
    safety_cap_reached: clock.expired,
  };
};

/** The photo's hash and likeness signature, and (but on a back) the card's outline. */
export const measureLikeness: SideStage = async (side) => {
  const { jpeg } = side.prepared;
  side.likeness = {
    image_hash: await perceptualHash(jpeg),
    image_signature: await perceptualSignature(jpeg),
    card_outline: side.options.side === 'back' ? null : await findCardOutline(jpeg),
  };
  side.timings.hash_ms = side.lap();
};

export const READ_SIDE_STAGES: readonly SideStage[] = [
  readFirstBarcode,
  searchZone,
  readBarcodeFurther,
  parseBarcode,
  readPrint,
  awaitNames,
  measureLikeness,
];

/** The document type and face the side shows, and what is wrong with it, from what the stages read. */
export function judgeSide(side: SideContext): Pick<SideReading, 'detected_type' | 'detected_face' | 'problems'> {
  const { options, barcode, barcodeFields, layout, mrzType, print } = side;
  const quality = stageRan(side.quality, 'readFirstBarcode');
  const mrzSearch = stageRan(side.mrzSearch, 'awaitNames');
  const mrz = mrzSearch.found;
  const printedCount = print.printed === null ? 0 : Object.keys(print.printed.fields).length;
  const detectedType: SideReading['detected_type'] = barcodeFields !== null ? 'dni' : mrzType;
  const detectedFace = faceOf(layout, mrz, print.frontLabelsFound, print.backCuilRead);

  const problems: SideProblem[] = [...quality.problems];
  // The OCR saw an MRZ's filler runs but read no zone that holds: the photo shows a document, and its
  // lines are what to take again (a glare over a DNI back's zone, s42-000056: "no document in the
  // photo" told the person the wrong thing, and "no barcode" the wrong side's).
  const zoneUnread = mrzSearch.signal && mrz?.valid !== true;
  // Where the zone's lines lost their ink over a few characters, a glare took them: what to change is
  // the light, whatever the photo's own glare measure says (a spot over the zone is a small share of it).
  if (zoneUnread && mrzSearch.erased_characters >= ERASED_BY_GLARE && !problems.includes('glare')) problems.unshift('glare');
  if (zoneUnread) problems.push('mrz_not_found');
  if (barcode === null) problems.push('barcode_not_found');
  if (mrz === null && !zoneUnread) problems.push('mrz_not_found');
  if (barcode === null && mrz === null && printedCount === 0 && !mrzSearch.signal) problems.push('no_document');
  const expectedFace: SideFace | null = options.side === 'back' ? 'back' : 'front';
  if (detectedFace !== null && detectedFace !== 'data_page' && detectedFace !== expectedFace) problems.push('other_side');
  if (detectedType !== null && (detectedType === 'unsupported' || !options.acceptedTypes.includes(detectedType))) {
    problems.push('wrong_type');
  }
  if (options.side === 'front' && (printUnsettled(print.printed).length > 0 || print.frontPrintUnread))
    problems.push('print_unreadable');
  return { detected_type: detectedType, detected_face: detectedFace, problems };
}

/** The side's reading, from what the stages read and what `judgeSide` made of it. */
export function sideReadingOf(side: SideContext, judged: ReturnType<typeof judgeSide>): SideReading {
  const { barcode, parsed, layout } = side;
  const mrz = stageRan(side.mrzSearch, 'awaitNames').found;
  return {
    side: side.options.side,
    detected_type: judged.detected_type,
    detected_face: judged.detected_face,
    barcode:
      barcode === null
        ? null
        : {
            format: barcode.format,
            text: barcode.text,
            bytes_base64: barcode.bytes_base64,
            angle: barcode.angle,
            region: barcode.region,
            scale: barcode.scale,
            symbol_orientation: barcode.symbol_orientation,
            sequence: barcode.sequence,
            layout,
            parse_failure: parsed === null || parsed.ok ? null : `${parsed.failure}: ${parsed.detail}`,
          },
    barcode_fields: side.barcodeFields,
    mrz:
      mrz === null
        ? null
        : {
            lines: mrz.lines,
            format: mrz.data.format,
            valid: mrz.valid,
            check_digits: mrz.data.check_digits,
            problems: mrz.data.problems,
            names_truncated: mrz.data.names_truncated,
            repaired_characters: mrz.repaired_characters,
            angle: mrz.angle,
            name_confidence: mrz.name_confidence,
            names_corroborated: mrz.names_corroborated,
            names_second_read: mrz.names_second_read,
            names_withheld: side.namesWithheld,
          },
    mrz_fields: side.mrzFields,
    printed: side.print.printed,
    quality: stageRan(side.quality, 'readFirstBarcode'),
    problems: judged.problems,
    refusal: null,
    face_crop: side.print.faceCrop,
    image_hash: side.likeness.image_hash,
    image_signature: side.likeness.image_signature,
    card_outline: side.likeness.card_outline,
    work: stageRan(side.work, 'awaitNames'),
    timings: side.timings,
    ms: Date.now() - side.started,
  };
}

/**
 * Reads one side. Never throws for a bad image: an upload that cannot be prepared is a typed problem.
 * The stages (`READ_SIDE_STAGES`), over one `SideContext` that `startSide` opens: the barcode's quick
 * stage, the MRZ, the barcode's later stages, the payload parsed, the print, the zone's names judged, the
 * photo's likeness; then `judgeSide` names the document and its problems.
 */
export async function readSide(image: PreparedImage | Buffer, options: ReadSideOptions): Promise<SideReading> {
  const started = Date.now();
  const prepared = Buffer.isBuffer(image) ? await prepareUpload(image) : image;
  if (!prepared.ok) return emptyReading(options.side, started, prepared.reason);
  const side = await startSide(prepared, options, started);
  for (const stage of READ_SIDE_STAGES) await stage(side);
  return sideReadingOf(side, judgeSide(side));
}
