import { MRZ_ANALYSIS_WIDTH } from '../../calibration/mrz';
import { greyVariant, type GreyRaster, type RelativeRegion } from '../../image/raster';
import type { MrzData } from '../../parsers/mrz.parser';
import { bestMrz, better, mrzCandidates, namesKeyOf, type CellRead, type ScoredMrz } from '../mrz-text';
import { secondReadOfDataLine, secondReadOfNames } from '../names-check';
import { MRZ_WHITELIST, OcrTimeoutError, recognise, type OcrLine, type OcrResult } from '../ocr';
import type { MrzReading, MrzSearch, MrzSearchOptions } from './reading';
import type { OcrVariant } from './variants';
import type { OcrImage, RectifiedZone, ZoneCrop } from './zones';

/**
 * The state the MRZ search's stages share (`searchMrzZone` runs them): one `SearchContext` for the whole
 * search, and one `ZoneContext` per zone read. Each stage reads what the stages before it recorded and
 * records what it found for those after it.
 */

/** The engines the search reads with: the legacy engine's zone passes and the LSTM engine's line reads. */
export interface MrzReaders {
  /** One OCR pass over a zone's crop; null when its safety cap cut it short. */
  zone: (png: Buffer, timeoutMs: number | undefined) => Promise<OcrResult | null>;
  names: typeof secondReadOfNames;
  dataLine: typeof secondReadOfDataLine;
}

async function ocrMrz(png: Buffer, timeoutMs: number | undefined) {
  return recognise(png, { whitelist: MRZ_WHITELIST, mode: 'block', timeoutMs }).catch((error: unknown) => {
    if (error instanceof OcrTimeoutError) return null;
    throw error;
  });
}

export const OCR_READERS: MrzReaders = { zone: ocrMrz, names: secondReadOfNames, dataLine: secondReadOfDataLine };

/** The best read so far, with what its names' judging needs of the zone it came from. */
export interface Best {
  scored: ScoredMrz;
  reading: MrzReading;
  corroborated: boolean;
  variant: OcrVariant['name'];
  /** The crop the read came from and its names line, for the names' second read. */
  image: OcrImage;
  namesLine: OcrLine | undefined;
  /** The line holding the document number and the check digits (a passport's second). */
  dataLine: OcrLine | undefined;
  /** The names lines other variants of the read's zone gave in their best readings (asked when the search ends). */
  rivals: () => string[];
  /** Reads every variant of the read's zone not read yet (their names lines then count among `rivals`). */
  readWholeZone: () => Promise<void>;
}

/** A read that gave every cell of a zone's lines, and the way to make a read of its crop the best one. */
export interface CellReadEntry {
  read: CellRead;
  consider: (scored: ScoredMrz) => void;
}

export interface SearchContext {
  readonly raster: GreyRaster;
  readonly options: MrzSearchOptions;
  readonly readers: MrzReaders;
  readonly started: number;
  /**
   * The raster at the analysis width, where zones are located. Stretched before it is turned: the turn
   * fills the corners with white, which in a dim photo would otherwise set the top of the range and
   * leave the card too dark to count as paper.
   */
  readonly analysis: GreyRaster;
  attempts: number;
  signal: boolean;
  /** The widest loss of ink over a zone's lines so far (`erasedCharacters`). */
  erased: number;
  /** A plain pass on a photo that looks recaptured ran into the safety cap: every later zone's would too. */
  plainCutShort: boolean;
  /**
   * The names line of every variant's best reading, at every turn and crop (`namesKeyOf`): what the
   * second engine may pick from when it disagrees with the chosen names (`pickNamesBySecondRead`).
   */
  readonly namesReadInSearch: Set<string>;
  /** Reads that gave every cell of a zone's lines, by shape (`cellReadsIn`), for `voteCells`. */
  readonly cellReads: Map<string, CellReadEntry[]>;
  best: Best | null;
}

export async function startSearch(
  raster: GreyRaster,
  options: MrzSearchOptions,
  readers: MrzReaders = OCR_READERS,
): Promise<SearchContext> {
  const started = Date.now();
  const analysis = await greyVariant(raster, {
    scale: Math.min(1, MRZ_ANALYSIS_WIDTH / Math.max(raster.width, raster.height)),
    normalise: true,
  });
  return {
    raster,
    options,
    readers,
    started,
    analysis,
    attempts: 0,
    signal: false,
    erased: 0,
    plainCutShort: false,
    namesReadInSearch: new Set(),
    cellReads: new Map(),
    best: null,
  };
}

