import { mapQuad, rotatePoint, type Quad } from '../image/geometry';
import { rgbaVariant, rotateRaster, toPixels, type GreyRaster, type RelativeRegion } from '../image/raster';
import type { ReadResult } from 'zxing-wasm/reader';
import { decodeBarcodes, type DocumentBarcodeFormat } from './zxing';

/**
 * Finds the document's barcode (the DNI's PDF417, the reported 2026 card's QR) in a photo.
 *
 * zxing decodes a symbol turned by a multiple of 90° (its `tryRotate`) but gives up past about 3° of
 * tilt, and a symbol that fills only a corner of a large photo is lost to its downscaling. So the search
 * tries, in order and until the first valid decode or the time budget: the whole image and then likely
 * regions (the 2012 DNI has its PDF417 bottom right; halves cover the card turned by 90° or 180°),
 * upscaled when small, first as photographed, then turned by the skew the image suggests, then along a
 * ladder of ±4°, ±8° … ±25°.
 */
export interface BarcodeReading {
  format: DocumentBarcodeFormat;
  text: string;
  /** The payload bytes, for binary symbols (and to compare with a binary reference). */
  bytes_base64: string;
  /** Where the decode succeeded: clockwise turn applied to the image, region and scale. */
  angle: number;
  region: string;
  scale: number;
  /** The symbol's corners in the pixels of the image as given (before any turn). */
  quad: Quad;
  /** zxing's own reading of the symbol's orientation within the attempt (0, 90, 180, 270 ± tilt). */
  symbol_orientation: number;
  /** A piece of a structured-append (Macro PDF417) sequence: its text is only part of the message. */
  sequence: { index: number; size: number } | null;
}

export interface BarcodeSearch {
  found: BarcodeReading | null;
  /** The first symbol decoded but refused by `accept`, for when nothing accepted was found. */
  refused: BarcodeReading | null;
  attempts: number;
  ms: number;
  /** The search stopped on its time budget before trying everything. */
  budget_exhausted: boolean;
}

export type BarcodeRegionName = 'whole' | 'bottom_right' | 'bottom' | 'right' | 'top' | 'left';

/** One step of the search: a clockwise turn of the image and the regions tried at that turn. */
export interface BarcodeStep {
  angle: number;
  regions: readonly BarcodeRegionName[];
}

export interface BarcodeSearchOptions {
  formats?: readonly DocumentBarcodeFormat[];
  /** The steps, in order; `barcodePlan` builds the standard ones. */
  steps: readonly BarcodeStep[];
  /**
   * `Date.now()` after which no new attempt starts (an attempt already running is finished); the first
   * step's regions are always tried.
   */
  deadline: number;
  /**
   * Whether a decoded symbol is the one sought. A symbol refused (a licence's QR, which carries a URL,
   * beside the PDF417 with the data) does not end the search: the search goes on for the other formats
   * and returns the refused symbol only if nothing accepted turns up.
   */
  accept?: (symbol: { format: DocumentBarcodeFormat; text: string }) => boolean;
}

interface NamedRegion extends RelativeRegion {
  name: BarcodeRegionName;
}

// The likely places of a barcode on a card photo. Halves overlap the middle so a symbol straddling it
// is whole in one of them.
const REGIONS: Record<BarcodeRegionName, NamedRegion> = {
  whole: { name: 'whole', left: 0, top: 0, width: 1, height: 1 },
  bottom_right: { name: 'bottom_right', left: 0.4, top: 0.45, width: 0.6, height: 0.55 },
  bottom: { name: 'bottom', left: 0, top: 0.4, width: 1, height: 0.6 },
  right: { name: 'right', left: 0.4, top: 0, width: 0.6, height: 1 },
  top: { name: 'top', left: 0, top: 0, width: 1, height: 0.6 },
  left: { name: 'left', left: 0, top: 0, width: 0.6, height: 1 },
};

export const ALL_REGIONS: readonly BarcodeRegionName[] = ['whole', 'bottom_right', 'bottom', 'right', 'top', 'left'];

/** Tilts tried after the photo as taken and its suggested skew, smallest first. */
export const TILT_LADDER: readonly number[] = [4, -4, 8, -8, 12, -12, 16, -16, 20, -20, 25, -25];

// A crop whose long side is below this is upscaled (×2) so PDF417 modules stay at least ~2 px wide.
const UPSCALE_BELOW_PX = 800;

/**
 * The standard search, in three stages. `first`: the whole image as taken and turned by the skew it
 * suggests: where almost every symbol is read, in 0.1–0.3 s. `regions`: the likely regions at those two
 * turns, for a symbol too small in the whole photo. `ladder`: each tilt of the ladder on the whole image
 * and the 2012 front's bottom-right corner. Ladder angles within 2° of the hint are skipped: zxing
 * tolerates about 3°.
 */
