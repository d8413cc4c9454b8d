import type { ScreenFeatureName } from '../quality/screen-features';

/**
 * Thresholds and the recapture model, all fitted on the synthetic corpus (packages/corpus); never set by
 * hand. The recapture model: `node packages/corpus/dist/cli.js calibrate --count 800 --recapture-only
 * --held-out-seed 3003` (2026-11-28), calibration split seed 1001, held out seeds 2002 (the command
 * without `--held-out-seed`) and 3003, 800 documents each (1,335 photos: 1,068 originals under every degradation profile, 134
 * screen and 133 print recaptures). The capture limits (`QUALITY_LIMITS`): `calibrate --count 400`
 * (2026-11-23). docs/documents.md "Screen and print recapture" has the full tables; the reports are
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
 * Calibrated 2026-11-28, after the second chroma axis was added (green–magenta, G − (R + B) / 2: its
 * spectrum's peak and band ratios and its detail ratio, and the blue–red axis's high band;
 * `with_second_chroma_axis` in packages/corpus), and with the candidate chosen by the one-standard-error
 * rule (`mostCautious`: the highest sharpness gate among those within one standard error of the best
 * out-of-fold detection). For ≥ 90% detection at ≤ 2% false alarms: the threshold at the out-of-fold 2%
 * false-alarm limit, moved up into the gap before the lowest recapture detected there. Chosen: every
 * earlier input plus the second axis, gate 2.1, λ 0.01; out of fold on seed 1001 257/267 (96.3%) at
 * 21/1068 (2.0%), was 255/267 at 19/1068. Held out at its threshold: seed 2002 257/267 (96.3%; prints
 * 124/133) at 15/1068 (1.4%), was 249/267 (prints 117/133) at 16/1068; seed 3003 251/267 (94.0%; prints
 * 118/133) at 26/1068 (2.4%), was 250/267 at 23/1068; both 508/534 (95.1%) at 41/2136 (1.9%), was
 * 499/534 at 39/2136. At equal false alarms (5 / 10 / 16 / 21 of 1,068): seed 2002 254 / 256 / 257 /
 * 258 (was 242 / 247 / 249 / 249 at 5 / 10 / 15 / 21), seed 3003 240 / 245 / 250 / 251 (was 235 / 237 /
 * 242 / 246). The comb-free peak is reported as periodic evidence from 0.675 decades; alone it decides
 * nothing.
 */
export const SCREEN_MODEL: ScreenModel = {
  periodicThreshold: 0.675047,
  minLogBlur: 2.1,
  bias: -1.35062,
  features: {
    luma_peak_prominence: { mean: 0.651516, scale: 0.392628, weight: 1.39879 },
    luma_periodic: { mean: 0.298579, scale: 0.451449, weight: 0.962426 },
    chroma_peak_prominence: { mean: 0, scale: 1, weight: 0 },
    chroma_periodic: { mean: 0, scale: 1, weight: 0 },
    chroma_low_ratio: { mean: -1.15643, scale: 0.644096, weight: -0.100937 },
    chroma_mid_ratio: { mean: -1.52458, scale: 0.753057, weight: 0.395046 },
    chroma_high_ratio: { mean: -1.77144, scale: 0.563984, weight: -0.306956 },
    magenta_peak_prominence: { mean: 0.533894, scale: 0.266729, weight: 0.45797 },
    magenta_low_ratio: { mean: -2.00044, scale: 0.504264, weight: -0.0125116 },
    magenta_mid_ratio: { mean: -2.06301, scale: 0.743219, weight: 0.845211 },
    magenta_high_ratio: { mean: -2.01586, scale: 0.554341, weight: -0.100814 },
    saturation: { mean: 0.182407, scale: 0.111749, weight: -0.261915 },
    black_level: { mean: 41.2587, scale: 32.1816, weight: -0.137902 },
    white_level: { mean: 222.558, scale: 51.0323, weight: 0.389042 },
    white_cast: { mean: 0.0162213, scale: 0.0763125, weight: -0.823518 },
    chroma_detail: { mean: 0.153349, scale: 0.138192, weight: 0.941332 },
    magenta_detail: { mean: 0.112951, scale: 0.10879, weight: 1.14732 },
    edge_chroma: { mean: 0.073141, scale: 0.0708427, weight: -0.10064 },
    black_ratio: { mean: 0.176925, scale: 0.130221, weight: 0.1072 },
    luma_peak_count: { mean: 0.607256, scale: 2.02827, weight: 0.30671 },
    luma_high_mid_ratio: { mean: -1.48309, scale: 0.578275, weight: 0.344647 },
    glare: { mean: 0.0302472, scale: 0.0574176, weight: -0.87634 },
    log_blur: { mean: 2.98707, scale: 0.365506, weight: -0.382099 },
  },
  threshold: 0.391801,
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
