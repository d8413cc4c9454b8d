import { boundingBox, rotatePoint, type Point, type Quad } from '../image/geometry';
import {
  greyVariant,
  pngVariant,
  rotateRaster,
  toPixels,
  type GreyRaster,
  type PixelRegion,
  type RelativeRegion,
} from '../image/raster';
import { parseMrz, type MrzData } from '../parsers/mrz.parser';
import { edgeBlurSigma, wienerDeblurBoth } from '../image/deconvolve';
import { descreen } from '../image/descreen';
import { noiseSigma } from '../image/noise';
import { erasedCharacters } from './mrz-erasure';
import { readMrzGlyphs, type GlyphLineLayout } from './mrz-glyphs';
import { locateMrzBlocks } from './mrz-locator';
import {
  arbitrationRivals,
  bestMrz,
  better,
  cellReadsIn,
  completedByVote,
  dataLineFromSecondRead,
  documentNumberRepairs,
  hasMrzSignal,
  mrzCandidates,
  namesKeyOf,
  namesLineOf,
  numberReadIn,
  rivalNames,
  votedLines,
  type CellRead,
  type ScoredMrz,
} from './mrz-text';
import {
  FILLER_READS,
  namesPickedBySecondRead,
  secondReadOfDataLine,
  secondReadOfNames,
  type NamesSecondRead,
  type SecondReadText,
} from './names-check';
import { DEFAULT_OCR_TIMEOUT_MS, MRZ_WHITELIST, OcrTimeoutError, recognise, type OcrLine, type OcrResult } from './ocr';
import { applyHomography, levelMrzLines, measureMrzBand, rectifyMrzBand, type MrzBandGeometry } from './rectify';
import type { WorkBudget } from './work-budget';

/**
 * Reads the machine readable zone by OCR. The MRZ is the bottom of the page when the page is upright
 * (TD3 passports: about the bottom quarter; TD1 cards, the 2009 DNI front and the card backs: about the
 * bottom third), so only a bottom band is read (150 ms instead of 1.6 s for the whole image), upscaled or
 * downscaled to a width at which OCR-B characters are 20–40 px tall, with the histogram stretched.
 *
 * For each orientation tried (a clockwise turn, possibly including a small deskew), one OCR pass of the
 * zone comes first, straightened by its own lines (`rectify.ts`) when they can be traced; only if it
 * shows the filler runs an MRZ has are more variants tried (the plain crop, binarised, at a larger
 * width). A block whose first pass shows no MRZ is read once more turned the other way (its half of the
 * photo only guessed the page's orientation), and a noisy zone's crops are smoothed (`NOISY_ZONE_SIGMA`).
 * The search stops at the first read whose check digits all hold and whose names a second variant read
 * the same; a valid read whose names no other variant confirms goes on through the zone's variants.
 * Otherwise the best attempt is reported, invalid, for the checks to name. Names the other engine reads
 * otherwise than the chosen read are arbitrated among every variant of the zone (`finish`).
 */
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

// Below this OCR confidence in any letter of an MRZ's names, they are not given back, nor asked of the
// second engine. The floor was 75 before the second read (`names_second_read`) existed: names read wrong
// had their weakest letter at 70–73 (seed 42) and 78 (seed 7), right ones at 67–92, so a floor could not
// separate them and the two engines agreeing is what does. At 60 (2026-11-26) the second engine gave back
// seed 42's right names at 67 and 72 and withheld its wrong ones at 71 and 73 (bench/documents/README.md);
// it stays as a floor under which a read is too uncertain to be worth the second pass.
export const MIN_NAME_CONFIDENCE = 60;

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

// The whole turned image is searched for MRZ-like lines at this width before any OCR; a block in its
// top half is read turned by 180° (the page is upside down), so each turn covers two orientations.
const ANALYSIS_WIDTH = 1000;
// Gaussian σ (px at the analysis width, where an MRZ character is 14–25 px tall).
const LOCATOR_BLUR = 1;

interface OcrVariant {
  name:
    | 'plain'
    | 'binarised'
    | 'binarised_light'
    | 'wide'
    | 'rectified'
    | 'deblurred'
    | 'deblurred_stronger'
    | 'descreened'
    | 'descreened_wide'
    | 'glyphs';
  /** Width of the zone's crop for OCR: OCR-B characters then stand 20–40 px tall. */
  width: number;
  threshold?: number;
  /** The crop's defocus undone (`deconvolve.ts`): σ as estimated times this factor, and the noise ratio. */
  deblur?: { sigmaFactor: number; noise: number };
  /** The crop's screen grid or halftone notched out (`descreen.ts`). */
  descreen?: true;
  /** Read by matching OCR-B's glyphs in the straightened zone (`mrz-glyphs.ts`), not by the OCR engine. */
  glyphs?: true;
}