export function barcodePlan(stage: 'first' | 'regions' | 'ladder', skewHint: number | null): BarcodeStep[] {
  const hint = skewHint !== null && Math.abs(skewHint) >= 2 && Math.abs(skewHint) <= 30 ? Math.round(-skewHint) : null;
  const turns = hint === null ? [0] : [0, hint];
  if (stage === 'first') return turns.map((angle) => ({ angle, regions: ['whole'] }));
  if (stage === 'regions') return turns.map((angle) => ({ angle, regions: ALL_REGIONS.filter((name) => name !== 'whole') }));
  return TILT_LADDER.filter((angle) => hint === null || Math.abs(angle - hint) > 2).map((angle) => ({
    angle,
    regions: ['whole', 'bottom_right'] as const,
  }));
}

function formatOf(result: ReadResult): DocumentBarcodeFormat {
  return result.format.startsWith('QR') ? 'QRCode' : 'PDF417';
}

export async function searchBarcode(raster: GreyRaster, options: BarcodeSearchOptions): Promise<BarcodeSearch> {
  const started = Date.now();
  let formats: readonly DocumentBarcodeFormat[] = options.formats ?? ['PDF417', 'QRCode'];
  const accept = options.accept ?? (() => true);
  let refused: BarcodeReading | null = null;
  let attempts = 0;
  let stepIndex = 0;
  // The first step always runs whole: a cold start (wasm, libvips) must not cost the cheapest, likeliest reads.
  const overBudget = () => stepIndex > 0 && Date.now() > options.deadline;
  const stop = (budgetExhausted: boolean): BarcodeSearch => ({
    found: null,
    refused,
    attempts,
    ms: Date.now() - started,
    budget_exhausted: budgetExhausted,
  });

  for (const [index, { angle, regions }] of options.steps.entries()) {
    stepIndex = index;
    if (overBudget()) return stop(true);
    const turned = await rotateRaster(raster, angle);
    for (const region of regions.map((name) => REGIONS[name])) {
      if (overBudget()) return stop(true);
      const pixels = toPixels(region, turned.width, turned.height);
      const small = Math.max(pixels.width, pixels.height) < UPSCALE_BELOW_PX;
      // A small image is tried as it is too: upscaling blurs a symbol that was already sharp.
      const scales = !small ? [1] : region.name === 'whole' ? [1, 2] : [2];
      let decoded: { result: ReadResult; scale: number } | null = null;
      for (const scale of scales) {
        if (overBudget()) return stop(true);
        const variant = await rgbaVariant(turned, { region, scale });
        attempts += 1;
        let [result] = await decodeBarcodes(variant, formats);
        if (result !== undefined && result.isValid && !accept({ format: formatOf(result), text: result.text })) {
          // Kept as the answer of last resort; the same pixels are searched again for the other formats
          // (zxing stops at its first symbol), and so is the rest of the plan.
          const format = formatOf(result);
          refused ??= reading(result, scale, pixels, angle, turned, raster, region.name);
          formats = formats.filter((other) => other !== format);
          if (formats.length === 0) return stop(false);
          attempts += 1;
          [result] = await decodeBarcodes(variant, formats);
        }
        if (result !== undefined && result.isValid && accept({ format: formatOf(result), text: result.text })) {
          decoded = { result, scale };
          break;
        }
      }
      if (decoded === null) continue;
      return {
        found: reading(decoded.result, decoded.scale, pixels, angle, turned, raster, region.name),
        refused,
        attempts,
        ms: Date.now() - started,
        budget_exhausted: false,
      };
    }
  }
  return stop(false);
}

function reading(
  result: ReadResult,
  scale: number,
  pixels: { left: number; top: number },
  angle: number,
  turned: GreyRaster,
  raster: GreyRaster,
  region: BarcodeRegionName,
): BarcodeReading {
  // Back from the attempt's pixels to the turned image, then to the image as given.
  const toTurned = (point: { x: number; y: number }) => ({
    x: pixels.left + point.x / scale,
    y: pixels.top + point.y / scale,
  });
  const toOriginal = (point: { x: number; y: number }) => rotatePoint(toTurned(point), -angle, turned, raster);
  const position = result.position;
  const quad = mapQuad(
    {
      topLeft: position.topLeft,
      topRight: position.topRight,
      bottomRight: position.bottomRight,
      bottomLeft: position.bottomLeft,
    },
    toOriginal,
  );
  return {
    format: formatOf(result),
    text: result.text,
    bytes_base64: Buffer.from(result.bytes).toString('base64'),
    angle,
    region,
    scale,
    quad,
    symbol_orientation: result.orientation,
    sequence: result.sequenceSize > 1 ? { index: result.sequenceIndex, size: result.sequenceSize } : null,
  };
}
