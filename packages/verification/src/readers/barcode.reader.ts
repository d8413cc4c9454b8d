import {
  BARCODE_MIN_DEBLUR_SIGMA,
  BARCODE_SMOOTHING_SIGMA,
  DEBLUR_NOISE,
  DEBLUR_OFFSETS,
  FRONT_SYMBOL_ASPECT,
  LOCATED_WIDTH_PX,
  MIN_FRONT_SYMBOL_ASPECT,
  MAX_LOCATED_SCALE,
  TILT_LADDER,
  UPSCALE_BELOW_PX,
} from '../calibration/barcode';
import { edgeBlurSigma, wienerDeblur } from '../image/deconvolve';
import { boundingBox, mapQuad, rotatePoint, type Quad } from '../image/geometry';
import {
  greyVariant,
  rgbaVariant,
  rotateRaster,
  toPixels,
  type GreyRaster,
  type PixelRegion,
  type RelativeRegion,
  type VariantOptions,
} from '../image/raster';
import type { ReadResult } from 'zxing-wasm/reader';
import type { LocatedBarcode } from './barcode-locator';
import { megapixels, type WorkBudget } from './work-budget';
import { decodeBarcodes, type DocumentBarcodeFormat } from './zxing';

/**
 * Finds the document's barcode (the DNI's PDF417, the reported 2026 card's QR) in a photo.
 *
 * zxing decodes a symbol turned by a multiple of 90° (its `tryRotate`) but gives up past about 3° of
 * tilt, and a symbol that fills only a corner of a large photo is lost to its downscaling. So the search
 * tries, in order and until the first valid decode or the time budget: the whole image and then likely
 * regions (the 2012 DNI has its PDF417 bottom right; halves cover the card turned by 90° or 180°),
 * upscaled when small, first as photographed, then turned by the skew the image suggests, then along a
 * ladder of ±4°, ±8° … ±25°. What it may try is counted (megapixels through zxing, `WorkBudget`), so
 * the same photo is searched as far on a loaded machine as on an idle one.
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
  /** Megapixels given to zxing (what the budget counts). */
  megapixels: number;
  ms: number;
  /** The search stopped on its budget before trying everything. */
  budget_exhausted: boolean;
}

export type BarcodeRegionName = 'whole' | 'bottom_right' | 'bottom' | 'right' | 'top' | 'left' | 'located';

/**
 * How the pixels are prepared for zxing: `plain` as they are; `smoothed` with the sensor noise of a dim
 * photo taken out after upscaling (a slight blur: zxing's binarizer otherwise splits noisy modules).
 */
export type BarcodeFilter = 'plain' | 'smoothed';

const FILTERS: Record<BarcodeFilter, Pick<VariantOptions, 'blur'>> = {
  plain: {},
  smoothed: { blur: BARCODE_SMOOTHING_SIGMA },
};

/**
 * One step of the search: a clockwise turn of the image and the regions tried at that turn, or the
 * tight crop around a candidate found by `locateBarcodes` (`located`, with `regions: ['located']`).
 */
export interface BarcodeStep {
  angle: number;
  regions: readonly BarcodeRegionName[];
  filter?: BarcodeFilter;
  located?: LocatedBarcode;
}

