import { boundingBox, rotatePoint, type Quad } from '../image/geometry';
import {
  greyVariant,
  pngVariant,
  rotateRaster,
  toPixels,
  type GreyRaster,
  type PixelRegion,
  type RelativeRegion,
} from '../image/raster';
import type { MrzData } from '../parsers/mrz.parser';
import { locateMrzBlocks } from './mrz-locator';
import { bestMrz, better, hasMrzSignal, mrzCandidates, type ScoredMrz } from './mrz-text';
import { MRZ_WHITELIST, OcrTimeoutError, recognise, type OcrLine } from './ocr';
import type { WorkBudget } from './work-budget';

/**
 * Reads the machine readable zone by OCR. The MRZ is the bottom of the page when the page is upright
 * (TD3 passports: about the bottom quarter; TD1 cards, the 2009 DNI front and the card backs: about the
 * bottom third), so only a bottom band is read (150 ms instead of 1.6 s for the whole image), upscaled or
 * downscaled to a width at which OCR-B characters are 20–40 px tall, with the histogram stretched.
 *
 * For each orientation tried (a clockwise turn, possibly including a small deskew), one OCR pass of the
 * band comes first; only if it shows the filler runs an MRZ has are more variants tried (binarised, at
 * a larger width, a taller band). The search stops at the first read whose check digits all hold;
 * otherwise the best attempt is reported, invalid, for the checks to name.
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
}

export interface MrzSearch {
  found: MrzReading | null;
  attempts: number;
  ms: number;
  budget_exhausted: boolean;
  /** Whether any attempt saw MRZ-like text (filler runs), even if no format fitted. */
  signal: boolean;
}

// The whole turned image is searched for MRZ-like lines at this width before any OCR; a block in its
// top half is read turned by 180° (the page is upside down), so each turn covers two orientations.
const ANALYSIS_WIDTH = 1000;

interface OcrVariant {
  name: string;
  /** Width of the zone's crop for OCR: OCR-B characters then stand 20–40 px tall. */
  width: number;
  threshold?: number;
}

// The first reads the zone as it is; the others only when it was not read with every check digit holding.
const VARIANTS: readonly OcrVariant[] = [
  { name: 'plain', width: 1200 },
  { name: 'binarised', width: 1200, threshold: 110 },
  { name: 'wide', width: 1600 },
];

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
}

interface ZoneCrop extends PixelRegion {
  /** The block was in the top half: the page is upside down at this turn, so the crop is read turned 180°. */
  flipped: boolean;
}

interface RelativeZone extends RelativeRegion {
  flipped: boolean;
}

function zoneQuad(
  lines: readonly OcrLine[],
  crop: ZoneCrop,
  scale: number,
  turned: GreyRaster,
  original: GreyRaster,
  angle: number,
): Quad {
  const box = boundingBox(
    lines.flatMap((line) => [
      { x: line.bbox.x0, y: line.bbox.y0 },
      { x: line.bbox.x1, y: line.bbox.y1 },
    ]),
  );
  const toOriginal = (x: number, y: number) => {
    const local = crop.flipped ? { x: crop.width - x / scale, y: crop.height - y / scale } : { x: x / scale, y: y / scale };
    return rotatePoint({ x: crop.left + local.x, y: crop.top + local.y }, -angle, turned, original);
  };
  // Corners named as the page reads (upright), whatever the turn.
  return {
    topLeft: toOriginal(box.left, box.top),
    topRight: toOriginal(box.right, box.top),
    bottomRight: toOriginal(box.right, box.bottom),
    bottomLeft: toOriginal(box.left, box.bottom),
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
  const grey = await greyVariant(turned, { normalise: true });
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
        };
      })
  );
}

/** A relative zone in pixels of the full-resolution turned image. */
function zonePixels(zone: RelativeZone, turned: GreyRaster): ZoneCrop {
  const pixels = toPixels(zone, turned.width, turned.height);
  return { ...pixels, flipped: zone.flipped };
}

/** Which line holds the names: the third of a TD1 card, the first of TD2 and TD3. */
function nameLineIndex(mrz: MrzData): number {
  return mrz.format === 'TD1' ? 2 : 0;
}

