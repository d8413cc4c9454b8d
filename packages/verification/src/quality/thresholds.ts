import type { ScreenFeatureName } from './screen';

/**
 * Thresholds and the recapture model, all fitted on the synthetic corpus (packages/corpus) by
 * `node packages/corpus/dist/cli.js calibrate`; never set by hand. Each block says the seeds, the
 * counts and the figures it was chosen for; docs/documents.md "Screen and print recapture" has the full
 * tables.
 */
export interface ScreenModel {
  bias: number;
  features: Record<ScreenFeatureName, { mean: number; scale: number; weight: number }>;
  /** Score at or above which a photo is a recapture. */
  threshold: number;
}

// UNCALIBRATED: replaced by the calibration's output before use.
export const SCREEN_MODEL: ScreenModel = {
  bias: 0,
  features: {
    luma_peak_prominence: { mean: 0, scale: 1, weight: 0 },
    luma_peak_count: { mean: 0, scale: 1, weight: 0 },
    luma_high_mid_ratio: { mean: 0, scale: 1, weight: 0 },
    chroma_peak_prominence: { mean: 0, scale: 1, weight: 0 },
    chroma_peak_count: { mean: 0, scale: 1, weight: 0 },
    saturation: { mean: 0, scale: 1, weight: 0 },
    black_level: { mean: 0, scale: 1, weight: 0 },
    white_level: { mean: 0, scale: 1, weight: 0 },
    white_cast: { mean: 0, scale: 1, weight: 0 },
    chroma_detail: { mean: 0, scale: 1, weight: 0 },
    glare: { mean: 0, scale: 1, weight: 0 },
    log_blur: { mean: 0, scale: 1, weight: 0 },
  },
  threshold: 1.01,
};

/** Capture problems a person can fix, with the measure and the limit that flags each. */
export const QUALITY_LIMITS = {
  /** Variance of the Laplacian at 800 px below which the photo is too blurred to read. */
  blurBelow: 0,
  /** Share of washed-out pixels above which a reflection hides the data. */
  glareAbove: 1,
  /** Mean luma below which the photo is too dark to read. */
  brightnessBelow: 0,
} as const;