export interface BarcodeSearchOptions {
  formats?: readonly DocumentBarcodeFormat[];
  /** The steps, in order; `barcodePlan` builds the standard ones. */
  steps: readonly BarcodeStep[];
  /**
   * Megapixels through zxing after which no new attempt starts (an attempt already running is
   * finished); the first step's regions are always tried. Several searches may share one budget.
   */
  budget: WorkBudget;
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
const REGIONS: Record<Exclude<BarcodeRegionName, 'located'>, NamedRegion> = {
  whole: { name: 'whole', left: 0, top: 0, width: 1, height: 1 },
  bottom_right: { name: 'bottom_right', left: 0.4, top: 0.45, width: 0.6, height: 0.55 },
  bottom: { name: 'bottom', left: 0, top: 0.4, width: 1, height: 0.6 },
  right: { name: 'right', left: 0.4, top: 0, width: 0.6, height: 1 },
  top: { name: 'top', left: 0, top: 0, width: 1, height: 0.6 },
  left: { name: 'left', left: 0, top: 0, width: 0.6, height: 1 },
};

export const ALL_REGIONS: readonly BarcodeRegionName[] = ['whole', 'bottom_right', 'bottom', 'right', 'top', 'left'];

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

/** The located candidate's crop in the turned image, with a margin for the quiet zone and the cells' coarseness. */
function locatedPixels(located: LocatedBarcode, raster: GreyRaster, turned: GreyRaster): PixelRegion {
  const box = boundingBox(
    located.points.map((point) =>
      rotatePoint({ x: point.x * raster.width, y: point.y * raster.height }, located.angle, raster, turned),
    ),
  );
  const margin = Math.max(12, 0.25 * Math.min(box.right - box.left, box.bottom - box.top));
  const left = Math.max(0, Math.floor(box.left - margin));
  const top = Math.max(0, Math.floor(box.top - margin));
  const right = Math.min(turned.width, Math.ceil(box.right + margin));
  const bottom = Math.min(turned.height, Math.ceil(box.bottom + margin));
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

function scalesFor(step: BarcodeStep, pixels: PixelRegion, region: BarcodeRegionName): number[] {
  if (region === 'located') {
    // The symbol's long side: bars vertical or, for a card on its side, horizontal (zxing turns it).
    const side = Math.max(pixels.width, pixels.height);
    return [Math.min(MAX_LOCATED_SCALE, Math.max(1, LOCATED_WIDTH_PX / side))];
  }
  const small = Math.max(pixels.width, pixels.height) < UPSCALE_BELOW_PX;
  // A small image is tried as it is too: upscaling blurs a symbol that was already sharp.
  return !small ? [1] : region === 'whole' ? [1, 2] : [2];
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
  let decoded = 0;
  let stepIndex = 0;
  // The first step always runs whole: the cheapest, likeliest reads are never left out.
  const overBudget = () => stepIndex > 0 && options.budget.exhausted;
  const stop = (budgetExhausted: boolean): BarcodeSearch => ({
    found: null,
    refused,
    attempts,
    megapixels: decoded,
    ms: Date.now() - started,
    budget_exhausted: budgetExhausted,
  });
  const decode = async (variant: { data: Uint8ClampedArray; width: number; height: number }) => {
    const cost = megapixels(variant.width, variant.height);
    attempts += 1;
    decoded += cost;
    options.budget.spend(cost);
    const [result] = await decodeBarcodes(variant, formats);
    return result;
  };

  for (const [index, step] of options.steps.entries()) {
    const { angle, regions, filter, located } = step;
    stepIndex = index;
    if (overBudget()) return stop(true);
    const turned = await rotateRaster(raster, angle);
    for (const name of regions) {
      if (overBudget()) return stop(true);
      let region: NamedRegion;
      let pixels: PixelRegion;
      if (name === 'located') {
        if (located === undefined) continue;
        pixels = locatedPixels(located, raster, turned);
        region = {
          name,
          left: pixels.left / turned.width,
          top: pixels.top / turned.height,
          width: pixels.width / turned.width,
          height: pixels.height / turned.height,
        };
      } else {
        region = REGIONS[name];
        pixels = toPixels(region, turned.width, turned.height);
      }
      const scales = scalesFor(step, pixels, region.name);
      let hit: { result: ReadResult; scale: number } | null = null;
      for (const scale of scales) {
        if (overBudget()) return stop(true);
        const variant = await rgbaVariant(turned, { region, scale, ...FILTERS[filter ?? 'plain'] });
        let result = await decode(variant);
        if (result !== undefined && result.isValid && !accept({ format: formatOf(result), text: result.text })) {
          // Kept as the answer of last resort; the same pixels are searched again for the other formats
          // (zxing stops at its first symbol), and so is the rest of the plan.
          const format = formatOf(result);
          refused ??= reading(result, scale, pixels, angle, turned, raster, region.name);
          formats = formats.filter((other) => other !== format);
          if (formats.length === 0) return stop(false);
          result = await decode(variant);
        }
        if (result !== undefined && result.isValid && accept({ format: formatOf(result), text: result.text })) {
          hit = { result, scale };
          break;
        }
      }
      if (hit === null) continue;
      return {
        found: reading(hit.result, hit.scale, pixels, angle, turned, raster, region.name),
        refused,
        attempts,
        megapixels: decoded,
        ms: Date.now() - started,
        budget_exhausted: false,
      };
    }
  }
  return stop(false);
}

/**
 * The last attempt at a symbol the searches located but could not read: its crop, turned by its tilt,
 * with the defocus undone across the bars (`wienerDeblur`, σ from `edgeBlurSigma`), upscaled as a
 * located crop is. Only crops blurred beyond a sharp photo's edge width are tried.
 */
export async function searchBlurredBarcode(
  raster: GreyRaster,
  candidates: readonly LocatedBarcode[],
  options: Omit<BarcodeSearchOptions, 'steps'>,
): Promise<BarcodeSearch> {
  const started = Date.now();
  const formats = options.formats ?? ['PDF417'];
  const accept = options.accept ?? (() => true);
  let attempts = 0;
  let decoded = 0;
  const stop = (budgetExhausted: boolean): BarcodeSearch => ({
    found: null,
    refused: null,
    attempts,
    megapixels: decoded,
    ms: Date.now() - started,
    budget_exhausted: budgetExhausted,
  });
  for (const located of candidates) {
    if (options.budget.exhausted) return stop(true);
    const turned = await rotateRaster(raster, located.angle);
    const pixels = locatedPixels(located, raster, turned);
    const region: RelativeRegion = {
      left: pixels.left / turned.width,
      top: pixels.top / turned.height,
      width: pixels.width / turned.width,
      height: pixels.height / turned.height,
    };
    const crop = await greyVariant(turned, { region });
    const blur = edgeBlurSigma(crop);
    if (blur.sigma < BARCODE_MIN_DEBLUR_SIGMA) continue;
    const [scale] = scalesFor({ angle: located.angle, regions: ['located'] }, pixels, 'located');
    for (const offset of DEBLUR_OFFSETS) {
      if (options.budget.exhausted) return stop(true);
      const sharpened = wienerDeblur(crop, blur.sigma + offset, DEBLUR_NOISE, blur.axis);
      const variant = await rgbaVariant(sharpened, { scale: scale ?? 1 });
      const cost = megapixels(variant.width, variant.height);
      attempts += 1;
      decoded += cost;
      options.budget.spend(cost);
      const [result] = await decodeBarcodes(variant, formats);
      if (result === undefined || !result.isValid || !accept({ format: formatOf(result), text: result.text })) continue;
      return {
        found: reading(result, scale ?? 1, pixels, located.angle, turned, raster, 'located'),
        refused: null,
        attempts,
        megapixels: decoded,
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

/**
 * A 2012 front's symbol outline with its right edge restored where zxing decoded it without its last
 * columns (`MIN_FRONT_SYMBOL_ASPECT`): the left edge, the start pattern's, is whole whenever the
 * symbol decodes, so the width follows from its height.
 */
export function wholeFrontSymbol(quad: Quad): Quad {
  const leftHeight = Math.hypot(quad.bottomLeft.x - quad.topLeft.x, quad.bottomLeft.y - quad.topLeft.y);
  const extend = (from: { x: number; y: number }, to: { x: number; y: number }) => {
    const length = Math.hypot(to.x - from.x, to.y - from.y);
    if (length === 0 || length >= MIN_FRONT_SYMBOL_ASPECT * leftHeight) return to;
    const stretch = (FRONT_SYMBOL_ASPECT * leftHeight) / length;
    return { x: from.x + (to.x - from.x) * stretch, y: from.y + (to.y - from.y) * stretch };
  };
  return {
    ...quad,
    topRight: extend(quad.topLeft, quad.topRight),
    bottomRight: extend(quad.bottomLeft, quad.bottomRight),
  };
}
