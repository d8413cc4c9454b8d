import type { Quad } from '../../image/geometry';
import type { MrzData } from '../../parsers/mrz.parser';
import type { NamesSecondRead } from '../names-check';
import type { WorkBudget } from '../work-budget';

/** What the MRZ search gives back (`searchMrzZone`): the zone as read, and where and how surely. */
export interface MrzReading {
  lines: string[];
  data: MrzData;
  valid: boolean;
  repaired_characters: number;
  filler_adjustments: number;
  /** The clockwise turn of the image under which it was read. */
  angle: number;
  /** The zone's corners in the pixels of the image as given. */
  quad: Quad;
  /** The OCR's mean confidence over the zone's lines (0–100). */
  confidence: number;
  /**
   * The OCR's lowest confidence in a letter of the line holding the names (0–100). No check digit covers
   * the names: a blurred M read as H passes every check, so a low one means the names are not to be given.
   */
  name_confidence: number;
  /**
   * A second OCR pass of the zone (another variant) read the names line the same. Check digits make a
   * misread of the rest of a valid MRZ unlikely; of the names, only a second reading does (a blurred Q
   * read as G in one variant and not in the other).
   */
  names_corroborated: boolean;
  /**
   * The LSTM engine's read of the names line (`names-check.ts`), made when the names were read valid and
   * at least `MIN_NAME_CONFIDENCE`; null when it was not made. Names are given back only when it agreed;
   * where another variant read other names, it agrees only if it reads none of those (`disagreed`). Where
   * it disagreed, the one other variant's names it reads, if any, become the names (`agreed`).
   */
  names_second_read: NamesSecondRead | null;
}

export interface MrzSearch {
  found: MrzReading | null;
  attempts: number;
  ms: number;
  budget_exhausted: boolean;
  /** Whether any attempt saw MRZ-like text (filler runs), even if no format fitted. */
  signal: boolean;
  /** The widest stretch of a zone's lines that lost its ink, in characters (`erasedCharacters`). */
  erased_characters: number;
}

/**
 * An MRZ search whose valid read's names are still being judged by the second engine (`finishSearch`):
 * `found` is the zone as read, `names_second_read` not set yet, and `namesJudged` the search once they
 * are. The judging has begun: the caller reads the page's other fields meanwhile, on the other engine's
 * thread. Names are all it may change (every other field, the zone's place and its turn stay).
 */
export interface MrzZoneSearch extends MrzSearch {
  namesJudged: Promise<MrzSearch>;
}

export interface MrzSearchOptions {
  /** Clockwise turns of the image to try, in order. */
  angles: readonly number[];
  /**
   * OCR passes after which no new one starts (the first turn's are always made; the pass that checks a
   * valid read's names is made whatever is left).
   */
  budget: WorkBudget;
  /** The safety cap of one OCR pass (`recognise`'s default otherwise). */
  ocrTimeoutMs?: number;
  /**
   * The photo looks like a screen or a print (the recapture detector's verdict or its periodic evidence):
   * its zones are read descreened too, last, and right after the plain crop where that showed no MRZ or
   * ran into the safety cap (s7-000018). Elsewhere no zone is descreened.
   */
  recaptured?: boolean;
}
