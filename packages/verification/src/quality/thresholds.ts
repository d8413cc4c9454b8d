import type { ScreenFeatureName } from './screen';

/**
 * Thresholds and the recapture model, all fitted on the synthetic corpus (packages/corpus); never set by
 * hand. The recapture model: `node packages/corpus/dist/cli.js calibrate --count 800 --recapture-only
 * --held-out-seed 3003` (2026-11-27), calibration split seed 1001, held out seeds 2002 and 3003, 800
 * documents each (1,335 photos: 1,068 originals under every degradation profile, 134 screen and 133
 * print recaptures). The capture limits (`QUALITY_LIMITS`): `calibrate --count 400` (2026-11-23).
 * docs/documents.md "Screen and print recapture" has the full tables; the reports are
 * bench/results/calibration/report-*.json.
 */
export interface ScreenModel {
  /**
   * A comb-free luma peak at least this prominent (decades) is reported as periodic evidence. It decides
   * nothing: genuine fine print resampled by a camera shows one too (docs/documents.md).
   */
  periodicThreshold: number;
  /** The model judges photos at least this sharp: log10(1 + variance of the Laplacian). */
  minLogBlur: number;
  bias: number;
  features: Record<ScreenFeatureName, { mean: number; scale: number; weight: number }>;
  /** Score at or above which a judged photo is a recapture. */
  threshold: number;
}

/**
 * Calibrated 2026-11-27 (second time that day), after the comb test of the periodic peak was made
 * stricter (spectrum.ts: a previous harmonic counts when it reaches halfway up the peak, no longer when
 * it is within a decade of it, which made every peak under a decade a comb member: most prints'
 * halftones). For ≥ 90% detection at ≤ 2% false alarms: the threshold at the out-of-fold 2% false-alarm
 * limit, moved up into the gap before the lowest recapture detected there. Candidates compared out of
 * fold on seed 1001 (5 folds); chosen: luma peaks, the comb-free peak, colour and tone and the exposure-
 * and noise-indifferent measures, gate 2.1, λ 0.01. Out of fold 255/267 (95.5%) at 19/1068 (1.8%).
 * Held out, against the old comb test's model: seed 2002 249/267 (93.3%; prints 117/133) at 16/1068
 * (1.5%), was 243/267 (prints 111/133) at 12/1068; seed 3003 250/267 (93.6%; prints 118/133) at
 * 23/1068 (2.2%), was 247/267 at 25/1068; both 499/534 (93.4%) at 39/2136 (1.8%). The comb-free peak is
 * reported as periodic evidence from 0.675 decades (seed 2002: 3 of 1,068 originals reach it, 153 of
 * 267 recaptures); alone it decides nothing.
 */
export const SCREEN_MODEL: ScreenModel = {
  periodicThreshold: 0.675047,
  minLogBlur: 2.1,
  bias: -1.40369,
  features: {
    luma_peak_prominence: { mean: 0.651516, scale: 0.392628, weight: 1.51604 },
    luma_periodic: { mean: 0.298579, scale: 0.451449, weight: 1.09298 },
    chroma_peak_prominence: { mean: 0, scale: 1, weight: 0 },
    chroma_periodic: { mean: 0, scale: 1, weight: 0 },
    chroma_low_ratio: { mean: -1.15643, scale: 0.644096, weight: -0.185654 },
    chroma_mid_ratio: { mean: -1.52458, scale: 0.753057, weight: 0.850405 },
    saturation: { mean: 0.182407, scale: 0.111749, weight: -0.312903 },
    black_level: { mean: 41.2587, scale: 32.1816, weight: -0.211844 },
    white_level: { mean: 222.558, scale: 51.0323, weight: 0.433196 },
    white_cast: { mean: 0.0162213, scale: 0.0763125, weight: -0.756619 },
    chroma_detail: { mean: 0.153349, scale: 0.138192, weight: 1.49185 },
    edge_chroma: { mean: 0.073141, scale: 0.0708427, weight: -0.0567761 },
    black_ratio: { mean: 0.176925, scale: 0.130221, weight: 0.093567 },
    luma_peak_count: { mean: 0.607256, scale: 2.02827, weight: 0.343482 },
    luma_high_mid_ratio: { mean: -1.48309, scale: 0.578275, weight: 0.513009 },
    glare: { mean: 0.0302472, scale: 0.0574176, weight: -1.0012 },
    log_blur: { mean: 2.98707, scale: 0.365506, weight: -0.442643 },
  },
  threshold: 0.471751,
};

/**
 * Capture problems a person can fix, each limit chosen to flag at most 2% of the photos whose barcode
 * and MRZ the service's own `readSide` read (calibration seed 1001; figures on held-out seed 2002). They
 * depend on the reader: recalibrate when it changes (delete bench/results/calibration/reads-*).
 */
export const QUALITY_LIMITS = {
  /**
   * "La foto está movida": variance of the Laplacian at 800 px below 93.6. Flags 2/125 readable photos
   * (held-out 0/134) and catches 27/50 of the blur profile's unreadable ones (held-out). Read rate by
   * this measure: 7% below 100, 26% at 100–200, 42% at 200–400, 62% at 400–800, 75% at 800–1600.
   */
  blurBelow: 93.64,
  /**
   * "Hay un reflejo sobre los datos": more than 26.4% of the image washed out. The share of washed-out
   * pixels over the whole photo did not predict an unreadable barcode or MRZ in the corpus (read rates
   * 49–80% at every level), so the limit only keeps the message off readable photos (3/125, held-out
   * 1/134) and catches almost nothing (held-out 0/17): glare over the data needs the data's place.
   */
  glareAbove: 0.2637,
  /**
   * "La foto está muy oscura": mean luma below 20.1. Flags 2/125 readable photos (held-out 1/134),
   * catches 8/24 of the low-light profile's unreadable ones (held-out); the reader normalises contrast,
   * so it reads 39% of photos even below 40.
   */
  brightnessBelow: 20.09,
} as const;