// The first reads the zone as it is; the others only when it was not read with every check digit holding
// and its names corroborated.
const PLAIN: OcrVariant = { name: 'plain', width: 1200 };
const BINARISED: OcrVariant = { name: 'binarised', width: 1200, threshold: 110 };
const WIDE: OcrVariant = { name: 'wide', width: 1600 };
// A glare over the zone lifts the ink it covers to a grey of 150–200 while the paper around stays white
// (s99-000006: `1000000` and `59F` under a reflection read as `1P JO` and a gap by every other variant);
// pixels darker than 200 become ink, which gives them back their strokes.
const BINARISED_LIGHT: OcrVariant = { name: 'binarised_light', width: 1200, threshold: 200 };
const RECTIFIED: OcrVariant = { name: 'rectified', width: 1200 };
// Last, on a zone blurred beyond a sharp photo's edge width (`MIN_DEBLUR_SIGMA`): the blur undone in
// both directions (a Gaussian is separable), at the estimated σ and at a stronger one; each checks the
// other's names, so a check is another deblurring, not the same pixels resampled. Measured on seed 42's
// blurred passport (σ 3.0 px): plain `P<OIA6ARCIA`, every check digit but two failing; deblurred at
// σ 3.1 and noise ratio 0.01, and at σ 3.6 and 0.03, valid and exact; at σ 3.0, one digit off.
const DEBLURRED: OcrVariant = { name: 'deblurred', width: 1200, deblur: { sigmaFactor: 1, noise: 0.01 } };
const DEBLURRED_STRONGER: OcrVariant = {
  name: 'deblurred_stronger',
  width: 1200,
  deblur: { sigmaFactor: 1.2, noise: 0.03 },
};
// On a photo that looks recaptured (`MrzSearchOptions.recaptured`), last: the crop's periodic patterns
// notched out of its spectrum (`descreen.ts`). A screen's grid crosses the characters with dark lines the
// engine reads as strokes (s42-000048: `CAMILA` read `CM4ILA`); notched out, the zone reads. Where the
// plain crop showed no MRZ or ran into the safety cap, it is read at two widths right after it instead.
const DESCREENED: OcrVariant = { name: 'descreened', width: 1200, descreen: true };
const DESCREENED_WIDE: OcrVariant = { name: 'descreened_wide', width: 1600, descreen: true };
// Right after the plain and the straightened crop: the zone's cells matched against OCR-B's glyphs
// blurred as the zone is (`mrz-glyphs.ts`), at a width of its own (`GLYPH_CELL_PX`). A blurred passport
// zone (σ 3–4 px) that the engine reads `P<OIA6ARCIA` or cut short at both ends reads exactly this way;
// it comes before the other crops because those, and the deblurred ones, ran the search's budget out
// before a later variant was reached (s99-000064, s99-000134). Its names are checked as every other
// variant's: by the plain crop's, and by the LSTM engine shown the zone deblurred (`glyphRead`).
const GLYPHS: OcrVariant = { name: 'glyphs', width: 0, glyphs: true };
// Sharp photos' text edges measure 0.8–1.1 px at the OCR width (as the barcodes' do, `deconvolve.ts`).
const MIN_DEBLUR_SIGMA = 1.4;

/**
 * A zone whose crop, stretched at the OCR's width, is this noisy (`noiseSigma`) is read smoothed: a dim
 * photo's sensor noise, multiplied by the stretch, is read by the legacy engine as a field of small
 * characters, slowly (6 s, and the 10 s safety cap, over one such zone) and wrongly. Ordinary photos and
 * prints measure 1–5, dim ones 5–25 (corpus seeds 6001 and 6002); from 10, over 32 zones of the two,
 * the crops as they are read 16 exactly and smoothed 25 (docs/documents.md "Reading images").
 */
export const NOISY_ZONE_SIGMA = 10;

// The safety cap of the passes read only to find the names the second engine reads (`readWholeZone`):
// an ordinary zone pass takes 0.1–0.4 s; on a machine loaded beyond its cores one cut short leaves the
// names withheld, as they were before the pass.
const ARBITRATION_OCR_TIMEOUT_MS = 3_000;

/**
 * The smoothing of a noisy zone: Gaussian σ in px at the 1200 px OCR width (scaled with a variant's
 * width), by the lines the locator counted. The characters of a two-line zone (TD3's 44 a line, TD2's
 * 36) stand 0.68–0.83 as wide at that width as a TD1's 30: smoothed as much, a passport's M became H
 * and its 5 an S (s99-000037, s99-000047). Measured per σ on corpus seed 6002's dim zones from 10:
 * TD1 (10 zones) 7 exact as they are, 8 at 0.75, 9 at 1–1.5; TD3 (11) 5 as they are, 8 at 0.75, 7 at 1,
 * 5 at 1.5.
 */
function denoiseSigma(zoneLines: number): number {
  return zoneLines >= 3 ? 1.5 : 0.75;
}

/**
 * The variant that checks a valid read's names: 'wide' checks the plain crop, 'plain' every other. A
 * rectified read is never checked by another resampling of the rectified band: the two misread a blurred
 * M as H alike. The binarised variant is the noisiest reader of letters, so it only ever is checked.
 */
function checkOf(variant: OcrVariant['name'], keystoned: boolean, descreenedOnly: boolean): OcrVariant {
  // Under a keystone the plain and the wide crop are one rectangle at two widths: both cut the same
  // line's far end and misread it alike, so only the straightened zone can check them.
  if (keystoned && (variant === 'plain' || variant === 'wide')) return RECTIFIED;
  if (variant === 'deblurred') return DEBLURRED_STRONGER;
  if (variant === 'deblurred_stronger') return DEBLURRED;
  // Where the zone is read descreened only (`MrzSearchOptions.recaptured`), the plain crop showed nothing
  // or ran into the safety cap: the other width checks. Elsewhere the plain crop does, as for the others.
  if (descreenedOnly && variant === 'descreened') return DESCREENED_WIDE;
  if (descreenedOnly && variant === 'descreened_wide') return DESCREENED;
  return variant === 'plain' ? WIDE : PLAIN;
}

/**
 * MRZ lines converging by at least this much (`MrzBandGeometry.convergence_deg`) are a keystone that a
 * rectangular crop does not hold: s42-000023's lines converge by 0.82°, the plain and the wide crop cut
 * the bottom of its names line alike and both read `RHT7<<70F` for `RUIZ<<ZOE` (Z as 7, E as F: the
 * bottom strokes gone), which then counted as names read twice the same. Over seed 42's other 48 MRZ
 * sides the lines converge by 0.02–0.67° (perspective photos 0.21–0.49°); at 0.5° three of them (a
 * print, a screen and the keystoned back) get the straightened check (docs/documents.md).
 */
