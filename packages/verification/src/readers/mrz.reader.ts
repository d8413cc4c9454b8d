import { boundingBox, rotatePoint, type Quad } from '../image/geometry';
import { greyVariant, pngVariant, rotateRaster, type GreyRaster, type PixelRegion } from '../image/raster';
import type { MrzData } from '../parsers/mrz.parser';
import { locateMrzBlocks } from './mrz-locator';
import { bestMrz, better, hasMrzSignal, type ScoredMrz } from './mrz-text';
import { MRZ_WHITELIST, recognise, type OcrLine } from './ocr';

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
  deadline: number;
}

interface ZoneCrop extends PixelRegion {
  /** The block was in the top half: the page is upside down at this turn, so the crop is read turned 180°. */
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

/** Blocks of two or three MRZ-like lines in the turned image, in its pixels, nearest an edge first. */
async function zoneCrops(turned: GreyRaster): Promise<ZoneCrop[]> {
  const analysisScale = ANALYSIS_WIDTH / turned.width;
  const grey = await greyVariant(turned, { scale: analysisScale, normalise: true });
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
        const left = Math.max(0, block.left - grey.width * 0.06) / analysisScale;
        const right = Math.min(grey.width, block.right + grey.width * 0.06) / analysisScale;
        const top = Math.max(0, block.top - margin) / analysisScale;
        const bottom = Math.min(grey.height, block.bottom + margin) / analysisScale;
        return {
          left: Math.round(left),
          top: Math.round(top),
          width: Math.max(1, Math.min(turned.width - Math.round(left), Math.round(right - left))),
          height: Math.max(1, Math.min(turned.height - Math.round(top), Math.round(bottom - top))),
          flipped,
        };
      })
  );
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

  for (const [angleIndex, angle] of options.angles.entries()) {
    // The first turn is always read whole (every variant): what the photo most likely is, it decides
    // the outcome whatever the machine's load; the deadline bounds the turns after it.
    const overBudget = () => angleIndex > 0 && Date.now() > options.deadline;
    if (overBudget()) return finish(true);
    const turned = await rotateRaster(raster, angle);
    for (const crop of await zoneCrops(turned)) {
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
        const ocr = await recognise(png, { whitelist: MRZ_WHITELIST, mode: 'block' });
        const texts = ocr.lines.map((line) => line.text);
        const sawMrz = hasMrzSignal(texts);
        signal ||= sawMrz;
        const scored = bestMrz(texts);
        if (scored !== null && (best === null || better(scored, best.scored))) {
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
            },
          };
          if (scored.mrz.valid) return finish(false);
        }
        // Other variants only where the first read showed an MRZ: elsewhere they would read noise.
        if (index === 0 && !sawMrz && scored === null) break;
      }
    }
  }
  return finish(false);
}