/** The first turn is always read whole (every variant): what the photo most likely is; the budget bounds the turns after it. */
export function overBudget(search: SearchContext, angleIndex: number): boolean {
  return angleIndex > 0 && search.options.budget.exhausted;
}

/** The search as it stands: the best read (null if none), and what the search spent and saw. */
export function searchOutcome(search: SearchContext, chosen: Best | null, budgetExhausted: boolean): MrzSearch {
  return {
    found: chosen?.reading ?? null,
    attempts: search.attempts,
    ms: Date.now() - search.started,
    budget_exhausted: budgetExhausted,
    signal: search.signal,
    erased_characters: Math.round(search.erased * 10) / 10,
  };
}

/** One zone (a crop at a turn) being read: its variants and what each read of it. */
export interface ZoneContext {
  readonly search: SearchContext;
  readonly angleIndex: number;
  /** The clockwise turn of the image the zone was located in. */
  readonly angle: number;
  readonly turned: GreyRaster;
  readonly crop: ZoneCrop;
  /** The crop as shares of the turned image. */
  readonly region: RelativeRegion;
  /** The zone straightened by its own lines, or null where they cannot be traced. */
  readonly rectified: RectifiedZone | null;
  /** The variants to read, in order; a recaptured photo's zone may have the rest replaced (`promoteDescreened`). */
  readonly variants: OcrVariant[];
  /** The zone at the OCR's width, stretched: its noise decides whether the crops are smoothed. */
  readonly zoneGrey: GreyRaster;
  /** The located block in the zone's pixels at the OCR's width. */
  readonly zoneBlock: { top: number; bottom: number; lines: number };
  readonly noisy: boolean;
  /** The zone's blur (`edgeBlurSigma`), measured when a deblurred variant first needs it. */
  zoneBlur: number | null;
  /**
   * The names lines read by each variant on this zone: no check digit covers the names, so a valid
   * read's names count only once another variant read them the same.
   */
  readonly namesByVariant: Map<OcrVariant['name'], Set<string>>;
  readonly bestNamesByVariant: Map<OcrVariant['name'], string>;
  readonly readByVariant: Map<OcrVariant['name'], { image: OcrImage; ocr: OcrResult | null }>;
  /** The zone is read descreened right after its plain crop (or only descreened). */
  promoted: boolean;
  /** The pass that checks a valid read's names was made (once per zone). */
  corroborationDone: boolean;
  /** Lines the zone's first read gave (the plain crop's, or the descreened one's where it is read so only). */
  firstReadLines: number;
}

/**
 * The best MRZ in a variant's lines. A glyph read's lines are as long as the format they were read as,
 * and only that format is fitted to them (`bestMrz`'s `lineLength`).
 */
export function fittedRead(variant: OcrVariant, texts: readonly string[]): ScoredMrz | null {
  return bestMrz(texts, variant.glyphs === true ? texts[0]?.length : undefined);
}

/** Which line holds the names: the third of a TD1 card, the first of TD2 and TD3. */
export function nameLineIndex(mrz: MrzData): number {
  return mrz.format === 'TD1' ? 2 : 0;
}

/** The names lines, per line count, that any MRZ candidate of one OCR pass holds. */
export function namesReadIn(texts: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const candidate of mrzCandidates(texts)) names.add(namesKeyOf(candidate.lines));
  return names;
}

export function nameConfidence(scored: ScoredMrz, lines: readonly OcrLine[]): number {
  const source = lines[scored.candidate.source_lines[nameLineIndex(scored.mrz)] ?? -1];
  if (source === undefined) return 0;
  let lowest = 100;
  for (const word of source.words) {
    // A mark beside the zone read as a lone letter is not part of any candidate line.
    if (word.text.length < 4) continue;
    for (const symbol of word.symbols) if (/^[A-Z]$/.test(symbol.text)) lowest = Math.min(lowest, symbol.confidence);
  }
  return lowest;
}

/** Between two reads: valid first, then names corroborated, then check digits (`better`). */
export function outranks(
  a: { scored: ScoredMrz; corroborated: boolean },
  b: { scored: ScoredMrz; corroborated: boolean },
): boolean {
  if (a.scored.mrz.valid !== b.scored.mrz.valid) return a.scored.mrz.valid;
  if (a.scored.mrz.valid && a.corroborated !== b.corroborated) return a.corroborated;
  return better(a.scored, b.scored);
}