export const KEYSTONE_CHECK_DEG = 0.5;

// Blocks OCR'd per turn, nearest the page's bottom (or top) edge first: the MRZ is the page's last text.
const MAX_BLOCKS = 2;

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

interface ZoneCrop extends PixelRegion {
  /** The block was in the top half: the page is upside down at this turn, so the crop is read turned 180°. */
  flipped: boolean;
  /** The crop is read the other way from what its half of the photo said, that reading having shown no MRZ. */
  turned_back?: boolean;
  /** Lines the locator counted in the block. */
  lines: number;
  /** The block's first and last rows and height per line, px of the full-resolution turned image. */
  block_top: number;
  block_bottom: number;
  line_height: number;
}

interface RelativeZone extends RelativeRegion {
  flipped: boolean;
  lines: number;
  /** The same as shares of the turned image's height. */
  block_top: number;
  block_bottom: number;
  line_height: number;
}

/** An OCR input and the way back from its pixels to the turned image's. */
interface OcrImage {
  png: Buffer;
  toTurned: (point: Point) => Point;
  /** The reading already made of these pixels (the glyph variant's), instead of an OCR pass. */
  read?: OcrResult;
}

function zoneQuad(lines: readonly OcrLine[], image: OcrImage, turned: GreyRaster, original: GreyRaster, angle: number): Quad {
  const box = boundingBox(
    lines.flatMap((line) => [
      { x: line.bbox.x0, y: line.bbox.y0 },
      { x: line.bbox.x1, y: line.bbox.y1 },
    ]),
  );
  const toOriginal = (x: number, y: number) => rotatePoint(image.toTurned({ x, y }), -angle, turned, original);
  // Corners named as the page reads (upright), whatever the turn.
  return {
    topLeft: toOriginal(box.left, box.top),
    topRight: toOriginal(box.right, box.top),
    bottomRight: toOriginal(box.right, box.bottom),
    bottomLeft: toOriginal(box.left, box.bottom),
  };
}

/** From the pixels of a crop of `crop` scaled by `scale` (and turned 180° if flipped) to the turned image's. */
function cropToTurned(crop: PixelRegion & { flipped: boolean }, scale: number): (point: Point) => Point {
  return ({ x, y }) => {
    const local = crop.flipped ? { x: crop.width - x / scale, y: crop.height - y / scale } : { x: x / scale, y: y / scale };
    return { x: crop.left + local.x, y: crop.top + local.y };
  };
}

/**
 * Blocks of two or three MRZ-like lines in the image turned by `angle`, as shares of the turned image
 * (the same at any resolution), nearest an edge first. The analysis turns a copy already at the
 * analysis width: turning the full photo for every angle tried cost more than the analysis itself, and
 * most angles find nothing.
 */
async function zoneCrops(analysis: GreyRaster, angle: number): Promise<RelativeZone[]> {
  const turned = await rotateRaster(analysis, angle);
  // A slight blur first: a dim photo's sensor noise (σ 4–10 grey levels) otherwise passes for ink
  // between the lines and joins them to the page's text into one block of five (corpus, low light).
  const grey = await greyVariant(turned, { normalise: true, blur: LOCATOR_BLUR });
  return (
    locateMrzBlocks(grey)
      // Two or three lines (TD1, TD2, TD3), or four where a line of the page's text joined them.
      .filter((block) => block.lines >= 2 && block.lines <= 4)
      .map((block) => ({ block, flipped: (block.top + block.bottom) / 2 < grey.height / 2 }))
      .sort((a, b) => edgeDistance(a.block, a.flipped, grey.height) - edgeDistance(b.block, b.flipped, grey.height))
      .slice(0, MAX_BLOCKS)
      .map(({ block, flipped }) => {
        const lineHeight = (block.bottom - block.top + 1) / block.lines;
        const margin = lineHeight * 1.2;
        const left = Math.max(0, block.left - grey.width * 0.06);
        const right = Math.min(grey.width, block.right + grey.width * 0.06);
        const top = Math.max(0, block.top - margin);
        const bottom = Math.min(grey.height, block.bottom + margin);
        return {
          left: left / grey.width,
          top: top / grey.height,
          width: (right - left) / grey.width,
          height: (bottom - top) / grey.height,
          flipped,
          lines: block.lines,
          block_top: block.top / grey.height,
          block_bottom: (block.bottom + 1) / grey.height,
          line_height: lineHeight / grey.height,
        };
      })
  );
}

/** A relative zone in pixels of the full-resolution turned image. */
function zonePixels(zone: RelativeZone, turned: GreyRaster): ZoneCrop {
  const pixels = toPixels(zone, turned.width, turned.height);
  return {
    ...pixels,
    flipped: zone.flipped,
    lines: zone.lines,
    block_top: zone.block_top * turned.height,
    block_bottom: zone.block_bottom * turned.height,
    line_height: zone.line_height * turned.height,
  };
}

/**
 * The zone straightened (`rectify.ts`), or null when its lines cannot be traced. The band measured is
 * the crop with two more line heights above and below (a keystoned line's far end leaves the crop, and
 * a line the locator missed lies there).
 */
