import { glareFraction, laplacianVariance, meanBrightness } from './measures';
import { freeNow } from './scratch';
import { boxOf, decodeRgb, pixelsFromRgbReused, type RawImage, type Region, type RgbPixels } from './pixels';
import {
  SCREEN_FEATURE_NAMES,
  screenFeatures,
  screenScore,
  screenVerdict,
  type ScreenFeatureName,
  type ScreenFeatures,
  type ScreenVerdict,
} from './screen';
import { QUALITY_LIMITS, SCREEN_MODEL, type ScreenModel } from '../calibration/thresholds';

/**
 * Image quality of a capture, measured before reading it: what the person can fix (blur, a reflection,
 * too little light, each with a calibrated limit) and whether the photo is of a screen or a print
 * (`document_screen_detected`). Pure computation on pixels: no I/O beyond decoding the given bytes.
 */
export type QualityProblem = 'blurry' | 'glare' | 'too_dark';

export interface QualityReport {
  /** Size the measures were taken at (the image, scaled to at most 1600 px on the long side). */
  width: number;
  height: number;
  /** Variance of the Laplacian at 800 px on the long side: higher is sharper. */
  blur: number;
  /** Share of washed-out pixels (every channel ≥ 245) in the document's box, or the image. */
  glare: number;
  /** Mean luma 0–255 in the document's box, or the image. */
  brightness: number;
  screen: ScreenVerdict;
  /** What the limits flag, in the order a person should fix them. */
  problems: QualityProblem[];
  ms: number;
}

export interface QualityOptions {
  /** The document's place in the image, when known (fractions of the image). */
  region?: Region;
  /** Another recapture model (the calibration scores candidates with it). */
  screenModel?: ScreenModel;
}

export function assessPixels(pixels: RgbPixels, options: QualityOptions = {}): QualityReport {
  const started = performance.now();
  const box = boxOf(options.region, pixels.width, pixels.height);
  const blur = laplacianVariance(pixels, box);
  const glare = glareFraction(pixels, box);
  const brightness = meanBrightness(pixels, box);
  const screen = screenVerdict(screenFeatures(pixels, box, { glare, blur }), options.screenModel ?? SCREEN_MODEL);
  const problems: QualityProblem[] = [];
  if (brightness < QUALITY_LIMITS.brightnessBelow) problems.push('too_dark');
  if (glare > QUALITY_LIMITS.glareAbove) problems.push('glare');
  if (blur < QUALITY_LIMITS.blurBelow) problems.push('blurry');
  return {
    width: pixels.width,
    height: pixels.height,
    blur,
    glare,
    brightness,
    screen,
    problems,
    ms: performance.now() - started,
  };
}

/** Assesses an encoded image (JPEG, PNG, WebP) or raw pixels. */
export async function assessQuality(image: Buffer | RawImage, options: QualityOptions = {}): Promise<QualityReport> {
  const started = performance.now();
  const { rgb, width, height, decoded } = await decodeRgb(image);
  // The planes may be the thread's kept buffers (scratch.ts): made and used up here with no await between,
  // so that another photo assessed concurrently cannot overwrite them; the report keeps none of them.
  const report = assessPixels(pixelsFromRgbReused(rgb, width, height), options);
  // libvips' RGB is this function's alone (a caller's raw pixels are not).
  if (decoded && rgb.byteOffset === 0 && rgb.byteLength === rgb.buffer.byteLength) freeNow(rgb.buffer);
  return { ...report, ms: performance.now() - started };
}

export {
  QUALITY_LIMITS,
  SCREEN_MODEL,
  SCREEN_FEATURE_NAMES,
  screenScore,
  screenVerdict,
  type RawImage,
  type Region,
  type ScreenFeatureName,
  type ScreenFeatures,
  type ScreenModel,
  type ScreenVerdict,
};
