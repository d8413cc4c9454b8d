import { colourFeatures } from './colour';
import type { PixelBox, RgbPixels } from './pixels';
import { chromaTiles, lumaTiles, spectrumFeatures, tileOrigins } from './spectrum';
import { SCREEN_MODEL, type ScreenModel } from './thresholds';

const { exp, log10 } = Math;

/**
 * The recapture detector: a photo of a screen or of a print (`document_screen_detected`). It combines
 * three kinds of evidence, none enough alone (TOOLING.md: periodic peaks separate simulated recaptures,
 * but a card has periodic structure of its own, and face anti-spoofing scores did not separate them):
 * point peaks in the luma and chroma spectra (pixel grid, halftone, their moiré), colour and tone
 * (raised blacks, white point, saturation, colour in fine detail) and glare. A logistic model over the
 * standardised features, fitted and thresholded on the corpus (thresholds.ts says on what).
 */
export const SCREEN_FEATURE_NAMES = [
  'luma_peak_prominence',
  'luma_peak_count',
  'luma_high_mid_ratio',
  'chroma_peak_prominence',
  'chroma_peak_count',
  'saturation',
  'black_level',
  'white_level',
  'white_cast',
  'chroma_detail',
  'glare',
  'log_blur',
] as const;
export type ScreenFeatureName = (typeof SCREEN_FEATURE_NAMES)[number];
export type ScreenFeatures = Record<ScreenFeatureName, number>;

export function screenFeatures(pixels: RgbPixels, box: PixelBox, measures: { glare: number; blur: number }): ScreenFeatures {
  const origins = tileOrigins(box);
  const luma = spectrumFeatures(lumaTiles(pixels, origins));
  const chroma = spectrumFeatures(chromaTiles(pixels, origins));
  const colour = colourFeatures(pixels, box);
  return {
    luma_peak_prominence: luma.peak_prominence,
    luma_peak_count: luma.peak_count,
    luma_high_mid_ratio: luma.high_mid_ratio,
    chroma_peak_prominence: chroma.peak_prominence,
    chroma_peak_count: chroma.peak_count,
    saturation: colour.saturation,
    black_level: colour.black_level,
    white_level: colour.white_level,
    white_cast: colour.white_cast,
    chroma_detail: colour.chroma_detail,
    glare: measures.glare,
    log_blur: log10(1 + measures.blur),
  };
}

/** The model's probability that the photo is a recapture, 0–1. */
export function screenScore(features: ScreenFeatures, model: ScreenModel = SCREEN_MODEL): number {
  let z = model.bias;
  for (const name of SCREEN_FEATURE_NAMES) {
    const { mean, scale, weight } = model.features[name];
    z += (weight * (features[name] - mean)) / scale;
  }
  return 1 / (1 + exp(-z));
}