async function rectifiedZone(
  turned: GreyRaster,
  crop: ZoneCrop,
): Promise<{ raster: GreyRaster; geometry: MrzBandGeometry; band: ZoneCrop; scale: number } | null> {
  const width = RECTIFIED.width;
  const extra = crop.line_height * 2;
  const top = Math.max(0, Math.round(crop.top - extra));
  const bottom = Math.min(turned.height, Math.round(crop.top + crop.height + extra));
  const band: ZoneCrop = { ...crop, top, height: bottom - top };
  const scale = width / band.width;
  const raster = await greyVariant(turned, {
    region: {
      left: band.left / turned.width,
      top: band.top / turned.height,
      width: band.width / turned.width,
      height: band.height / turned.height,
    },
    scale,
    normalise: true,
    upsideDown: band.flipped,
  });
  // The block's top in the band's pixels (the band is read turned 180° when the block is flipped).
  const blockTop = band.flipped ? band.top + band.height - crop.block_bottom : crop.block_top - band.top;
  const lineHeight = crop.line_height * scale;
  // Up to four lines were counted; the MRZ has two or three, and a fourth is the page's own text joined
  // to them above: then the last three lines are traced, else the last two.
  for (const skip of crop.lines === 4 ? [1, 2] : [0]) {
    const geometry = measureMrzBand(raster, {
      top: (blockTop + skip * crop.line_height) * scale,
      lines: crop.lines - skip,
      line_height: lineHeight,
    });
    if (geometry !== null) return { raster, geometry, band, scale };
  }
  return null;
}

// The glyph variant's cells: about this many px wide (OCR-B characters then stand 26 px tall).
const GLYPH_CELL_PX = 24;

/**
 * The zone straightened at a width that gives its cells `GLYPH_CELL_PX` and read by matching OCR-B's
 * glyphs (`readMrzGlyphs`): three lines hold 30 characters; two hold 44 (TD3) or 36 (TD2), and the
 * glyphs decide which. Null when the lines cannot be laid out as cells.
 */
async function glyphImage(rectified: {
  raster: GreyRaster;
  geometry: MrzBandGeometry;
  band: ZoneCrop;
  scale: number;
}): Promise<OcrImage | null> {
  const lengths = rectified.geometry.lines.length >= 3 ? [30] : [44, 36];
  // The ink spans the line less a side bearing at each end; the band keeps 4% margins on each side.
  const width = Math.round((Math.max(...lengths) * GLYPH_CELL_PX) / 0.92);
  const image = rectifyMrzBand(rectified.raster, rectified.geometry, width);
  if (image === null) return null;
  const bandToTurned = cropToTurned(rectified.band, rectified.scale);
  return glyphRead(image.raster, image.lines, lengths, (point) => bandToTurned(applyHomography(image.toBand, point)), false);
}

/**
 * The glyph variant of a zone whose lines could not be traced (`measureMrzBand`: a zone blurred until
 * its lines run into each other), read from the plain crop with its lines taken as level
 * (`levelMrzLines`) and each line's slant fitted by the glyphs themselves. Two lines are read as a TD3's 44
 * characters only.
 */
async function levelGlyphImage(
  zone: GreyRaster,
  block: { top: number; bottom: number; lines: number },
  toTurned: (point: Point) => Point,
): Promise<OcrImage | null> {
  if (block.lines < 2 || block.lines > 3) return null;
  const lineHeight = (block.bottom - block.top) / block.lines;
  const layouts = levelMrzLines(zone, { top: block.top, lines: block.lines, line_height: lineHeight });
  if (layouts === null) return null;
  const length = block.lines >= 3 ? 30 : 44;
  const span = Math.max(...layouts.map((line) => line.right - line.left));
  // At the OCR's width a cell is larger than the glyph variant's: brought down to it, as the rectified band is.
  const scale = Math.min(1, (GLYPH_CELL_PX * length) / Math.max(1, span));
  const raster = scale < 1 ? await greyVariant(zone, { scale }) : zone;
  const scaled = layouts.map((line) => ({ centreY: line.centreY * scale, left: line.left * scale, right: line.right * scale }));
  return glyphRead(raster, scaled, [length], (point) => toTurned({ x: point.x / scale, y: point.y / scale }), true);
}

/** The band read by glyphs, and what the other engine is shown of it: the band with its blur undone. */
async function glyphRead(
  band: GreyRaster,
  layouts: readonly GlyphLineLayout[],
  lengths: readonly number[],
  toTurned: (point: Point) => Point,
  level: boolean,
): Promise<OcrImage | null> {
  const sigma = edgeBlurSigma(band).sigma;
  const read = readMrzGlyphs(band, layouts, lengths, sigma, { level });
  if (read === null) return null;
  const shown = sigma < MIN_DEBLUR_SIGMA ? band : wienerDeblurBoth(band, sigma, DEBLURRED.deblur?.noise ?? 0.01);
  return { png: await pngVariant(shown), toTurned, read };
}

/**
 * The best MRZ in a variant's lines. A glyph read's lines are as long as the format they were read as,
 * and only that format is fitted to them (`bestMrz`'s `lineLength`).
 */
function fittedRead(variant: OcrVariant, texts: readonly string[]): ScoredMrz | null {
  return bestMrz(texts, variant.glyphs === true ? texts[0]?.length : undefined);
}

/** Which line holds the names: the third of a TD1 card, the first of TD2 and TD3. */
function nameLineIndex(mrz: MrzData): number {
  return mrz.format === 'TD1' ? 2 : 0;
}

/** The names lines, per line count, that any MRZ candidate of one OCR pass holds. */
function namesReadIn(texts: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const candidate of mrzCandidates(texts)) names.add(namesKeyOf(candidate.lines));
  return names;
}

