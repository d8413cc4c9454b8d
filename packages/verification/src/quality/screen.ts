import { colourFeatures } from './colour';
import type { PixelBox, RgbPixels } from './pixels';
import { planeSpectrumFeatures, tileOrigins, type SpectrumFeatures } from './spectrum';
import { SCREEN_FEATURE_NAMES, type ScreenFeatureName, type ScreenFeatures } from './screen-features';
import { SCREEN_MODEL, type ScreenModel } from '../calibration/thresholds';

export { SCREEN_FEATURE_NAMES, type ScreenFeatureName, type ScreenFeatures } from './screen-features';

const { exp, log10 } = Math;

/**
 * The recapture detector: a photo of a screen or of a print (`document_screen_detected`). What decides is
 * colour and tone: a display re-emits the photo with its own black level, white point and colour
 * fringes, a print with a warm paper and muted inks (colour.ts, and the chroma-to-luma power in the
 * spectra). A logistic model over these scores the photo; it judges only photos sharp enough to tell a
 * blurred card from a blurred screen (`minLogBlur`): below, the photo is not judged, and the capture is
 * better retaken as too blurred anyway.
 *
 * Periodic evidence (a point peak in the luma spectrum that no harmonic comb of the card's own text
 * explains, spectrum.ts) is measured and reported, and may be one of the model's inputs if the
 * calibration finds that it helps, but it never decides alone: genuine fine print resampled by a camera
 * shows such a peak too (docs/documents.md, "Screen and print recapture"). Neither a peak nor face
 * anti-spoofing scores were enough (docs/design.md "Toolchain facts"). thresholds.ts says how the model was fitted.
 */

export interface ScreenVerdict {
  /** The colour-and-tone model's probability that the photo is a recapture (0–1). */
  score: number;
  detected: boolean;
  /**
   * `colour` when the colour-and-tone model decided; `periodic` when only a periodic peak was seen, which
   * is reported and does not decide: genuine fine print resampled by a camera or a downscale shows one too
   * (docs/documents.md "In the pipeline, and on the real-world reference set").
   */
  evidence: 'periodic' | 'colour' | null;
  /**
   * A comb-free luma peak at least `periodicThreshold` prominent was seen, whatever decided: a frame the
   * colour model flags can show one too (its `evidence` is then `colour`). Callers that count periodic
   * frames read this, not `evidence`.
   */
  periodic: boolean;
  /** False when the photo was too blurred for the colour-and-tone model. */
  judged: boolean;
  features: ScreenFeatures;
}

function bandRatio(chroma: SpectrumFeatures, luma: SpectrumFeatures, band: 0 | 1 | 2): number {
  return log10((chroma.band_power[band] + 1e-6) / (luma.band_power[band] + 1e-6));
}

export function screenFeatures(pixels: RgbPixels, box: PixelBox, measures: { glare: number; blur: number }): ScreenFeatures {
  const origins = tileOrigins(box);
  const spectrumOf = (plane: Float32Array) => planeSpectrumFeatures(plane, pixels.width, origins);
  const luma = spectrumOf(pixels.luma);
  const chroma = spectrumOf(pixels.chroma.blue_red);
  const magenta = spectrumOf(pixels.chroma.green_magenta);
  const colour = colourFeatures(pixels, box);
  return {
    luma_peak_prominence: luma.peak_prominence,
    luma_periodic: luma.periodic_prominence,
    chroma_peak_prominence: chroma.peak_prominence,
    chroma_periodic: chroma.periodic_prominence,
    chroma_low_ratio: bandRatio(chroma, luma, 0),
    chroma_mid_ratio: bandRatio(chroma, luma, 1),
    chroma_high_ratio: bandRatio(chroma, luma, 2),
    magenta_peak_prominence: magenta.peak_prominence,
    magenta_low_ratio: bandRatio(magenta, luma, 0),
    magenta_mid_ratio: bandRatio(magenta, luma, 1),
    magenta_high_ratio: bandRatio(magenta, luma, 2),
    saturation: colour.saturation,
    black_level: colour.black_level,
    white_level: colour.white_level,
    white_cast: colour.white_cast,
    chroma_detail: colour.chroma_detail,
    magenta_detail: colour.magenta_detail,
    edge_chroma: colour.edge_chroma,
    black_ratio: colour.black_ratio,
    glare: measures.glare,
    log_blur: log10(1 + measures.blur),
    luma_peak_count: luma.peak_count,
    luma_high_mid_ratio: luma.high_mid_ratio,
  };
}

/** The colour-and-tone model's probability, 0–1. */
export function screenScore(features: Record<ScreenFeatureName, number>, model: ScreenModel = SCREEN_MODEL): number {
  let z = model.bias;
  for (const name of SCREEN_FEATURE_NAMES) {
    const { mean, scale, weight } = model.features[name];
    z += (weight * (features[name] - mean)) / scale;
  }
  return 1 / (1 + exp(-z));
}

export function screenVerdict(features: ScreenFeatures, model: ScreenModel = SCREEN_MODEL): ScreenVerdict {
  const score = screenScore(features, model);
  const periodic = features.luma_periodic >= model.periodicThreshold;
  const judged = features.log_blur >= model.minLogBlur;
  const colour = judged && score >= model.threshold;
  return { score, detected: colour, evidence: colour ? 'colour' : periodic ? 'periodic' : null, periodic, judged, features };
}