/** Reads the zone once more with another variant and says whether its names line came out the same. */
async function corroborateNames(
  scored: ScoredMrz,
  turned: GreyRaster,
  region: RelativeRegion,
  crop: ZoneCrop,
  variantIndex: number,
): Promise<boolean> {
  // 'wide' checks 'plain' and 'binarised'; 'plain' checks 'wide'. The binarised variant is the noisiest
  // reader of letters, so it only ever is the one checked.
  const other = VARIANTS[variantIndex === VARIANTS.length - 1 ? 0 : VARIANTS.length - 1];
  if (other === undefined) return false;
  const png = await pngVariant(turned, {
    region,
    scale: other.width / crop.width,
    normalise: true,
    threshold: other.threshold,
    upsideDown: crop.flipped,
  });
  const ocr = await recognise(png, { whitelist: MRZ_WHITELIST, mode: 'block' }).catch((error: unknown) => {
    if (error instanceof OcrTimeoutError) return null;
    throw error;
  });
  if (ocr === null) return false;
  const index = nameLineIndex(scored.mrz);
  const names = scored.mrz.lines[index];
  // Any candidate of the second pass will do: its other lines may be misread, its names need not be.
  return mrzCandidates(ocr.lines.map((line) => line.text)).some(
    (candidate) => candidate.lines.length === scored.mrz.lines.length && candidate.lines[index] === names,
  );
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

export async function searchMrz(raster: GreyRaster, options: MrzSearchOptions): Promise<MrzSearch> {
  const started = Date.now();
  let attempts = 0;
  let signal = false;
  let best: { scored: ScoredMrz; reading: MrzReading } | null = null;
  const finish = (budgetExhausted: boolean): MrzSearch => ({
    found: best?.reading ?? null,
    attempts,
    ms: Date.now() - started,
    budget_exhausted: budgetExhausted,
    signal,
  });

  const analysis = await greyVariant(raster, { scale: Math.min(1, ANALYSIS_WIDTH / Math.max(raster.width, raster.height)) });
  for (const [angleIndex, angle] of options.angles.entries()) {
    // The first turn is always read whole (every variant): what the photo most likely is; the budget
    // bounds the turns after it.
    const overBudget = () => angleIndex > 0 && options.budget.exhausted;
    if (overBudget()) return finish(true);
    const zones = await zoneCrops(analysis, angle);
    if (zones.length === 0) continue;
    const turned = await rotateRaster(raster, angle);
    for (const crop of zones.map((zone) => zonePixels(zone, turned))) {
      const region = {
        left: crop.left / turned.width,
        top: crop.top / turned.height,
        width: crop.width / turned.width,
        height: crop.height / turned.height,
      };
      for (const [index, variant] of VARIANTS.entries()) {
        if (overBudget()) return finish(true);
        const scale = variant.width / crop.width;
        const png = await pngVariant(turned, {
          region,
          scale,
          normalise: true,
          threshold: variant.threshold,
          upsideDown: crop.flipped,
        });
        attempts += 1;
        options.budget.spend(1);
        const ocr = await recognise(png, { whitelist: MRZ_WHITELIST, mode: 'block' }).catch((error: unknown) => {
          if (error instanceof OcrTimeoutError) return null;
          throw error;
        });
        // An OCR pass that had to be cut short read a screen's moiré: the rest of the photo is no better.
        if (ocr === null) return finish(false);
        const texts = ocr.lines.map((line) => line.text);
        const sawMrz = hasMrzSignal(texts);
        signal ||= sawMrz;
        const scored = bestMrz(texts);
        // Between reads the check digits cannot tell apart, the one whose names were read surer wins:
        // the names are what no check digit covers (the 2009 specimen's M read as H by one variant only).
        // (Scores within 1 differ only by the '<' added or removed to fit the line length.)
        const surer =
          scored !== null &&
          best !== null &&
          scored.mrz.valid === best.scored.mrz.valid &&
          Math.abs(scored.score - best.scored.score) < 1 &&
          nameConfidence(scored, ocr.lines) > best.reading.name_confidence;
        if (scored !== null && (best === null || better(scored, best.scored) || surer)) {
          const zoneLines = scored.candidate.source_lines
            .map((lineIndex) => ocr.lines[lineIndex])
            .filter((line): line is OcrLine => line !== undefined);
          best = {
            scored,
            reading: {
              lines: scored.mrz.lines,
              data: scored.mrz,
              valid: scored.mrz.valid,
              repaired_characters: scored.candidate.repaired_characters,
              filler_adjustments: scored.candidate.filler_adjustments,
              angle: (angle + (crop.flipped ? 180 : 0)) % 360,
              quad: zoneQuad(zoneLines, crop, scale, turned, raster, angle),
              confidence: zoneLines.reduce((sum, line) => sum + line.confidence, 0) / Math.max(1, zoneLines.length),
              name_confidence: nameConfidence(scored, ocr.lines),
              names_corroborated: false,
            },
          };
          if (scored.mrz.valid) {
            best.reading.names_corroborated = await corroborateNames(scored, turned, region, crop, index);
            return finish(false);
          }
        }
        // Other variants only where the first read showed an MRZ: elsewhere they would read noise. A
        // candidate of the right shape is not enough (noise of the right length parses), two check digits are.
        const checked = scored === null ? 0 : Object.values(scored.mrz.check_digits).filter(Boolean).length;
        if (index === 0 && !sawMrz && checked < 2) break;
      }
    }
  }
  return finish(false);
}