function nameConfidence(scored: ScoredMrz, lines: readonly OcrLine[]): number {
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

function edgeDistance(block: { top: number; bottom: number }, flipped: boolean, height: number): number {
  return flipped ? block.top : height - block.bottom;
}

async function ocrMrz(png: Buffer, timeoutMs: number | undefined) {
  return recognise(png, { whitelist: MRZ_WHITELIST, mode: 'block', timeoutMs }).catch((error: unknown) => {
    if (error instanceof OcrTimeoutError) return null;
    throw error;
  });
}

/** Between two reads: valid first, then names corroborated, then check digits (`better`). */
function outranks(a: { scored: ScoredMrz; corroborated: boolean }, b: { scored: ScoredMrz; corroborated: boolean }): boolean {
  if (a.scored.mrz.valid !== b.scored.mrz.valid) return a.scored.mrz.valid;
  if (a.scored.mrz.valid && a.corroborated !== b.corroborated) return a.corroborated;
  return better(a.scored, b.scored);
}

interface Best {
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

/**
 * An MRZ search whose valid read's names are still being judged by the second engine (`finish`): `found`
 * is the zone as read, `names_second_read` not set yet, and `namesJudged` the search once they are. The
 * judging has begun: the caller reads the page's other fields meanwhile, on the other engine's thread.
 * Names are all it may change (every other field, the zone's place and its turn stay).
 */
export interface MrzZoneSearch extends MrzSearch {
  namesJudged: Promise<MrzSearch>;
}

export async function searchMrzZone(raster: GreyRaster, options: MrzSearchOptions): Promise<MrzZoneSearch> {
  const started = Date.now();
  let attempts = 0;
  let signal = false;
  let erased = 0;
  // A plain pass on a photo that looks recaptured ran into the safety cap: every later zone's would too.
  let plainCutShort = false;
  // The names line of every variant's best reading, at every turn and crop (`namesKey`): what the second
  // engine may pick from when it disagrees with the chosen names (`pickNamesBySecondRead`).
  const namesReadInSearch = new Set<string>();
  // Reads that gave every cell of a zone's lines, by shape (`cellReadsIn`), each with the way to make a
  // read of its crop the best one: the zone's lines voted cell by cell among them (`votedLines`).
  const cellReads = new Map<string, { read: CellRead; consider: (scored: ScoredMrz) => void }[]>();
  let best: Best | null = null;
  // Read through a call: TypeScript cannot see the closures (`consider`) that set it.
  const current = (): Best | null => best;
  // A passport zone failing checks is read again by the LSTM engine, one data line: a number failing its
  // check digit by one look-alike character (S for 5) is repaired when that read holds exactly one of the
  // repairs (letters and digits both stand in such a number, and its check digit alone cannot pick among
  // the look-alikes: `documentNumberRepairs`); otherwise its failing fields are taken from that read
  // where its own fields pass their checks and the whole zone then does (`dataLineFromSecondRead`:
  // s99-000026 read `PABS173445` for `PAB5173448` by the legacy engine, exactly by the LSTM one).
  const repairDataLine = async (chosen: Best): Promise<void> => {
    const { format } = chosen.scored.mrz;
    const repairs = documentNumberRepairs(chosen.reading.lines, format);
    if ((repairs.length === 0 && format !== 'TD3') || chosen.dataLine === undefined) return;
    attempts += 1;
    const text = await secondReadOfDataLine(chosen.image.png, chosen.dataLine.bbox);
    if (text === null) return;
    const confirmed = repairs.filter((lines) => numberReadIn(lines[1] ?? '', text, FILLER_READS));
    const lines = confirmed.length === 1 ? confirmed[0] : dataLineFromSecondRead(chosen.reading.lines, format, text);
    if (lines === undefined || lines === null) return;
    const data = parseMrz(lines);
    if (!data.ok || !data.valid) return;
    const changed = [...(lines[1] ?? '')].filter(
      (character, index) => character !== chosen.reading.lines[1]?.charAt(index),
    ).length;
    chosen.scored = { ...chosen.scored, mrz: data };
    chosen.reading = {
      ...chosen.reading,
      lines: data.lines,
      data,
      valid: true,
      repaired_characters: chosen.reading.repaired_characters + changed,
    };
  };
  // The second engine disagreed with the chosen names: every variant of the zone is read (the search
  // may have ended before some), and the one names line among theirs that the second engine's text
  // holds, if there is exactly one, replaces the chosen (`namesPickedBySecondRead`). Names cover no
  // check digit, so the rest of the read stays valid.
  const pickNamesBySecondRead = async (chosen: Best, second: SecondReadText, namesLine: string): Promise<void> => {
    await chosen.readWholeZone();
    const rivals = arbitrationRivals(namesKeyOf(chosen.scored.mrz.lines), chosen.rivals(), namesReadInSearch);
    const picked = namesPickedBySecondRead(second, namesLine, rivals, chosen.scored.mrz.format);
    if (picked === null) return;
    const index = nameLineIndex(chosen.scored.mrz);
    const lines = chosen.reading.lines.map((line, lineIndex) => (lineIndex === index ? picked : line));
    const data = parseMrz(lines);
    if (!data.ok || !data.valid) return;
    chosen.scored = { ...chosen.scored, mrz: data };
    chosen.reading = { ...chosen.reading, lines: data.lines, data, names_second_read: 'agreed' };
  };
  // Where no read was valid, the zone's lines as most reads of every cell gave them: a screen's zone read
  // at three turns, each read with a few cells it could not name and none valid (s42-000058). Only a
  // valid vote is taken; the read nearest it stands for it (its crop and lines are what the names'
  // second read looks at).
  const voteCells = (): void => {
    if (current()?.scored.mrz.valid === true) return;
    for (const group of cellReads.values()) {
      for (const lines of votedLines(group.map(({ read }) => read)) ?? []) {
        const scored = bestMrz(lines, lines[0]?.length);
        if (scored === null || !scored.mrz.valid) continue;
        const agreement = (read: CellRead) =>
          read.lines.reduce(
            (sum, line, index) => sum + [...line].filter((c, cell) => c === lines[index]?.charAt(cell)).length,
            0,
          );
        const nearest = group.reduce((a, b) => (agreement(b.read) > agreement(a.read) ? b : a));
        for (const { read } of group) namesReadInSearch.add(namesKeyOf(completedByVote(read, lines)));
        nearest.consider({ ...scored, candidate: { ...scored.candidate, source_lines: nearest.read.source_lines } });
      }
    }
  };
  // Made whatever the budget, as the corroborating pass is: it decides whether names are given back.
  // Names no other variant read are asked of the second engine too: two engines agreeing is what gives
  // them back (`readSide`). Where a variant read other names, the second engine arbitrates: it must read
  // the chosen names and none of the others (a blurred M read as H by some variants: the engine that
  // reads the M decides; one that could be reading either decides nothing).
  const judgeNames = async (chosen: Best | null): Promise<void> => {
    if (
      chosen === null ||
      !chosen.reading.valid ||
      chosen.reading.name_confidence < MIN_NAME_CONFIDENCE ||
      chosen.namesLine === undefined
    )
      return;
    attempts += 1;
    const { format } = chosen.scored.mrz;
    const namesLine = chosen.reading.lines[nameLineIndex(chosen.scored.mrz)] ?? '';
    const rivals = chosen.corroborated ? [] : chosen.rivals();
    const second = await secondReadOfNames(chosen.image.png, chosen.namesLine, namesLine, format, rivals);
    chosen.reading.names_second_read = second.verdict;
    if (second.verdict === 'disagreed' && second.text !== null)
      await pickNamesBySecondRead(chosen, { text: second.text, fillerSeenAfter: second.fillerSeenAfter }, namesLine);
  };
  const finish = async (budgetExhausted: boolean): Promise<MrzZoneSearch> => {
    voteCells();
    const chosen = current();
    if (chosen !== null && !chosen.reading.valid) await repairDataLine(chosen);
    const outcome = (): MrzSearch => ({
      found: chosen?.reading ?? null,
      attempts,
      ms: Date.now() - started,
      budget_exhausted: budgetExhausted,
      signal,
      erased_characters: Math.round(erased * 10) / 10,
    });
    const zone = outcome();
    const namesJudged = judgeNames(chosen).then(outcome);
    // Awaited by the caller later; a failure is theirs to see then, not an unhandled rejection now.
    namesJudged.catch(() => undefined);
    return { ...zone, found: zone.found === null ? null : { ...zone.found }, namesJudged };
  };

  // Stretched before it is turned: the turn fills the corners with white, which in a dim photo would
  // otherwise set the top of the range and leave the card too dark to count as paper.
  const analysis = await greyVariant(raster, {
    scale: Math.min(1, ANALYSIS_WIDTH / Math.max(raster.width, raster.height)),
    normalise: true,
  });
  for (const [angleIndex, angle] of options.angles.entries()) {
    // The first turn is always read whole (every variant): what the photo most likely is; the budget
    // bounds the turns after it.
    const overBudget = () => angleIndex > 0 && options.budget.exhausted;
    if (overBudget()) return finish(true);
    const zones = await zoneCrops(analysis, angle);
    if (zones.length === 0) continue;
    const turned = await rotateRaster(raster, angle);
    const crops = zones.map((zone) => zonePixels(zone, turned));
    for (let cropIndex = 0; cropIndex < crops.length; cropIndex += 1) {
      const crop = crops[cropIndex];
      if (crop === undefined) break;
      const region = {
        left: crop.left / turned.width,
        top: crop.top / turned.height,
        width: crop.width / turned.width,
        height: crop.height / turned.height,
      };
      const rectified = await rectifiedZone(turned, crop);
      // The plain crop first, then the zone straightened (`rectify.ts`): under a keystone the plain crop
      // cuts a line's far end off and shows the names slanted and shrinking (misread, and no check digit
      // covers them); the rectified read then gives the lines. It comes second, not first: read first, its
      // resampling made a blurred M into H on passports where the plain crop read it right, and two
      // variants agreeing on such names gives them back wrong (seed 7, two false accepts).
      let corroborationDone = false;
      const variants: OcrVariant[] = [
        PLAIN,
        ...(rectified === null ? [] : [RECTIFIED]),
        GLYPHS,
        BINARISED,
        WIDE,
        BINARISED_LIGHT,
        DEBLURRED,
        DEBLURRED_STRONGER,
        // Only where the photo looks recaptured: descreening also takes some of a line's own periodicity,
        // and on an ordinary zone its read was a rival to the others' names that only the second engine
        // could settle (a passport sample with a wrong check digit lost its names on a loaded machine).
        ...(options.recaptured === true ? [DESCREENED] : []),
      ];
      // The zone at the OCR's width, stretched: its noise decides whether the crops are smoothed, and
      // the deblurred variants start from it.
      const zoneGrey = await greyVariant(turned, {
        region,
        scale: PLAIN.width / crop.width,
        normalise: true,
        upsideDown: crop.flipped,
      });
      // The located block in the zone's pixels at the OCR's width.
      const zoneBlock = (() => {
        const scale = PLAIN.width / crop.width;
        const top = (crop.block_top - crop.top) * scale;
        const bottom = (crop.block_bottom - crop.top) * scale;
        return crop.flipped
          ? { top: zoneGrey.height - bottom, bottom: zoneGrey.height - top, lines: crop.lines }
          : { top, bottom, lines: crop.lines };
      })();
      // Three lines are a TD1's 30 characters; two a TD3's 44 (a TD2's 36 measures a fifth wider).
      if (crop.turned_back !== true) erased = Math.max(erased, erasedCharacters(zoneGrey, zoneBlock, crop.lines >= 3 ? 30 : 44));
      const noisy = noiseSigma(zoneGrey) >= NOISY_ZONE_SIGMA;
      // Smoothing of an unthresholded crop `width` wide, where the zone is noisy.
      const smoothing = (width: number) => (noisy ? (denoiseSigma(crop.lines) * width) / PLAIN.width : undefined);
      let zoneBlur: number | null = null;
      // The zone at a variant's width, stretched: what the deblurred and descreened variants start from.
      const zoneGreyAt = async (width: number): Promise<GreyRaster> =>
        width === PLAIN.width
          ? zoneGrey
          : greyVariant(turned, { region, scale: width / crop.width, normalise: true, upsideDown: crop.flipped });
      const imageOf = async (variant: OcrVariant): Promise<OcrImage | null> => {
        if (variant.descreen === true) {
          return {
            png: await pngVariant(descreen(await zoneGreyAt(variant.width)), { blur: smoothing(variant.width) }),
            toTurned: cropToTurned(crop, variant.width / crop.width),
          };
        }
        if (variant.deblur !== undefined) {
          const scale = variant.width / crop.width;
          const grey = await zoneGreyAt(variant.width);
          zoneBlur ??= edgeBlurSigma(grey).sigma;
          if (zoneBlur < MIN_DEBLUR_SIGMA) return null;
          const sigma = zoneBlur * variant.deblur.sigmaFactor;
          const sharpened = wienerDeblurBoth(grey, sigma, variant.deblur.noise);
          return { png: await pngVariant(sharpened), toTurned: cropToTurned(crop, scale) };
        }
        if (variant.glyphs === true) {
          if (rectified !== null) return glyphImage(rectified);
          return levelGlyphImage(zoneGrey, zoneBlock, cropToTurned(crop, PLAIN.width / crop.width));
        }
        if (variant.name === 'rectified') {
          if (rectified === null) return null;
          const image = rectifyMrzBand(rectified.raster, rectified.geometry, variant.width);
          if (image === null) return null;
          const bandToTurned = cropToTurned(rectified.band, rectified.scale);
          return {
            png: await pngVariant(image.raster, { normalise: true, blur: smoothing(variant.width) }),
            toTurned: (point) => bandToTurned(applyHomography(image.toBand, point)),
          };
        }
        // A threshold turns a noisy zone's grain into specks the engine reads slowly, as letters.
        if (noisy && variant.threshold !== undefined) return null;
        const scale = variant.width / crop.width;
        return {
          png: await pngVariant(turned, {
            region,
            scale,
            normalise: true,
            threshold: variant.threshold,
            upsideDown: crop.flipped,
            blur: smoothing(variant.width),
          }),
          toTurned: cropToTurned(crop, scale),
        };
      };
      // The names lines read by each variant on this zone: no check digit covers the names, so a valid
      // read's names count only once another variant read them the same.
      const namesByVariant = new Map<OcrVariant['name'], Set<string>>();
      const bestNamesByVariant = new Map<OcrVariant['name'], string>();
      const readByVariant = new Map<OcrVariant['name'], { image: OcrImage; ocr: OcrResult | null }>();
      const read = async (variant: OcrVariant, timeoutMs = options.ocrTimeoutMs) => {
        const known = readByVariant.get(variant.name);
        if (known !== undefined) return known;
        const image = await imageOf(variant);
        if (image === null) return null;
        attempts += 1;
        options.budget.spend(1);
        const result = { image, ocr: image.read ?? (await ocrMrz(image.png, timeoutMs)) };
        readByVariant.set(variant.name, result);
        if (result.ocr !== null) {
          const texts = result.ocr.lines.map((line) => line.text);
          namesByVariant.set(variant.name, namesReadIn(texts));
          for (const cellRead of cellReadsIn(texts)) {
            const shape = cellRead.lines.map((line) => line.length).join('x');
            const group = cellReads.get(shape) ?? [];
            const { ocr } = result;
            group.push({ read: cellRead, consider: (scored) => consider(variant.name, image, ocr, scored, true) });
            cellReads.set(shape, group);
          }
          const own = fittedRead(variant, texts);
          if (own !== null) {
            bestNamesByVariant.set(variant.name, namesKeyOf(own.mrz.lines));
            namesReadInSearch.add(namesKeyOf(own.mrz.lines));
          }
        }
        return result;
      };
      // Another variant read these names, and none read other names in its best reading of the zone: a
      // blurred M is read as H by some variants and not others, and two of four agreeing on H gave
      // names back wrong (seed 7). Where variants disagree, only the second engine can pick among them
      // (`finish`).
      const rivalsOf = (key: string) => [...bestNamesByVariant.values()].filter((names) => rivalNames(key, names));
      const readElsewhere = (key: string, variant: OcrVariant['name']) =>
        [...namesByVariant.entries()].some(([name, names]) => name !== variant && names.has(key)) && rivalsOf(key).length === 0;
      // A read becomes the best one if it outranks it (`outranks`), or reads the same as surely with names
      // read surer.
      // A read voted among several (`voteCells`) is never corroborated here: its names are the vote's, which
      // only the second engine confirms.
      const consider = (variantName: OcrVariant['name'], image: OcrImage, ocr: OcrResult, scored: ScoredMrz, voted = false) => {
        const corroborated = !voted && scored.mrz.valid && readElsewhere(namesKeyOf(scored.mrz.lines), variantName);
        const candidate = { scored, corroborated };
        // Between reads the check digits cannot tell apart, the one whose names were read surer wins:
        // the names are what no check digit covers (the 2009 specimen's M read as H by one variant only).
        // (Scores within 1 differ only by the '<' added or removed to fit the line length.)
        const surer =
          best !== null &&
          scored.mrz.valid === best.scored.mrz.valid &&
          corroborated === best.corroborated &&
          Math.abs(scored.score - best.scored.score) < 1 &&
          nameConfidence(scored, ocr.lines) > best.reading.name_confidence;
        if (best === null || outranks(candidate, best) || surer) {
          const zoneLines = scored.candidate.source_lines
            .map((lineIndex) => ocr.lines[lineIndex])
            .filter((line): line is OcrLine => line !== undefined);
          best = {
            scored,
            variant: variantName,
            corroborated,
            image,
            namesLine: ocr.lines[scored.candidate.source_lines[nameLineIndex(scored.mrz)] ?? -1],
            dataLine: ocr.lines[scored.candidate.source_lines[1] ?? -1],
            rivals: () => rivalsOf(namesKeyOf(scored.mrz.lines)).map(namesLineOf),
            readWholeZone: async () => {
              // These passes can only give names back, never take the read away: each is cut short
              // sooner than a search's pass (a dim zone's binarised crop ran to the 10 s safety cap,
              // s99-000057), and none is made past one cut short.
              const timeoutMs = Math.min(options.ocrTimeoutMs ?? DEFAULT_OCR_TIMEOUT_MS, ARBITRATION_OCR_TIMEOUT_MS);
              for (const variant of variants) if ((await read(variant, timeoutMs))?.ocr === null) return;
            },
            reading: {
              lines: scored.mrz.lines,
              data: scored.mrz,
              valid: scored.mrz.valid,
              repaired_characters: scored.candidate.repaired_characters,
              filler_adjustments: scored.candidate.filler_adjustments,
              angle: (angle + (crop.flipped ? 180 : 0)) % 360,
              quad: zoneQuad(zoneLines, image, turned, raster, angle),
              confidence: zoneLines.reduce((sum, line) => sum + line.confidence, 0) / Math.max(1, zoneLines.length),
              name_confidence: nameConfidence(scored, ocr.lines),
              names_corroborated: corroborated,
              names_second_read: null,
            },
          };
        }
      };
      // A screen's grid can hide the zone's shape from the plain read altogether, or make the engine read
      // it as a field of characters until the recapture's safety cap cuts it short (s42-000058, s7-000018):
      // on a photo that looks recaptured, the zone is then read descreened before it is given up.
      let promoted = false;
      if (options.recaptured === true && plainCutShort) {
        variants.splice(0, variants.length, DESCREENED, DESCREENED_WIDE);
        promoted = true;
      }
      const promoteDescreened = (index: number): boolean => {
        if (index !== 0 || promoted || options.recaptured !== true) return false;
        // The other crops show the same grid, and each would run to the safety cap as the plain one did.
        variants.splice(1, variants.length - 1, DESCREENED, DESCREENED_WIDE);
        promoted = true;
        return true;
      };
      // Lines the zone's first read gave (the plain crop's, or the descreened one's where it is read so only).
      let firstReadLines = 0;
      for (const [index, variant] of variants.entries()) {
        if (overBudget()) return finish(true);
        const pass = await read(variant);
        if (pass === null) continue;
        const { image, ocr } = pass;
        if (ocr === null) {
          if (promoteDescreened(index)) {
            plainCutShort = true;
            continue;
          }
          // An OCR pass that had to be cut short read a screen's moiré: the rest of the photo is no better.
          return finish(false);
        }
        const texts = ocr.lines.map((line) => line.text);
        const sawMrz = hasMrzSignal(texts);
        signal ||= sawMrz;
        const scored = fittedRead(variant, texts);
        if (scored !== null) consider(variant.name, image, ocr, scored);
        const top = current();
        if (top?.scored.mrz.valid === true && !top.corroborated) {
          // The pass that checks a valid read's names, made whatever the budget (`checkOf`). A later
          // variant may confirm them too.
          if (!corroborationDone) {
            corroborationDone = true;
            const check = checkOf(top.variant, (rectified?.geometry.convergence_deg ?? 0) >= KEYSTONE_CHECK_DEG, promoted);
            const second = await read(check);
            const secondScored =
              second?.ocr == null
                ? null
                : fittedRead(
                    check,
                    second.ocr.lines.map((line) => line.text),
                  );
            if (second?.ocr != null && secondScored !== null) consider(check.name, second.image, second.ocr, secondScored);
          }
          // The check may itself have become the best read.
          const now = current() ?? top;
          if (readElsewhere(namesKeyOf(now.scored.mrz.lines), now.variant)) {
            now.corroborated = true;
            now.reading.names_corroborated = true;
          }
        }
        // A valid read with its names read twice the same ends the search. A valid read whose names no
        // other variant confirmed goes on through this zone's other variants (a rectified one reads the
        // names a keystone garbled), but no further.
        const settled = current();
        if (settled?.scored.mrz.valid === true && settled.corroborated) return finish(false);
        // Other variants only where the first read showed an MRZ: elsewhere they would read noise. A
        // candidate of the right shape is not enough (noise of the right length parses), two check digits are.
        const checked = scored === null ? 0 : Object.values(scored.mrz.check_digits).filter(Boolean).length;
        if (index === 0) firstReadLines = ocr.lines.length;
        const firstRead = index === 0 || (promoted && variant === DESCREENED);
        if (firstRead && !sawMrz && checked < 2) {
          if (promoteDescreened(index)) continue;
          // Which half of the photo the block lies in is only a guess at the page's orientation (a card
          // turned by 90° and lying off-centre puts an upside-down zone in the bottom half: corpus seed
          // 6001, 3 of 27 rotated DNI backs read as garbage and found no MRZ). Where the read gave the
          // block's lines (an upside-down zone reads as that many lines of garbage; noise or a page's
          // print as many more: a dim licence front's ten, whose pass turned around took 6 s), the crop
          // is read once more, turned the other way, before the block is given up.
          const linesFit = Math.abs(firstReadLines - crop.lines) <= 1;
          if (linesFit && crop.turned_back !== true)
            crops.splice(cropIndex + 1, 0, { ...crop, flipped: !crop.flipped, turned_back: true });
          break;
        }
      }
      voteCells();
      if (current()?.scored.mrz.valid === true) return finish(false);
    }
  }
  return finish(false);
}
